import { type KubeObject, type OwnerReference } from '@steward/kube';

/**
 * The ownerReference that makes `parent` the controller of a child: `controller: true` (one per
 * object; what `owns()` maps events back by, and what this library reads as "ours") and
 * `blockOwnerDeletion: true` (a foreground deletion of the parent waits for the child). Throws a
 * `TypeError` for a parent that was not read from the API server (no uid).
 */
export function controllerReference(parent: KubeObject): OwnerReference {
  const { name, uid } = parent.metadata;
  if (!parent.apiVersion || !parent.kind || !name || !uid) {
    throw new TypeError(
      'steward/workload: a parent needs apiVersion, kind, metadata.name and metadata.uid (read it from the API server)',
    );
  }
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object's controller reference (the one marked `controller: true`), if it has one. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** True when `parent` (by uid) is the controller of `obj`. */
export function isControlledBy(obj: KubeObject, parent: KubeObject): boolean {
  const uid = parent.metadata.uid;
  return uid !== undefined && controllerOf(obj)?.uid === uid;
}
