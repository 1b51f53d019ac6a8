import { type KubeConfig } from '@kubernetes/client-node';
import { type Dispatcher, fetch, type Response } from 'undici';
import { systemWaitClock, type WaitClock } from './clock.js';
import { Connection } from './connection.js';
import { ConnectionError, errorFromResponse } from './errors.js';
import {
  type ApplyConfiguration,
  type KubeObject,
  type ListMeta,
  type ListResult,
} from './kube-object.js';
import { type JsonPatchOperation } from './patch.js';
import { type RequestRateLimiter, TokenBucketRateLimiter } from './rate-limiter.js';
import { apiPath, apiVersionOf, type ResourceType } from './resource-type.js';
import {
  inferVerb,
  resourceOfPath,
  type CallInfo,
  type KubeRequest,
  type RequestInfo,
  type Verb,
} from './request.js';
import { parseRetryAfter } from './retry-after.js';
import { type Status } from './status.js';
import { readWatchEvents, type WatchEvent, type WatchOptions } from './watch.js';

export interface KubeClientOptions {
  /** Sustained requests per second of the client-side limiter. Default 20 (`Infinity`: no limit). */
  qps?: number;
  /** Requests allowed at once after a quiet period. Default 30. */
  burst?: number;
  /** `User-Agent` header. Default `steward-kube`. */
  userAgent?: string;
  /**
   * Field manager for server-side apply, and sent with every create, update and patch so that
   * `managedFields` name this controller. `apply` throws without one (here or per call).
   */
  fieldManager?: string;
  /**
   * Called once per HTTP request — each retry and each watch start included — after it finished
   * (for a watch: once the response headers arrived). Exceptions it throws are ignored.
   */
  onRequest?: (info: RequestInfo) => void;
  /**
   * Wraps each call made through `request` (all but `watch`), its retries included, e.g. in a
   * trace span: it must call `send` once and answer what it answers (or throw what it throws).
   */
  traceCall?: <R>(info: CallInfo, send: () => Promise<R>) => Promise<R>;
  /** How often a 429, or a 5xx carrying Retry-After, is retried before its error is thrown. Default 5. */
  maxRetries?: number;
  /** Replaces the qps/burst token bucket, e.g. to share one limiter between clients. */
  rateLimiter?: RequestRateLimiter;
  /** Time source for the limiter and for retry waits (tests inject a fake). */
  clock?: WaitClock;
}

export interface CallOptions {
  /** Aborting rejects the call with the signal's reason (the request is cancelled). */
  signal?: AbortSignal;
}

export interface ListOptions extends CallOptions {
  /** Omitted lists all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the answer then carries `metadata.continue` while more remain. */
  limit?: number;
  /** The previous page's `metadata.continue`. */
  continue?: string;
  /**
   * Omitted: the latest state (a quorum read). `"0"`: whatever the server has cached (may be
   * stale; `limit` may be ignored). With `resourceVersionMatch: 'Exact'`: the state at that version
   * (410 `GoneError` if compacted).
   */
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface DryRunOptions extends CallOptions {
  /** Validate and admit the request, but persist nothing (`dryRun=All`). */
  dryRun?: boolean;
}

export interface DeleteOptions extends DryRunOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Delete only if the object still has this uid / resourceVersion; otherwise `ConflictError`. */
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface ApplyOptions extends DryRunOptions {
  /** Overrides the client's `fieldManager` for this call. */
  fieldManager?: string;
  /** Take ownership of fields other managers own instead of failing with `ConflictError`. */
  force?: boolean;
  /** e.g. `status`, to apply to the status subresource. */
  subresource?: string;
}

export interface PatchOptions extends DryRunOptions {
  subresource?: string;
}

const applyPatchType = 'application/apply-patch+yaml';
const mergePatchType = 'application/merge-patch+json';
const jsonPatchType = 'application/json-patch+json';

/** A watch may be quiet for longer than undici's default 300 s body timeout; its owner decides. */
const noBodyTimeout: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
  dispatch({ ...options, bodyTimeout: 0 }, handler);

interface Answer {
  code: number;
  headers: Headers;
  text: string;
}

/**
 * A typed client for any resource on one API server, built on the credentials of a client-node
 * `KubeConfig` and undici's `fetch` (not on client-node's generated API classes).
 *
 * Every method except `watch` passes the client-side rate limiter before each HTTP attempt, and
 * retries a 429 (or a 5xx with `Retry-After`) after the server's `Retry-After` (1 s when a 429
 * lacks one), at most `maxRetries` times. Errors: an HTTP error becomes the `ApiError` subclass for
 * its code and reason (see errors.ts); no answer becomes `ConnectionError`; an aborted `signal`
 * rejects with the signal's reason; a call that cannot be addressed (a namespaced kind without a
 * namespace, an object without a name, `apply` without a field manager) throws a `TypeError`
 * before sending anything.
 */
export class KubeClient {
  private readonly connection: Connection;
  private readonly limiter: RequestRateLimiter;
  private readonly clock: WaitClock;
  private readonly userAgent: string;
  private readonly fieldManager: string | undefined;
  private readonly maxRetries: number;
  private readonly onRequest: ((info: RequestInfo) => void) | undefined;
  private readonly traceCall: KubeClientOptions['traceCall'];

