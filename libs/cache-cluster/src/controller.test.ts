import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { primaryWatchMs } from './controller.js';

const cluster = (spec: Partial<CacheCluster['spec']>): CacheCluster => ({
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'c', namespace: 'n' },
  spec: { version: '7.0', mode: 'Replicated', replicas: 3, ...spec },
});

describe('primaryWatchMs', () => {
  it('looks at a Replicated cluster with failover every failover.after/5 (at least 0.5 s), the poll when sooner', () => {
    expect(primaryWatchMs(cluster({ failover: { after: '5s' } }), 5000)).toBe(1000);
    expect(primaryWatchMs(cluster({}), 5000)).toBe(2000); // the default after, 10s
    expect(primaryWatchMs(cluster({ failover: { after: '1s' } }), 5000)).toBe(500);
    expect(primaryWatchMs(cluster({ failover: { after: '10m' } }), 5000)).toBe(5000);
    expect(primaryWatchMs(cluster({ failover: { after: '5s' } }), 300)).toBe(300);
  });

  it('leaves a cluster that is never failed over to the poll', () => {
    expect(primaryWatchMs(cluster({ failover: { enabled: false } }), 5000)).toBeUndefined();
    expect(primaryWatchMs(cluster({ mode: 'Standalone', replicas: 1 }), 5000)).toBeUndefined();
  });
});
