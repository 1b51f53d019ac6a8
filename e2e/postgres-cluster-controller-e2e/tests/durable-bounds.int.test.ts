/**
 * Bounds that survive restarts, and synchronous quorums (issue 27, deliverable 5): the
 * postgres-cluster-controller process (under its chart's RBAC) on the node tier, a client
 * committing numbered rows through the read-write Service the whole time.
 *
 * - The controller restarted between observing the lag and the failover: a standby frozen while
 *   the primary writes ~60 MiB, the controller records the primary's position in
 *   `status.primaryLastSeen`, is SIGKILLed, the primary crashes, the standby thaws and a new
 *   controller process starts — which never saw the primary. It refuses the promotion
 *   (`FailoverRefusedLagExceedsBound`, from the record) instead of promoting with `Unknown`, and
 *   the primary returns with every row.
 * - `ANY 2` of three standbys (replicas 4, durability required), one of them frozen: the primary
 *   SIGKILLed → the most advanced of the two that answer is promoted with `dataLossRisk: None`,
 *   and no acknowledged row is missing.
 * - Durability `preferred`: the one standby killed, the controller lowers the setting so commits
 *   go on (Warning Event, `status.synchronous.effective` 0), and raises it once the standby
 *   streams again.
 * - `ANY 2` of two standbys: the application role weakens its synchronous_commit defaults (its
 *   role's, its database's) and the controller resets them (`SynchronousCommitRestored`; a
 *   session's own `SET` still works: PostgreSQL allows it). Then the primary frozen (every process
 *   of it stopped) until it is failed over, then thawed → no acknowledged row is missing, the old
 *   primary rejoins as a standby.
 */
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kind, long, lsnBytes, postgresHelpers, query, type SuiteContext } from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const releaseName = 'pgc-bounds-e2e';

let tier: NodeTier;
let admin: KubeClient;
let system = '';
let harness: ChartedController | undefined;
const ctx = {} as SuiteContext;
const {
  read,
  ready,
  getPod,
  appLogin,
  superuserAt,
  eventNamed,
  readyWithLedger,
  lostRows,
  remove,
} = postgresHelpers(ctx);

const start = () =>
  startChartedController(tier, {
    app,
    kind: Kind,
    releaseName,
    releaseNamespace: system,
    watchNamespace: ctx.ns,
  });

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-bounds') });
  system = await tier.createNamespace('pgc-bounds-sys');
  harness = await start();
}, 600_000);

