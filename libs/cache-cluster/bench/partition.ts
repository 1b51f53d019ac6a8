/**
 * CacheCluster with `spec.fencing` when its primary is cut off or hung, on the three-node tier
 * (real kubelets and containerds, real Redis 7.0 pods), the controller in-process on a `Manager`
 * with the chart's defaults (poll 5 s, busy poll 1 s). Prints a Markdown table for BENCHMARKS.md;
 * asserts nothing but that each step happened.
 *
 *   npx tsx libs/cache-cluster/bench/partition.ts [--runs=5]
 *
 * Per run, one Replicated cluster of 3 pods over the three nodes, `failover.after: 3s`,
 * `fencing: { minReplicas: 1, maxLag: 2s }` (bound 4 s), two clients writing numbered keys: one
 * through the read-write Service's ClusterIP, one straight to the primary's pod IP from a test
 * client's address (the side of the partition the primary is on):
 * - partition: the primary's node cut off (`partitionNode`, the direct client let through) — the
 *   split-brain window (the old primary's last acknowledgement after the new primary's first),
 *   the time to the first acknowledgement on the new primary, the old primary's last ack and
 *   `primaryFencedBy` after the cut, writes lost beyond the bound, the salvage; healed;
 * - hung: the primary's node stopped (kubelet killed, every process frozen) — the time to the
 *   first acknowledgement through the Service; started again.
 * The same cluster without fencing (failover.after 5 s) is the node-loss figure of nodes.ts.
 */
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { KubeClient, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import {
  acquireNodeTier,
  localImages,
  type MultiNodeTier,
  type TestClient,
} from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheClusterController, type Pod } from '../src/index.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 5);
const Kind = CacheCluster.resourceType;

const tier: MultiNodeTier = await acquireNodeTier({ nodes: 3 });
for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('cc-part-bench');
const direct: TestClient = await tier.testClient('cc-partition-bench');
const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'cache-cluster-controller' });
cacheClusterController(manager, {
  selection: { namespace: ns },
  fieldManager: 'cache-cluster-controller',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
});
manager.start().catch((e: unknown) => console.error(e));

const spec: CacheClusterSpec = {
  engine: 'redis',
  version: '7.0',
  mode: 'Replicated',
  replicas: 3,
  failover: { after: '3s' },
  fencing: { minReplicas: 1, maxLag: '2s' },
  resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '256Mi' } },
};

const read = (name: string) => admin.get<CacheCluster>(Kind, name, ns);
const ready = (name: string) =>
  eventually(
    async () => {
      const obj = await read(name);
      const c = findCondition(obj.status?.conditions, 'Ready');
      return c?.status === 'True' &&
        c.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === 3
        ? obj
        : undefined;
    },
    { description: `${name} Ready, 3 of 3`, timeoutMs: 300_000, intervalMs: 200 },
  );

interface Ack {
  key: string;
  at: number;
  runId: string;
}

/** Numbered writes through `host`, reconnecting on errors; each ack with its server's run id. */
function serviceWriter(host: string, password: string, prefix: string) {
  const acked: Ack[] = [];
  let stopped = false;
  const done = (async () => {
    let client: Redis | undefined;
    let runId = '';
    let n = 0;
    while (!stopped) {
      try {
        if (!client) {
          client = new Redis({
            host,
            port: 6379,
            password,
            lazyConnect: true,
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            retryStrategy: () => null,
            connectTimeout: 500,
            commandTimeout: 1000,
          });
          client.on('error', () => undefined);
          await client.connect();
          runId = /^run_id:(\S+)/m.exec(await client.info('server'))?.[1] ?? '';
        }
        const key = `${prefix}:${++n}`;
        await client.set(key, '1');
        acked.push({ key, at: Date.now(), runId });
        await sleep(2);
      } catch {
        client?.disconnect();
        client = undefined;
        await sleep(20);
      }
    }
    client?.disconnect();
  })();
  return { acked, stop: () => ((stopped = true), done) };
}

