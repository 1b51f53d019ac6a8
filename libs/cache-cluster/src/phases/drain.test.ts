import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { type Pod } from '../pods.js';
import { protectedPods } from './roles.js';
import { drainSwitchover, switchoverAsk } from './roll.js';

const NOW = Date.parse('2026-12-07T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

/** Pod `c-i` on node `n-i`, at `revision`. */
const pod = (i: number, revision = 'new', deleting = false): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `c-${i}`,
    labels: { 'controller-revision-hash': revision },
    ...(deleting ? { deletionTimestamp: ago(1000) } : {}),
  },
  spec: { nodeName: `n-${i}` },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});
const three = [pod(0), pod(1), pod(2)];

type Status = NonNullable<CacheCluster['status']>;
const cluster = (over: Partial<CacheCluster['spec']> = {}, status: Status = {}) =>
  ({
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name: 'c', namespace: 'team-a', uid: 'u1' },
    spec: { version: '7.0', mode: 'Replicated', replicas: 3, ...over },
    status: { primary: 'c-0', primaryRunId: 'p0', ...status },
  }) as CacheCluster;
const cordonedOf =
  (...nodes: string[]) =>
  (node: string) =>
    nodes.includes(node);

const switchover = (
  over: Partial<NonNullable<Status['switchover']>> = {},
): NonNullable<Status['switchover']> => ({
  phase: 'Failed',
  from: 'c-0',
  to: 'c-1',
  reason: 'NodeDrain',
  startedAt: ago(20_000),
  completedAt: ago(10_000),
  message: 'FAILOVER TO c-1 timed out',
  ...over,
});

describe('drainSwitchover: the switchover a drain asks for', () => {
  it.each<[string, CacheCluster, Pod[], string[], ReturnType<typeof drainSwitchover>]>([
    [
      'the primary’s node cordoned: NodeDrain, avoiding the pods on cordoned nodes',
      cluster(),
      three,
      ['n-0'],
      { reason: 'NodeDrain', avoid: ['c-0'] },
    ],
    [
      'two nodes cordoned, the primary’s among them: both avoided',
      cluster(),
      three,
      ['n-0', 'n-2'],
      { reason: 'NodeDrain', avoid: ['c-0', 'c-2'] },
    ],
    ['a replica’s node cordoned only: nothing', cluster(), three, ['n-1'], undefined],
    ['no node cordoned: nothing', cluster(), three, [], undefined],
    [
      'Standalone: nothing (its one budget lets the pod go)',
      cluster({ mode: 'Standalone', replicas: undefined }),
      [pod(0)],
      ['n-0'],
      undefined,
    ],
    [
      'the primary the only live pod (the others being deleted): nothing to switch to',
      cluster(),
      [pod(0), pod(1, 'new', true), pod(2, 'new', true)],
      ['n-0'],
      undefined,
    ],
    [
      'no primary recorded yet: nothing',
      cluster({}, { primary: undefined }),
      three,
      ['n-0'],
      undefined,
    ],
    [
      'a NodeDrain switchover that failed 10 s ago: waits (a minute)',
      cluster({}, { switchover: switchover() }),
      three,
      ['n-0'],
      undefined,
    ],
    [
      'a NodeDrain switchover that failed 2 min ago: asks again',
      cluster({}, { switchover: switchover({ completedAt: ago(120_000) }) }),
      three,
      ['n-0'],
      { reason: 'NodeDrain', avoid: ['c-0'] },
    ],
    [
      'a Rollout switchover that failed 10 s ago does not hold the drain’s',
      cluster({}, { switchover: switchover({ reason: 'Rollout' }) }),
      three,
      ['n-0'],
      { reason: 'NodeDrain', avoid: ['c-0'] },
    ],
  ])('%s', (_case, c, pods, cordoned, expected) => {
    expect(drainSwitchover(c, pods, cordonedOf(...cordoned), NOW)).toEqual(expected);
  });
});

describe('switchoverAsk: a drain’s first, then a rolling update’s', () => {
  const outdatedPrimary = [pod(0, 'old'), pod(1), pod(2)];
  it.each<[string, Pod[], string[], ReturnType<typeof switchoverAsk>]>([
    [
      'the primary alone on the old template, its node cordoned: the drain’s',
      outdatedPrimary,
      ['n-0'],
      { reason: 'NodeDrain', avoid: ['c-0'] },
    ],
    [
      'the primary alone on the old template, no node cordoned: the rollout’s',
      outdatedPrimary,
      [],
      { reason: 'Rollout' },
    ],
    ['every pod up to date, no node cordoned: none', three, [], undefined],
    [
      'replicas still outdated, the primary’s node cordoned: the drain’s (it does not wait for the roll)',
      [pod(0, 'old'), pod(1, 'old'), pod(2)],
      ['n-0'],
      { reason: 'NodeDrain', avoid: ['c-0'] },
    ],
  ])('%s', (_case, pods, cordoned, expected) => {
    expect(switchoverAsk(cluster(), pods, 'new', cordonedOf(...cordoned), NOW)).toEqual(expected);
  });
});

describe('protectedPods: the pods a drain must not evict', () => {
  const inFlight = { from: 'c-0', to: 'c-1', startedAt: ago(1000) };
  it.each<[string, CacheCluster, Parameters<typeof protectedPods>[1], string[]]>([
    ['Replicated, 3 pods: the primary', cluster(), undefined, ['c-0']],
    ['the primary just decided wins over the recorded one', cluster(), { primary: 'c-2' }, ['c-2']],
    [
      'a switchover under way (Demoting): both ends',
      cluster({}, { switchover: switchover({ phase: 'Demoting', completedAt: undefined }) }),
      undefined,
      ['c-0', 'c-1'],
    ],
    [
      'a switchover Completed: the new primary alone',
      cluster({}, { primary: 'c-1', switchover: switchover({ phase: 'Completed' }) }),
      undefined,
      ['c-1'],
    ],
    [
      'a failover under way (Repointing): both ends',
      cluster(
        {},
        {
          primary: 'c-1',
          failover: {
            ...inFlight,
            phase: 'Repointing',
            reason: 'PrimaryUnreachable',
            dataLossRisk: 'Bounded',
            promotedOffset: 10,
            message: 'promoting c-1',
          },
        },
      ),
      undefined,
      ['c-0', 'c-1'],
    ],
    ['Replicated with 1 pod: none', cluster({ replicas: 1 }), undefined, []],
    ['Standalone: none', cluster({ mode: 'Standalone' }), undefined, []],
  ])('%s', (_case, c, decided, expected) => {
    expect([...protectedPods(c, decided)].sort()).toEqual(expected);
  });
});
