/**
 * A hung primary on the node tier: its container frozen through containerd (every process of it
 * stopped, as a hung machine or a long GC-like stall would; its TCP port still accepts
 * connections, nothing answers), with the controller in-process at the shipped poll (5 s).
 *
 * - The reported bug: a Redis primary hung for 12 s with `failover.after: 5s` was not failed over
 *   at all — the first look at it came up to a poll (5 s) after it hung. Now a Replicated cluster
 *   is looked at every `failover.after`/5: it is failed over within the 12 s, the loss `Unknown`
 *   (no fence: it did not answer and may have gone on acknowledging), and once thawed it returns
 *   as a replica after its dataset was considered for salvage.
 * - With `spec.fencing`: the replicas are detached from it, the promotion comes only after
 *   `status.failover.primaryFencedBy`, the loss is `Bounded`; the cluster is writable again
 *   through its read-write Service within the fence bound + 3 s of the freeze (figures printed);
 *   thawed, what it holds is saved (`status.failover.salvage` Saved or NotNeeded), and a Saved
 *   file is where status says.
 */
import { CacheCluster } from '@steward/cache-cluster-api';
import { Manager } from '@steward/controller';
import { KubeClient, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheClusterController, type Pod } from '../src/index.js';
import { kubeletRoots } from './kubelet-roots.js';

const Kind = CacheCluster.resourceType;
const execFileAsync = promisify(execFile);

let tier: NodeTier;
let admin: KubeClient;
let manager: Manager;
let ns: string;

beforeAll(async () => {
  tier = await acquireNodeTier();
  for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
  ns = await tier.createNamespace('cc-hang');
  manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'cache-cluster-controller' });
  // The shipped poll (5 s): no pollIntervalMs.
  cacheClusterController(manager, { selection: { namespace: ns } });
  manager.start().catch(() => undefined);
}, 600_000);

afterAll(async () => {
  for (const c of (await admin?.list<CacheCluster>(Kind, { namespace: ns }))?.items ?? [])
    await admin.delete(Kind, c.metadata.name!, ns).catch(() => undefined);
  await eventually(async () => (await admin.list(Kind, { namespace: ns })).items.length === 0, {
    description: 'the CacheClusters gone',
    timeoutMs: 60_000,
  }).catch(() => undefined);
  await manager?.stop();
  await admin?.close();
  await tier?.release();
});

const client = (host: string, password: string, timeoutMs = 500) => {
  const c = new Redis({
    host,
    port: 6379,
    password,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  });
  c.on('error', () => undefined);
  return c;
};

/** Numbered writes to `host`, one after another, reconnecting on any error; every ack kept. */
function writer(host: string, password: string, prefix: string) {
  const acks: { key: string; at: number }[] = [];
  let stopped = false;
  let n = 0;
  const done = (async () => {
    let c: Redis | undefined;
    while (!stopped) {
      try {
        if (!c) {
          c = client(host, password);
          await c.connect();
        }
        const key = `${prefix}:${String(n++).padStart(7, '0')}`;
        await c.set(key, 'x'.repeat(32));
        acks.push({ key, at: Date.now() });
        await sleep(5);
      } catch {
        c?.disconnect();
        c = undefined;
        await sleep(20);
      }
    }
    c?.disconnect();
  })();
  return { acks, stop: () => ((stopped = true), done) };
}

async function cluster(name: string, spec: Partial<CacheCluster['spec']>) {
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec: { version: '7.0', mode: 'Replicated', replicas: 3, ...spec },
  } as CacheCluster);
  const ready = await eventually(
    async () => {
      const o = await admin.get<CacheCluster>(Kind, name, ns);
      return o.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True'
        ? o
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs: 180_000 },
  );
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
  const primary = ready.status!.primary!;
  const pod = await admin.get<Pod>(Pods, primary, ns);
  const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ns,
  );
  return {
    ready,
    password,
    primary,
    primaryIp: pod.status!.podIP!,
    containerId: pod.status!.containerStatuses![0]!.containerID!,
    uid: pod.metadata.uid!,
    rwIp: rw.spec.clusterIP,
    read: () => admin.get<CacheCluster>(Kind, name, ns),
  };
}

/** `ctr` against the tier's containerd, as root. */
async function ctr(...args: string[]) {
  const state = JSON.parse(await readFile(join(tier.layout.runDir, 'state.json'), 'utf8')) as {
    containerdSocket: string;
  };
  await execFileAsync(tier.binaries.ctr, [
    ...['--address', state.containerdSocket, '--namespace', 'k8s.io'],
    ...args,
  ]);
}

/**
 * Hangs the server for `ms`: its container frozen (every process), or — when runc's cgroup v1
 * freeze gives up on a loaded machine ("unable to freeze") — its server process stopped with
 * SIGSTOP (the container's init: the start script execs the server), then continued. Either way
 * it accepts TCP connections and answers nothing. Answers when it hung and came back.
 */
