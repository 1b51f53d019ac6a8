// PostgresCluster benchmarks on the node tier (real kubelet + containerd, real PostgreSQL 17 pods),
// the controller in-process on a Manager as the app wires it with the chart's defaults (poll 5 s,
// busy poll 1 s). Prints a Markdown table for BENCHMARKS.md. Not a test: it asserts nothing but
// that each step happened.
//
//   npx tsx libs/postgres-cluster/bench/postgres.ts [--runs=3]
//
// Measures, per run, in one namespace:
// - create → Ready (Ready=True at the object's generation, every instance ready) for 1 and 3
//   instances;
// - primary loss → writable again through the read-write Service (a client INSERTs one row every
//   20 ms and reconnects on errors) with failover.after 2 s, for the primary pod deleted (graceful:
//   SIGTERM, fast shutdown) and for a crash (PostgreSQL SIGKILLed through containerd and its pod
//   deleted at once): the time from the loss to the first acknowledged commit after a failed one;
// - API writes of the manager's client per converged cluster per minute (every cluster, 60 s).
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import pg from 'pg';
import { appLogin as login, seconds } from './support.js';
import { postgresClusterController, type Pod } from '../src/index.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 3);
const Kind = PostgresCluster.resourceType;

const tier: NodeTier = await acquireNodeTier();
for (const image of Object.values(await localImages('postgres-17'))) await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('pgc-bench');
/** The writes of the converged window, so a figure above zero names what wrote. */
const converged: string[] = [];
let inWindow = false;
const manager = new Manager({
  kubeConfig: tier.kubeConfig,
  name: 'postgres-cluster-controller',
  client: {
    onRequest: (info) => {
      if (inWindow && !['get', 'list', 'watch'].includes(info.verb))
        converged.push(`${info.verb} ${info.path} → ${info.code}`);
    },
  },
});
postgresClusterController(manager, {
  selection: { namespace: ns },
  fieldManager: 'postgres-cluster-controller',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
});
manager.start().catch((e: unknown) => console.error(e));

const spec = (replicas: number): PostgresClusterSpec => ({
  version: '17',
  replicas,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  failover: { after: '2s' },
  deletionPolicy: 'Delete',
});
const ready = (name: string, extra: (o: PostgresCluster) => boolean = () => true, what = '') =>
  eventually(
    async () => {
      const obj = await admin.get<PostgresCluster>(Kind, name, ns);
      const c = findCondition(obj.status?.conditions, 'Ready');
      return c?.status === 'True' &&
        c.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === obj.spec.replicas &&
        extra(obj)
        ? obj
        : undefined;
    },
    { description: `${name} Ready${what}`, timeoutMs: 300_000, intervalMs: 50 },
  );

async function timeToReady(name: string, replicas: number): Promise<number> {
  const start = performance.now();
  await admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace: ns },
    spec: spec(replicas),
  } as PostgresCluster);
  await ready(name);
  return (performance.now() - start) / 1000;
}

const appLogin = (name: string) => login(admin, ns, name, { connectMs: 500, queryMs: 1000 });

