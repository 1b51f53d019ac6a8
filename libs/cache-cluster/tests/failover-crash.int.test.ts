/**
 * A controller that dies between deciding a failover and carrying it out, made deterministic
 * in-process on the node tier: the first manager's Redis admin (the real one, behind a wrapper of
 * our own RedisAdmin interface) never answers the failover's `promote`, so that manager has
 * written its decision (status.failover Promoting, the replica chosen, failoverCount + 1) and is
 * stuck before `REPLICAOF NO ONE`; it is then stopped for good — nothing it would do after the
 * promotion ever happens. A second manager, with a plain redisAdmin(), takes over.
 *
 * - It carries the recorded decision out: the same replica promoted, the failover counted once,
 *   one primary.
 * - Unless the chosen replica's server restarted in between (empty, booted fenced): promoting it
 *   would hand the other replicas its empty dataset. It is lost like a restarted primary, and
 *   the replica that still holds the data is promoted instead.
 */
import { findCondition } from '@steward/conditions';
import { Manager, type EventRecorder } from '@steward/controller';
import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Pods, Secrets, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheClusterController,
  redisAdmin,
  type Pod,
  type RedisAdmin,
  type RedisEndpoint,
} from '../src/index.js';

const execFileAsync = promisify(execFile);
const Kind = CacheCluster.resourceType;

let tier: NodeTier;
let admin: KubeClient;
/** Run at the end: each deletes its CacheCluster while its second manager runs, then stops it. */
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  tier = await acquireNodeTier();
  for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
}, 600_000);

afterAll(async () => {
  // The first managers stay stuck in their promotion: never let go, they never act again.
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  await admin?.close();
  await tier?.release();
});

/** `ROLE`'s first element and, with `key`, its value, from the pod's server asked directly. */
async function serverOf(
  ns: string,
  pod: string,
  password: string,
  key = 'k-last',
): Promise<{ role: string; value: string | null }> {
  const client = new Redis({
    host: (await admin.get<Pod>(Pods, pod, ns)).status?.podIP ?? '',
    port: 6379,
    password,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
    commandTimeout: 2000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const role = String(((await client.call('ROLE')) as unknown[])[0]);
    return { role, value: await client.get(key) };
  } finally {
    client.disconnect();
  }
}

/**
 * One crash: a namespace of its own, a Replicated CacheCluster holding `k-0` … `k-last`, the first
 * manager stuck promoting the replica it chose for the deleted primary, then stopped. Answers
 * what it decided and how to start the second manager.
 */
async function crashedFailover(prefix: string) {
  const ns = await tier.createNamespace(prefix);
  const name = prefix;
  const events: { manager: 1 | 2; reason: string }[] = [];
  const recorder = (manager: 1 | 2): EventRecorder => ({
    event: (_obj, _type, reason) => events.push({ manager, reason }),
  });
  const managerWith = (n: 1 | 2, redis?: RedisAdmin): Manager => {
    const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'cache-cluster-controller' });
    cacheClusterController(manager, {
      selection: { namespace: ns },
      pollIntervalMs: 1000,
      busyPollIntervalMs: 300,
      events: recorder(n),
      ...(redis ? { redis } : {}),
    });
    manager.start().catch(() => undefined);
    return manager;
  };
  // The real admin, except that once armed its `promote` never resolves (and records where it was
  // asked to promote): the crash point, right after the decision was written.
  const real = redisAdmin();
  let armed = false;
  const stuck: RedisEndpoint[] = [];
  const crashing: RedisAdmin = {
    observe: (endpoint, options) => real.observe(endpoint, options),
    replicaOf: (endpoint, primary) => real.replicaOf(endpoint, primary),
    failover: (endpoint, target, timeoutMs) => real.failover(endpoint, target, timeoutMs),
    salvageThenFollow: (endpoint, file, primary, timeoutMs, fence) =>
      real.salvageThenFollow(endpoint, file, primary, timeoutMs, fence),
    promote: (endpoint) => {
      if (!armed) return real.promote(endpoint);
      stuck.push(endpoint);
      return new Promise<void>(() => undefined);
    },
    close: () => real.close(),
  };

  const read = () => admin.get<CacheCluster>(Kind, name, ns);
  const ready = () =>
    eventually(
      async () => {
        const obj = await read();
        const cond = findCondition(obj.status?.conditions, 'Ready');
        return cond?.status === 'True' && cond.observedGeneration === obj.metadata.generation
          ? obj
          : undefined;
      },
      { description: `${name} Ready`, timeoutMs: 180_000 },
    );
  const podIp = async (pod: string) => (await admin.get<Pod>(Pods, pod, ns)).status?.podIP ?? '';

  const first = managerWith(1, crashing);
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec: { version: '7.0', mode: 'Replicated', replicas: 3, failover: { after: '2s' } },
  } as CacheCluster);
  const before = await ready();
  const oldPrimary = before.status!.primary!;
  expect(before.status?.failoverCount).toBeUndefined();
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
  // Data on every server.
  const writer = new Redis({ host: await podIp(oldPrimary), port: 6379, password });
  for (let i = 0; i < 500; i++) await writer.set(`k-${i}`, `v-${i}`);
  await writer.set('k-last', 'v-last');
  writer.disconnect();
  for (const i of [0, 1, 2])
    await eventually(async () => (await serverOf(ns, `${name}-${i}`, password)).value, {
      description: `${name}-${i} holds the data`,
    });

  // The primary is lost; the first manager decides, writes its decision and is stuck promoting.
  armed = true;
  await admin.delete(Pods, oldPrimary, ns);
  await eventually(() => stuck.length > 0, {
    description: 'the first manager promoting',
    timeoutMs: 60_000,
  });
  const decided = (await read()).status!;
  expect(decided).toMatchObject({
    failoverCount: 1,
    failover: { phase: 'Promoting', from: oldPrimary },
  });
  const chosen = decided.failover!.to;
  expect(decided.primary).toBe(chosen);
  expect(stuck).toEqual([expect.objectContaining({ host: await podIp(chosen) })]);

  // The crash: the first manager takes no more work, and its stuck promotion never returns.
  void first.stop();
  await sleep(2000);
  expect((await serverOf(ns, chosen, password)).role).toBe('slave');
  expect((await read()).status).toMatchObject({
    failoverCount: 1,
    failover: { phase: 'Promoting', to: chosen },
  });

  let second: Manager | undefined;
  cleanups.push(async () => {
    if (!second) return;
    await admin.delete(Kind, name, ns).catch(() => undefined);
    await eventually(async () => (await admin.list(Kind, { namespace: ns })).items.length === 0, {
      description: `${name} gone`,
      timeoutMs: 60_000,
    }).catch(() => undefined);
    await second.stop();
  });
  return {
    ns,
    name,
    password,
    oldPrimary,
    chosen,
    events,
    stuck,
    read,
    ready,
    startSecond: () => {
      second = managerWith(2);
    },
    completed: (count: number) =>
      eventually(
        async () => {
          const o = await read();
          return o.status?.failoverCount === count && o.status.failover?.phase === 'Completed'
            ? o
            : undefined;
        },
        { description: `${name}: failover ${count} Completed`, timeoutMs: 120_000 },
      ),
    roles: async () =>
      Object.fromEntries(
        await Promise.all(
          [0, 1, 2].map(async (i) => [
            `${name}-${i}`,
            await serverOf(ns, `${name}-${i}`, password),
          ]),
        ),
      ) as Record<string, { role: string; value: string | null }>,
  };
}

