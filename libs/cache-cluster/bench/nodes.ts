/**
 * CacheCluster and its nodes, on the three-node tier (three real kubelets and containerds in
 * three zones, real Redis 7.0 pods), the controller in-process on a `Manager` as the app wires it
 * with the chart's defaults (poll 5 s, busy poll 1 s). Prints a Markdown table for BENCHMARKS.md.
 * Not a test: it asserts nothing but that each step happened, and reports what a writer lost.
 *
 *   npx tsx libs/cache-cluster/bench/nodes.ts [--runs=3]
 *
 * Per run, one Replicated cluster of 3 pods (failover.after 5 s) spread over the three nodes, a
 * client writing a numbered key every 2 ms through the read-write Service's ClusterIP
 * (reconnecting on errors, 500 ms connect and 1 s command timeouts):
 * - drain: `kubectl drain` of the primary's node (cordon, evictions retried while a budget
 *   refuses) — the longest time without an acknowledged write, the NodeDrain switchover's pause in
 *   status, the drain's duration; then uncordoned, back to 3 ready (the evicted pod re-created
 *   elsewhere is moved back to the empty node);
 * - node loss: the primary's node stopped (kubelet killed, every process frozen) — the time from
 *   the stop to the first acknowledged write on the new primary, what status published, the
 *   writes missing; then the node started again, back to 3 ready.
 */
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { KubeClient, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type MultiNodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheClusterController, Labels, type Pod } from '../src/index.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 3);
const Kind = CacheCluster.resourceType;

const tier: MultiNodeTier = await acquireNodeTier({ nodes: 3 });
for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('cc-nodes-bench');
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
  failover: { after: '5s' },
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

