/**
 * Object metadata as it travels on the wire (JSON): timestamps are RFC 3339 strings, not `Date`s —
 * unlike client-node's generated `V1ObjectMeta`, whose deserializer this client does not use.
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** One field manager's ownership record, maintained by the server for server-side apply. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * Any Kubernetes object. Objects returned by `KubeClient` always carry `apiVersion` and `kind`
 * (the client fills them into list items, where the server omits them).
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** Metadata of a list response. */
export interface ListMeta {
  /** The collection's resourceVersion: start a watch from here to see every later change. */
  resourceVersion: string;
  /** Opaque token for the next page; absent on the last page. */
  continue?: string;
  /** How many items remain after this page, when the server can tell. */
  remainingItemCount?: number;
}

export interface ListResult<T extends KubeObject> {
  items: T[];
  metadata: ListMeta;
}

/** Every field optional, recursively: the shape of a server-side apply configuration. */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * What `apply` sends: only the fields the field manager owns, plus the identity of the object.
 * Fields `T` declares are type-checked; other top-level fields (`spec`, `data`, … of the default
 * `KubeObject`) are allowed. It must not carry `metadata.managedFields`; a
 * `metadata.resourceVersion` becomes a precondition.
 */
export type ApplyConfiguration<T extends KubeObject = KubeObject> = DeepPartial<T> & {
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
};
