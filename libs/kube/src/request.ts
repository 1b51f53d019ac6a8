/** The Kubernetes verb of a request, as `rest_client_requests_total` and audit logs name it. */
export type Verb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'apply'
  | 'delete'
  | 'deletecollection';

export type QueryValue = string | number | boolean | undefined;

/** A raw request to the API server, for `KubeClient.request`. */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path without query, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, QueryValue>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Defaults to `application/json` when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
  /** The verb reported to `onRequest`; inferred from method, path and content type when omitted. */
  verb?: Verb;
}

/** What `onRequest` hears about every HTTP request: each retry and each watch start counts once. */
export interface RequestInfo {
  method: string;
  /** The API path, without the query string. */
  path: string;
  verb: Verb;
  /** HTTP status code; 0 when no response arrived (connection failure or abort). */
  code: number;
  /** Until the whole body was read; for a watch, until the response headers arrived. */
  durationMs: number;
}

/** One API call as a tracer sees it: before it is sent (retries of it included). */
export interface CallInfo {
  method: string;
  path: string;
  verb: Verb;
  /** The resource the path names, e.g. `pods`, `postgresclusters/status` (low cardinality). */
  resource: string;
}

/**
 * The verb of a raw request: GET is `get` on an object and `list` on a collection (`watch` with
 * `watch=true`), POST `create`, PUT `update`, PATCH `apply` with the apply content type else
 * `patch`, DELETE `delete` on an object and `deletecollection` on a collection.
 */
export function inferVerb(
  request: Pick<KubeRequest, 'method' | 'path' | 'query' | 'contentType'>,
): Verb {
  switch (request.method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return request.contentType?.startsWith('application/apply-patch') ? 'apply' : 'patch';
    case 'DELETE':
      return isCollectionPath(request.path) ? 'deletecollection' : 'delete';
    case 'GET': {
      const watch = request.query?.watch;
      if (watch === true || watch === 'true' || watch === '1' || watch === 1) return 'watch';
      return isCollectionPath(request.path) ? 'list' : 'get';
    }
  }
}

/** True when a resource path names a collection rather than one object (or its subresource). */
function isCollectionPath(path: string): boolean {
  const segments = path.split('/').filter((s) => s !== '');
  // `/api/<v>/…` or `/apis/<group>/<v>/…`; anything else (e.g. `/version`) counts as an object.
  let rest: string[];
  if (segments[0] === 'api') rest = segments.slice(2);
  else if (segments[0] === 'apis') rest = segments.slice(3);
  else return false;
  // `namespaces/<ns>/<plural>…` is namespaced, unless it is the Namespace object's own subresource.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2]!)) {
    rest = rest.slice(2);
  }
  return rest.length === 1;
}

/**
 * The resource (and subresource) an API path names — `configmaps`, `kafkatopics/status` — for
 * counting requests by resource (`RequestInfo.path`). Unrecognised paths come back whole.
 */
export function resourceOfPath(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  let rest = segments[0] === 'api' ? segments.slice(2) : segments.slice(3);
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  return rest[2] ? `${rest[0]}/${rest[2]}` : (rest[0] ?? path);
}
