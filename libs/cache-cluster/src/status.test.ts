import { type CacheCluster, type CachePhase } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { type Health } from './roles/plan.js';
import { cacheStatus, type StatusInput } from './status.js';

/** A Replicated cluster whose status was last stated with `phase` and `replicas` pods desired. */
const cluster = (phase?: CachePhase, replicas = 3): CacheCluster =>
  ({
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name: 'pair', namespace: 'team-a', generation: 2 },
    spec: { engine: 'valkey', version: '8.1', mode: 'Replicated', replicas: 3 },
    status: phase
      ? { phase, replicas, primary: 'pair-0', primaryRunId: 'run-0' }
      : { primary: 'pair-0' },
  }) as CacheCluster;

const health = (readyReplicas: number, lagging: string[] = []): Health => ({
  primaryServing: true,
  readyReplicas,
  lagging,
  failingOver: false,
  switchingOver: false,
});

const input = (over: Partial<StatusInput>): StatusInput => ({
  cluster: cluster('Ready'),
  replicas: 3,
  podCount: 3,
  health: health(3),
  rollout: { complete: true, message: 'rolled out' },
  image: 'ghcr.io/steward-dev/valkey:8.1.1',
  endpoints: {
    readWrite: 'pair-rw.team-a.svc',
    readOnly: 'pair-ro.team-a.svc',
    port: 6379,
    secretName: 'pair-auth',
    secretKey: 'password',
  },
  durable: false,
  problems: [],
  ...over,
});

const condition = (change: ReturnType<typeof cacheStatus>, type: string) =>
  change.conditions.find((c) => c.type === type);

