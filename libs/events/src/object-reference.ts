import { type KubeObject } from '@steward/kube';

/** The object an Event is about, as `events.k8s.io/v1` `regarding` carries it. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  /** Empty or absent for a cluster-scoped object. */
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

/** What an Event may be recorded about: the object as read, or a reference to it. */
export type Regarding = KubeObject | ObjectReference;

/** The reference to `regarding`, keeping only the fields an Event's `regarding` has. */
export function referenceTo(regarding: Regarding): ObjectReference {
  const source =
    'metadata' in regarding
      ? {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          namespace: regarding.metadata.namespace,
          name: regarding.metadata.name ?? '',
          uid: regarding.metadata.uid,
          resourceVersion: regarding.metadata.resourceVersion,
        }
      : regarding;
  const reference: ObjectReference = {
    apiVersion: source.apiVersion,
    kind: source.kind,
    name: source.name,
  };
  if (source.namespace) reference.namespace = source.namespace;
  if (source.uid) reference.uid = source.uid;
  if (source.resourceVersion) reference.resourceVersion = source.resourceVersion;
  return reference;
}

/**
 * Identifies the object across calls: its uid when known (a deleted and re-created object is a new
 * object), else kind, namespace and name. The resourceVersion is deliberately left out: repeats
 * about a changing object still belong together.
 */
export function objectKey(reference: ObjectReference): string {
  return reference.uid
    ? `uid:${reference.uid}`
    : `ref:${reference.apiVersion}/${reference.kind}/${reference.namespace ?? ''}/${reference.name}`;
}
