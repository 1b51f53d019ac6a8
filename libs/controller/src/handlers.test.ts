import { DeletedFinalStateUnknown } from '@steward/informer';
import { type KubeObject, type ResourceType } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { enqueueForObject, enqueueForOwner, mappingHandler } from './handlers.js';
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
