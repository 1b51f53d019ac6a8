import { DeletedFinalStateUnknown, objectKey, type EventHandler } from '@steward/informer';
import { type KubeObject, type ResourceType } from '@steward/kube';
import { Priorities } from '@steward/workqueue';
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
 * The priority of the keys an event maps to, in a controller's fair queue:
 * - `Priorities.low` for what only confirms the cache: the informer's initial list (and the replay
 *   of its cache to a handler added late) and resyncs (an update whose old and new objects have
 *   the same resourceVersion) — the bulk a start or a resync brings;
 * - `Priorities.high` for deletions: a delete event, or an object whose `deletionTimestamp` is set
 *   (also in the initial list: a deletion a restart interrupted is not bulk);
 * - `live` for any other change: the source's own priority (`Priorities.normal`; `owns(...)`
 *   sources use `Priorities.high`, so an owned pod's change is not behind bulk work).
 * A resync is low even for an object being deleted: nothing changed.
 */
export function eventPriority(
  event: 'add' | 'initial' | 'update' | 'resync' | 'delete',
  obj: KubeObject,
  live: number = Priorities.normal,
): number {
  if (event === 'resync') return Priorities.low;
  if (event === 'delete' || obj.metadata.deletionTimestamp) return Priorities.high;
  return event === 'initial' ? Priorities.low : live;
}

/**
 * An informer handler that filters events through `predicates` and adds the keys `map` yields to
 * `enqueue`, each with the event's priority ({@link eventPriority}; `priority` is the one of live
 * changes). Updates enqueue the keys of both the old and the new state (an owner reference may
 * have moved). Tombstones are unwrapped.
 */
export function mappingHandler<T extends KubeObject>(
  map: MapFunc<T>,
  predicates: readonly Predicate<T>[],
  enqueue: (key: string, priority: number) => void,
  priority: number = Priorities.normal,
): EventHandler<T> {
  return {
    onAdd: (obj, isInInitialList) => {
      if (!passesCreate(predicates, obj)) return;
      const p = eventPriority(isInInitialList ? 'initial' : 'add', obj, priority);
      for (const key of map(obj)) enqueue(key, p);
    },
    onUpdate: (old, obj) => {
      if (!passesUpdate(predicates, old, obj)) return;
      const version = obj.metadata.resourceVersion;
      const resync =
        old === obj || (version !== undefined && old.metadata.resourceVersion === version);
      const p = eventPriority(resync ? 'resync' : 'update', obj, priority);
      const keys = new Set([...map(old), ...map(obj)]);
      for (const key of keys) enqueue(key, p);
    },
    onDelete: (deleted) => {
      const obj = deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
      if (!passesDelete(predicates, obj)) return;
      for (const key of map(obj)) enqueue(key, Priorities.high);
    },
  };
}
