/**
 * The CacheCluster controller in-process, on the node tier: a real API server, kubelet and
 * containerd running the Redis pods it renders, ioredis talking to them over the pod network.
 * (The app as shipped — its bundle as a process, its chart in the cluster — is proven in
 * e2e/cache-cluster-controller-e2e.)
 */
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { KubeClient, Pods, Secrets, Services, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, gitOpsReading, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusterController, type Pod } from '../src/index.js';

const Kind = CacheCluster.resourceType;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let manager: Manager;
const writes: string[] = [];

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('redis-7.0', 'valkey-8.1');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(
    tier.kubeConfig,
    join(repoRoot(), 'charts/cache-cluster-controller/crds'),
    join(repoRoot(), 'charts/database-instance-controller/crds/providerprofiles.steward.dev.yaml'),
  );
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
  ns = await tier.createNamespace('cc-controller');
  manager = new Manager({
    kubeConfig: tier.kubeConfig,
    name: 'cache-cluster-controller',
    client: {
      onRequest: (info) => {
        if (!['get', 'list', 'watch'].includes(info.verb)) writes.push(`${info.verb} ${info.path}`);
      },
    },
  });
  cacheClusterController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 1000,
    busyPollIntervalMs: 300,
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
const read = (name: string) => admin.get<CacheCluster>(Kind, name, ns);
const ready = (name: string, timeoutMs = 120_000) =>
  eventually(
    async () => {
      const obj = await read(name);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'True' && cond.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs },
  );
const passwordOf = async (name: string) => {
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  return Buffer.from(secret.data['password']!, 'base64').toString('utf8');
};
const podIp = async (pod: string) => (await admin.get<Pod>(Pods, pod, ns)).status?.podIP ?? '';
const connect = (host: string, password: string) =>
  new Redis({
    host,
    port: 6379,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });

describe('the CacheCluster controller on the node tier', () => {
  it('runs a Standalone cache: Ready with its children, writable through the read-write Service, and costs no writes once converged', async () => {
    await create('solo', { version: '7.0' });
    const obj = await ready('solo');
    expect(obj.status).toMatchObject({
      phase: 'Ready',
      primary: 'solo-0',
      readyReplicas: 1,
      image: 'localhost/steward/redis:7.0.15',
      endpoints: { readWrite: { host: `solo-rw.${ns}.svc`, port: 6379 }, secretName: 'solo-auth' },
      persistence: { durable: false },
    });
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    const sts = await admin.get<KubeObject>(StatefulSets, 'solo', ns);
    expect(sts.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'CacheCluster',
      name: 'solo',
      controller: true,
    });
    // Through the read-write Service's ClusterIP (kube-proxy on this host).
    const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
      Services,
      'solo-rw',
      ns,
    );
    const password = await passwordOf('solo');
    // kube-proxy programs the Service once the endpoint slice lists the labelled primary.
    await eventually(
      async () => {
        const client = connect(rw.spec.clusterIP, password);
        try {
          await client.connect();
          await client.set('greeting', 'hello');
          return (await client.get('greeting')) === 'hello';
        } finally {
          client.disconnect();
        }
      },
      { description: 'a write and a read through solo-rw' },
    );
    // Converged: several polls later, not one write.
    await new Promise((r) => setTimeout(r, 1500));
    writes.length = 0;
    await new Promise((r) => setTimeout(r, 4000));
    expect(writes).toEqual([]);
  });

  it('runs a Replicated cache and fails over when the primary pod is deleted, recording the bound', async () => {
    await create('pair', {
      version: '8.1',
      engine: 'valkey',
      mode: 'Replicated',
      replicas: 3,
      failover: { after: '2s' },
    });
    const obj = await ready('pair');
    expect(obj.status).toMatchObject({ primary: 'pair-0', readyReplicas: 3 });
    expect(obj.status?.failoverCount).toBeUndefined();
    const password = await passwordOf('pair');
    const primary = connect(await podIp('pair-0'), password);
    await primary.connect();
    for (let i = 0; i < 100; i++) await primary.set(`k${i}`, `v${i}`);
    primary.disconnect();
    const replica = connect(await podIp('pair-1'), password);
    await replica.connect();
    await eventually(async () => ((await replica.get('k99')) === 'v99' ? true : undefined), {
      description: 'the replica has the writes',
    });
    replica.disconnect();

    await admin.delete(Pods, 'pair-0', ns);
    const after = await eventually(
      async () => {
        const o = await read('pair');
        return o.status?.failover?.phase === 'Completed' &&
          findCondition(o.status.conditions, 'Ready')?.status === 'True'
          ? o
          : undefined;
      },
      { description: 'the failover completed and the cluster is Ready', timeoutMs: 120_000 },
    );
    expect(after.status?.failover).toMatchObject({
      from: 'pair-0',
      reason: expect.stringMatching(/^Primary(PodDeleted|PodMissing|Unreachable|Restarted)$/),
    });
    expect(after.status?.primary).not.toBe('pair-0');
    expect(after.status?.failoverCount).toBe(1);
    const promoted = connect(await podIp(after.status!.primary!), password);
    await promoted.connect();
    expect(await promoted.get('k99')).toBe('v99');
    await promoted.set('after', 'failover');
    promoted.disconnect();
  });

  it('pauses on steward.dev/paused: changes nothing (a deleted child stays gone, a spec change is not observed), and resumes when it goes', async () => {
    await create('held', { version: '7.0' });
    const before = await ready('held');
    await admin.mergePatch(Kind, 'held', ns, {
      metadata: { annotations: { 'steward.dev/paused': 'true' } },
    });
    const paused = await eventually(
      async () => {
        const o = await read('held');
        return findCondition(o.status?.conditions, 'Paused')?.status === 'True' ? o : undefined;
      },
      { description: 'held: Paused=True' },
    );
    expect(findCondition(paused.status?.conditions, 'Paused')).toMatchObject({
      reason: 'ReconcilePaused',
      message: expect.stringContaining('remove the annotation to resume'),
    });
    // While paused: a deleted child is not put back, and a spec change is not observed.
    await admin.delete(Services, 'held-rw', ns);
    await admin.mergePatch(Kind, 'held', ns, { spec: { maxMemory: '64Mi' } });
    await new Promise((resolve) => setTimeout(resolve, 8000)); // 8 polls of 1 s
    const still = await read('held');
    expect(still.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
    expect(still.status?.observedGeneration).toBe(before.metadata.generation);
    expect(await gitOpsReading(still)).toMatchObject({ kstatus: 'InProgress' });
    await expect(admin.get(Services, 'held-rw', ns)).rejects.toThrow();
    // Resumed: the child comes back, the change is observed, Paused goes.
    await admin.mergePatch(Kind, 'held', ns, {
      metadata: { annotations: { 'steward.dev/paused': null } },
    });
    const resumed = await ready('held');
    expect(findCondition(resumed.status?.conditions, 'Paused')).toBeUndefined();
    expect(resumed.status?.observedGeneration).toBe(resumed.metadata.generation);
    expect(await gitOpsReading(resumed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    await eventually(
      () =>
        admin.get(Services, 'held-rw', ns).then(
          () => true,
          () => false,
        ),
      { description: 'held-rw recreated' },
    );
  });

  it('gives a refused CacheCluster no finalizer: nothing was created for it, so its deletion is immediate', async () => {
    await create('refused', { version: '7.0', providerProfileRef: { name: 'not-there' } });
    const refused = await eventually(
      async () => {
        const o = await read('refused');
        return findCondition(o.status?.conditions, 'Stalled')?.status === 'True' ? o : undefined;
      },
      { description: 'refused: Stalled' },
    );
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ProviderProfileNotFound',
    });
    expect(refused.metadata.finalizers ?? []).toEqual([]);
    await admin.delete(Kind, 'refused', ns);
    await eventually(
      () =>
        read('refused').then(
          () => false,
          () => true,
        ),
      { description: 'refused: gone' },
    );
  });
});
