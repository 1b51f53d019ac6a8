// PostgresCluster and its nodes, on the three-node tier (three real kubelets and containerds in
// three zones, real PostgreSQL 17 pods), the controller in-process on a Manager as the app wires it
// with the chart's defaults (poll 5 s, busy poll 1 s). Prints a Markdown table for BENCHMARKS.md.
// Not a test: it asserts nothing but that each step happened, and reports what a writer lost.
//
//   npx tsx libs/postgres-cluster/bench/nodes.ts [--runs=3]
//
// Per run, one 3-instance cluster (async replication, failover.after 5 s) spread over the three
// nodes, a client committing a numbered row every 20 ms through the read-write Service
// (reconnecting on errors, 1 s connect and 2 s query timeouts):
// - drain: `kubectl drain` of the primary's node (cordon, evictions retried while a budget
//   refuses) — the longest time without an acknowledged commit, the switchover's pause in
//   status, the drain's duration; then uncordoned, back to 3 of 3;
// - node loss: the primary's node stopped (kubelet killed, every process frozen) — the time from
//   the stop to the first acknowledged commit on the new primary, what status published, the rows
//   missing; then the node started again, back to 3 of 3.
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { Pods } from '@steward/kube';
import { eventually } from '@steward/testing';
import pg from 'pg';
import { Labels, type Pod } from '../src/index.js';
import { appLogin, seconds, startWriter, type Login } from './support.js';
import { Kind, threeInstances, threeNodeBench } from './three-nodes.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 3);

const { tier, admin, ns, read, ready, finish } = await threeNodeBench('pgc-nodes-bench');
const spec = threeInstances;

const gapAfter = (acked: { at: number }[], from: number) => {
  const after = acked.filter((a) => a.at >= from);
  return after.reduce((g, a, i) => (i === 0 ? g : Math.max(g, a.at - after[i - 1]!.at)), 0) / 1000;
};

async function nodeOf(name: string, pod: string): Promise<string> {
  const pods = (
    await admin.list<Pod & { spec?: { nodeName?: string } }>(Pods, {
      namespace: ns,
      labelSelector: `${Labels.cluster}=${name}`,
    })
  ).items;
  return pods.find((p) => p.metadata.name === pod)!.spec!.nodeName!;
}

async function lostRows(login: Login, acked: { n: number }[]) {
  const rows = await eventually(
    async () => {
      const c = new pg.Client({ ...login, query_timeout: 10_000 });
      c.on('error', () => undefined);
      await c.connect();
      try {
        return (await c.query<{ n: number }>('SELECT n FROM ledger')).rows;
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    { description: 'the ledger read through the read-write Service', timeoutMs: 60_000 },
  );
  const present = new Set(rows.map((r) => Number(r.n)));
  return acked.filter((a) => !present.has(a.n)).length;
}

async function run(r: number) {
  const name = `nodes-${r}`;
  await admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace: ns },
    spec,
  } as PostgresCluster);
  await ready(name);
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
  await new Promise((res) => setTimeout(res, 2000));

  // Drain the primary's node.
  const before = await read(name);
  const drainedNode = await nodeOf(name, before.status!.primary!);
  const drainStart = performance.now();
  const drained = await tier.drainNode(drainedNode, { timeoutMs: 240_000 });
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await new Promise((res) => setTimeout(res, 2000));
  const drainGap = gapAfter(writer.acked, drainStart);
  const record = (await read(name)).status!.switchover!;
  const drainPause =
    record.reason === 'NodeDrain' && record.writesResumedAt && record.writesStoppedAt
      ? (Date.parse(record.writesResumedAt) - Date.parse(record.writesStoppedAt)) / 1000
      : undefined;
  await tier.uncordonNode(drainedNode);
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
    () => {
      const first = writer.acked.find(
        (a, i, all) => i > 0 && a.at > lossStart && a.at - all[i - 1]!.at > 1000,
      );
      return first?.at;
    },
    { description: 'a commit after the loss', timeoutMs: 120_000, intervalMs: 100 },
  );
  const writableSeconds = (writable - lossStart) / 1000;
  const failover = after.status!.failover!;
  await tier.startNode(lostNode);
  await ready(name);
  await writer.stop();
  const lost = await lostRows(login, writer.acked);
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return {
    drainGap,
    drainPause,
    drainSeconds,
    refusals: drained.refusals,
    writableSeconds,
    published: `${failover.dataLossRisk} ${failover.bytesPossiblyLost ?? '?'} B`,
    lost,
    acked: writer.acked.length,
  };
}

const results: Awaited<ReturnType<typeof run>>[] = [];
for (let r = 0; r < runs; r++) {
  const result = await run(r);
  results.push(result);
  console.error(`run ${r + 1}/${runs}: ${JSON.stringify(result)}`);
}
console.log(`| measure (${runs} runs, median, min–max) | figure |`);
console.log('| --- | --- |');
console.log(
  `| drain of the primary's node: longest time without an acknowledged commit (client) | ${seconds(results.map((x) => x.drainGap))} |`,
);
console.log(
  `| drain: the NodeDrain switchover's pause in status | ${seconds(results.map((x) => x.drainPause))} |`,
);
console.log(
  `| drain: cordon → every pod of the node evicted | ${seconds(results.map((x) => x.drainSeconds))} |`,
);
console.log(
  `| primary's node stopped → first acknowledged commit on the new primary (failover.after 5 s) | ${seconds(results.map((x) => x.writableSeconds))} |`,
);
console.log(
  `\nevictions refused while the primary was protected: ${results.map((x) => x.refusals).join(', ')}; published loss bounds: ${results.map((x) => x.published).join(', ')}; acknowledged rows missing: ${results.map((x) => `${x.lost} of ${x.acked}`).join(', ')}`,
);

await finish();
process.exit(0);