  /**
   * Talks to the current context's cluster as its user. Sends nothing yet. Throws a `TypeError`
   * when the KubeConfig has no current cluster, a `RangeError` for qps ≤ 0 or burst < 1.
   */
  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    this.connection = new Connection(kubeConfig);
    this.clock = options.clock ?? systemWaitClock;
    this.limiter =
      options.rateLimiter ??
      new TokenBucketRateLimiter({
        qps: options.qps ?? 20,
        burst: options.burst ?? 30,
        clock: this.clock,
      });
    this.userAgent = options.userAgent ?? 'steward-kube';
    this.fieldManager = options.fieldManager;
    this.maxRetries = Math.max(0, options.maxRetries ?? 5);
    this.onRequest = options.onRequest;
    this.traceCall = options.traceCall;
  }

  /**
   * GET one object. Throws `NotFoundError` when it does not exist, `ForbiddenError` without RBAC
   * `get`, and the other errors listed on the class.
   */
  async get<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    namespace?: string,
    options: CallOptions = {},
  ): Promise<T> {
    const object = await this.request<T>({
      method: 'GET',
      path: objectPath(rt, name, namespace),
      signal: options.signal,
      verb: 'get',
    });
    return withTypeMeta(rt, object);
  }

  /**
   * GET the collection (one page of it when `limit` is set). Items carry `apiVersion` and `kind`,
   * which the server leaves out of list items. Throws `GoneError` for an expired `continue` token
   * or a compacted exact `resourceVersion`, `BadRequestError` for a malformed selector, and the
   * other errors listed on the class.
   */
  async list<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    options: ListOptions = {},
  ): Promise<ListResult<T>> {
    const answer = await this.request<{ items?: T[] | null; metadata?: Partial<ListMeta> }>({
      method: 'GET',
      path: apiPath(rt, { namespace: options.namespace }),
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
      },
      signal: options.signal,
      verb: 'list',
    });
    const metadata: ListMeta = { resourceVersion: answer.metadata?.resourceVersion ?? '' };
    if (answer.metadata?.continue) metadata.continue = answer.metadata.continue;
    if (answer.metadata?.remainingItemCount !== undefined) {
      metadata.remainingItemCount = answer.metadata.remainingItemCount;
    }
    return { items: (answer.items ?? []).map((item) => withTypeMeta(rt, item)), metadata };
  }

  /**
   * POST `obj` to its collection (namespace from `obj.metadata.namespace`); `apiVersion` and `kind`
   * are filled from `rt` when missing. Throws `AlreadyExistsError` when the name is taken,
   * `InvalidError` when validation or admission rejects it, and the other errors listed on the class.
   */
  async create<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    options: DryRunOptions = {},
  ): Promise<T> {
    const namespace = namespaceFor(rt, obj.metadata.namespace);
    const created = await this.request<T>({
      method: 'POST',
      path: apiPath(rt, { namespace }),
      query: this.writeQuery(options.dryRun),
      body: withTypeMeta(rt, { ...obj }),
      signal: options.signal,
      verb: 'create',
    });
    return withTypeMeta(rt, created);
  }

  /**
   * PUT `obj` over the stored object. The server compares `metadata.resourceVersion` with the
   * stored one and answers `ConflictError` when they differ (an object without a resourceVersion
   * is written unconditionally for kinds that allow it). The status is ignored for kinds with a
   * status subresource. Throws `NotFoundError`, `InvalidError` and the other errors listed on the class.
   */
  async update<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    options: DryRunOptions = {},
  ): Promise<T> {
    return this.put(rt, obj, undefined, options);
  }

  /**
   * PUT `obj` to the `status` subresource: only `.status` is written (and only with a matching
   * resourceVersion, else `ConflictError`). Throws `NotFoundError` for a kind without a status
   * subresource, `InvalidError` and the other errors listed on the class.
   */
  async updateStatus<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: T,
    options: DryRunOptions = {},
  ): Promise<T> {
    return this.put(rt, obj, 'status', options);
  }

  /**
   * DELETE one object, with `DeleteOptions` in the body. Answers what the server answered: the
   * object while finalizers or graceful deletion hold it (with `deletionTimestamp` set; some kinds,
   * custom resources among them, also return the last state of an object removed at once), or a
   * Success `Status` (see `isStatus`). Throws `NotFoundError` when it is already gone,
   * `ConflictError` when a precondition does not match, and the other errors listed on the class.
   */
  async delete<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<T | Status> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    if (options.preconditions) body.preconditions = options.preconditions;
    if (options.gracePeriodSeconds !== undefined) {
      body.gracePeriodSeconds = options.gracePeriodSeconds;
    }
    if (options.dryRun) body.dryRun = ['All'];
    return this.request<T | Status>({
      method: 'DELETE',
      path: objectPath(rt, name, namespace),
      body,
      signal: options.signal,
      verb: 'delete',
    });
  }

  /**
   * Server-side apply: PATCH `application/apply-patch+yaml` with `fieldManager` (and `force=true`
   * only when `force` is set). Creates the object if missing; otherwise the manager comes to own
   * exactly the fields in `obj`, and fields it owned before but left out are removed.
   * `apiVersion`/`kind` are filled from `rt` when missing. Throws `ConflictError` when another
   * manager owns a field with a different value (unless `force`), `InvalidError` when the result
   * is invalid, `TypeError` without a field manager, and the other errors listed on the class.
   */
  async apply<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    obj: ApplyConfiguration<T>,
    options: ApplyOptions = {},
  ): Promise<T> {
    const fieldManager = options.fieldManager ?? this.fieldManager;
    if (!fieldManager) {
      throw new TypeError('steward/kube: apply needs a fieldManager (client option or per call)');
    }
    const applied = await this.request<T>({
      method: 'PATCH',
      path: objectPath(rt, obj.metadata.name, obj.metadata.namespace, options.subresource),
      query: {
        fieldManager,
        force: options.force === true ? 'true' : undefined,
        dryRun: options.dryRun ? 'All' : undefined,
      },
      body: withTypeMeta(rt, { ...obj } as Partial<KubeObject>),
      contentType: applyPatchType,
      signal: options.signal,
      verb: 'apply',
    });
    return withTypeMeta(rt, applied);
  }

  /**
   * JSON merge patch (RFC 7386, `application/merge-patch+json`): objects merge, `null` deletes a
   * key, arrays are replaced whole. Throws `NotFoundError`, `InvalidError`, `ConflictError` when
   * the patch carries a stale `metadata.resourceVersion`, and the other errors listed on the class.
   */
  async mergePatch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(rt, name, namespace, patch, mergePatchType, options);
  }

  /**
   * JSON patch (RFC 6902, `application/json-patch+json`), applied atomically: if any operation
   * fails — a `test` that does not match, a path that does not exist — nothing is written and the
   * server's rejection is thrown (`InvalidError`, 422). Throws `NotFoundError` and the other
   * errors listed on the class.
   */
  async jsonPatch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    name: string,
    namespace: string | undefined,
    operations: JsonPatchOperation[],
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(rt, name, namespace, operations, jsonPatchType, options);
  }

  /**
   * GET with `watch=true`: a stream of changes, read as newline-delimited JSON from a 200
   * response, starting when iteration starts. Not rate limited and not retried. Ends when the
   * server closes the stream (after `timeoutSeconds`) or `signal` aborts (no error then; leaving
   * a `for await` loop early also cancels the request). Throws the typed error of an `ERROR` event
   * — `GoneError` for a too-old resourceVersion (410 Expired) — or of a non-200 answer, and
   * `ConnectionError` if the stream breaks. Objects from the stream are not cached or copied.
   */
  watch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    options: WatchOptions = {},
  ): AsyncIterableIterator<WatchEvent<T>> {
    return this.watchStream<T>(rt, options);
  }

  /**
   * Sends one raw request (the primitive under every method but `watch`): rate limited, retried
   * as described on the class, reported to `onRequest`. Answers the response body parsed as JSON
   * (or its text when it is not JSON). Throws the typed error of a non-2xx answer,
   * `ConnectionError` without one.
   */
  async request<R = unknown>(request: KubeRequest): Promise<R> {
    const verb = request.verb ?? inferVerb(request);
    if (!this.traceCall) return this.requestWithRetries<R>(request, verb);
    const info: CallInfo = {
      method: request.method,
      path: request.path,
      verb,
      resource: resourceOfPath(request.path),
    };
    return this.traceCall(info, () => this.requestWithRetries<R>(request, verb));
  }

  private async requestWithRetries<R>(request: KubeRequest, verb: Verb): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      await this.limiter.acquire(request.signal);
      const answer = await this.send(request, verb);
      if (answer.code >= 200 && answer.code < 300) return parseBody(answer.text) as R;
      const retryAfterSeconds = parseRetryAfter(answer.headers.get('retry-after'), Date.now());
      const retryable =
        answer.code === 429 || (answer.code >= 500 && retryAfterSeconds !== undefined);
      if (retryable && attempt < this.maxRetries) {
        await this.clock.sleep((retryAfterSeconds ?? 1) * 1000, request.signal);
        continue;
      }
      if (answer.code === 401) this.connection.renew();
      throw errorFromResponse(answer.code, answer.text, {
        method: request.method,
        path: request.path,
        retryAfterSeconds,
      });
    }
  }

  /** Closes pooled connections once in-flight requests are done; abort watches first. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  private async put<T extends KubeObject>(
    rt: ResourceType,
    obj: T,
    subresource: string | undefined,
    options: DryRunOptions,
  ): Promise<T> {
    const written = await this.request<T>({
      method: 'PUT',
      path: objectPath(rt, obj.metadata.name, obj.metadata.namespace, subresource),
      query: this.writeQuery(options.dryRun),
      body: withTypeMeta(rt, { ...obj }),
      signal: options.signal,
      verb: 'update',
    });
    return withTypeMeta(rt, written);
  }

  private async patch<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    namespace: string | undefined,
    body: unknown,
    contentType: string,
    options: PatchOptions,
  ): Promise<T> {
    const patched = await this.request<T>({
      method: 'PATCH',
      path: objectPath(rt, name, namespace, options.subresource),
      query: this.writeQuery(options.dryRun),
      body,
      contentType,
      signal: options.signal,
      verb: 'patch',
    });
    return withTypeMeta(rt, patched);
  }

  private writeQuery(dryRun: boolean | undefined): Record<string, string | undefined> {
    return { fieldManager: this.fieldManager, dryRun: dryRun ? 'All' : undefined };
  }

  /** One HTTP attempt of a non-watch request, body read in full. */
  private async send(request: KubeRequest, verb: Verb): Promise<Answer> {
    const started = this.clock.now();
    const response = await this.open(request, verb, started, false);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      this.report(request, verb, response.status, started);
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ConnectionError(request, { cause: error });
    }
    this.report(request, verb, response.status, started);
    return { code: response.status, headers: response.headers, text };
  }

  private async open(
    request: KubeRequest,
    verb: Verb,
    started: number,
    watch: boolean,
  ): Promise<Response> {
    const url = this.connection.url(request.path, request.query);
    const prepared = await this.connection.prepare(url, request.method);
    const headers: Record<string, string> = {
      ...prepared.headers,
      Accept: 'application/json',
      'User-Agent': this.userAgent,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['Content-Type'] = request.contentType ?? 'application/json';
    }
    try {
      return await fetch(url, {
        method: request.method,
        headers,
        body,
        dispatcher: watch ? prepared.dispatcher.compose(noBodyTimeout) : prepared.dispatcher,
        signal: request.signal,
      });
    } catch (error) {
      this.report(request, verb, 0, started);
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ConnectionError(request, { cause: error });
    }
  }

  private async *watchStream<T extends KubeObject>(
    rt: ResourceType,
    options: WatchOptions,
  ): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const outer = options.signal;
    if (outer?.aborted) return;
    const controller = new AbortController();
    const forward = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', forward, { once: true });
    const request: KubeRequest = {
      method: 'GET',
      path: apiPath(rt, { namespace: options.namespace }),
      query: {
        watch: 'true',
        resourceVersion: options.resourceVersion,
        timeoutSeconds: options.timeoutSeconds,
        allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : undefined,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      },
      signal: controller.signal,
      verb: 'watch',
    };
    try {
      let response: Response;
      const started = this.clock.now();
      try {
        response = await this.open(request, 'watch', started, true);
      } catch (error) {
        if (controller.signal.aborted) return;
        throw error;
      }
      this.report(request, 'watch', response.status, started);
      if (response.status !== 200 || response.body === null) {
        let text = '';
        try {
          text = await response.text();
        } catch {
          if (controller.signal.aborted) return;
        }
        throw errorFromResponse(response.status, text, {
          method: 'GET',
          path: request.path,
          retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after'), Date.now()),
        });
      }
      for await (const event of readWatchEvents<T>(response.body, controller.signal, {
        method: 'GET',
        path: request.path,
      })) {
        yield event;
      }
    } finally {
      outer?.removeEventListener('abort', forward);
      controller.abort();
    }
  }

  private report(request: KubeRequest, verb: Verb, code: number, started: number): void {
    if (!this.onRequest) return;
    try {
      this.onRequest({
        method: request.method,
        path: request.path,
        verb,
        code,
        durationMs: Math.max(0, this.clock.now() - started),
      });
    } catch {
      // A metrics hook must never fail an API call.
    }
  }
}

function namespaceFor(rt: ResourceType, namespace: string | undefined): string | undefined {
  if (!rt.namespaced) return undefined;
  if (!namespace) {
    throw new TypeError(`steward/kube: ${rt.kind} is namespaced; a namespace is required`);
  }
  return namespace;
}

function objectPath(
  rt: ResourceType,
  name: string | undefined,
  namespace: string | undefined,
  subresource?: string,
): string {
  if (!name) throw new TypeError(`steward/kube: a ${rt.kind} name is required`);
  return apiPath(rt, { namespace: namespaceFor(rt, namespace), name, subresource });
}

/** Fills `apiVersion` and `kind` from `rt` where missing (the server leaves them out of list items). */
function withTypeMeta<O extends Partial<KubeObject>>(rt: ResourceType, object: O): O {
  if (typeof object !== 'object' || object === null) return object;
  if (!object.apiVersion) object.apiVersion = apiVersionOf(rt);
  if (!object.kind) object.kind = rt.kind;
  return object;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