async function freeze(containerId: string, ms: number) {
  const id = containerId.replace(/^containerd:\/\//, '');
  let how: 'pause' | 'SIGSTOP' = 'pause';
  try {
    await tier.containerTask(containerId, 'pause');
  } catch (error) {
    if (!/unable to freeze/.test(String(error))) throw error;
    how = 'SIGSTOP';
    await ctr('tasks', 'kill', '--signal', 'SIGSTOP', id);
  }
  const frozenAt = Date.now();
  await sleep(ms);
  if (how === 'pause') await tier.containerTask(containerId, 'resume');
  else await ctr('tasks', 'kill', '--signal', 'SIGCONT', id);
  console.log(`hung by ${how} for ${ms} ms`);
  return { frozenAt, thawedAt: Date.now() };
}

describe('a hung primary (its container frozen)', () => {
  it('hung for 12 s with failover.after 5s and the shipped 5 s poll: failed over before it thaws, loss Unknown without a fence, back as a replica', async () => {
    const c = await cluster('hang', { failover: { after: '5s' } });
    expect(c.ready.status?.fencing).toMatchObject({ mode: 'None' });
    const { frozenAt, thawedAt } = await freeze(c.containerId, 12_000);
    const status = (await c.read()).status!;
    expect(status.failoverCount, 'failed over while the primary was hung').toBe(1);
    const failover = status.failover!;
    expect(failover).toMatchObject({ from: c.primary, reason: 'PrimaryUnreachable' });
    expect(Date.parse(failover.startedAt)).toBeLessThan(thawedAt);
    expect(failover.dataLossRisk).toBe('Unknown');
    expect(failover.primaryFencedBy).toBeUndefined();
    console.log(
      `hung primary, failover.after 5s, poll 5 s: failover decided ${Date.parse(failover.startedAt) - frozenAt} ms after the freeze (lost since ${Date.parse(failover.primaryLostAt!) - frozenAt} ms)`,
    );
    // Thawed, it follows the new primary; what it held was considered for salvage first.
    const back = await eventually(
      async () => {
        const s = (await c.read()).status!;
        const seen = client(c.primaryIp, c.password);
        try {
          await seen.connect();
          const role = (await seen.call('ROLE')) as unknown[];
          return role[0] === 'slave' && s.failover?.salvage?.phase !== 'Pending' ? s : undefined;
        } catch {
          return undefined;
        } finally {
          seen.disconnect();
        }
      },
      { description: `${c.primary} a replica again, its salvage settled`, timeoutMs: 60_000 },
    );
    expect(['Saved', 'NotNeeded']).toContain(back.failover?.salvage?.phase);
  }, 400_000);

  it('with spec.fencing: replicas detached, promoted after primaryFencedBy, Bounded; writable again within the bound + 3 s; thawed, its data salvaged where status says', async () => {
    const c = await cluster('hang-fenced', {
      failover: { after: '3s' },
      fencing: { minReplicas: 1, maxLag: '2s' },
    });
    expect(c.ready.status?.fencing).toMatchObject({ mode: 'MinReplicas', boundSeconds: 4 });
    const viaService = writer(c.rwIp, c.password, 'rw');
    await eventually(() => viaService.acks.length >= 50, { description: 'writes through -rw' });
    const { frozenAt } = await freeze(c.containerId, 12_000);
    await eventually(() => viaService.acks.some((a) => a.at > frozenAt), {
      description: 'writes acknowledged again',
      timeoutMs: 30_000,
    });
    const writableAt = viaService.acks.find((a) => a.at > frozenAt)!.at;
    const status = (await c.read()).status!;
    const failover = status.failover!;
    expect(status.failoverCount).toBe(1);
    expect(failover).toMatchObject({ from: c.primary, dataLossRisk: 'Bounded' });
    expect(failover.primaryFencedBy).toBeDefined();
    expect(Date.parse(failover.startedAt)).toBeGreaterThanOrEqual(
      Date.parse(failover.primaryFencedBy!),
    );
    const bound = status.fencing!.boundSeconds!;
    console.log(
      `hung primary, fenced (bound ${bound} s), failover.after 3s: writable again through -rw ${writableAt - frozenAt} ms after the freeze; failover decided ${Date.parse(failover.startedAt) - frozenAt} ms, fenced by ${Date.parse(failover.primaryFencedBy!) - frozenAt} ms`,
    );
    // Thawed: salvaged (or nothing to save), then a replica.
    const settled = await eventually(
      async () => {
        const s = (await c.read()).status!;
        return s.failover?.salvage && s.failover.salvage.phase !== 'Pending' ? s : undefined;
      },
      { description: 'the salvage settled', timeoutMs: 60_000 },
    );
    await viaService.stop();
    const salvage = settled.failover!.salvage!;
    expect(['Saved', 'NotNeeded']).toContain(salvage.phase);
    console.log(`salvage: ${JSON.stringify(salvage)}`);
    if (salvage.phase === 'Saved') {
      // No persistence: the emptyDir of the pod, on this host under the kubelet's root.
      const file = /\/data\/(salvage-[0-9TZ]+\.rdb)/.exec(salvage.location!)![1]!;
      const found = await execFileAsync('find', [
        ...kubeletRoots(),
        '-path',
        `*${c.uid}*`,
        '-name',
        file,
      ]);
      expect(found.stdout.trim(), `${file} in the emptyDir of ${c.primary}`).not.toBe('');
    }
  }, 400_000);
});
