import { type KubeObject } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { ordinalOf, planVolumeGrowth, volumesOf, type ClaimObject } from './volumes.js';

describe('ordinalOf', () => {
  it.each([
    ['web-0', 0, 'web'],
    ['web-8', 8, 'web'],
    ['web-12', 12, 'web'],
    ['web-a-3', 3, 'web-a'],
  ])('%s is pod %i of %s', (pod, ordinal, cluster) => {
    expect(ordinalOf(cluster, pod)).toBe(ordinal);
  });

  it.each([
    ['web', 'web'],
    ['web-', 'web'],
    ['web-01', 'web'],
    ['web-1-0', 'web'],
    ['web-a-3', 'web'],
    ['webx-1', 'web'],
    ['other-1', 'web'],
    ['web-+1', 'web'],
    ['web-1e3', 'web'],
    ['data-web-0', 'web'],
  ])('%s is no pod of %s', (pod, cluster) => {
    expect(ordinalOf(cluster, pod)).toBeUndefined();
  });

  it('reads back the StatefulSet naming', () => {
    for (const ordinal of [0, 1, 9, 10, 123]) {
      expect(ordinalOf('c', `c-${ordinal}`)).toBe(ordinal);
    }
  });
});

const claim = (
  name: string,
  storage: string | undefined,
  extra: { capacity?: string; rv?: string; created?: string; namespace?: string } = {},
): ClaimObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name,
    namespace: extra.namespace ?? 'a',
    uid: `uid-${name}`,
    resourceVersion: extra.rv ?? '1',
    ...(extra.created ? { creationTimestamp: extra.created } : {}),
  },
  ...(storage ? { spec: { resources: { requests: { storage } } } } : {}),
  ...(extra.capacity ? { status: { capacity: { storage: extra.capacity } } } : {}),
});

describe('planVolumeGrowth', () => {
  const now = 1_000_000_000;
  const refusal = (size: string, rv: string, at: number) =>
    new Map([
      ['uid-data-c-0', { size, resourceVersion: rv, message: 'refused: no expansion', at }],
    ]);
  const cases: {
    name: string;
    claims: ClaimObject[];
    size: string;
    refusals?: ReturnType<typeof refusal>;
    grow?: string[];
    problems?: string[];
    notes?: string[];
    refused?: string[];
    forget?: string[];
  }[] = [
    { name: 'nothing to do at the size', claims: [claim('data-c-0', '1Gi')], size: '1Gi' },
    {
      name: 'equal by value, other spelling',
      claims: [claim('data-c-0', '1024Mi')],
      size: '1Gi',
    },
    {
      name: 'grows every smaller claim',
      claims: [claim('data-c-0', '1Gi'), claim('data-c-1', '2Gi'), claim('data-c-2', '1Gi')],
      size: '2Gi',
      grow: ['data-c-0', 'data-c-2'],
    },
    {
      name: 'a capacity behind its request is expanding',
      claims: [claim('data-c-0', '2Gi', { capacity: '1Gi' })],
      size: '2Gi',
      notes: ['VolumeExpanding'],
    },
    {
      name: 'a recent refusal of this size and version is reported, not asked again',
      claims: [claim('data-c-0', '1Gi', { rv: '7' })],
      size: '2Gi',
      refusals: refusal('2Gi', '7', now - 1000),
      problems: ['VolumeExpansionFailed'],
    },
    {
      name: 'a refusal of another size is asked again',
      claims: [claim('data-c-0', '1Gi', { rv: '7' })],
      size: '3Gi',
      refusals: refusal('2Gi', '7', now - 1000),
      grow: ['data-c-0'],
    },
    {
      name: 'a refusal of an older claim version is asked again',
      claims: [claim('data-c-0', '1Gi', { rv: '8' })],
      size: '2Gi',
      refusals: refusal('2Gi', '7', now - 1000),
      grow: ['data-c-0'],
    },
    {
      name: 'a refusal older than the recheck interval is asked again',
      claims: [claim('data-c-0', '1Gi', { rv: '7' })],
      size: '2Gi',
      refusals: refusal('2Gi', '7', now - 11 * 60_000),
      grow: ['data-c-0'],
    },
    {
      name: 'a refusal is forgotten once the claim has the size',
      claims: [claim('data-c-0', '2Gi')],
      size: '2Gi',
      refusals: refusal('2Gi', '1', now),
      forget: ['uid-data-c-0'],
    },
    {
      name: 'a size below the volumes cannot take effect, and says so',
      claims: [claim('data-c-0', '2Gi'), claim('data-c-1', '2Gi')],
      size: '1Gi',
      refused: ['VolumeShrinkNotPossible'],
    },
    {
      name: 'a claim without a request (not yet bound by its template) is left alone',
      claims: [claim('data-c-0', undefined)],
      size: '2Gi',
    },
  ];
  it.each(cases)('$name', (c) => {
    const plan = planVolumeGrowth({
      claims: c.claims,
      size: c.size,
      refusals: c.refusals ?? new Map(),
      now,
    });
    expect(plan.grow.map((g) => g.claim)).toEqual(c.grow ?? []);
    expect(plan.problems.map((p) => p.reason)).toEqual(c.problems ?? []);
    expect(plan.notes.map((p) => p.reason)).toEqual(c.notes ?? []);
    expect(plan.refusals.map((p) => p.reason)).toEqual(c.refused ?? []);
    expect(plan.forget).toEqual(c.forget ?? []);
  });

  it('names the volumes a shrink would need to lose, and the way out', () => {
    const plan = planVolumeGrowth({
      claims: [claim('data-c-0', '2Gi')],
      size: '1Gi',
      refusals: new Map(),
      now,
    });
    expect(plan.refusals[0]!.message).toBe(
      'the storage size 1Gi is below what the volumes have (data-c-0 (2Gi)): volumes never shrink; set the size back to at least the largest, or move the data to a new cluster',
    );
  });
});

describe('volumesOf', () => {
  const obj: KubeObject = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { namespace: 'a', name: 'c', creationTimestamp: '2026-12-07T10:00:00Z' },
  };
  const ofC = (c: KubeObject) => ordinalOf('data-c', c.metadata.name ?? '') !== undefined;
  it("keeps a same-named predecessor's retained volumes out of this object's own", () => {
    const claims = [
      claim('data-c-1', '1Gi', { created: '2026-12-07T10:00:05Z' }),
      claim('data-c-0', '1Gi', { created: '2026-12-01T08:00:00Z' }),
      claim('data-c-2', '1Gi', { created: '2026-12-07T10:00:00Z' }),
      claim('data-c-0', '1Gi', { namespace: 'b', created: '2026-12-07T11:00:00Z' }),
      claim('data-cx-0', '1Gi', { created: '2026-12-07T11:00:00Z' }),
    ];
    expect(volumesOf(claims, obj, ofC)).toEqual({
      own: ['data-c-1', 'data-c-2'],
      predecessors: ['data-c-0'],
    });
  });
  it('counts a claim without a creation time as its own (a cache that lacks it cannot tell)', () => {
    expect(volumesOf([claim('data-c-0', '1Gi')], obj, ofC)).toEqual({
      own: ['data-c-0'],
      predecessors: [],
    });
  });
});
