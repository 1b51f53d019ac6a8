/**
 * Failures named, on the node tier: a CacheCluster whose pod cannot be scheduled, or whose volume
 * is not provisioned, says so in Ready=False (the scheduler's and the PV controller's own words)
 * within a minute — never "provisioning" forever — and kstatus reads it as not converged.
 */
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { KubeClient } from '@steward/kube';
import { eventually, gitOpsReading, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusterController } from '../src/index.js';

const Kind = CacheCluster.resourceType;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let manager: Manager;

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('redis-7.0');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(
    tier.kubeConfig,
    join(repoRoot(), 'charts/cache-cluster-controller/crds'),
    join(repoRoot(), 'charts/database-instance-controller/crds/providerprofiles.steward.dev.yaml'),
  );
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
  ns = await tier.createNamespace('cc-failures');
  manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'cache-cluster-controller' });
  cacheClusterController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 1000,
    busyPollIntervalMs: 500,
  });
  manager.start().catch(() => undefined);
}, 600_000);
afterAll(async () => {
  await manager?.stop();
  await admin?.close();
  await tier?.release();
});

const create = (name: string, spec: CacheClusterSpec) =>
  admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec,
  } as CacheCluster);

/** Waits (at most a minute) for Ready=False with `reason`, and returns the object. */
const named = (name: string, reason: string) =>
  eventually(
    async () => {
      const obj = await admin.get<CacheCluster>(Kind, name, ns);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'False' && cond.reason === reason ? obj : undefined;
    },
    { description: `${name} Ready=False ${reason}`, timeoutMs: 60_000 },
  );

describe('failures named on the node tier (CacheCluster)', () => {
  it('a pod no node can hold: Unschedulable, with the scheduler’s message', async () => {
    await create('huge', {
      version: '7.0',
      resources: { requests: { cpu: '512', memory: '64Mi' } },
    } as CacheClusterSpec);
    const obj = await named('huge', 'Unschedulable');
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
    const obj = await named('nowhere', 'VolumeNotProvisioned');
    const ready = findCondition(obj.status?.conditions, 'Ready')!;
    expect(ready.message).toMatch(
      /^PersistentVolumeClaim data-nowhere-0 is not provisioned \(StorageClass no-such-class\): .*no-such-class/,
    );
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });
});
