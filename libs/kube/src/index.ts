/**
 * @steward/kube — a thin typed client for the Kubernetes API.
 *
 * Contract:
 * - Every call is one (or, on 429, a few) plain HTTP requests built from a client-node `KubeConfig`'s
 *   credentials and sent with undici `fetch`; nothing is cached, nothing is retried except a 429
 *   (or a 5xx carrying `Retry-After`), after `Retry-After`, at most `maxRetries` times.
 * - Writes use the content type their semantics need: server-side apply is
 *   `application/apply-patch+yaml` with a `fieldManager` (force only when asked), merge patch
 *   `application/merge-patch+json`, JSON patch `application/json-patch+json`.
 * - Every request except a watch first passes a client-side token bucket (qps 20, burst 30 by
 *   default); while requests wait for a token, the highest `withRequestPriority` goes first (a
 *   controller runs each reconcile at its key's queue priority). `onRequest` hears about every HTTP request — retries and watch starts included —
 *   with its verb and status code, so callers can count API writes and feed
 *   `rest_client_requests_total`.
 * - An HTTP error is thrown as the `ApiError` subclass for its code and reason (`NotFoundError`,
 *   `ConflictError`, `AlreadyExistsError`, `GoneError`, `InvalidError`, …) carrying the server's
 *   Status message; no answer at all is a `ConnectionError`; an aborted `signal` rejects with the
 *   signal's reason.
 * - `watch` is an async iterable of ADDED/MODIFIED/DELETED/BOOKMARK events; an `ERROR` event in the
 *   stream is thrown as its typed error (410 Expired → `GoneError`); it ends quietly when the
 *   server closes the stream or the signal aborts. Relisting, backoff and inactivity timers are
 *   the informer's job, not this library's.
 * - Objects are plain JSON as on the wire (timestamps are strings); list items get `apiVersion`
 *   and `kind` filled in.
 */
export {
  ConfigMaps,
  CoreEvents,
  CustomResourceDefinitions,
  Events,
  Jobs,
  Leases,
  Namespaces,
  NetworkPolicies,
  Nodes,
  PersistentVolumeClaims,
  PodDisruptionBudgets,
  Pods,
  RoleBindings,
  Roles,
  Secrets,
  ServiceAccounts,
  Services,
  StatefulSets,
} from './built-in-types.js';
export {
  KubeClient,
  type ApplyOptions,
  type CallOptions,
  type DeleteOptions,
  type DryRunOptions,
  type KubeClientOptions,
  type ListOptions,
  type PatchOptions,
} from './client.js';
export { systemWaitClock, type WaitClock } from './clock.js';
export {
  AlreadyExistsError,
  ApiError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  errorFromResponse,
  errorFromStatus,
  ForbiddenError,
  GoneError,
  InvalidError,
  isAlreadyExists,
  isApiError,
  isBadRequest,
  isConflict,
  isConnectionError,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  NotFoundError,
  ServerError,
  TooManyRequestsError,
  UnauthorizedError,
  type ApiErrorInit,
  type RequestTarget,
} from './errors.js';
export {
  type ApplyConfiguration,
  type DeepPartial,
  type KubeObject,
  type ListMeta,
  type ListResult,
  type ManagedFieldsEntry,
  type ObjectMeta,
  type OwnerReference,
} from './kube-object.js';
export { jsonPointer, type JsonPatchOperation } from './patch.js';
export {
  currentRequestPriority,
  TokenBucketRateLimiter,
  withRequestPriority,
  type RequestRateLimiter,
  type TokenBucketOptions,
} from './rate-limiter.js';
export {
  inferVerb,
  resourceOfPath,
  type CallInfo,
  type KubeRequest,
  type QueryValue,
  type RequestInfo,
  type Verb,
} from './request.js';
export { apiPath, apiVersionOf, type ApiPathOptions, type ResourceType } from './resource-type.js';
export { parseRetryAfter } from './retry-after.js';
export { isStatus, type Status, type StatusCause, type StatusDetails } from './status.js';
export { type WatchEvent, type WatchEventType, type WatchOptions } from './watch.js';
