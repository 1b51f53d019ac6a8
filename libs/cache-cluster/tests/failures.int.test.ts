/**
 * Failures named, on the node tier: a CacheCluster whose pod cannot be scheduled, whose volume is
 * not provisioned, whose image cannot be pulled or whose password Secret does not exist says so in
 * Ready=False (the scheduler's, the PV controller's and the kubelet's own words) within a minute —
 * never "provisioning" forever — and kstatus reads it as not converged; once the cause is gone it
 * becomes Ready.
 */
import { findCondition } from '@steward/conditions';
import { type CacheClusterSpec } from '@steward/cache-cluster-api';
import { Secrets } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { gitOpsReading } from '@steward/testing';
import { controllerOnNodeTier, noNodeCanHold } from '@steward/testing-node-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusters } from './workload-under-test.js';

const CacheClusterKind = cacheClusters.kind.resourceType;

const suite = controllerOnNodeTier({ beforeAll, afterAll }, cacheClusters, {
  images: ['redis-7.0'],
  namespace: 'cc-failures',
  busyPollIntervalMs: 500,
});
const { create, notReady } = suite;

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

  it('an image the node cannot pull: ImagePullFailed, with the kubelet’s reason', async () => {
    const profile = `${suite.namespace}-absent-image`;
    await suite.admin.create(ProviderProfile.resourceType, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: profile },
      spec: {
        provider: 'kubernetes',
        namespaceSelector: {},
        kubernetes: {
          // a name no registry serves, on this machine: a pull attempt never leaves it
          // Never: the kubelet's own refusal, without a registry to ask (IfNotPresent would try one).
          images: [
            {
              engine: 'redis',
              version: '7.0',
              image: 'localhost/steward/redis:0.0.0-absent',
              imagePullPolicy: 'Never',
            },
          ],
        },
      },
    });
    try {
      await create('unpulled', {
        version: '7.0',
        providerProfileRef: { name: profile },
      } as CacheClusterSpec);
      const obj = await notReady('unpulled', 'ImagePullFailed');
      expect(findCondition(obj.status?.conditions, 'Ready')!.message).toMatch(
        /^pod unpulled-0: the image of container server cannot be pulled \(ErrImageNeverPull/,
      );
      expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
    } finally {
      await suite.delete(CacheClusterKind, 'unpulled');
      await suite.gone('unpulled');
      await suite.admin.delete(ProviderProfile.resourceType, profile);
    }
  });

  it('a password Secret that does not exist: AuthSecretNotFound (Stalled); created, the cluster becomes Ready', async () => {
    await create('secretless', {
      version: '7.0',
      auth: { existingSecret: { name: 'secretless-password', key: 'redis-password' } },
    } as CacheClusterSpec);
    const obj = await notReady('secretless', 'AuthSecretNotFound');
    expect(findCondition(obj.status?.conditions, 'Ready')!.message).toBe(
      `spec.auth.existingSecret secretless-password does not exist in namespace ${suite.namespace}: create it with the password under key redis-password`,
    );
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect((await gitOpsReading(obj)).kstatus).toBe('Failed');
    await suite.admin.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'secretless-password', namespace: suite.namespace },
      stringData: { 'redis-password': 'a-long-enough-password' },
    });
    // Looked at again within 30 s of the refusal (recheckAfter): Ready without any other change.
    await suite.ready('secretless', 120_000);
  }, 150_000);
});