const resp = (args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Numbered SETs straight to `host` from the test client's address over plain RESP (500 ms each). */
function directWriter(host: string, password: string, prefix: string) {
  const acked: Ack[] = [];
  let refusals = 0;
  let stopped = false;
  const request = (socket: Socket, args: string[]) =>
    new Promise<string>((resolve, reject) => {
      let buffer = '';
      const finish = (error?: Error, line?: string) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        if (error) reject(error);
        else resolve(line!);
      };
      const timer = setTimeout(() => finish(new Error('timeout')), 500);
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const end = buffer.indexOf('\r\n');
        if (end >= 0) finish(undefined, buffer.slice(0, end));
      };
      const onClose = () => finish(new Error('closed'));
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.write(resp(args));
    });
  const done = (async () => {
    let socket: Socket | undefined;
    let n = 0;
    while (!stopped) {
      try {
        if (!socket) {
          const s = netConnect({ host, port: 6379, localAddress: direct.address });
          s.on('error', () => undefined);
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('connect timeout')), 500);
            s.once('connect', () => (clearTimeout(timer), resolve()));
            s.once('error', (e) => (clearTimeout(timer), reject(e)));
          });
          socket = s;
          if ((await request(socket, ['AUTH', password])) !== '+OK') throw new Error('auth');
        }
        const key = `${prefix}:${++n}`;
        const reply = await request(socket, ['SET', key, '1']);
        if (reply === '+OK') acked.push({ key, at: Date.now(), runId: 'old' });
        else refusals++;
        await sleep(reply === '+OK' ? 2 : 50);
      } catch {
        socket?.destroy();
        socket = undefined;
        await sleep(50);
      }
    }
    socket?.destroy();
  })();
  return { acked, refusals: () => refusals, stop: () => ((stopped = true), done) };
}

/** Acknowledged keys the server at `host` lacks. */
async function missingAt(host: string, password: string, acked: Ack[]): Promise<Ack[]> {
  const reader = new Redis({ host, port: 6379, password, lazyConnect: true });
  reader.on('error', () => undefined);
  try {
    await reader.connect();
    const lost: Ack[] = [];
    for (let i = 0; i < acked.length; i += 500) {
      const batch = acked.slice(i, i + 500);
      const values = await reader.mget(...batch.map((a) => a.key));
      lost.push(...batch.filter((_, j) => values[j] !== '1'));
    }
    return lost;
  } finally {
    reader.disconnect();
  }
}

const podOf = (name: string) => admin.get<Pod & { spec?: { nodeName?: string } }>(Pods, name, ns);