describe('cacheStatus', () => {
  it('is Scaling as soon as the pods desired change', () => {
    const change = cacheStatus(
      input({ cluster: cluster('Ready', 2), podCount: 2, health: health(2) }),
    );
    expect(change.phase).toBe('Scaling');
    expect(condition(change, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Scaling',
      message: '2 pods, 3 desired',
    });
    expect(change.fields['replicas']).toBe(3);
  });

  it('stays Scaling once every pod exists, until the new ones are ready and in their role — not Degraded', () => {
    const syncing = cacheStatus(
      input({
        cluster: cluster('Scaling'),
        health: health(2, ['pair-2: syncing from pair-0']),
        rollout: { complete: false, message: 'Waiting for 1 pods to be ready...' },
      }),
    );
    expect(syncing.phase).toBe('Scaling');
    expect(condition(syncing, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Scaling',
      message:
        '2 of 3 pods ready and in their role: pair-2: syncing from pair-0; Waiting for 1 pods to be ready...',
    });
    expect(condition(syncing, 'Progressing')).toMatchObject({ status: 'True', reason: 'Scaling' });
    expect(condition(syncing, 'Degraded')).toMatchObject({ status: 'False' });
  });

  it('is Ready once the scale is done', () => {
    const done = cacheStatus(input({ cluster: cluster('Scaling') }));
    expect(done.phase).toBe('Ready');
    expect(condition(done, 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
  });

  it('calls a pod that is gone while the pods desired did not change InstancesMissing (Degraded), not Scaling', () => {
    const change = cacheStatus(input({ podCount: 2, health: health(2) }));
    expect(change.phase).toBe('Degraded');
    expect(condition(change, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InstancesMissing',
      message: '2 of 3 pods exist; the StatefulSet re-creates the missing ones',
    });
    expect(condition(change, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'InstancesMissing',
    });
  });

  it('keeps a new cluster Provisioning while its replicas take their first sync', () => {
    for (const previous of [undefined, 'Provisioning'] as const) {
      const change = cacheStatus(
        input({
          cluster: cluster(previous, 2),
          replicas: 2,
          podCount: 2,
          health: health(1, ['pair-1: syncing from pair-0']),
        }),
      );
      expect(change.phase).toBe('Provisioning');
      expect(condition(change, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'Provisioning',
        message: '1 of 2 pods ready and in their role: pair-1: syncing from pair-0',
      });
      expect(condition(change, 'Degraded')).toMatchObject({ status: 'False' });
    }
  });

  it('calls a replica of a Ready cluster that falls out of sync InstancesNotReady (Degraded)', () => {
    const lagging = cacheStatus(input({ health: health(2, ['pair-2: syncing from pair-0']) }));
    expect(lagging.phase).toBe('Degraded');
    expect(condition(lagging, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InstancesNotReady',
    });
    expect(condition(lagging, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'InstancesNotReady',
    });
  });

  it('lets a failover take over from Scaling', () => {
    const failing = cacheStatus(
      input({
        cluster: cluster('Scaling'),
        health: { ...health(1), primaryServing: false, failingOver: true },
      }),
    );
    expect(failing.phase).toBe('FailingOver');
  });
});

describe('cacheStatus: phases and conditions', () => {
  const conditionsOf = (change: ReturnType<typeof cacheStatus>) =>
    Object.fromEntries(change.conditions.map((c) => [c.type, `${c.status} ${c.reason}`]));
  const lost = (stuck?: Health['stuck']): Health => ({
    primaryServing: false,
    readyReplicas: 2,
    lagging: [],
    failingOver: false,
    switchingOver: false,
    lost: { reason: 'PrimaryUnreachable', since: '2026-12-02T10:00:00Z', message: 'pair-0 lost' },
    ...(stuck ? { stuck } : {}),
  });
  const cases: { name: string; input: StatusInput; phase: string; conditions: object }[] = [
    {
      name: 'the primary lost, failover.after not yet passed: FailingOver, Degraded PrimaryLost',
      input: input({ health: lost() }),
      phase: 'FailingOver',
      conditions: {
        Ready: 'False PrimaryLost',
        Progressing: 'True PrimaryLost',
        Degraded: 'True PrimaryLost',
      },
    },
    {
      name: 'the primary lost and no replica to promote: Degraded, not progressing',
      input: input({
        health: lost({ reason: 'NoReplicaToPromote', message: 'no reachable replica' }),
      }),
      phase: 'Degraded',
      conditions: {
        Ready: 'False PrimaryLost',
        Progressing: 'False Converged',
        Degraded: 'True NoReplicaToPromote',
      },
    },
    {
      name: 'a failover decided: FailingOver, naming its target',
      input: input({
        cluster: {
          ...cluster('Ready'),
          status: {
            ...cluster('Ready').status,
            failover: {
              phase: 'Promoting',
              from: 'pair-0',
              to: 'pair-1',
              reason: 'PrimaryUnreachable',
              startedAt: '2026-12-02T10:00:00Z',
              promotedOffset: 10,
              dataLossRisk: 'Unknown',
              message: 'm',
            },
          },
        } as CacheCluster,
        health: { ...health(1), failingOver: true },
      }),
      phase: 'FailingOver',
      conditions: {
        Ready: 'False FailingOver',
        Progressing: 'True FailingOver',
        Degraded: 'False Healthy',
      },
    },
    {
      name: 'a rollout under way on a settled cluster: Updating',
      input: input({ rollout: { complete: false, message: '1 of 3 pods updated' } }),
      phase: 'Updating',
      conditions: {
        Ready: 'False Updating',
        Progressing: 'True Updating',
        Degraded: 'False Healthy',
      },
    },
    {
      name: 'a problem on a Ready cluster (a volume that cannot grow): Degraded says it, Ready stays True',
      input: input({
        problems: [{ reason: 'VolumeExpansionFailed', message: 'data-pair-0 cannot grow' }],
      }),
      phase: 'Ready',
      conditions: {
        Ready: 'True Available',
        Progressing: 'False Converged',
        Degraded: 'True VolumeExpansionFailed',
      },
    },
    {
      name: 'no primary yet: Provisioning, waiting for the first primary',
      input: input({
        cluster: { ...cluster(), status: {} } as CacheCluster,
        podCount: 0,
        health: {
          primaryServing: false,
          readyReplicas: 0,
          lagging: [],
          failingOver: false,
          switchingOver: false,
        },
        rollout: undefined,
      }),
      phase: 'Provisioning',
      conditions: {
        Ready: 'False Provisioning',
        Progressing: 'True Provisioning',
        Degraded: 'False Healthy',
      },
    },
  ];

  it.each(cases)('$name', ({ input: i, phase, conditions }) => {
    const change = cacheStatus(i);
    expect(change.phase).toBe(phase);
    expect(conditionsOf(change)).toEqual(conditions);
    expect(change.conditions.map((c) => c.type)).not.toContain('Stalled');
  });

  it('states the endpoints (read-only only when Replicated) and whether the data survives restarts', () => {
    const replicated = cacheStatus(input({ durable: true })).fields;
    expect(replicated).toMatchObject({
      phase: 'Ready',
      replicas: 3,
      readyReplicas: 3,
      image: 'ghcr.io/steward-dev/valkey:8.1.1',
      endpoints: {
        readWrite: { host: 'pair-rw.team-a.svc', port: 6379 },
        readOnly: { host: 'pair-ro.team-a.svc', port: 6379 },
        secretName: 'pair-auth',
        secretKey: 'password',
      },
      persistence: { durable: true },
    });
    const standalone = cacheStatus(
      input({
        cluster: {
          ...cluster('Ready', 1),
          spec: { ...cluster('Ready').spec, mode: 'Standalone', replicas: 1 },
        } as CacheCluster,
        replicas: 1,
        podCount: 1,
        health: health(1),
      }),
    ).fields;
    expect(standalone.endpoints).not.toHaveProperty('readOnly');
    expect(standalone.persistence).toMatchObject({ durable: false });
    expect(replicated).not.toHaveProperty('observedGeneration');
  });
});
