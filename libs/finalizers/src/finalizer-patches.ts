import { jsonPointer, type JsonPatchOperation, type KubeObject } from '@steward/kube';

const finalizers = jsonPointer('metadata', 'finalizers');

/**
 * The JSON patch that appends `finalizer` to `obj`'s finalizers only if the list is still what
 * `obj` shows: a `test` of the whole list (of the resourceVersion when `obj` has no list, since
 * `add` of a missing list would replace one written meanwhile), then the `add`. Throws a
 * `TypeError` when neither can be tested (an object that was not read from the API server).
 */
export function addFinalizerPatch(obj: KubeObject, finalizer: string): JsonPatchOperation[] {
  const current = obj.metadata.finalizers;
  if (current && current.length > 0) {
    return [
      { op: 'test', path: finalizers, value: current },
      { op: 'add', path: jsonPointer('metadata', 'finalizers', '-'), value: finalizer },
    ];
  }
  const resourceVersion = obj.metadata.resourceVersion;
  if (!resourceVersion) {
    throw new TypeError(
      'steward/finalizers: the object has neither finalizers nor a resourceVersion; pass it as read from the API server',
    );
  }
  return [
    { op: 'test', path: jsonPointer('metadata', 'resourceVersion'), value: resourceVersion },
    { op: 'add', path: finalizers, value: [finalizer] },
  ];
}

/**
 * The JSON patch that removes `finalizer` from `obj` at the index `obj` shows it, guarded by a
 * `test` that the entry at that index is still `finalizer` — so a list changed meanwhile makes the
 * server reject the patch rather than remove another finalizer. Undefined when `obj` does not
 * carry `finalizer`.
 */
export function removeFinalizerPatch(
  obj: KubeObject,
  finalizer: string,
): JsonPatchOperation[] | undefined {
  const index = (obj.metadata.finalizers ?? []).indexOf(finalizer);
  if (index < 0) return undefined;
  const path = jsonPointer('metadata', 'finalizers', index);
  return [
    { op: 'test', path, value: finalizer },
    { op: 'remove', path },
  ];
}