/** Commits every 20 ms through the read-write Service; resolves loss → first commit after it. */
async function failover(name: string, how: 'delete' | 'crash') {
  const obj = await ready(name);
  const login = await appLogin(name);
  await eventually(
    async () => {
      const c = new pg.Client(login);
      c.on('error', () => undefined);
      await c.connect();
      await c.query('CREATE TABLE IF NOT EXISTS t (n bigint)');
      await c.end();
      return true;
    },
    { description: `${name}-rw answering` },
  );
  const primary = obj.status!.primary!;
  const count = obj.status?.failoverCount ?? 0;
  let lossAt = 0;
  let writableAt = 0;
  let failedSince = false;
  const writer = (async () => {
    let client: pg.Client | undefined;
    let i = 0;
    while (!writableAt) {
      try {
        if (!client) {
          client = new pg.Client(login);
          client.on('error', () => undefined);
          await client.connect();
        }
        await client.query('INSERT INTO t VALUES ($1)', [i++]);
        if (lossAt && failedSince) writableAt = performance.now();
      } catch {
        if (lossAt) failedSince = true;
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await client?.end().catch(() => undefined);
  })();
  await new Promise((r) => setTimeout(r, 500));
  lossAt = performance.now();
  if (how === 'crash') {
    const pod = await admin.get<Pod>(Pods, primary, ns);
    await tier.containerTask(pod.status!.containerStatuses![0]!.containerID!, 'kill');
    await admin.delete(Pods, primary, ns, { gracePeriodSeconds: 0 });
  } else await admin.delete(Pods, primary, ns);
  await writer;
  // A crashed primary whose pod comes back (with its volume) before failover.after has run out
  // is restarted in place — crash recovery, nothing lost — and no failover is recorded.
  const after = await eventually(
    async () => {
      const o = await admin.get<PostgresCluster>(Kind, name, ns);
      const failedOver =
        (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed';
      const returned =
        (o.status?.failoverCount ?? 0) === count &&
        o.status?.primary === primary &&
        o.status?.phase === 'Ready';
      return failedOver || returned ? o : undefined;
    },
    { description: 'failover completed, or the primary back in place', timeoutMs: 120_000 },
  );
  await ready(name);
  if ((after.status?.failoverCount ?? 0) === count)
    return {
      seconds: (writableAt - lossAt) / 1000,
      published: `${how}: no failover (the primary was back within failover.after)`,
    };
  const f = after.status!.failover!;
  return {
    seconds: (writableAt - lossAt) / 1000,
    published: `${how}: ${f.dataLossRisk}, lag ${f.bytesPossiblyLost ?? '?'} B (${f.reason})`,
  };
}

const one: number[] = [];
const three: number[] = [];
const deleted: number[] = [];
const crashed: number[] = [];
const published: string[] = [];
for (let r = 0; r < runs; r++) {
  one.push(await timeToReady(`solo-${r}`, 1));
  three.push(await timeToReady(`trio-${r}`, 3));
  const d = await failover(`trio-${r}`, 'delete');
  deleted.push(d.seconds);
  const c = await failover(`trio-${r}`, 'crash');
  crashed.push(c.seconds);
  published.push(`${d.published}; ${c.published}`);
  console.error(
    `run ${r + 1}/${runs}: 1 instance ${one[r]!.toFixed(1)} s, 3 instances ${three[r]!.toFixed(1)} s, delete → writable ${d.seconds.toFixed(1)} s, crash → writable ${c.seconds.toFixed(1)} s`,
  );
}
// Converged: Ready with every standby caught up (a rejoined old primary streams what it missed
// first, and status follows its lag down to 0 — that is a change, not churn).
const caughtUp = (name: string) =>
  ready(
    name,
    (o) => o.status?.instances?.every((i) => (i.lagBytes ?? 0) === 0) ?? false,
    ' with every standby caught up',
  );
for (let r = 0; r < runs; r++) {
  await caughtUp(`solo-${r}`);
  await caughtUp(`trio-${r}`);
}
await new Promise((r) => setTimeout(r, 10_000));
inWindow = true;
// Each status change of the window, named by what changed in it.
const seen = new Map<string, string>();
const windowEnd = Date.now() + 60_000;
while (Date.now() < windowEnd) {
  for (const name of [...Array(runs).keys()].flatMap((r) => [`solo-${r}`, `trio-${r}`])) {
    const { conditions, ...fields } =
      (await admin.get<PostgresCluster>(Kind, name, ns)).status ?? {};
    const now = JSON.stringify({
      fields,
      conditions: conditions?.map(({ lastTransitionTime: _changed, ...c }) => c),
    });
    const was = seen.get(name);
    if (was !== undefined && was !== now) console.error(`status of ${name}: ${was}\n   → ${now}`);
    seen.set(name, now);
  }
  await new Promise((r) => setTimeout(r, 250));
}
inWindow = false;
const perMinute = converged.length / (2 * runs);
for (const write of converged) console.error(`converged write: ${write}`);

console.log(`| measure (${runs} runs, median, min–max) | figure |`);
console.log('| --- | --- |');
console.log(`| 1 instance create → Ready | ${seconds(one)} |`);
console.log(`| 3 instances create → Ready | ${seconds(three)} |`);
console.log(`| primary pod deleted → writable again (failover.after 2 s) | ${seconds(deleted)} |`);
console.log(
  `| primary crashed (SIGKILL + pod replaced) → writable again (failover.after 2 s) | ${seconds(crashed)} |`,
);
console.log(
  `| API writes per converged PostgresCluster per minute (${2 * runs} clusters, 60 s) | ${perMinute} |`,
);
console.log(`\nwhat status published: ${published.join(' | ')}`);

for (let r = 0; r < runs; r++) {
  await admin.delete(Kind, `solo-${r}`, ns).catch(() => undefined);
  await admin.delete(Kind, `trio-${r}`, ns).catch(() => undefined);
}
await manager.stop();
await admin.close();
await tier.release();
process.exit(0);
