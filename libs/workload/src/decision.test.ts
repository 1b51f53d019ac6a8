import { StatusWriter, type ObjectWithStatus, type StatusClient } from '@steward/controller';
import { Store } from '@steward/informer';
import { ConflictError, type KubeObject, type ResourceType } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { indexByLabel } from './by-label.js';
import { compareMarks, DecisionMarks, recordDecision, StaleDecisionError } from './decision.js';

const Things: ResourceType = {
  group: 'x.steward.dev',
  version: 'v1alpha1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
};

type Thing = ObjectWithStatus & { status?: { primary?: string; observedGeneration?: number } };

const thing = (primary: string | undefined, rv: string): Thing => ({
  apiVersion: 'x.steward.dev/v1alpha1',
  kind: 'Thing',
  metadata: { name: 't', namespace: 'a', generation: 1, resourceVersion: rv },
  status: { observedGeneration: 1, ...(primary ? { primary } : {}) },
});

/** A StatusClient whose server holds `server`: a patch of an older resourceVersion conflicts. */
function serverWith(server: Thing) {
  const patches: unknown[] = [];
  const client = {
    get: async () => server,
    mergePatch: async (_rt: ResourceType, _n: string, _ns: string, patch: unknown) => {
      const p = patch as { metadata: { resourceVersion: string }; status: Thing['status'] };
      if (p.metadata.resourceVersion !== server.metadata.resourceVersion) {
        throw new ConflictError({ message: 'conflict', code: 409, reason: 'Conflict' } as never);
      }
      patches.push(p.status);
      return { ...server, status: p.status } as KubeObject;
    },
  } as unknown as StatusClient;
  return { client, patches };
}

describe('recordDecision', () => {
  const decision = (basis: Thing) => ({
    stale: (latest: Thing) =>
      latest.status?.primary !== basis.status?.primary
        ? `primary is ${latest.status?.primary}, not ${basis.status?.primary}`
        : undefined,
    fields: () => ({ primary: 't-1' }),
  });

  it('writes the decision over the status it was taken over', async () => {
    const read = thing('t-0', '5');
    const { client, patches } = serverWith(read);
    await recordDecision(new StatusWriter(client, Things, read), decision(read));
    expect(patches).toEqual([{ observedGeneration: 1, primary: 't-1' }]);
  });

  it('writes nothing and throws when another reconcile decided meanwhile', async () => {
    const read = thing('t-0', '5');
    const { client, patches } = serverWith(thing('t-2', '6'));
    await expect(
      recordDecision(new StatusWriter(client, Things, read), decision(read)),
    ).rejects.toThrow(new StaleDecisionError('primary is t-2, not t-0'));
    expect(patches).toEqual([]);
  });

  it('writes over a newer copy that holds the same decision basis', async () => {
    const read = thing('t-0', '5');
    const { client, patches } = serverWith(thing('t-0', '6'));
    await recordDecision(new StatusWriter(client, Things, read), decision(read));
    expect(patches).toEqual([{ observedGeneration: 1, primary: 't-1' }]);
  });
});

describe('indexByLabel', () => {
  const pod = (namespace: string, name: string, cluster?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, ...(cluster ? { labels: { 'x/cluster': cluster } } : {}) },
  });
  it("finds one object's pods by namespace and label; a second controller reuses the index", () => {
    const store = new Store<KubeObject>();
    for (const p of [
      pod('a', 'c-0', 'c'),
      pod('a', 'c-1', 'c'),
      pod('b', 'c-0', 'c'),
      pod('a', 'x'),
    ])
      store.upsert(p);
    const lookup = indexByLabel(store, 'x/cluster');
    const again = indexByLabel(store, 'x/cluster');
    store.upsert(pod('a', 'c-2', 'c'));
    expect(
      lookup('a', 'c')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['c-0', 'c-1', 'c-2']);
    expect(again('b', 'c').map((p) => p.metadata.name)).toEqual(['c-0']);
    expect(lookup('a', 'x')).toEqual([]);
  });
});

describe('DecisionMarks', () => {
  it('refuses a status older than the decision remembered, accepts it once the cache caught up', () => {
    const marks = new DecisionMarks();
    marks.check('u', [1, 2], 'a/c');
    marks.remember('u', [2, 1]);
    expect(() => marks.check('u', [1, 3], 'a/c')).toThrow(StaleDecisionError);
    expect(() => marks.check('u', [2, 0], 'a/c')).toThrow(
      'the status of a/c read (2/0) is older than the decision this controller recorded (2/1): waiting for the cache',
    );
    marks.check('u', [2, 1], 'a/c');
    marks.check('u', [3], 'a/c');
    marks.remember('u', [1]);
    expect(() => marks.check('u', [2, 0], 'a/c')).toThrow(StaleDecisionError);
    marks.forget('u');
    marks.check('u', [0], 'a/c');
  });
  it('compares marks in order, a missing one as 0', () => {
    expect(compareMarks([1, 2], [1, 2, 0])).toBe(0);
    expect(compareMarks([1, 3], [2])).toBe(-1);
    expect(compareMarks([2], [1, 9])).toBe(1);
  });
});
