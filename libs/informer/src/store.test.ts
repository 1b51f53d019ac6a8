import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byNamespace, byOwnerUid, objectKey, splitKey, Store } from './store.js';

interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    ownerReferences?: { uid: string }[];
  };
}
const obj = (
  namespace: string | undefined,
  name: string,
  owners: string[] = [],
  rv = '1',
): Obj => ({
  metadata: {
    name,
    ...(namespace ? { namespace } : {}),
    resourceVersion: rv,
    ownerReferences: owners.map((uid) => ({ uid })),
  },
});

describe('object keys', () => {
  it('are namespace/name, or name for cluster-scoped objects, and split back', () => {
    expect(objectKey(obj('ns', 'a'))).toBe('ns/a');
    expect(objectKey(obj(undefined, 'node-1'))).toBe('node-1');
    expect(splitKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitKey('node-1')).toEqual({ name: 'node-1' });
  });

  it('refuse an object without a name', () => {
    expect(() => objectKey({ metadata: {} })).toThrow(/without metadata.name/);
  });
});

describe('Store', () => {
  it('keeps secondary indexes in step with upserts and removals', () => {
    const store = new Store<Obj>();
    store.addIndexers({ owner: byOwnerUid, namespace: byNamespace });
    store.upsert(obj('a', 'x', ['u1']));
    store.upsert(obj('a', 'y', ['u1', 'u2']));
    store.upsert(obj('b', 'z', ['u2']));
    expect(store.byIndex('owner', 'u1').map(objectKey).sort()).toEqual(['a/x', 'a/y']);
    expect(store.byIndex('namespace', 'b').map(objectKey)).toEqual(['b/z']);

    store.upsert(obj('a', 'y', ['u2'], '2')); // owner u1 dropped
    expect(store.byIndex('owner', 'u1').map(objectKey)).toEqual(['a/x']);
    expect(store.byIndex('owner', 'u2').map(objectKey).sort()).toEqual(['a/y', 'b/z']);

    expect(store.remove('a/x')?.metadata.name).toBe('x');
    expect(store.byIndex('owner', 'u1')).toEqual([]);
    expect(store.remove('a/x')).toBeUndefined();
  });

  it('indexes objects that were there before the indexer was added', () => {
    const store = new Store<Obj>();
    store.upsert(obj('a', 'x', ['u1']));
    store.addIndexers({ owner: byOwnerUid });
    expect(store.byIndex('owner', 'u1')).toHaveLength(1);
    expect(() => store.addIndexers({ owner: byOwnerUid })).toThrow(/exists already/);
    expect(() => store.byIndex('missing', 'v')).toThrow(/no indexer/);
  });

  it('index lookups always agree with a scan of the items (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('upsert' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd'),
        owners: fc.subarray(['u1', 'u2', 'u3']),
      }),
      fc.record({
        kind: fc.constant('remove' as const),
        name: fc.constantFrom('a', 'b', 'c', 'd'),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), (ops) => {
        const store = new Store<Obj>();
        store.addIndexers({ owner: byOwnerUid });
        for (const o of ops) {
          if (o.kind === 'upsert') store.upsert(obj('ns', o.name, o.owners));
          else store.remove(`ns/${o.name}`);
        }
        for (const uid of ['u1', 'u2', 'u3']) {
          const viaIndex = store.byIndex('owner', uid).map(objectKey).sort();
          const viaScan = store
            .list()
            .filter((x) => byOwnerUid(x).includes(uid))
            .map(objectKey)
            .sort();
          expect(viaIndex).toEqual(viaScan);
        }
      }),
    );
  });
});
