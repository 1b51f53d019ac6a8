import { DeletedFinalStateUnknown } from '@steward/informer';
import { type KubeObject, type ResourceType } from '@steward/kube';
import { Priorities } from '@steward/workqueue';
import { describe, expect, it } from 'vitest';
import { enqueueForObject, enqueueForOwner, eventPriority, mappingHandler } from './handlers.js';
import { generationChanged } from './predicates.js';

const Widgets: ResourceType = {
  group: 'smoke.steward.dev',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

function child(
  owners: { apiVersion: string; kind: string; name: string; controller?: boolean }[],
  generation = 1,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'ns',
      generation,
      ownerReferences: owners.map((o) => ({ ...o, uid: `uid-${o.name}` })),
    },
  };
}

describe('enqueueForOwner', () => {
  it.each([
    [
      'the controller owner of the kind',
      [{ apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'w', controller: true }],
      ['ns/w'],
    ],
    [
      'another version of the same group',
      [{ apiVersion: 'smoke.steward.dev/v1', kind: 'Widget', name: 'w', controller: true }],
      ['ns/w'],
    ],
    [
      'a non-controller owner',
      [{ apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'w' }],
      [],
    ],
    [
      'an owner of another group',
      [{ apiVersion: 'other.dev/v1alpha1', kind: 'Widget', name: 'w', controller: true }],
      [],
    ],
    [
      'an owner of another kind',
      [{ apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Gadget', name: 'w', controller: true }],
      [],
    ],
  ])('maps %s', (_case, owners, keys) => {
    expect(enqueueForOwner(Widgets)(child(owners))).toEqual(keys);
  });

  it('maps every owner of the kind when not limited to the controller', () => {
    const obj = child([
      { apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'a' },
      { apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'b', controller: true },
    ]);
    expect(enqueueForOwner(Widgets, { onlyController: false })(obj)).toEqual(['ns/a', 'ns/b']);
  });
});

describe('mappingHandler', () => {
  it('enqueues mapped keys on add, both states on update, and unwraps tombstones on delete', () => {
    const keys: string[] = [];
    const handler = mappingHandler(enqueueForOwner(Widgets), [], (k) => keys.push(k));
    const a = child([
      { apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'a', controller: true },
    ]);
    const b = child([
      { apiVersion: 'smoke.steward.dev/v1alpha1', kind: 'Widget', name: 'b', controller: true },
    ]);
    handler.onAdd!(a, true);
    handler.onUpdate!(a, b);
    handler.onDelete!(new DeletedFinalStateUnknown('ns/c', b));
    expect(keys).toEqual(['ns/a', 'ns/a', 'ns/b', 'ns/b']);
  });

  it('drops events its predicates reject', () => {
    const keys: string[] = [];
    const handler = mappingHandler(enqueueForObject, [generationChanged], (k) => keys.push(k));
    const v1 = child([], 1);
    handler.onUpdate!(v1, { ...v1, metadata: { ...v1.metadata, resourceVersion: '9' } });
    expect(keys).toEqual([]);
    handler.onUpdate!(v1, { ...v1, metadata: { ...v1.metadata, generation: 2 } });
    expect(keys).toEqual(['ns/c']);
  });
});

describe('event priorities', () => {
  const { low, normal, high } = Priorities;
  const obj = (meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'ns', resourceVersion: '1', ...meta },
  });
  const deleting = obj({ deletionTimestamp: '2026-01-01T00:00:00Z' });

  it.each([
    ['the initial list', 'initial', obj(), normal, low],
    ['a resync', 'resync', obj(), normal, low],
    ['a resync of an object being deleted (nothing changed)', 'resync', deleting, high, low],
    ['a live add', 'add', obj(), normal, normal],
    ['a live update', 'update', obj(), normal, normal],
    ['a live update from an owns(...) source', 'update', obj(), high, high],
    ['an update that sets deletionTimestamp', 'update', deleting, normal, high],
    ['an object being deleted in the initial list', 'initial', deleting, normal, high],
    ['a delete', 'delete', obj(), low, high],
  ] as const)('%s → %d', (_case, event, o, live, expected) => {
    expect(eventPriority(event, o, live)).toBe(expected);
  });

  it('mappingHandler enqueues each event’s keys at its priority', () => {
    const enqueued: [string, number][] = [];
    const handler = mappingHandler(enqueueForObject, [], (k, p) => enqueued.push([k, p]), high);
    const v1 = obj();
    const v2 = obj({ resourceVersion: '2' });
    handler.onAdd!(v1, true);
    handler.onAdd!(v1, false);
    handler.onUpdate!(v1, v1); // resync: the same object
    handler.onUpdate!(v1, { ...v1 }); // relist of an unchanged object: the same resourceVersion
    handler.onUpdate!(v1, v2);
    handler.onUpdate!(v2, {
      ...deleting,
      metadata: { ...deleting.metadata, resourceVersion: '3' },
    });
    handler.onDelete!(new DeletedFinalStateUnknown('ns/c', v2));
    expect(enqueued.map(([, p]) => p)).toEqual([low, high, low, low, high, high, high]);
  });

  it('an update of objects without resourceVersions counts as a change, not a resync', () => {
    const enqueued: number[] = [];
    const handler = mappingHandler(enqueueForObject, [], (_k, p) => enqueued.push(p));
    const bare: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    handler.onUpdate!(bare, { ...bare });
    expect(enqueued).toEqual([normal]);
  });
});
