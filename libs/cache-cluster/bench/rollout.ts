/**
 * CacheCluster rolling updates on the node tier (real kubelet + containerd, real Redis/Valkey
 * pods), the controller in-process on a `Manager` as the app wires it with the chart's defaults
 * (poll 5 s, busy poll 1 s): the write pause of a rolling update with `spec.rollout.primary:
 * Switchover` (the default: replicas restarted, the primary handed over with FAILOVER TO, the old
 * primary restarted as a replica) side by side with `Restart` (the primary restarted in place: a
 * failover after `failover.after`, the default 10 s — what every rollout cost before issue 26).
 * Not a test: it prints a Markdown table for BENCHMARKS.md and reports what a writer lost.
 *
 *   npx tsx libs/cache-cluster/bench/rollout.ts [--runs=3] [--engine=redis|valkey]
 *
 * Per run and mode, one Replicated cluster of 3 pods with a client writing a numbered key every
 * 2 ms through the read-write Service's ClusterIP, reconnecting on errors: the pod template
 * changes (the cpu request), and the bench waits until every pod runs the new revision and the
 * cluster is Ready. It reports the longest time between two acknowledged writes (what the client
 * saw), the pause status.switchover recorded (writesStoppedAt → writesResumedAt), the roll's whole
 * duration, the acknowledged writes missing from the primary afterwards, and the failovers.
 */
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { KubeClient, Pods, Secrets, Services, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheClusterController, Labels, type Pod } from '../src/index.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const runs = Number(arg('runs', '3'));
const engine = arg('engine', 'redis') as 'redis' | 'valkey';
const version = engine === 'redis' ? '7.0' : '8.1';
const Kind = CacheCluster.resourceType;
type Method = 'Switchover' | 'Restart';

const tier: NodeTier = await acquireNodeTier();
for (const image of Object.values(await localImages(`${engine}-${version}`)))
  await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('cc-rollout-bench');
const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'cache-cluster-controller' });
cacheClusterController(manager, {
  selection: { namespace: ns },
  fieldManager: 'cache-cluster-controller',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
});
manager.start().catch((e: unknown) => console.error(e));

const resources = (cpu: string) => ({ requests: { cpu, memory: '64Mi' } });
const spec = (primary: Method): CacheClusterSpec => ({
  engine,
  version,
  mode: 'Replicated',
  replicas: 3,
  resources: resources('20m'),
  rollout: { primary },
});

const ready = (name: string) =>
  eventually(
    async () => {
      const obj = await admin.get<CacheCluster>(Kind, name, ns);
      const c = findCondition(obj.status?.conditions, 'Ready');
      return c?.status === 'True' &&
        c.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === 3
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs: 300_000, intervalMs: 100 },
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

const stsOf = (name: string) =>
  admin.get<KubeObject & { status?: { updateRevision?: string } }>(StatefulSets, name, ns);

/** Every pod of the cluster on a new update revision (not `old`), none being deleted. */
const rolled = (name: string, old: string | undefined) =>
  eventually(
    async () => {
      const revision = (await stsOf(name)).status?.updateRevision;
      if (revision === old) return undefined;
      const pods = (
        await admin.list<Pod>(Pods, { namespace: ns, labelSelector: `${Labels.cluster}=${name}` })
      ).items;
      return pods.length === 3 &&
        pods.every(
          (p) =>
            p.metadata.labels?.['controller-revision-hash'] === revision &&
            !p.metadata.deletionTimestamp,
        )
        ? true
        : undefined;
    },
    { description: `${name}: every pod on the new revision`, timeoutMs: 300_000, intervalMs: 200 },
  );

async function roll(name: string, method: Method) {
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec: spec(method),
  } as CacheCluster);
  const before = await ready(name);
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
  const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ns,
  );
  const writer = startWriter(rw.spec.clusterIP, password, name);
  await sleep(2000);
  const revision = (await stsOf(name)).status?.updateRevision;
  const start = performance.now();
  await admin.mergePatch(Kind, name, ns, { spec: { resources: resources('30m') } });
  await rolled(name, revision);
  const after = await ready(name);
  const seconds = (performance.now() - start) / 1000;
  await sleep(1000);
  await writer.stop();
  const acks = writer.acked.filter((a) => a.at >= start);
  const gap = acks.reduce((g, a, i) => (i === 0 ? g : Math.max(g, a.at - acks[i - 1]!.at)), 0);
  // Acknowledged writes missing, read through the read-write Service once it settled.
  const reader = connect(rw.spec.clusterIP, password);
  await reader.connect();
  let lost = 0;
  for (let i = 0; i < writer.acked.length; i += 500) {
    const keys = writer.acked.slice(i, i + 500).map((a) => a.key);
    lost += (await reader.mget(...keys)).filter((v) => v !== '1').length;
  }
  reader.disconnect();
  const record = after.status?.switchover;
  const statusPause =
    method === 'Switchover' &&
    record?.reason === 'Rollout' &&
    record.phase === 'Completed' &&
    record.writesStoppedAt &&
    record.writesResumedAt
      ? (Date.parse(record.writesResumedAt) - Date.parse(record.writesStoppedAt)) / 1000
      : undefined;
  const failovers = (after.status?.failoverCount ?? 0) - (before.status?.failoverCount ?? 0);
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return { gap: gap / 1000, statusPause, seconds, lost, acked: writer.acked.length, failovers };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) =>
  xs.length === 0
    ? '—'
    : `${median(xs).toFixed(1)} s (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;

const results: Record<Method, Awaited<ReturnType<typeof roll>>[]> = { Switchover: [], Restart: [] };
for (let r = 0; r < runs; r++)
  for (const method of ['Switchover', 'Restart'] as const) {
    const result = await roll(`roll-${method.toLowerCase()}-${r}`, method);
    results[method].push(result);
    console.error(
      `run ${r + 1}/${runs} ${method}: client saw no write for ${result.gap.toFixed(2)} s, status pause ${result.statusPause?.toFixed(2) ?? '—'} s, roll ${result.seconds.toFixed(1)} s, ${result.acked} acked, ${result.lost} lost, ${result.failovers} failovers`,
    );
  }

const column = (m: Method, f: (x: Awaited<ReturnType<typeof roll>>) => number | undefined) =>
  fmt(results[m].map(f).filter((x): x is number => x !== undefined));
console.log(
  `| measure (${engine} ${version}, ${runs} runs, median, min–max) | Switchover (default) | Restart |`,
);
console.log('| --- | --- | --- |');
console.log(
  `| longest time without an acknowledged write (client) | ${column('Switchover', (x) => x.gap)} | ${column('Restart', (x) => x.gap)} |`,
);
console.log(
  `| write pause in status.switchover (writesStoppedAt → writesResumedAt) | ${column('Switchover', (x) => x.statusPause)} | — |`,
);
console.log(
  `| template change → every pod rolled and Ready | ${column('Switchover', (x) => x.seconds)} | ${column('Restart', (x) => x.seconds)} |`,
);
for (const m of ['Switchover', 'Restart'] as const)
  console.log(
    `\n${m}: acknowledged writes missing per run ${results[m].map((x) => x.lost).join(', ')}; failovers ${results[m].map((x) => x.failovers).join(', ')}`,
  );

await manager.stop();
await admin.close();
await tier.release();
process.exit(0);
