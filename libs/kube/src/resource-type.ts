/**
 * What the client needs to know to address one kind of object on the API server: its group,
 * version and kind, the plural used in URLs, and whether objects live in a namespace.
 * `group` is `''` for the core ("legacy") group, served under `/api/v1`.
 */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface ApiPathOptions {
  /** Namespace of a namespaced kind; omitted means "all namespaces" (list and watch only). Ignored for cluster-scoped kinds. */
  namespace?: string;
  /** The object's name; omitted means the collection. */
  name?: string;
  /** A subresource of the named object, such as `status` or `scale`. */
  subresource?: string;
}

/** `v1` for the core group, `<group>/<version>` otherwise: the `apiVersion` objects of `rt` carry. */
export function apiVersionOf(rt: ResourceType): string {
  return rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
}

/**
 * The URL path of a collection, an object, or an object's subresource, e.g.
 * `/apis/apps/v1/namespaces/db/statefulsets/pg/status`. Names and namespaces are URL-encoded.
 * Throws a `TypeError` for a subresource without a name, and for an empty name or namespace.
 */
export function apiPath(rt: ResourceType, options: ApiPathOptions = {}): string {
  const { namespace, name, subresource } = options;
  if (subresource !== undefined && name === undefined) {
    throw new TypeError(`steward/kube: subresource "${subresource}" needs an object name`);
  }
  if (name === '') throw new TypeError('steward/kube: an object name must not be empty');
  if (namespace === '' && rt.namespaced) {
    throw new TypeError('steward/kube: a namespace must not be empty');
  }
  const segments = [rt.group === '' ? 'api' : 'apis'];
  if (rt.group !== '') segments.push(rt.group);
  segments.push(rt.version);
  if (rt.namespaced && namespace !== undefined) segments.push('namespaces', namespace);
  segments.push(rt.plural);
  if (name !== undefined) segments.push(name);
  if (subresource !== undefined) segments.push(subresource);
  return '/' + segments.map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join('/');
}
