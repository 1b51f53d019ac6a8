import { type V1Pod } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Namespaces, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { installCRDs, repoRoot } from '@steward/testing';
import {
  installControllerChart,
  itRunsAsInstalledController,
  type InstalledControllerChart,
} from '@steward/testing-charts';
import {
  acquireNodeTier,
  appImage,
  localImages,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Cache = CacheCluster;
const Caches = CacheCluster.resourceType;
const app = 'cache-cluster-controller';

/**
 * The cache-cluster-controller as it ships: its image built from apps/Dockerfile, its chart
 * `helm install`ed into the node tier scoped to one namespace (`watchNamespaces`, two replicas),
 * its pods running under the chart's ServiceAccount and RBAC, reaching the Redis pods it runs over
 * the pod network. One installation; the tests run in order and build on each other. The other
 * kinds' in-cluster suites install with the default values (every namespace).
 */
describe('the cache-cluster-controller chart, installed and running in a cluster', () => {
  let tier: NodeTier;
  let admin: KubeClient;
  let image: LocalImage;
  let chart: InstalledControllerChart;
  let releaseNs: string;
  let cachesNs: string;
  /** A namespace the release does not watch. */
  let outsideNs: string;

  beforeAll(async () => {
    tier = await acquireNodeTier();
    image = await appImage(app);
    await tier.importImage(image);
    for (const redis of Object.values(await localImages('redis-7.0')))
      await tier.importImage(redis);
    admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
    releaseNs = await tier.createNamespace('cache-controller');
    cachesNs = await tier.createNamespace('caches');
    outsideNs = await tier.createNamespace('outside');
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
      values: { replicas: 2, watchNamespaces: [cachesNs] },
    });
  });
  afterAll(async () => {
    if (admin) {
      // Nothing removes the controller's finalizers once it is uninstalled: delete first.
      const left = await admin.list<Cache>(Caches, { namespace: cachesNs }).catch(() => undefined);
      for (const c of left?.items ?? [])
        await admin.delete(Caches, c.metadata.name!, cachesNs).catch(() => undefined);
      // Never the controller's: it holds no finalizer.
      await admin.delete(Caches, 'stray', outsideNs).catch(() => undefined);
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

  it('touches nothing outside the namespace it watches, and its own pod’s token cannot', async () => {
    // What a tenant outside the scope has: a CacheCluster and a Secret.
    await admin.create<Cache>(Caches, {
      ...cache('stray', { version: '7.0' }),
      metadata: { name: 'stray', namespace: outsideNs },
    });
    await admin.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'foreign', namespace: outsideNs },
      stringData: { password: 'not-yours' },
    } as KubeObject);
    // From inside the leader's controller container, with the token the pod runs with.
    const leader = await chart.leader();
    const status = async (method: string, path: string): Promise<number> => {
      const { stdout } = await chart.exec(leader, [
        'node',
        '-e',
        [
          "const https = require('node:https'), fs = require('node:fs');",
          "const sa = '/var/run/secrets/kubernetes.io/serviceaccount/';",
          'const [method, path] = process.argv.slice(1);',
          'const req = https.request({ host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, method, path,',
          "  ca: fs.readFileSync(sa + 'ca.crt'), headers: { authorization: 'Bearer ' + fs.readFileSync(sa + 'token', 'utf8'), 'content-type': 'application/merge-patch+json' } },",
          '  (res) => { console.log(res.statusCode); res.resume(); });',
          "req.on('error', (e) => { console.error(e.message); process.exit(1); });",
          "req.end(method === 'PATCH' ? JSON.stringify({ metadata: { labels: { taken: 'yes' } } }) : undefined);",
        ].join('\n'),
        method,
        path,
      ]);
      return Number(stdout.trim());
    };
    const cachePath = (ns: string, name = '') =>
      `/apis/cache.steward.dev/v1alpha1/namespaces/${ns}/cacheclusters${name ? `/${name}` : ''}`;
    expect(await status('GET', cachePath(cachesNs))).toBe(200);
    expect(await status('GET', `/api/v1/namespaces/${cachesNs}/secrets/sessions-auth`)).toBe(200);
    expect(await status('GET', cachePath(outsideNs))).toBe(403);
    expect(await status('GET', cachePath(outsideNs, 'stray'))).toBe(403);
    expect(await status('PATCH', cachePath(outsideNs, 'stray'))).toBe(403);
    expect(await status('GET', `/api/v1/namespaces/${outsideNs}/secrets/foreign`)).toBe(403);
    expect(await status('GET', '/api/v1/secrets')).toBe(403);
    expect(await status('DELETE', `/api/v1/namespaces/${outsideNs}/secrets/foreign`)).toBe(403);
    expect(await status('GET', cachePath('default'))).toBe(403);
    // And the controller leaves the stray CacheCluster alone: several polls later it has no
    // finalizer, no status and no children.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const stray = await admin.get<Cache>(Caches, 'stray', outsideNs);
    expect(stray.metadata.finalizers ?? []).toEqual([]);
    expect(stray.status).toBeUndefined();
    expect(stray.metadata.labels?.['taken']).toBeUndefined();
    const children = await admin.list(Pods, { namespace: outsideNs });
    expect(children.items).toEqual([]);
    expect((await admin.get(Secrets, 'foreign', outsideNs)).metadata.name).toBe('foreign');
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
