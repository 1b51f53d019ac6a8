/**
 * A PostgreSQL primary cut off by a network partition (the multi-node tier's `partitionNode`: its
 * node loses the API server, the controller, the other nodes and the host — all but one test
 * client) while two clients write numbered rows: one through the read-write Service (what
 * applications use), one straight to the old primary's pod IP from the test client the partition
 * lets through (a client on the primary's side). The controller runs under its chart's RBAC.
 *
 * Asserted (docs/design/fencing.md): the old primary stops acknowledging by itself before
 * `status.failover.primaryFencedBy`; the new primary acknowledges its first write only after the
 * old one's last — the split-brain window is 0; every acknowledged row that is missing was
 * acknowledged by `primaryFencedBy`, and those acknowledged by `primaryLastSeenAt` lie within the
 * published byte bound; healed, the old primary rejoins as a standby. With synchronous replication
 * (ANY 1 of two standbys) the same cut loses no acknowledged row at all (dataLossRisk None): the
 * cut-off primary cannot acknowledge what no standby confirmed. BENCHMARKS.md has the
 * distribution over repeated runs (libs/postgres-cluster/bench/partition.ts).
 */
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import {
  acquireNodeTier,
  localImages,
  socketFrom,
  type MultiNodeTier,
  type TestClient,
} from '@steward/testing-node-tier';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Kind,
  long,
  lsnBytes,
  postgresHelpers,
  query,
  type FullPod,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const name = 'cutoff';

let tier: MultiNodeTier;
let admin: KubeClient;
let harness: ChartedController | undefined;
let observer: TestClient;
const ctx = {} as SuiteContext;
const { read, readyWithLedger, settledOn, lostRows, secretOf, superuserAt } = postgresHelpers(ctx);

beforeAll(async () => {
  tier = await acquireNodeTier({ nodes: 3 });
  for (const image of Object.values(await localImages('postgres-17')))
    await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-partition') });
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: 'pgc-partition-e2e',
    releaseNamespace: await tier.createNamespace('pgc-partition-sys'),
    watchNamespace: ctx.ns,
  });
  observer = await tier.testClient('pg-partition-observer');
}, 600_000);

