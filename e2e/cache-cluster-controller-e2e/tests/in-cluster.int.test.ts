import { type V1Pod } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Namespaces, Pods, Services, type KubeObject } from '@steward/kube';
import {
  acquireNodeTier,
  appImage,
  installCRDs,
  installControllerChart,
  itRunsAsInstalledController,
  localImages,
  repoRoot,
  type InstalledControllerChart,
  type LocalImage,
  type NodeTier,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Cache = CacheCluster;
const Caches = CacheCluster.resourceType;
const app = 'cache-cluster-controller';

/**
 * The cache-cluster-controller as it ships: its image built from apps/Dockerfile, its chart
 * `helm install`ed with default values into the node tier (two replicas), its pods running under
 * the chart's ServiceAccount and RBAC, reaching the Redis pods it runs over the pod network. One
 * installation; the tests run in order and build on each other.
 */
describe('the cache-cluster-controller chart, installed and running in a cluster', () => {
  let tier: NodeTier;
  let admin: KubeClient;
  let image: LocalImage;
  let chart: InstalledControllerChart;
  let releaseNs: string;
  let cachesNs: string;

  beforeAll(async () => {
    tier = await acquireNodeTier();
    image = await appImage(app);
    await tier.importImage(image);
    for (const redis of Object.values(await localImages('redis-7.0')))
      await tier.importImage(redis);
    admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
    releaseNs = await tier.createNamespace('cache-controller');
    cachesNs = await tier.createNamespace('caches');
    // Both namespaces enforce the restricted Pod Security Standard: a pod the chart or the
    // controller renders that did not meet it would be refused by the API server.
    for (const ns of [releaseNs, cachesNs]) {
      await admin.mergePatch(Namespaces, ns, undefined, {
        metadata: {
          labels: {
            'pod-security.kubernetes.io/enforce': 'restricted',
            'pod-security.kubernetes.io/enforce-version': 'latest',
          },
        },
      });
    }
    // The chart installs its CRDs; other suites on the shared tier may have installed them first.
    await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts', app, 'crds'));
    chart = await installControllerChart(tier, {
      chart: app,
      image,
      namespace: releaseNs,
      values: { replicas: 2 },
    });
  });
  afterAll(async () => {
    if (admin) {
      // Nothing removes the controller's finalizers once it is uninstalled: delete first.
      const left = await admin.list<Cache>(Caches, { namespace: cachesNs }).catch(() => undefined);
      for (const c of left?.items ?? [])
        await admin.delete(Caches, c.metadata.name!, cachesNs).catch(() => undefined);
    }
    await chart?.uninstall().catch(() => undefined);
    if (admin) {
      const left = await admin.list<Cache>(Caches, { namespace: cachesNs }).catch(() => undefined);
      for (const c of left?.items ?? []) {
        await admin
          .mergePatch(Caches, c.metadata.name!, cachesNs, { metadata: { finalizers: null } })
          .catch(() => undefined);
      }
      await admin.close();
    }
    await tier?.release();
  });

  const cache = (name: string, spec: Cache['spec']): Cache =>
    ({
      apiVersion: CacheCluster.apiVersion,
      kind: 'CacheCluster',
      metadata: { name, namespace: cachesNs },
      spec,
    }) as Cache;
  const read = (name: string) => admin.get<Cache>(Caches, name, cachesNs);
  const name = (pod: V1Pod) => pod.metadata!.name!;

  itRunsAsInstalledController(() => ({ app, tier, image, chart, replicas: 2 }));

  it('runs a Replicated CacheCluster to Ready under the chart’s RBAC, in a namespace enforcing the restricted Pod Security Standard', async () => {
    await admin.create<Cache>(
      Caches,
      cache('sessions', {
        version: '7.0',
        mode: 'Replicated',
        replicas: 2,
        failover: { after: '2s' },
      }),
    );
    const ready = await chart.until(
      async () => {
        const c = await read('sessions');
        return findCondition(c.status?.conditions, 'Ready')?.status === 'True' ? c : undefined;
      },
      { description: `CacheCluster ${cachesNs}/sessions Ready`, timeoutMs: 180_000 },
    );
    expect(ready.status).toMatchObject({ phase: 'Ready', primary: 'sessions-0', readyReplicas: 2 });
    // The controller labelled the primary: the read-write Service has exactly its endpoint.
    const primary = await admin.get<KubeObject & { status: { podIP: string } }>(
      Pods,
      'sessions-0',
      cachesNs,
    );
    expect(primary.metadata.labels?.['cache.steward.dev/role']).toBe('primary');
    const rw = await admin.get<KubeObject & { spec: { selector: Record<string, string> } }>(
      Services,
      'sessions-rw',
      cachesNs,
    );
    expect(rw.spec.selector).toMatchObject({ 'cache.steward.dev/role': 'primary' });
  });

  it('fails over when the primary pod is deleted, from inside the cluster', async () => {
    await admin.delete(Pods, 'sessions-0', cachesNs);
    const after = await chart.until(
      async () => {
        const c = await read('sessions');
        return c.status?.failover?.phase === 'Completed' &&
          findCondition(c.status.conditions, 'Ready')?.status === 'True'
          ? c
          : undefined;
      },
      {
        description: `CacheCluster ${cachesNs}/sessions failed over and Ready`,
        timeoutMs: 180_000,
      },
    );
    expect(after.status).toMatchObject({ primary: 'sessions-1', failoverCount: 1 });
    expect(after.status?.failover).toMatchObject({ from: 'sessions-0', to: 'sessions-1' });
  });

  it('serves controller-runtime’s metrics, and nothing it asked for was refused', async () => {
    const leader = await chart.leader();
    const metrics = await chart.metrics(leader);
    expect(metrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="cachecluster",result="[a-z_]+"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^leader_election_master_status\{name="cache-cluster-controller-leader"\} 1$/m,
    );
    for (const pod of await chart.pods())
      expect(await chart.logs(pod), name(pod)).not.toMatch(/forbidden/i);
  });
});
