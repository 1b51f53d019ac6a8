/**
 * Failures named, on the node tier: a CacheCluster whose pod cannot be scheduled, or whose volume
 * is not provisioned, says so in Ready=False (the scheduler's and the PV controller's own words)
 * within a minute — never "provisioning" forever — and kstatus reads it as not converged.
 */
import { findCondition } from '@steward/conditions';
import { type CacheClusterSpec } from '@steward/cache-cluster-api';
import { gitOpsReading } from '@steward/testing';
import { controllerOnNodeTier, noNodeCanHold } from '@steward/testing-node-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusters } from './workload-under-test.js';

const { create, notReady } = controllerOnNodeTier({ beforeAll, afterAll }, cacheClusters, {
  images: ['redis-7.0'],
  namespace: 'cc-failures',
  busyPollIntervalMs: 500,
});

describe('failures named on the node tier (CacheCluster)', () => {
  it('a pod no node can hold: Unschedulable, with the scheduler’s message', async () => {
    await create('huge', { version: '7.0', resources: noNodeCanHold('64Mi') } as CacheClusterSpec);
    const obj = await notReady('huge', 'Unschedulable');
    const ready = findCondition(obj.status?.conditions, 'Ready')!;
    expect(ready.message).toMatch(
      /^pod huge-0 cannot be scheduled: 0\/\d+ nodes are available: .*Insufficient cpu/,
    );
    expect(findCondition(obj.status?.conditions, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'Unschedulable',
    });
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });

  it('a volume whose StorageClass does not exist: VolumeNotProvisioned, with the PV controller’s message', async () => {
    await create('nowhere', {
      version: '7.0',
      persistence: { enabled: true, size: '64Mi', storageClassName: 'no-such-class' },
    } as CacheClusterSpec);
    const obj = await notReady('nowhere', 'VolumeNotProvisioned');
    const ready = findCondition(obj.status?.conditions, 'Ready')!;
    expect(ready.message).toMatch(
      /^PersistentVolumeClaim data-nowhere-0 is not provisioned \(StorageClass no-such-class\): .*no-such-class/,
    );
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });
});