afterAll(async () => {
  if (admin) {
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

const spec = (over: Partial<PostgresClusterSpec>): PostgresClusterSpec => ({
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  // 5 s, not 1 s: it is also the fence's bound, and a primary that cannot renew its Lease within
  // it on a loaded machine stops itself.
  failover: { after: '5s' },
  deletionPolicy: 'Delete',
  ...over,
});

const containerOf = async (pod: string) => {
  const id = (await getPod(pod)).status?.containerStatuses?.[0]?.containerID;
  if (!id) throw new Error(`${pod} has no running container`);
  return id;
};

/** PostgreSQL SIGKILLed (nothing flushed on the way out) and the pod deleted at once. */
async function crash(pod: string): Promise<void> {
  await tier.containerTask(await containerOf(pod), 'kill');
  await admin.delete(Pods, pod, ctx.ns, { gracePeriodSeconds: 0 });
}

const failedOver = (name: string, from: string) =>
  eventually(
    async () => {
      const obj = await read(name);
      return obj.status?.failover?.phase === 'Completed' && obj.status.primary !== from
        ? obj
        : undefined;
    },
    { description: `${name} failed over`, ...long },
  );

describe('bounds that survive restarts, and synchronous quorums', () => {
  it('a controller restarted between seeing the lag and the failover still refuses an over-bound promotion (from status.primaryLastSeen), and the primary returns with every row', async ({
    annotate,
  }) => {
    const maxLagBytes = 65536;
    const { before, writer } = await readyWithLedger(
      'restart',
      spec({ replicas: 2, failover: { after: '5s', maxLagBytes } }),
    );
    const old = before.status!.primary!;
    const standby = before.status!.instances!.find((i) => i.name !== old)!.name;
    const standbyContainer = await containerOf(standby);
    await tier.containerTask(standbyContainer, 'pause');
    let thawed = false;
    try {
      // ~60 MiB of WAL the frozen standby cannot receive.
      await query(
        await appLogin('restart'),
        "INSERT INTO ledger (n, pad) SELECT 1000000 + g, repeat('x', 1000) FROM generate_series(1, 60000) g",
      );
      const [end] = await query<{ lsn: string }>(
        await superuserAt('restart', old),
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      // The controller has recorded a position at most its slack short of that.
      const recorded = await eventually(
        async () => {
          const seen = (await read('restart')).status?.primaryLastSeen;
          return seen?.pod === old &&
            lsnBytes(seen.lsn) + BigInt(seen.slackBytes) >= lsnBytes(end!.lsn)
            ? seen
            : undefined;
        },
        { description: 'restart: status.primaryLastSeen past the big insert', timeoutMs: 60_000 },
      );
      expect(recorded.slackBytes).toBe(maxLagBytes / 8);
      // The controller dies; then the primary crashes and the standby thaws, megabytes behind; a
      // new controller process that never saw the primary takes over.
      await harness!.process!.kill();
      harness!.stopped();
      await crash(old);
      await tier.containerTask(standbyContainer, 'resume');
      thawed = true;
      harness = await start();
      const refusedObj = await eventually(
        async () => {
          const obj = await read('restart');
          const degraded = findCondition(obj.status?.conditions, 'Degraded');
          return degraded?.status === 'True' && degraded.reason === 'FailoverRefusedLagExceedsBound'
            ? obj
            : undefined;
        },
        { description: 'restart: failover refused by the new controller', ...long },
      );
      const message = findCondition(refusedObj.status?.conditions, 'Degraded')!.message!;
      expect(message).toContain('as status.primaryLastSeen recorded it');
      expect(message).toMatch(/more than spec\.failover\.maxLagBytes 65536/);
      expect(refusedObj.status?.failover).toBeUndefined();
      expect(refusedObj.status?.failoverCount ?? 0).toBe(0);
      expect(refusedObj.status?.primary).toBe(old);
      await eventNamed('restart', 'FailoverRefusedLagExceedsBound', /primaryLastSeen/);
      const rows = await query<{ r: boolean }>(
        await superuserAt('restart', standby),
        'SELECT pg_is_in_recovery() AS r',
      );
      expect(rows).toEqual([{ r: true }]);
      await annotate(
        `recorded ${recorded.lsn} at ${recorded.at} (slack ${recorded.slackBytes} B); refused: ${message}`,
      );
    } finally {
      if (!thawed) await tier.containerTask(standbyContainer, 'resume').catch(() => undefined);
    }
    const back = await ready('restart', (o) =>
      (o.status?.instances ?? []).every((i) => i.ready && i.timeline === 1),
    );
    expect(back.status?.primary).toBe(old);
    await writer.stop();
    expect(await lostRows('restart', writer.acked)).toEqual([]);
    await remove('restart');
  }, 420_000);

  it('ANY 2 of three standbys, one of them frozen: the primary SIGKILLed → the most advanced of the two that answer promoted, dataLossRisk None, no acknowledged row missing', async ({
    annotate,
  }) => {
    const { before, writer } = await readyWithLedger(
      'quorum',
      spec({ replicas: 4, replication: { mode: 'sync', sync: { number: 2 } } }),
    );
    // Ready reads the standbys' own WAL receivers; the primary's walsenders may still say catchup.
    const synced = await eventually(
      async () => {
        const obj = await read('quorum');
        return obj.status?.synchronous?.connected === 3 ? obj : undefined;
      },
      {
        description: 'quorum: three standbys streaming as the primary sees them',
        timeoutMs: 60_000,
      },
    );
    expect(synced.status?.synchronous).toMatchObject({
      number: 2,
      durability: 'required',
      effective: 2,
    });
    const old = before.status!.primary!;
    const primaryRows = await query<{ value: string }>(
      await superuserAt('quorum', old),
      "SELECT current_setting('synchronous_standby_names') AS value",
    );
    expect(primaryRows[0]!.value).toMatch(/^ANY 2 \(/);
    // One standby frozen (it stays connected, acknowledging nothing): commits go on, confirmed by
    // the other two. It answers nobody when the primary dies, so the failover has two of three —
    // N − n + 1 — and says None. (Frozen rather than killed: a standby ahead of the one promoted
    // would have to be rewound, which is another story.)
    const victim = before
      .status!.instances!.filter((i) => i.name !== old)
      .sort((a, b) => a.name.localeCompare(b.name))[0]!.name;
    const victimContainer = await containerOf(victim);
    await tier.containerTask(victimContainer, 'pause');
    let thawed = false;
    try {
      const frozenAt = writer.acked.length;
      await eventually(() => writer.acked.length >= frozenAt + 100, {
        description: 'quorum: commits go on with one standby frozen',
        timeoutMs: 30_000,
      });
      await crash(old);
      const after = await failedOver('quorum', old);
      const failover = after.status!.failover!;
      expect(failover.dataLossRisk).toBe('None');
      expect(failover.to).not.toBe(victim);
      await tier.containerTask(victimContainer, 'resume');
      thawed = true;
      const acked = writer.acked.length;
      await eventually(() => writer.acked.length >= acked + 100, {
        description: 'commits resume through quorum-rw',
        timeoutMs: 120_000,
      });
      await ready('quorum', (o) =>
        (o.status?.instances ?? []).every((i) => i.ready && i.timeline === 2),
      );
      await writer.stop();
      expect(await lostRows('quorum', writer.acked)).toEqual([]);
      await annotate(
        `acked ${writer.acked.length}, uncertain ${writer.uncertain.length}, lost 0; ${failover.message}`,
      );
    } finally {
      if (!thawed) await tier.containerTask(victimContainer, 'resume').catch(() => undefined);
    }
    await remove('quorum');
  }, 420_000);

  it('durability preferred: its one standby killed, the controller lowers synchronous_standby_names so writes go on, says so (Event, status.synchronous), and raises it again once the standby streams', async ({
    annotate,
  }) => {
    const { before, writer } = await readyWithLedger(
      'preferred',
      spec({
        replicas: 2,
        replication: { mode: 'sync', sync: { number: 1, durability: 'preferred' } },
      }),
    );
    const old = before.status!.primary!;
    const standby = before.status!.instances!.find((i) => i.name !== old)!.name;
    expect(before.status?.synchronous).toMatchObject({ effective: 1, connected: 1 });
    const killedAt = Date.now();
    const ackedBefore = writer.acked.length;
    await tier.containerTask(await containerOf(standby), 'kill');
    const lowered = await eventually(
      async () => {
        const obj = await read('preferred');
        return obj.status?.synchronous?.effective === 0 ? obj : undefined;
      },
      { description: 'preferred: synchronous_standby_names lowered', timeoutMs: 60_000 },
    );
    expect(lowered.status?.synchronous?.message).toMatch(/acknowledged by the primary alone/);
    await eventNamed('preferred', 'SynchronousStandbysLowered', /no standby streams/);
    await eventually(() => writer.acked.length >= ackedBefore + 100, {
      description: 'preferred: commits go on without the standby',
      timeoutMs: 60_000,
    });
    // The longest pause between two acknowledgements since the kill: commits waited for the
    // standby until the controller lowered the setting.
    const since = writer.acked.filter((a) => a.at >= killedAt);
    const pauseMs = Math.max(0, ...since.slice(1).map((a, i) => a.at - since[i]!.at));
    // The standby's container restarts; once it streams, the number goes back up.
    const raised = await eventually(
      async () => {
        const obj = await read('preferred');
        return obj.status?.synchronous?.effective === 1 ? obj : undefined;
      },
      { description: 'preferred: synchronous_standby_names raised again', ...long },
    );
    expect(raised.status?.synchronous?.connected).toBe(1);
    await eventNamed('preferred', 'SynchronousStandbysRestored', /stream again/);
    const [setting] = await query<{ value: string }>(
      await superuserAt('preferred', old),
      "SELECT current_setting('synchronous_standby_names') AS value",
    );
    expect(setting!.value).toBe(`ANY 1 ("${standby}")`);
    await writer.stop();
    expect(await lostRows('preferred', writer.acked)).toEqual([]);
    await annotate(
      `longest pause between acknowledgements after the standby was killed: ${pauseMs} ms (commits waited until the controller lowered the setting)`,
    );
    await remove('preferred');
  }, 420_000);

  it('ANY 2 of two standbys: the primary frozen until it is failed over, then thawed → no acknowledged row missing, the old primary a standby again', async ({
    annotate,
  }) => {
    const { before, writer } = await readyWithLedger(
      'frozen',
      spec({ replicas: 3, replication: { mode: 'sync', sync: { number: 2 } } }),
    );
    const old = before.status!.primary!;
    // The application's owner weakens its defaults; the controller sets them back (a session's own
    // SET is PostgreSQL's to allow, and it does).
    const login = await appLogin('frozen');
    await query(login, "ALTER ROLE CURRENT_USER SET synchronous_commit = 'off'");
    await query(login, `ALTER DATABASE ${login.database} SET synchronous_commit = 'local'`);
    await eventNamed('frozen', 'SynchronousCommitRestored', /synchronous_commit=off/);
    const defaults = await eventually(
      async () => {
        const [row] = await query<{ value: string }>(
          login,
          "SELECT current_setting('synchronous_commit') AS value",
        );
        return row!.value === 'on' ? row : undefined;
      },
      {
        description: 'frozen: a new session of the app role commits synchronously',
        timeoutMs: 60_000,
      },
    );
    expect(defaults.value).toBe('on');
    const session = new pg.Client({ ...login, port: 5432, connectionTimeoutMillis: 3000 });
    await session.connect();
    try {
      await session.query("SET synchronous_commit = 'local'");
      const { rows } = await session.query<{ value: string }>(
        "SELECT current_setting('synchronous_commit') AS value",
      );
      expect(rows).toEqual([{ value: 'local' }]);
    } finally {
      await session.end();
    }
    const container = await containerOf(old);
    await tier.containerTask(container, 'pause');
    let thawed = false;
    try {
      const after = await failedOver('frozen', old);
      expect(after.status?.failover?.dataLossRisk).toBe('None');
      // Frozen a while longer: whatever it had in flight stays unacknowledged.
      await sleep(3000);
      await tier.containerTask(container, 'resume');
      thawed = true;
      const acked = writer.acked.length;
      await eventually(() => writer.acked.length >= acked + 100, {
        description: 'commits resume through frozen-rw',
        timeoutMs: 120_000,
      });
      const settled = await ready('frozen', (o) =>
        (o.status?.instances ?? []).every((i) => i.ready && i.timeline === 2),
      );
      expect(settled.status?.instances?.find((i) => i.name === old)?.role).toBe('standby');
      await writer.stop();
      expect(await lostRows('frozen', writer.acked)).toEqual([]);
      await annotate(
        `acked ${writer.acked.length}, uncertain ${writer.uncertain.length}, lost 0; ${after.status?.failover?.message}`,
      );
    } finally {
      if (!thawed) await tier.containerTask(container, 'resume').catch(() => undefined);
    }
    await remove('frozen');
  }, 420_000);
});