async function failedOver(name: string, count: number) {
  return eventually(
    async () => {
      const o = await read(name);
      return (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed'
        ? o
        : undefined;
    },
    { description: `${name} failed over`, timeoutMs: 240_000, intervalMs: 200 },
  );
}

async function run(r: number) {
  const name = `part-${r}`;
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec,
  } as CacheCluster);
  const start = await ready(name);
  const bound = start.status!.fencing!.boundSeconds!;
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
  const rw = (
    await admin.get<KubeObject & { spec: { clusterIP: string } }>(Services, `${name}-rw`, ns)
  ).spec.clusterIP;

  // Partition.
  const from = start.status!.primary!;
  const oldRunId = start.status!.primaryRunId!;
  const oldPod = await podOf(from);
  const node = oldPod.spec!.nodeName!;
  const viaService = serviceWriter(rw, password, `${name}-rw`);
  const straight = directWriter(oldPod.status!.podIP!, password, `${name}-direct`);
  await sleep(2000);
  const cutAt = Date.now();
  await tier.partitionNode(node, { allow: [direct] });
  const after = await failedOver(name, 0);
  const failover = after.status!.failover!;
  const promoted = await eventually(
    () => viaService.acked.find((a) => a.at > cutAt && a.runId !== oldRunId),
    { description: 'a write on the new primary', timeoutMs: 120_000, intervalMs: 100 },
  );
  await sleep(3000);
  await straight.stop();
  await viaService.stop();
  const oldAcks = [...straight.acked, ...viaService.acked.filter((a) => a.runId === oldRunId)];
  const lastOld = Math.max(...oldAcks.map((a) => a.at));
  const fencedBy = Date.parse(failover.primaryFencedBy!);
  const lastSeenAt = Date.parse(failover.primaryLastSeenAt!);
  const newIp = (await podOf(failover.to)).status!.podIP!;
  const lost = await missingAt(newIp, password, [...viaService.acked, ...straight.acked]);
  await tier.healNode(node);
  const healed = await eventually(
    async () => {
      const s = (await read(name)).status!;
      return s.failover?.salvage?.phase && s.failover.salvage.phase !== 'Pending' ? s : undefined;
    },
    { description: `${name} salvage settled`, timeoutMs: 180_000, intervalMs: 200 },
  );
  const back = await ready(name);

  // Hung: the (new) primary's node stopped.
  const hungFrom = back.status!.primary!;
  const hungNode = (await podOf(hungFrom)).spec!.nodeName!;
  const hungWriter = serviceWriter(rw, password, `${name}-hung`);
  await sleep(2000);
  const hungRunId = back.status!.primaryRunId!;
  const stoppedAt = Date.now();
  await tier.stopNode(hungNode);
  await failedOver(name, 1);
  const hungWritable = await eventually(
    () => hungWriter.acked.find((a) => a.at > stoppedAt && a.runId !== hungRunId),
    { description: 'a write after the hang', timeoutMs: 120_000, intervalMs: 100 },
  );
  await hungWriter.stop();
  await tier.startNode(hungNode);
  await ready(name);
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return {
    bound,
    writable: (promoted.at - cutAt) / 1000,
    splitBrain: Math.max(0, lastOld - promoted.at) / 1000,
    lastOld: (lastOld - cutAt) / 1000,
    fencedBy: (fencedBy - cutAt) / 1000,
    decided: (Date.parse(failover.startedAt) - cutAt) / 1000,
    lost: lost.length,
    lostBeyond: lost.filter((a) => a.at > fencedBy).length,
    lostAfterSeen: lost.filter((a) => a.at > lastSeenAt).length,
    risk: `${failover.dataLossRisk} ${failover.bytesPossiblyLost ?? '?'} B`,
    salvage: `${healed.failover!.salvage!.phase} ${healed.failover!.salvage!.bytes ?? 0} B`,
    refusals: straight.refusals(),
    hungWritable: (hungWritable.at - stoppedAt) / 1000,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) =>
  `${median(xs).toFixed(1)} s (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;

const results: Awaited<ReturnType<typeof run>>[] = [];
for (let r = 0; r < runs; r++) {
  const result = await run(r);
  results.push(result);
  console.error(`run ${r + 1}/${runs}: ${JSON.stringify(result)}`);
}
const bound = results[0]!.bound;
console.log(`| measure (${runs} runs, median, min–max; bound ${bound} s) | figure |`);
console.log('| --- | --- |');
console.log(
  `| partition: cut → first acknowledged write on the new primary (-rw) | ${fmt(results.map((x) => x.writable))} |`,
);
console.log(
  `| partition: split-brain window (old primary's last ack after the new one's first) | ${fmt(results.map((x) => x.splitBrain))} |`,
);
console.log(
  `| partition: cut → the old primary's last acknowledged write | ${fmt(results.map((x) => x.lastOld))} |`,
);
console.log(
  `| partition: cut → primaryFencedBy / → failover decided | ${fmt(results.map((x) => x.fencedBy))} / ${fmt(results.map((x) => x.decided))} |`,
);
console.log(
  `| hung (node stopped): stop → first acknowledged write on the new primary (-rw) | ${fmt(results.map((x) => x.hungWritable))} |`,
);
console.log(
  `\nlost acknowledged writes (after primaryLastSeenAt; after primaryFencedBy): ${results.map((x) => `${x.lost} (${x.lostAfterSeen}; ${x.lostBeyond})`).join(', ')}; published: ${results.map((x) => x.risk).join(', ')}; salvage: ${results.map((x) => x.salvage).join(', ')}; refusals to the direct client: ${results.map((x) => x.refusals).join(', ')}`,
);

// Every CacheCluster gone before the controller stops: a finalizer left behind holds the namespace.
await eventually(async () => (await admin.list(Kind, { namespace: ns })).items.length === 0, {
  description: 'every CacheCluster of the bench deleted',
  timeoutMs: 120_000,
});
await manager.stop();
await admin.close();
await tier.release();
process.exit(0);
