import { isStatus, type Status, type StatusCause, type StatusDetails } from './status.js';

/** Where a failed request went: carried by every error this client throws for a response. */
export interface RequestTarget {
  method?: string;
  path?: string;
}

export interface ApiErrorInit extends RequestTarget {
  code: number;
  reason: string;
  message: string;
  details?: StatusDetails;
  status?: Status;
}

/**
 * The API server answered with an error. `code` is the HTTP status (or the `code` of an `ERROR`
 * watch event's Status), `reason` the Status reason (`NotFound`, `Conflict`, …, or a reason derived
 * from the code when the body was not a Status), `message` the server's own Status message.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** The Status the server sent, when the body was one. */
  readonly status: Status | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: ApiErrorInit, options?: ErrorOptions) {
    super(init.message, options);
    this.code = init.code;
    this.reason = init.reason;
    this.details = init.details;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
  }
}

/** 400: the request itself is malformed (bad selector, bad patch document, …). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}

/** 401: the credentials were missing, expired or not accepted. */
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
}

/** 403: RBAC (or an admission policy) forbids this user the verb on this resource. */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}

/** 404: the object (or the namespace, or the resource type) does not exist. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/**
 * 409 other than AlreadyExists: a stale resourceVersion on update, a failed delete precondition,
 * or a server-side apply field conflict with another manager. Re-read and retry (or `force` apply).
 */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 409 AlreadyExists: create of a name that is taken. */
export class AlreadyExistsError extends ApiError {
  override name = 'AlreadyExistsError';
}

/**
 * 410 Gone / reason Expired: the requested resourceVersion is too old (compacted, or older than the
 * watch cache). Arrives as an `ERROR` event inside a 200 watch stream; the cure is a fresh list.
 */
export class GoneError extends ApiError {
  override name = 'GoneError';
}

/** 422: the object failed validation (OpenAPI schema, CEL rules, field rules, a failed JSON-patch `test`). */
export class InvalidError extends ApiError {
  override name = 'InvalidError';
  /** The server's per-field reasons, e.g. `{ field: 'spec.size', reason: 'FieldValueInvalid' }`. */
  readonly causes: StatusCause[];

  constructor(init: ApiErrorInit, options?: ErrorOptions) {
    super(init, options);
    this.causes = init.details?.causes ?? [];
  }
}

/** 429: the server (API Priority and Fairness) asked us to slow down, and retries were used up. */
export class TooManyRequestsError extends ApiError {
  override name = 'TooManyRequestsError';
  /** From the `Retry-After` header, else from the Status details; undefined when neither said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: ApiErrorInit & { retryAfterSeconds?: number }, options?: ErrorOptions) {
    super(init, options);
    this.retryAfterSeconds = init.retryAfterSeconds ?? init.details?.retryAfterSeconds;
  }
}

/** 5xx: the server failed (internal error, timeout, unavailable); usually worth retrying later. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/**
 * No usable HTTP answer: connection refused or reset, TLS or DNS failure, a response body cut off,
 * or a watch stream that broke or carried a line that is not a watch event. The underlying error
 * is the `cause`. Not an `ApiError`: the server said nothing.
 */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  readonly method: string;
  readonly path: string;

  constructor(target: { method: string; path: string }, options: ErrorOptions) {
    super(
      `steward/kube: connection to the API server failed: ${target.method} ${target.path}`,
      options,
    );
    this.method = target.method;
    this.path = target.path;
  }
}

const reasonForCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * The typed error for a Status: by HTTP code, refined by reason (409 AlreadyExists vs Conflict;
 * reason Expired or Gone is a `GoneError` whatever the code). `code` overrides `status.code`.
 */
export function errorFromStatus(
  status: Status,
  context: RequestTarget & { code?: number; retryAfterSeconds?: number } = {},
): ApiError {
  const code = context.code ?? status.code ?? 500;
  const reason = status.reason || reasonForCode[code] || 'Unknown';
  const init: ApiErrorInit & { retryAfterSeconds?: number } = {
    code,
    reason,
    message: status.message || `${code} ${reason}`,
    details: status.details,
    status,
    method: context.method,
    path: context.path,
    retryAfterSeconds: context.retryAfterSeconds,
  };
  if (reason === 'Expired' || reason === 'Gone' || code === 410) return new GoneError(init);
  switch (code) {
    case 400:
      return new BadRequestError(init);
    case 401:
      return new UnauthorizedError(init);
    case 403:
      return new ForbiddenError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return reason === 'AlreadyExists' ? new AlreadyExistsError(init) : new ConflictError(init);
    case 422:
      return new InvalidError(init);
    case 429:
      return new TooManyRequestsError(init);
  }
  return code >= 500 ? new ServerError(init) : new ApiError(init);
}

/**
 * The typed error for an HTTP error response. A body that is a Status gives reason, message and
 * details; any other body (e.g. a proxy's text) becomes the message, trimmed.
 */
export function errorFromResponse(
  code: number,
  body: string,
  context: RequestTarget & { retryAfterSeconds?: number } = {},
): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const status: Status = isStatus(parsed)
    ? parsed
    : { kind: 'Status', status: 'Failure', code, message: body.trim().slice(0, 1024) || undefined };
  return errorFromStatus(status, { ...context, code });
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
export const isBadRequest = (e: unknown): e is BadRequestError => e instanceof BadRequestError;
export const isUnauthorized = (e: unknown): e is UnauthorizedError =>
  e instanceof UnauthorizedError;
export const isForbidden = (e: unknown): e is ForbiddenError => e instanceof ForbiddenError;
export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;
export const isAlreadyExists = (e: unknown): e is AlreadyExistsError =>
  e instanceof AlreadyExistsError;
export const isGone = (e: unknown): e is GoneError => e instanceof GoneError;
export const isInvalid = (e: unknown): e is InvalidError => e instanceof InvalidError;
export const isTooManyRequests = (e: unknown): e is TooManyRequestsError =>
  e instanceof TooManyRequestsError;
export const isServerError = (e: unknown): e is ServerError => e instanceof ServerError;
export const isConnectionError = (e: unknown): e is ConnectionError => e instanceof ConnectionError;