afterAll(async () => {
  if (admin) {
    await admin.delete(Kind, name, ctx.ns).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

const spec: PostgresClusterSpec = {
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  failover: { after: '5s' },
  deletionPolicy: 'Delete',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A client on the old primary's side: commits numbered rows (from `first` up) straight to `host`
 * from the test client's own address, reconnecting after each failure. `acked`: the rows whose
 * COMMIT it saw succeed, and when.
 */
function directWriter(
  login: { host: string; user: string; password: string; database: string },
  first: number,
) {
  const acked: { n: number; at: number }[] = [];
  let stopped = false;
  const done = (async () => {
    let n = first;
    while (!stopped) {
      const client = new pg.Client({
        ...login,
        port: 5432,
        connectionTimeoutMillis: 1000,
        query_timeout: 2000,
        // Bound to the test client's address: the partition lets exactly that through.
        stream: socketFrom(observer.address),
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        while (!stopped) {
          const next = ++n;
          await client.query('INSERT INTO ledger (n) VALUES ($1)', [next]);
          acked.push({ n: next, at: Date.now() });
        }
      } catch {
        await sleep(100);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  })();
  return {
    acked,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/**
 * `cluster`'s primary, its node, and a client on its side (`directWriter`) committing straight to
 * it — once it has 50 rows acknowledged.
 */
async function writingOnPrimary(cluster: string) {
  const before = await read(cluster);
  const from = before.status!.primary!;
  const oldPod = await admin.get<FullPod & { spec?: { nodeName?: string } }>(Pods, from, ctx.ns);
  const app = await secretOf(`${cluster}-app`);
  const direct = directWriter(
    {
      host: oldPod.status!.podIP!,
      user: app['username']!,
      password: app['password']!,
      database: app['database']!,
    },
    1_000_000_000,
  );
  await eventually(() => direct.acked.length >= 50, {
    description: 'the direct writer committing on the old primary',
    timeoutMs: 30_000,
  });
  return { before, from, node: oldPod.spec!.nodeName!, direct };
}

/** `cluster` once a failover after the `count`th, off the partitioned `node`, has completed. */
const failedOverOff = (cluster: string, count: number, node: string) =>
  eventually(
    async () => {
      const obj = await read(cluster);
      return (obj.status?.failoverCount ?? 0) > count && obj.status?.failover?.phase === 'Completed'
        ? obj
        : undefined;
    },
    { description: `${cluster}: failed over off the partitioned ${node}`, ...long },
  );

/**
 * The split-brain window: how long after the new primary's first acknowledgement through the
 * Service (the first more than 1 s after the cut) the old primary's side still got one.
 */
function overlapOf(
  direct: { acked: { at: number }[] },
  service: { acked: { at: number }[] },
  serviceBefore: number,
  cutAt: number,
) {
  const oldLast = direct.acked.at(-1)!.at;
  const firstNew = service.acked.slice(serviceBefore).find((r) => r.at > cutAt + 1_000)?.at;
  return {
    oldLast,
    firstNew,
    overlapMs: firstNew === undefined ? 0 : Math.max(0, oldLast - firstNew),
  };
}

describe('PostgresCluster: a primary cut off by a partition fences itself', () => {
  it('stops acknowledging before primaryFencedBy, no overlap with the new primary, losses within the published bound; healed, it rejoins as a standby', async ({
    annotate,
  }) => {
    const { writer } = await readyWithLedger(name, spec);
    const { before, from, node, direct } = await writingOnPrimary(name);
    expect(before.status?.fencing).toMatchObject({ mode: 'Lease', boundSeconds: 10 });
    const count = before.status?.failoverCount ?? 0;
    const serviceBefore = writer.acked.length;
    const cutAt = Date.now();
    await tier.partitionNode(node, { allow: [observer] });
    try {
      const after = await failedOverOff(name, count, node);
      const failover = after.status!.failover!;
      expect(failover.from).toBe(from);
      const to = after.status!.primary!;
      expect(to).not.toBe(from);
      const resumed = writer.acked.length;
      await eventually(() => writer.acked.length >= resumed + 100, {
        description: 'commits resume on the new primary through the Service',
        timeoutMs: 60_000,
      });
      // The old primary's side: its last acknowledgement, before the fence.
      await sleep(2_000);
      const { oldLast, firstNew, overlapMs } = overlapOf(direct, writer, serviceBefore, cutAt);
      const fencedBy = Date.parse(failover.primaryFencedBy!);
      expect(oldLast).toBeLessThanOrEqual(fencedBy);
      expect(overlapMs).toBe(0);
      await direct.stop();

      await tier.healNode(node);
      await settledOn(name, to, failover.newTimeline!);
      const back = await read(name);
      expect(back.status!.instances!.find((i) => i.name === from)?.role).toBe('standby');
      await writer.stop();
      // What it wrote beyond the new primary's history was kept before its rewind, where status says.
      const salvage = await eventually(
        async () => {
          const s = (await read(name)).status?.failover?.salvage;
          return s && s.phase !== 'Pending' ? s : undefined;
        },
        { description: `${name}: the old primary's salvage recorded`, timeoutMs: 60_000 },
      );
      expect(salvage).toMatchObject({ phase: 'Saved' });
      expect(salvage.bytes).toBeGreaterThan(0);
      const kept = await query<{ name: string }>(
        await superuserAt(name, from),
        'SELECT name FROM pg_ls_dir($1) AS name ORDER BY name',
        [salvage.location],
      );
      expect(kept.map((f) => f.name)).toContain('manifest.json');
      expect(kept.some((f) => /^[0-9A-F]{24}$/.test(f.name))).toBe(true);

      const lost = await lostRows(name, [...writer.acked, ...direct.acked]);
      // Nothing acknowledged after the fence can be lost: nothing was acknowledged after it.
      for (const row of lost) expect(row.at).toBeLessThanOrEqual(fencedBy);
      // What was acknowledged by the time the controller last saw the old primary is within the
      // byte bound (the Service writer's rows carry their WAL position).
      const seenAt = Date.parse(failover.primaryLastSeenAt!);
      const promotedAt = lsnBytes(failover.promotedLsn!);
      const early = writer.acked.filter((r) => r.at <= seenAt && lost.some((l) => l.n === r.n));
      for (const row of early)
        expect(lsnBytes(row.lsn) - promotedAt).toBeLessThanOrEqual(
          BigInt(failover.bytesPossiblyLost ?? 0) + 8192n,
        );
      expect(failover.dataLossRisk).toBe('Bounded');
      const oldAfterCut = direct.acked.filter((r) => r.at > cutAt);
      await annotate(
        `salvage: ${salvage.phase} ${salvage.bytes} B at ${salvage.location}; partition of ${node}: old primary's last ack ${oldLast - cutAt} ms after the cut (fenced by ${fencedBy - cutAt} ms), new primary's first ${firstNew === undefined ? '?' : firstNew - cutAt} ms: overlap ${overlapMs} ms; ${oldAfterCut.length} rows acked on the old side after the cut, ${lost.length} lost in all (published ${failover.dataLossRisk}, ${failover.bytesPossiblyLost ?? 0} B + the window to primaryFencedBy)`,
      );
    } finally {
      await tier.healNode(node).catch(() => undefined);
      await direct.stop();
    }
  }, 900_000);

  it('synchronous (ANY 1 of two standbys): the cut-off primary acknowledges nothing the new timeline lacks — no acknowledged row lost, dataLossRisk None, no overlap', async ({
    annotate,
  }) => {
    await admin.delete(Kind, name, ctx.ns).catch(() => undefined);
    const sync = 'cutoff-sync';
    const { writer } = await readyWithLedger(sync, {
      ...spec,
      replication: { mode: 'sync', sync: { number: 1 } },
    });
    await eventually(
      async () => ((await read(sync)).status?.synchronous?.connected === 2 ? true : undefined),
      {
        description: `${sync}: both standbys streaming as the primary sees them`,
        timeoutMs: 60_000,
      },
    );
    const { before, from, node, direct } = await writingOnPrimary(sync);
    const count = before.status?.failoverCount ?? 0;
    const serviceBefore = writer.acked.length;
    const cutAt = Date.now();
    await tier.partitionNode(node, { allow: [observer] });
    try {
      const after = await failedOverOff(sync, count, node);
      const failover = after.status!.failover!;
      expect(failover.from).toBe(from);
      expect(failover.dataLossRisk).toBe('None');
      const to = after.status!.primary!;
      const resumed = writer.acked.length;
      await eventually(() => writer.acked.length >= resumed + 100, {
        description: 'commits resume on the new primary through the Service',
        timeoutMs: 60_000,
      });
      await sleep(2_000);
      await direct.stop();
      const { oldLast, overlapMs } = overlapOf(direct, writer, serviceBefore, cutAt);
      expect(overlapMs).toBe(0);

      await tier.healNode(node);
      await settledOn(sync, to, failover.newTimeline!);
      await writer.stop();
      // Every commit the old primary acknowledged was on a standby first: none is missing.
      const lost = await lostRows(sync, [...writer.acked, ...direct.acked]);
      expect(lost).toEqual([]);
      await annotate(
        `partition of ${node}: the old primary's last ack ${oldLast - cutAt} ms after the cut, fenced by ${Date.parse(failover.primaryFencedBy!) - cutAt} ms; ${direct.acked.filter((r) => r.at > cutAt).length} rows acked on its side after the cut, ${writer.acked.length + direct.acked.length} acked in all, 0 lost; ${failover.message}`,
      );
    } finally {
      await tier.healNode(node).catch(() => undefined);
      await direct.stop();
    }
    await admin.delete(Kind, sync, ctx.ns).catch(() => undefined);
  }, 900_000);
});
