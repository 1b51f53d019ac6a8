import { type KubeObject } from '@steward/kube';

/**
 * What `withFinalizer` does with an object, decided from the object alone:
 * - `add`: live, without our finalizer → add it and return;
 * - `apply`: live, with our finalizer → the caller's `apply`;
 * - `cleanup`: being deleted, with our finalizer → the caller's `cleanup`, then remove it;
 * - `none`: being deleted, without our finalizer → nothing left for us to do.
 */
export type FinalizerStep = 'add' | 'apply' | 'cleanup' | 'none';

/** True once the API server has set `metadata.deletionTimestamp`: the object is going away. */
export function isBeingDeleted(obj: KubeObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp);
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

export function finalizerStep(obj: KubeObject, finalizer: string): FinalizerStep {
  const present = hasFinalizer(obj, finalizer);
  if (isBeingDeleted(obj)) return present ? 'cleanup' : 'none';
  return present ? 'apply' : 'add';
}
