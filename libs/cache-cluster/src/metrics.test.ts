import { type CacheCluster } from '@steward/cache-cluster-api';
import { aggregateByNamespace } from '@steward/telemetry';
import { describe, expect, it } from 'vitest';
import { cacheClusterGauges } from './metrics.js';

type Failover = NonNullable<NonNullable<CacheCluster['status']>['failover']>;

const cluster = (name: string, status: CacheCluster['status']): CacheCluster => ({
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name, namespace: 'shop' },
  spec: { version: '7.0', mode: 'Replicated', replicas: 3 } as CacheCluster['spec'],
  status,
});

const failover = (f: Partial<Failover>): Failover => ({
  phase: 'Completed',
  from: 'c-0',
  to: 'c-1',
  reason: 'PrimaryPodDeleted',
  startedAt: '2026-12-05T11:00:00Z',
  promotedOffset: 1000,
  dataLossRisk: 'Bounded',
  message: 'm',
  ...f,
});

describe('the CacheCluster failover gauges, per namespace', () => {
  it('sum failovers and publish the largest bound the newest failovers gave, or that one had none', () => {
    const rows = aggregateByNamespace(
      [
        cluster('a', { failoverCount: 2, failover: failover({ bytesPossiblyLost: 321 }) }),
        cluster('b', { failoverCount: 1, failover: failover({ dataLossRisk: 'Unknown' }) }),
        cluster('c', { failoverCount: 1, failover: failover({ phase: 'Promoting' }) }),
        cluster('d', {}),
      ],
      cacheClusterGauges,
      (c) => c.metadata.namespace!,
      Date.now(),
    );
    expect(
      Object.fromEntries(cacheClusterGauges.map((g, i) => [g.name, rows.get('shop')![i]])),
    ).toEqual({
      steward_failovers: 4,
      steward_failovers_in_progress: 1,
      steward_failover_possible_loss_bytes: 321,
      steward_failover_loss_unknown: 1,
    });
  });
});