describe('a controller crash between the failover decision and the promotion', () => {
  it('is finished by the next controller: the replica the first one recorded is promoted, the failover counted once, one master', async () => {
    const crash = await crashedFailover('cc-crash');
    const { name, chosen } = crash;

    // A second manager carries the recorded decision out.
    crash.startSecond();
    const after = await crash.completed(1);
    expect(after.status).toMatchObject({
      primary: chosen,
      failoverCount: 1,
      failover: { from: crash.oldPrimary, to: chosen },
    });
    await crash.ready();
    const roles = await crash.roles();
    expect(roles).toEqual(
      Object.fromEntries(
        [0, 1, 2].map((i) => [
          `${name}-${i}`,
          { role: `${name}-${i}` === chosen ? 'master' : 'slave', value: 'v-last' },
        ]),
      ),
    );
    expect((await crash.read()).status?.failoverCount).toBe(1);
    expect(crash.stuck).toHaveLength(1);
    // One decision, taken by the first manager; the second only finished it.
    const byReason = (reason: string) =>
      crash.events.filter((e) => e.reason === reason).map((e) => e.manager);
    expect(byReason('FailoverStarted')).toEqual([1]);
    expect(byReason('FailoverCompleted')).toEqual([2]);
  }, 300_000);

  it('does not promote a chosen replica whose server restarted before the promotion: the replica holding the data is promoted instead', async () => {
    const crash = await crashedFailover('cc-crash-restart');
    const { ns, name, chosen } = crash;

    // The chosen replica's server dies and comes back fenced, empty, in the same pod.
    const pod = await admin.get<
      Pod & { status: { containerStatuses: { containerID: string; restartCount: number }[] } }
    >(Pods, chosen, ns);
    const state = JSON.parse(await readFile(join(tier.layout.runDir, 'state.json'), 'utf8')) as {
      containerdSocket: string;
    };
    await execFileAsync(tier.binaries.ctr, [
      ...['--address', state.containerdSocket, '--namespace', 'k8s.io'],
      ...['tasks', 'kill', '--signal', 'SIGKILL'],
      pod.status.containerStatuses[0]!.containerID.replace(/^containerd:\/\//, ''),
    ]);
    await eventually(
      async () => {
        const s = await serverOf(ns, chosen, crash.password);
        return s.role === 'slave' && s.value === null;
      },
      { description: `${chosen} back, fenced and empty`, timeoutMs: 60_000 },
    );

    crash.startSecond();
    const after = await crash.completed(2);
    const survivor = [0, 1, 2]
      .map((i) => `${name}-${i}`)
      .find((p) => p !== chosen && p !== crash.oldPrimary)!;
    expect(after.status).toMatchObject({
      primary: survivor,
      failoverCount: 2,
      failover: { from: chosen, to: survivor, reason: 'PrimaryRestarted', dataLossRisk: 'Unknown' },
    });
    await crash.ready();
    // Nothing was lost: every server holds the data, the survivor is the one master.
    expect(await crash.roles()).toEqual(
      Object.fromEntries(
        [0, 1, 2].map((i) => [
          `${name}-${i}`,
          { role: `${name}-${i}` === survivor ? 'master' : 'slave', value: 'v-last' },
        ]),
      ),
    );
    const byReason = (reason: string) =>
      crash.events.filter((e) => e.reason === reason).map((e) => e.manager);
    expect(byReason('FailoverStarted')).toEqual([1, 2]);
  }, 300_000);
});
