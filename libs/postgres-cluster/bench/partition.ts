// PostgresCluster primaries cut off or hung, with self-fencing (docs/design/fencing.md), on the
// three-node tier (real kubelets and containerds in three zones, real PostgreSQL 17 pods), the
// controller in-process on a Manager as the app wires it with the chart's defaults (poll 5 s, busy
// poll 1 s). Prints a Markdown table for BENCHMARKS.md. Not a test: it asserts nothing but that each
// step happened, and reports what the writers saw and lost against what status published.
//
//   npx tsx libs/postgres-cluster/bench/partition.ts [--runs=5]
//
// Per run, one 3-instance cluster (async replication, failover.after 5 s: the fence bound),
// two clients committing numbered rows every 20 ms: one through the read-write Service, one straight
// to the primary's pod IP from a test client the partition lets through (the old primary's side).
// - partition: the primary's node cut off (API server, controller, other nodes, host) — when the old
//   primary acknowledged last (vs status.failover.primaryFencedBy), when the new primary first did
//   (the split-brain window is the overlap), rows missing and what status published; healed, 3 of 3;
// - hang: the primary's node stopped (kubelet killed, every process frozen) — the time from the stop
//   to the first acknowledged commit on the new primary; started again, 3 of 3.
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { Pods } from '@steward/kube';
import { eventually } from '@steward/testing';
import { socketFrom } from '@steward/testing-node-tier';
import pg from 'pg';
import { Labels, type Pod } from '../src/index.js';
import { appLogin, seconds, startWriter, type Login } from './support.js';
import { Kind, threeInstances, threeNodeBench } from './three-nodes.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 5);

const { tier, admin, ns, read, ready, finish } = await threeNodeBench('pgc-partition-bench');
const observer = await tier.testClient('pg-partition-bench');
const spec = threeInstances;

/** performance.now() → epoch ms (status times are wall-clock). */
const epoch = (at: number) => performance.timeOrigin + at;

async function podOf(name: string, pod: string) {
  const pods = (
    await admin.list<Pod & { spec?: { nodeName?: string } }>(Pods, {
      namespace: ns,
      labelSelector: `${Labels.cluster}=${name}`,
    })
  ).items;
  const found = pods.find((p) => p.metadata.name === pod)!;
  return { node: found.spec!.nodeName!, ip: found.status!.podIP! };
}

/** A writer like `startWriter`, straight to `host` from the test client's address. */
function directWriter(login: Login, host: string, first: number) {
  return startWriter(
    {
      ...login,
      host,
      stream: socketFrom(observer.address),
    },
    first,
  );
}

async function missing<R extends { n: number }>(login: Login, acked: R[]): Promise<R[]> {
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
  return acked.filter((a) => !present.has(a.n));
}

