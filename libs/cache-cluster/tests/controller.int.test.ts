/**
 * The CacheCluster controller in-process, on the node tier: a real API server, kubelet and
 * containerd running the Redis pods it renders, ioredis talking to them over the pod network.
 * (The app as shipped — its bundle as a process, its chart in the cluster — is proven in
 * e2e/cache-cluster-controller-e2e.)
 */
import { findCondition } from '@steward/conditions';
import { CacheCluster } from '@steward/cache-cluster-api';
import { Pods, Services, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, gitOpsReading } from '@steward/testing';
import { controllerOnNodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusters } from './workload-under-test.js';

const Kind = CacheCluster.resourceType;

const suite = controllerOnNodeTier({ beforeAll, afterAll }, cacheClusters, {
  images: ['redis-7.0', 'valkey-8.1'],
  namespace: 'cc-controller',
});
const { create, read, ready, podIp } = suite;
const passwordOf = async (name: string) => (await suite.secret(`${name}-auth`))['password']!;
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
      image: 'ghcr.io/steward-dev/redis:7.0.15',
      endpoints: {
        readWrite: { host: `solo-rw.${suite.namespace}.svc`, port: 6379 },
        secretName: 'solo-auth',
      },
      persistence: { durable: false },
    });
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    const sts = await suite.get<KubeObject>(StatefulSets, 'solo');
    expect(sts.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'CacheCluster',
      name: 'solo',
      controller: true,
    });
    // Through the read-write Service's ClusterIP (kube-proxy on this host).
    const rw = await suite.serviceIp('solo-rw');
    const password = await passwordOf('solo');
    // kube-proxy programs the Service once the endpoint slice lists the labelled primary.
    await eventually(
      async () => {
        const client = connect(rw, password);
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
    expect(await suite.writesDuring(4000, 1500)).toEqual([]);
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

    await suite.delete(Pods, 'pair-0');
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
    const paused = await suite.pause('held');
    expect(findCondition(paused.status?.conditions, 'Paused')).toMatchObject({
      reason: 'ReconcilePaused',
      message: expect.stringContaining('remove the annotation to resume'),
    });
    // While paused: a deleted child is not put back, and a spec change is not observed.
    await suite.delete(Services, 'held-rw');
    await suite.patch('held', { spec: { maxMemory: '64Mi' } });
    await new Promise((resolve) => setTimeout(resolve, 8000)); // 8 polls of 1 s
    const still = await read('held');
    expect(still.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
    expect(still.status?.observedGeneration).toBe(before.metadata.generation);
    expect(await gitOpsReading(still)).toMatchObject({ kstatus: 'InProgress' });
    await expect(suite.get(Services, 'held-rw')).rejects.toThrow();
    // Resumed: the child comes back, the change is observed, Paused goes.
    const resumed = await suite.resume('held');
    expect(findCondition(resumed.status?.conditions, 'Paused')).toBeUndefined();
    expect(resumed.status?.observedGeneration).toBe(resumed.metadata.generation);
    expect(await gitOpsReading(resumed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    await suite.recreated(Services, 'held-rw');
  });

  it('gives a refused CacheCluster no finalizer: nothing was created for it, so its deletion is immediate', async () => {
    await create('refused', { version: '7.0', providerProfileRef: { name: 'not-there' } });
    const refused = await suite.conditionTrue('refused', 'Stalled');
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ProviderProfileNotFound',
    });
    expect(refused.metadata.finalizers ?? []).toEqual([]);
    await suite.delete(Kind, 'refused');
    await suite.gone('refused');
  });
});
