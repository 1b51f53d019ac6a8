// PostgresCluster rolling updates on the node tier (real kubelet + containerd, real PostgreSQL 17
// pods), the controller in-process on a Manager as the app wires it with the chart's defaults
// (poll 5 s, busy poll 1 s): the write pause of a rolling update with `spec.rollout.primary:
// Switchover` (the default: standbys restarted, the primary switched over, the old primary
// restarted as a standby) side by side with `Restart` (the primary restarted in place, last).
// Prints a Markdown table for BENCHMARKS.md. Not a test: it asserts nothing but that each step
// happened, and reports what a writer lost.
//
//   npx tsx libs/postgres-cluster/bench/rollout.ts [--runs=3]
//
// Per run and mode, one 3-instance cluster (async replication) with a client committing a
// numbered row every 20 ms through the read-write Service, reconnecting on errors: the pod
// template changes (the cpu request), and the bench waits until every pod runs the new revision
// and the cluster is Ready. It reports the longest time between two acknowledged commits (what
// the client saw), the pause status.switchover recorded (writesStoppedAt → writesResumedAt), the
// roll's whole duration, and the acknowledged rows missing afterwards.
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import pg from 'pg';
import { Labels, postgresClusterController, type Pod } from '../src/index.js';
import { appLogin, seconds, startWriter } from './support.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 3);
const Kind = PostgresCluster.resourceType;
type Method = 'Switchover' | 'Restart';

const tier: NodeTier = await acquireNodeTier();
for (const image of Object.values(await localImages('postgres-17'))) await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('pgc-rollout-bench');
const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'postgres-cluster-controller' });
postgresClusterController(manager, {
  selection: { namespace: ns },
  fieldManager: 'postgres-cluster-controller',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
});
manager.start().catch((e: unknown) => console.error(e));

const resources = (cpu: string) => ({
  requests: { cpu, memory: '128Mi' },
  limits: { memory: '256Mi' },
});
const spec = (primary: Method): PostgresClusterSpec => ({
  version: '17',
  replicas: 3,
  resources: resources('50m'),
  storage: { size: '1Gi' },
  rollout: { primary },
  deletionPolicy: 'Delete',
});

const ready = (name: string) =>
  eventually(
    async () => {
      const obj = await admin.get<PostgresCluster>(Kind, name, ns);
      const c = findCondition(obj.status?.conditions, 'Ready');
      return c?.status === 'True' &&
        c.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === 3
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs: 300_000, intervalMs: 100 },
  );

const revisionOf = async (name: string) =>
  (await admin.get<KubeObject & { status?: { updateRevision?: string } }>(StatefulSets, name, ns))
    .status?.updateRevision;

/** Every pod of the cluster on a new update revision of the StatefulSet (not `old`), none being deleted. */
const rolled = (name: string, old: string | undefined) =>
  eventually(
    async () => {
      const sts = await admin.get<KubeObject & { status?: { updateRevision?: string } }>(
        StatefulSets,
        name,
        ns,
      );
      if (sts.status?.updateRevision === old) return undefined;
      const pods = (
        await admin.list<Pod>(Pods, { namespace: ns, labelSelector: `${Labels.cluster}=${name}` })
      ).items;
      return pods.length === 3 &&
        pods.every(
          (p) =>
            p.metadata.labels?.['controller-revision-hash'] === sts.status?.updateRevision &&
            !p.metadata.deletionTimestamp,
        )
        ? true
        : undefined;
    },
    { description: `${name}: every pod on the new revision`, timeoutMs: 300_000, intervalMs: 200 },
  );

