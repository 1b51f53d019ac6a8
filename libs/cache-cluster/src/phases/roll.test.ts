import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { type Pod } from '../pods.js';
import { type Health } from '../roles/plan.js';
import { planRoll, rollPhase, rollStatus, rollSwitchover } from './roll.js';

const NOW = Date.parse('2026-12-07T10:00:00.000Z');
const pod = (i: number, revision: string, ready = true): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `c-${i}`, labels: { 'controller-revision-hash': revision } },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const cluster = (over: Partial<CacheCluster['spec']> = {}, status: CacheCluster['status'] = {}) =>
  ({
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name: 'c', namespace: 'team-a', uid: 'u1' },
    spec: { version: '7.0', mode: 'Replicated', replicas: 3, ...over },
    status: { primary: 'c-0', primaryRunId: 'p0', ...status },
  }) as CacheCluster;
const settled: Health = {
  primaryServing: true,
  readyReplicas: 3,
  lagging: [],
  failingOver: false,
  switchingOver: false,
};
const facts = (pods: Pod[], over: Partial<Parameters<typeof planRoll>[0]> = {}) => ({
  pods,
  updateRevision: 'new',
  primary: 'c-0',
  method: 'Switchover' as const,
  health: settled,
  replicas: 3,
  actionsFailed: false,
  ...over,
});

describe('planRoll: the controller’s own roll', () => {
  it('restarts the outdated replica with the highest ordinal first, one at a time', () => {
    const plan = planRoll(facts([pod(0, 'old'), pod(1, 'old'), pod(2, 'old')]));
    expect(plan).toEqual({
      outdated: ['c-0', 'c-1', 'c-2'],
      restart: { pod: 'c-2', primary: false, remaining: 2 },
    });
  });

  it.each<[string, Partial<Health>]>([
    ['a replica still syncing', { lagging: ['c-1: syncing from c-0'] }],
    ['a pod not ready in its role', { readyReplicas: 2 }],
    ['a failover under way', { failingOver: true }],
    ['a switchover under way', { switchingOver: true }],
    ['the primary not serving', { primaryServing: false }],
  ])('moves nothing with %s', (_case, health) => {
    const plan = planRoll(
      facts([pod(0, 'old'), pod(1, 'old'), pod(2, 'new')], { health: { ...settled, ...health } }),
    );
    expect(plan.restart).toBeUndefined();
    expect(plan.outdated).toEqual(['c-0', 'c-1']);
  });

  it('moves nothing in a reconcile whose actions failed', () => {
    const plan = planRoll(facts([pod(0, 'old'), pod(1, 'new')], { actionsFailed: true }));
    expect(plan.restart).toBeUndefined();
  });

  it('leaves the primary for a switchover (Switchover), restarts it in place with Restart or alone', () => {
    const pods = [pod(0, 'old'), pod(1, 'new'), pod(2, 'new')];
    expect(planRoll(facts(pods))).toEqual({ outdated: ['c-0'], awaitingSwitchover: true });
    expect(planRoll(facts(pods, { method: 'Restart' })).restart).toEqual({
      pod: 'c-0',
      primary: true,
      remaining: 0,
    });
    const standalone = planRoll(
      facts([pod(0, 'old')], { replicas: 1, health: { ...settled, readyReplicas: 1 } }),
    );
    expect(standalone.restart).toEqual({ pod: 'c-0', primary: true, remaining: 0 });
  });
});

describe('rollSwitchover: the switchover a rolling update asks for', () => {
  const updated = [pod(0, 'old'), pod(1, 'new'), pod(2, 'new')];

  it('asks (reason Rollout) when the primary is the only pod left on the old template', () => {
    expect(rollSwitchover(cluster(), updated, 'new', NOW)).toEqual({ reason: 'Rollout' });
  });

  it('asks nothing while a replica the roll deleted is not re-created yet (the others look up to date)', () => {
    expect(rollSwitchover(cluster(), [pod(0, 'old'), pod(2, 'new')], 'new', NOW)).toBeUndefined();
  });

  it('asks nothing while another pod is outdated or not Ready, with Restart, or for Standalone', () => {
    expect(
      rollSwitchover(cluster(), [pod(0, 'old'), pod(1, 'old'), pod(2, 'new')], 'new', NOW),
    ).toBeUndefined();
    expect(
      rollSwitchover(cluster(), [pod(0, 'old'), pod(1, 'new', false), pod(2, 'new')], 'new', NOW),
    ).toBeUndefined();
    expect(
      rollSwitchover(cluster({ rollout: { primary: 'Restart' } }), updated, 'new', NOW),
    ).toBeUndefined();
    expect(
      rollSwitchover(cluster({ mode: 'Standalone', replicas: 1 }), [pod(0, 'old')], 'new', NOW),
    ).toBeUndefined();
  });

  it('asks again only a minute after a Rollout switchover failed', () => {
    const failed = (ago: number) =>
      cluster(
        {},
        {
          switchover: {
            phase: 'Failed',
            from: 'c-0',
            to: 'c-1',
            reason: 'Rollout',
            startedAt: new Date(NOW - ago - 10_000).toISOString(),
            completedAt: new Date(NOW - ago).toISOString(),
            message: 'm',
          },
        },
      );
    expect(rollSwitchover(failed(30_000), updated, 'new', NOW)).toBeUndefined();
    expect(rollSwitchover(failed(60_000), updated, 'new', NOW)).toEqual({ reason: 'Rollout' });
  });
});

describe('rollStatus and rollPhase', () => {
  const sts = (generation: number, observed: number) => ({
    metadata: { generation },
    status: { observedGeneration: observed },
  });

  it('is complete once the StatefulSet saw the template and no pod is outdated', () => {
    expect(rollStatus(sts(2, 1), { outdated: [] })).toEqual({
      complete: false,
      message: 'waiting for the StatefulSet to be observed',
    });
    expect(rollStatus(sts(2, 2), { outdated: [] })?.complete).toBe(true);
    expect(rollStatus(sts(2, 2), { outdated: ['c-0'], awaitingSwitchover: true })).toEqual({
      complete: false,
      message:
        'restarting with the new pod template: c-0 still to go (the primary once a switchover made it a replica)',
    });
    expect(rollStatus(undefined, { outdated: [] })).toBeUndefined();
  });

  it('deletes the pod to restart and says so in a Restarting Event', async () => {
    const deleted: string[] = [];
    const events: string[] = [];
    await rollPhase(
      {
        client: {
          delete: async (_t, name) => {
            deleted.push(name);
            return {} as never;
          },
        },
        emit: (_obj, type, reason, message) => void events.push(`${type} ${reason} ${message}`),
      },
      cluster(),
      { outdated: ['c-1', 'c-2'], restart: { pod: 'c-2', primary: false, remaining: 1 } },
    );
    expect(deleted).toEqual(['c-2']);
    expect(events).toEqual([
      'Normal Restarting c-2 restarts with the new pod template (1 more to go)',
    ]);
  });
});