const connect = (host: string, password: string) => {
  const client = new Redis({
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
  return client;
};

/** A client writing numbered keys; `acked` holds (key, when) of each acknowledged one. */
function startWriter(host: string, password: string, prefix: string) {
  const acked: { key: string; at: number }[] = [];
  let stopped = false;
  const done = (async () => {
    let client: Redis | undefined;
    let n = 0;
    while (!stopped) {
      try {
        if (!client) {
          client = connect(host, password);
          await client.connect();
        }
        const key = `${prefix}:${++n}`;
        await client.set(key, '1');
        acked.push({ key, at: performance.now() });
        await sleep(2);
      } catch {
        client?.disconnect();
        client = undefined;
        await sleep(20);
      }
    }
    client?.disconnect();
  })();
  return {
    acked,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

const gapAfter = (acked: { at: number }[], from: number) => {
  const after = acked.filter((a) => a.at >= from);
  return after.reduce((g, a, i) => (i === 0 ? g : Math.max(g, a.at - after[i - 1]!.at)), 0) / 1000;
};

const placement = async (name: string) =>
  (
    await admin.list<Pod & { spec?: { nodeName?: string } }>(Pods, {
      namespace: ns,
      labelSelector: `${Labels.cluster}=${name}`,
    })
  ).items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({ pod: p.metadata.name!, node: p.spec?.nodeName ?? '' }));
const nodeOf = async (name: string, pod: string) =>
  (await placement(name)).find((p) => p.pod === pod)!.node;

/** Acknowledged writes missing, read through the read-write Service. */
async function missing(host: string, password: string, acked: { key: string }[]) {
  return eventually(
    async () => {
      const reader = connect(host, password);
      try {
        await reader.connect();
        let lost = 0;
        for (let i = 0; i < acked.length; i += 500) {
          const keys = acked.slice(i, i + 500).map((a) => a.key);
          lost += (await reader.mget(...keys)).filter((v) => v !== '1').length;
        }
        return { lost };
      } finally {
        reader.disconnect();
      }
    },
    { description: 'the keys read through the read-write Service', timeoutMs: 60_000 },
  ).then((r) => r.lost);
}

async function run(r: number) {
  const name = `nodes-${r}`;
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec,
  } as CacheCluster);
  await ready(name);
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
  const rw = (
    await admin.get<KubeObject & { spec: { clusterIP: string } }>(Services, `${name}-rw`, ns)
  ).spec.clusterIP;
  const writer = startWriter(rw, password, name);
  await sleep(2000);

  // Drain the primary's node.
  const before = await read(name);
  const drainedNode = await nodeOf(name, before.status!.primary!);
  const drainStart = performance.now();
  const drained = await tier.drainNode(drainedNode, { timeoutMs: 240_000 });
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await sleep(2000);
  const drainGap = gapAfter(writer.acked, drainStart);
  const afterDrain = await read(name);
  const record = afterDrain.status!.switchover!;
  const drainPause =
    record.reason === 'NodeDrain' && record.writesResumedAt && record.writesStoppedAt
      ? (Date.parse(record.writesResumedAt) - Date.parse(record.writesStoppedAt)) / 1000
      : undefined;
  const drainLost = await missing(rw, password, writer.acked);
  await tier.uncordonNode(drainedNode);
  // The evicted pod was re-created next to another: back to one pod per node.
  const placed = await placement(name);
  const crowded = placed.find(
    (p) =>
      p.pod !== afterDrain.status!.primary &&
      placed.some((q) => q.pod !== p.pod && q.node === p.node),
  );
  if (crowded) await admin.delete(Pods, crowded.pod, ns);
  await ready(name);

  // Lose the primary's node.
  const lossBefore = await read(name);
  const lostNode = await nodeOf(name, lossBefore.status!.primary!);
  const count = lossBefore.status?.failoverCount ?? 0;
  const lossStart = performance.now();
  await tier.stopNode(lostNode);
  const after = await eventually(
    async () => {
      const o = await read(name);
      return (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed'
        ? o
        : undefined;
    },
    { description: `${name} failed over`, timeoutMs: 240_000, intervalMs: 200 },
  );
  const writable = await eventually(
    () =>
      writer.acked.find((a, i, all) => i > 0 && a.at > lossStart && a.at - all[i - 1]!.at > 1000)
        ?.at,
    { description: 'a write after the loss', timeoutMs: 120_000, intervalMs: 100 },
  );
  const writableSeconds = (writable - lossStart) / 1000;
  const failover = after.status!.failover!;
  await tier.startNode(lostNode);
  await ready(name);
  await writer.stop();
  const lost = await missing(rw, password, writer.acked);
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return {
    drainGap,
    drainPause,
    drainSeconds,
    drainLost,
    refusals: drained.refusals,
    writableSeconds,
    published: `${failover.dataLossRisk} ${failover.bytesPossiblyLost ?? '?'} B`,
    lost,
    acked: writer.acked.length,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: (number | undefined)[]) => {
  const ys = xs.filter((x): x is number => x !== undefined);
  return ys.length === 0
    ? '—'
    : `${median(ys).toFixed(1)} s (${Math.min(...ys).toFixed(1)}–${Math.max(...ys).toFixed(1)})`;
};

const results: Awaited<ReturnType<typeof run>>[] = [];
for (let r = 0; r < runs; r++) {
  const result = await run(r);
  results.push(result);
  console.error(`run ${r + 1}/${runs}: ${JSON.stringify(result)}`);
}
console.log(`| measure (${runs} runs, median, min–max) | figure |`);
console.log('| --- | --- |');
console.log(
  `| drain of the primary's node: longest time without an acknowledged write (client) | ${fmt(results.map((x) => x.drainGap))} |`,
);
console.log(
  `| drain: the NodeDrain switchover's pause in status | ${fmt(results.map((x) => x.drainPause))} |`,
);
console.log(
  `| drain: cordon → every pod of the node evicted | ${fmt(results.map((x) => x.drainSeconds))} |`,
);
console.log(
  `| primary's node stopped → first acknowledged write on the new primary (failover.after 5 s) | ${fmt(results.map((x) => x.writableSeconds))} |`,
);
console.log(
  `\nevictions refused while the primary was protected: ${results.map((x) => x.refusals).join(', ')}; acknowledged writes missing after the drain: ${results.map((x) => x.drainLost).join(', ')}; published loss bounds: ${results.map((x) => x.published).join(', ')}; acknowledged writes missing after the node loss: ${results.map((x) => `${x.lost} of ${x.acked}`).join(', ')}`,
);

await manager.stop();
await admin.close();
await tier.release();
process.exit(0);