const failedOver = (name: string, count: number) =>
  eventually(
    async () => {
      const o = await read(name);
      return (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed'
        ? o
        : undefined;
    },
    { description: `${name} failed over`, timeoutMs: 240_000, intervalMs: 200 },
  );
const firstAfterGap = (acked: { at: number }[], from: number) =>
  eventually(
    () => acked.find((a, i, all) => i > 0 && a.at > from && a.at - all[i - 1]!.at > 1000)?.at,
    { description: 'a commit after the gap', timeoutMs: 120_000, intervalMs: 100 },
  );

async function run(r: number) {
  const name = `cutoff-${r}`;
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
      await c.query('CREATE TABLE IF NOT EXISTS ledger (n bigint PRIMARY KEY)');
      await c.end();
      return true;
    },
    { description: `${name}-rw answering` },
  );

  // Partition the primary's node, a client on each side.
  const service = startWriter(login);
  const before = await read(name);
  bound = before.status?.fencing?.boundSeconds ?? 0;
  const old = await podOf(name, before.status!.primary!);
  const direct = directWriter(login, old.ip, 1_000_000_000);
  await new Promise((res) => setTimeout(res, 2000));
  const cut = performance.now();
  await tier.partitionNode(old.node, { allow: [observer] });
  const after = await failedOver(name, before.status?.failoverCount ?? 0);
  const writable = await firstAfterGap(service.acked, cut);
  await new Promise((res) => setTimeout(res, 3000));
  const failover = after.status!.failover!;
  const oldLast = direct.acked.at(-1)?.at ?? cut;
  const overlap = Math.max(0, oldLast - writable) / 1000;
  const fencedBy = Date.parse(failover.primaryFencedBy ?? '') - epoch(cut);
  await direct.stop();
  await tier.healNode(old.node);
  console.error(`run ${r + 1}: healed; waiting for 3 of 3`);
  await ready(name);
  await service.stop();
  const lost = await missing(login, [...service.acked, ...direct.acked]);
  const lostAfterFence = lost.filter(
    (a) => epoch(a.at) > Date.parse(failover.primaryFencedBy ?? ''),
  ).length;
  const salvage = (await read(name)).status?.failover?.salvage;

  // Hang the primary's node.
  const hangBefore = await read(name);
  const hung = await podOf(name, hangBefore.status!.primary!);
  // Numbered above the partition's writers' rows (the ledger keeps them).
  const writer = startWriter(login, 2_000_000_000);
  await new Promise((res) => setTimeout(res, 2000));
  const stop = performance.now();
  await tier.stopNode(hung.node);
  await failedOver(name, hangBefore.status?.failoverCount ?? 0);
  const hangWritable = await firstAfterGap(writer.acked, stop);
  await tier.startNode(hung.node);
  console.error(`run ${r + 1}: node started again; waiting for 3 of 3`);
  await ready(name);
  await writer.stop();
  await admin.delete(Kind, name, ns).catch(() => undefined);
  return {
    partitionWritable: (writable - cut) / 1000,
    oldLast: (oldLast - cut) / 1000,
    fencedBy: fencedBy / 1000,
    overlap,
    oldAcksAfterCut: direct.acked.filter((a) => a.at > cut).length,
    lost: lost.length,
    lostAfterFence,
    published: `${failover.dataLossRisk} ${failover.bytesPossiblyLost ?? '?'} B + window ${((Date.parse(failover.primaryFencedBy ?? '') - Date.parse(failover.primaryLastSeenAt ?? '')) / 1000).toFixed(1)} s`,
    salvage: salvage ? `${salvage.phase} ${salvage.bytes ?? 0} B` : 'none',
    hangWritable: (hangWritable - stop) / 1000,
  };
}

let bound = 0;
const results: Awaited<ReturnType<typeof run>>[] = [];
for (let r = 0; r < runs; r++) {
  const result = await run(r);
  results.push(result);
  console.error(`run ${r + 1}/${runs}: ${JSON.stringify(result)}`);
}
console.log(`| measure (${runs} runs, median, min–max; fence bound ${bound} s) | figure |`);
console.log('| --- | --- |');
console.log(
  `| partition: cut → the old primary's last acknowledged write (client on its side) | ${seconds(results.map((x) => x.oldLast))} |`,
);
console.log(
  `| partition: cut → primaryFencedBy (status) | ${seconds(results.map((x) => x.fencedBy))} |`,
);
console.log(
  `| partition: cut → first acknowledged commit on the new primary (-rw) | ${seconds(results.map((x) => x.partitionWritable))} |`,
);
console.log(
  `| partition: split-brain window (both primaries acknowledging) | ${seconds(results.map((x) => x.overlap))} |`,
);
console.log(
  `| hang: primary's node stopped → first acknowledged commit on the new primary | ${seconds(results.map((x) => x.hangWritable))} |`,
);
console.log(
  `\nrows the old primary acknowledged after the cut: ${results.map((x) => x.oldAcksAfterCut).join(', ')}; acknowledged rows missing: ${results.map((x) => x.lost).join(', ')} (after primaryFencedBy: ${results.map((x) => x.lostAfterFence).join(', ')}); published: ${results.map((x) => x.published).join('; ')}; salvage: ${results.map((x) => x.salvage).join(', ')}`,
);

await finish();
process.exit(0);
