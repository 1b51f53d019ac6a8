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
});

const input = (over: Partial<StatusInput>): StatusInput => ({
  cluster: cluster('Ready'),
  replicas: 3,
  podCount: 3,
  health: health(3),
  rollout: { complete: true, message: 'rolled out' },
  image: 'localhost/steward/valkey:8.1.1',
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

  it('calls a pod that is gone while the pods desired did not change PodsMissing (Degraded), not Scaling', () => {
    const change = cacheStatus(input({ podCount: 2, health: health(2) }));
    expect(change.phase).toBe('Degraded');
    expect(condition(change, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodsMissing',
      message: '2 of 3 pods exist; the StatefulSet re-creates the missing ones',
    });
    expect(condition(change, 'Degraded')).toMatchObject({ status: 'True', reason: 'PodsMissing' });
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

  it('calls a replica of a Ready cluster that falls out of sync ReplicasNotInSync (Degraded)', () => {
    const lagging = cacheStatus(input({ health: health(2, ['pair-2: syncing from pair-0']) }));
    expect(lagging.phase).toBe('Degraded');
    expect(condition(lagging, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReplicasNotInSync',
    });
    expect(condition(lagging, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ReplicasNotInSync',
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
