import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { fenceOf, fencingStatus } from './fencing.js';

const cluster = (spec: Partial<CacheCluster['spec']>) => ({
  spec: { version: '7.0', mode: 'Replicated' as const, replicas: 3, ...spec },
});

describe('fenceOf / fencingStatus', () => {
  it('MinReplicas with the bound maxLag + 2 s (whole-second clock, refreshed once a second); defaults 1 and 2s', () => {
    expect(fenceOf(cluster({ fencing: {} }))).toEqual({
      minReplicas: 1,
      maxLagSeconds: 2,
      boundSeconds: 4,
    });
    const status = fencingStatus(cluster({ fencing: { minReplicas: 2, maxLag: '5s' } }));
    expect(status).toMatchObject({ mode: 'MinReplicas', boundSeconds: 7 });
    expect(status.message).toContain('min-replicas-to-write 2, min-replicas-max-lag 5');
    expect(status.message).toContain('within 7s');
  });

  it('None without spec.fencing, saying a cut-off primary may keep acknowledging writes', () => {
    const status = fencingStatus(cluster({}));
    expect(status.mode).toBe('None');
    expect(status.boundSeconds).toBeUndefined();
    expect(status.message).toContain('may keep acknowledging writes');
    expect(fenceOf(cluster({ mode: 'Standalone', replicas: 1, fencing: {} }))).toBeUndefined();
    expect(fencingStatus(cluster({ mode: 'Standalone', replicas: 1 })).message).toContain(
      'Standalone',
    );
  });
});