async function roll(name: string, method: Method) {
  await admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace: ns },
    spec: spec(method),
  } as PostgresCluster);
  const before = await ready(name);
  const login = await appLogin(admin, ns, name, { connectMs: 1000, queryMs: 2000 });
  await eventually(
    async () => {
      const c = new pg.Client(login);
      c.on('error', () => undefined);
      await c.connect();
      await c.query('CREATE TABLE IF NOT EXISTS ledger (n int PRIMARY KEY)');
      await c.end();
      return true;
    },
    { description: `${name}-rw answering` },
  );
  const writer = startWriter(login);
  await new Promise((r) => setTimeout(r, 2000));
  const revision = await revisionOf(name);
  const start = performance.now();
  await admin.mergePatch(Kind, name, ns, { spec: { resources: resources('60m') } });
  await rolled(name, revision);
  const after = await ready(name);
  const seconds = (performance.now() - start) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  await writer.stop();
  const acks = writer.acked.filter((a) => a.at >= start);
  const gap = acks.reduce((g, a, i) => (i === 0 ? g : Math.max(g, a.at - acks[i - 1]!.at)), 0);
  // Acknowledged rows missing, read through the read-write Service once it settled.
  const c = new pg.Client({ ...login, query_timeout: 10_000 });
  await c.connect();
  const rows = await c.query<{ n: number }>('SELECT n FROM ledger');
  await c.end();
  const present = new Set(rows.rows.map((r) => Number(r.n)));
  const lost = writer.acked.filter((a) => !present.has(a.n)).length;
  const record = after.status?.switchover;
  const statusPause =
    method === 'Switchover' &&
    record?.reason === 'Rollout' &&
    record.writesStoppedAt &&
    record.writesResumedAt
      ? (Date.parse(record.writesResumedAt) - Date.parse(record.writesStoppedAt)) / 1000
      : undefined;
  const failovers = (after.status?.failoverCount ?? 0) - (before.status?.failoverCount ?? 0);
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return { gap: gap / 1000, statusPause, seconds, lost, acked: writer.acked.length, failovers };
}

const results: Record<Method, Awaited<ReturnType<typeof roll>>[]> = { Switchover: [], Restart: [] };
for (let r = 0; r < runs; r++)
  for (const method of ['Switchover', 'Restart'] as const) {
    const result = await roll(`roll-${method.toLowerCase()}-${r}`, method);
    results[method].push(result);
    console.error(
      `run ${r + 1}/${runs} ${method}: client saw no commit for ${result.gap.toFixed(2)} s, status pause ${result.statusPause?.toFixed(2) ?? '—'} s, roll ${result.seconds.toFixed(1)} s, ${result.acked} acked, ${result.lost} lost, ${result.failovers} failovers`,
    );
  }

const column = (m: Method, f: (x: Awaited<ReturnType<typeof roll>>) => number | undefined) =>
  seconds(results[m].map(f).filter((x): x is number => x !== undefined));
console.log(`| measure (${runs} runs, median, min–max) | Switchover (default) | Restart |`);
console.log('| --- | --- | --- |');
console.log(
  `| longest time without an acknowledged commit (client) | ${column('Switchover', (x) => x.gap)} | ${column('Restart', (x) => x.gap)} |`,
);
console.log(
  `| write pause in status.switchover (writesStoppedAt → writesResumedAt) | ${column('Switchover', (x) => x.statusPause)} | — |`,
);
console.log(
  `| template change → every pod rolled and Ready | ${column('Switchover', (x) => x.seconds)} | ${column('Restart', (x) => x.seconds)} |`,
);
for (const m of ['Switchover', 'Restart'] as const)
  console.log(
    `\n${m}: acknowledged rows missing per run ${results[m].map((x) => x.lost).join(', ')}; failovers ${results[m].map((x) => x.failovers).join(', ')}`,
  );

// Every cluster gone before the controller stops (its finalizer would hold the namespace).
await eventually(
  async () => (await admin.list<PostgresCluster>(Kind, { namespace: ns })).items.length === 0,
  { description: 'every PostgresCluster of the bench deleted', timeoutMs: 180_000 },
);
await manager.stop();
await admin.close();
await tier.release();
process.exit(0);
