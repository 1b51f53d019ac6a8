import { DeletedFinalStateUnknown, objectKey, type EventHandler } from '@steward/informer';
import { type KubeObject, type ResourceType } from '@steward/kube';
import { passesCreate, passesDelete, passesUpdate, type Predicate } from './predicates.js';

/** Maps an object to the keys of the objects to reconcile because of it. */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly string[];

/** The object itself: `namespace/name` (controller-runtime's EnqueueRequestForObject). */
export const enqueueForObject: MapFunc = (obj) => [objectKey(obj)];

/**
 * The owner named by the object's ownerReferences whose group and kind are `owner`'s
 * (controller-runtime's EnqueueRequestForOwner, comparing group — not version — and kind). With
 * `onlyController` (the default), only the reference marked `controller: true` counts. Owners of
 * namespaced objects live in the same namespace; a cluster-scoped owner is keyed by name alone.
 */
export function enqueueForOwner(
  owner: ResourceType,
  options: { onlyController?: boolean } = {},
): MapFunc {
  const onlyController = options.onlyController ?? true;
  return (obj) =>
    (obj.metadata.ownerReferences ?? [])
      .filter((ref) => {
        if (ref.kind !== owner.kind) return false;
        const slash = ref.apiVersion.indexOf('/');
        const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
        return group === owner.group && (!onlyController || ref.controller === true);
      })
      .map((ref) =>
        owner.namespaced && obj.metadata.namespace
          ? `${obj.metadata.namespace}/${ref.name}`
          : ref.name,
      );
}

/**
 * An informer handler that filters events through `predicates` and adds the keys `map` yields to
 * `enqueue`. Updates enqueue the keys of both the old and the new state (an owner reference may
 * have moved). Tombstones are unwrapped.
 */
export function mappingHandler<T extends KubeObject>(
  map: MapFunc<T>,
  predicates: readonly Predicate<T>[],
  enqueue: (key: string) => void,
): EventHandler<T> {
  const add = (obj: T): void => {
    for (const key of map(obj)) enqueue(key);
  };
  return {
    onAdd: (obj) => {
      if (passesCreate(predicates, obj)) add(obj);
    },
    onUpdate: (old, obj) => {
      if (!passesUpdate(predicates, old, obj)) return;
      const keys = new Set([...map(old), ...map(obj)]);
      for (const key of keys) enqueue(key);
    },
    onDelete: (deleted) => {
      const obj = deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
      if (passesDelete(predicates, obj)) add(obj);
    },
  };
}
