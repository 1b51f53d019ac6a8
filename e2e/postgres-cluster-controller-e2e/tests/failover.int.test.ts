/**
 * PostgresCluster failover, the postgres-cluster-controller process (under its chart's RBAC) on the
 * node tier, with a client committing numbered rows through the read-write Service the whole time.
 * The primary is lost the hard way: PostgreSQL SIGKILLed through containerd and its pod deleted at
 * once, so nothing is flushed to the standbys on the way out. What the client really lost
 * (acknowledged commits missing on the new primary) is compared with what status published:
 *
 * - async: the most advanced standby is promoted; every lost row's WAL lies past the promoted LSN
 *   and within `maxLagBytes`; the old primary (possibly ahead of the new timeline) is rewound and
 *   rejoins as a standby;
 * - sync: `dataLossRisk: None`, and no acknowledged row is missing;
 * - a standby that lags more than `maxLagBytes` (its container frozen while the primary writes):
 *   the failover is refused with both figures, nothing is promoted, and the primary, when it
 *   returns, is the primary again with every row;
 * - the controller SIGKILLed with a failover decided and not finished: a new process finishes it —
 *   the same standby, one promotion, counted once.
 */
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kind, long, lsnBytes, postgresHelpers, query, type SuiteContext } from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const releaseName = 'pgc-failover-e2e';

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
  settledOn,
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
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-failover') });
  system = await tier.createNamespace('pgc-failover-sys');
  harness = await start();
}, 600_000);

afterAll(async () => {
  if (admin) {
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

/** Small instances with the built-in catalogue: no profile, so resources and storage are given. */
const spec = (over: Partial<PostgresClusterSpec>): PostgresClusterSpec => ({
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  failover: { after: '1s' },
  deletionPolicy: 'Delete',
  ...over,
});

const readyWithWriter = (name: string, over: Partial<PostgresClusterSpec>) =>
  readyWithLedger(name, spec(over));

/**
 * A crash: PostgreSQL SIGKILLed (the container's main process, so every process of it dies at
 * once: nothing is flushed to the standbys on the way out), and the pod deleted at once, so that
 * the StatefulSet replaces it. (A pod deleted with gracePeriodSeconds 0 alone is no crash: the
 * kubelet still sends SIGTERM first, and PostgreSQL's fast shutdown hands every WAL byte over.)
 */
async function crash(pod: string): Promise<void> {
  const container = (await getPod(pod)).status?.containerStatuses?.[0]?.containerID;
  if (!container) throw new Error(`${pod} has no running container to kill`);
  await tier.containerTask(container, 'kill');
  await admin.delete(Pods, pod, ctx.ns, { gracePeriodSeconds: 0 });
}

/** The failover of `name` Completed, away from `from`. */
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

const settled = (name: string, primary: string) => settledOn(name, primary, 2);

describe('PostgresCluster failover, the postgres-cluster-controller process on the node tier', () => {
  it('async: the primary SIGKILLed under commits → the most advanced standby promoted, every lost row within what status published, the old primary rewound as a standby', async ({
    annotate,
  }) => {
    const { before, writer } = await readyWithWriter('crash', {});
    const old = before.status!.primary!;
    await crash(old);
    const after = await failedOver('crash', old);
    const failover = after.status!.failover!;
    const promoted = after.status!.primary!;
    expect(failover).toMatchObject({ from: old, to: promoted, newTimeline: 2 });
    expect(after.status?.failoverCount).toBe(1);
    const acked = writer.acked.length;
    await eventually(() => writer.acked.length >= acked + 100, {
      description: 'commits resume through crash-rw',
      timeoutMs: 60_000,
    });
    await settled('crash', promoted);
    await writer.stop();
    const lost = await lostRows('crash', writer.acked);
    const promotedAt = lsnBytes(failover.promotedLsn!);
    // A lost commit is one the promoted standby had not received: its WAL lies past promotedLsn
    // (the position recorded is just before its commit record, hence the record's slack).
    for (const row of lost) expect(lsnBytes(row.lsn) + 8192n).toBeGreaterThan(promotedAt);
    const span = lost.length ? lsnBytes(lost[lost.length - 1]!.lsn) - promotedAt : 0n;
    expect(span).toBeLessThanOrEqual(BigInt(failover.maxLagBytes!));
    expect(failover.dataLossRisk).toBe('Bounded');
    // The controller's /metrics publishes what the status does: one failover in the namespace
    // (this cluster is its only one now), none in progress, the lag held against the lost rows.
    const labels = `{kind="PostgresCluster",namespace="${ctx.ns}"}`;
    const metrics = await eventually(
      async () => {
        const text = await harness!.process!.metrics();
        return text.includes(`steward_failovers${labels} 1`) ? text : undefined;
      },
      { description: 'steward_failovers counting the failover', timeoutMs: 30_000 },
    );
    expect(metrics).toContain(`steward_failovers_in_progress${labels} 0`);
    expect(metrics).toContain(
      `steward_failover_possible_loss_bytes${labels} ${failover.bytesPossiblyLost ?? 0}`,
    );
    await annotate(
      `acked ${writer.acked.length}, uncertain ${writer.uncertain.length}, lost ${lost.length} (WAL span ${span} B); published bound ${failover.bytesPossiblyLost} B, bound ${failover.maxLagBytes} B`,
    );
    await remove('crash');
  }, 300_000);

  it('sync: the primary SIGKILLed under commits → dataLossRisk None, and no acknowledged row is missing', async ({
    annotate,
  }) => {
    const { before, writer } = await readyWithWriter('synced', { replication: { mode: 'sync' } });
    const old = before.status!.primary!;
    await crash(old);
    const after = await failedOver('synced', old);
    const failover = after.status!.failover!;
    expect(failover.dataLossRisk).toBe('None');
    const acked = writer.acked.length;
    await eventually(() => writer.acked.length >= acked + 100, {
      description: 'commits resume through synced-rw',
      timeoutMs: 60_000,
    });
    await settled('synced', after.status!.primary!);
    await writer.stop();
    const lost = await lostRows('synced', writer.acked);
    expect(lost).toEqual([]);
    await annotate(
      `acked ${writer.acked.length}, uncertain ${writer.uncertain.length}, lost 0; published bound ${failover.bytesPossiblyLost} B`,
    );
    await remove('synced');
  }, 300_000);

  it('refuses to promote a standby that lags more than maxLagBytes (both figures in the condition and a Warning Event), promotes nothing, and lets the primary return with every row', async () => {
    const { before, writer } = await readyWithWriter('lagging', {
      replicas: 2,
      failover: { after: '1s', maxLagBytes: 65536 },
    });
    const old = before.status!.primary!;
    const standby = before.status!.instances!.find((i) => i.name !== old)!.name;
    const standbyContainer = (await getPod(standby)).status!.containerStatuses![0]!.containerID!;
    // The standby hangs (every process frozen) while the primary writes ~60 MiB of WAL (far more
    // than the sockets between them buffer) and the controller sees it (its observation of the
    // frozen standby times out, so it looks for a while); then the primary crashes and the standby
    // thaws, megabytes behind.
    await tier.containerTask(standbyContainer, 'pause');
    let thawed = false;
    try {
      const login = await appLogin('lagging');
      await query(
        login,
        "INSERT INTO ledger (n, pad) SELECT 1000000 + g, repeat('x', 1000) FROM generate_series(1, 60000) g",
      );
      await sleep(15_000);
      await crash(old);
      await tier.containerTask(standbyContainer, 'resume');
      thawed = true;
      const refusedObj = await eventually(
        async () => {
          const obj = await read('lagging');
          const degraded = findCondition(obj.status?.conditions, 'Degraded');
          return degraded?.status === 'True' && degraded.reason === 'FailoverRefusedLagExceedsBound'
            ? obj
            : undefined;
        },
        { description: 'lagging: failover refused', ...long },
      );
      const message = findCondition(refusedObj.status?.conditions, 'Degraded')!.message!;
      expect(message).toMatch(
        /could lose \d+ bytes of WAL, more than spec\.failover\.maxLagBytes 65536/,
      );
      expect(message).toContain(standby);
      expect(refusedObj.status?.failover).toBeUndefined();
      expect(refusedObj.status?.failoverCount ?? 0).toBe(0);
      expect(refusedObj.status?.primary).toBe(old);
      await eventNamed('lagging', 'FailoverRefusedLagExceedsBound', /maxLagBytes 65536/);
      // …and on /metrics, for the StewardPostgresFailoverRefused alert.
      await eventually(
        async () =>
          (await harness!.process!.metrics()).includes(
            `steward_postgres_failover_refused{kind="PostgresCluster",namespace="${ctx.ns}"} 1`,
          ),
        { description: 'steward_postgres_failover_refused 1', timeoutMs: 30_000 },
      );
      // Nothing was promoted: the standby is still in recovery.
      const rows = await query<{ r: boolean }>(
        await superuserAt('lagging', standby),
        'SELECT pg_is_in_recovery() AS r',
      );
      expect(rows).toEqual([{ r: true }]);
    } finally {
      if (!thawed) await tier.containerTask(standbyContainer, 'resume').catch(() => undefined);
    }
    // The primary returns (its pod came back; the controller lets it be the primary again) with
    // every row its client was told was committed, and the standby catches up.
    const back = await ready('lagging', (o) =>
      (o.status?.instances ?? []).every((i) => i.ready && i.timeline === 1),
    );
    expect(back.status?.primary).toBe(old);
    expect(back.status?.failoverCount ?? 0).toBe(0);
    await writer.stop();
    expect(await lostRows('lagging', writer.acked)).toEqual([]);
    await remove('lagging');
  }, 300_000);

  it('finishes a failover its controller was SIGKILLed in the middle of: the same standby promoted, counted once, one primary', async () => {
    const { before, writer } = await readyWithWriter('resumed', {});
    const old = before.status!.primary!;
    // Watch from before the loss; SIGKILL the controller at the first sight of a decided,
    // unfinished failover.
    const killed = (async () => {
      for await (const event of admin.watch<typeof before>(Kind, {
        namespace: ctx.ns,
        fieldSelector: 'metadata.name=resumed',
        resourceVersion: before.metadata.resourceVersion!,
        timeoutSeconds: 120,
      })) {
        const failover = event.object.status?.failover;
        if (event.type !== 'MODIFIED' || !failover) continue;
        if (failover.phase === 'Promoting' || failover.phase === 'Repointing') {
          await harness!.process!.kill();
          harness!.stopped();
          return failover;
        }
        throw new Error(`missed the failover in flight: ${JSON.stringify(failover)}`);
      }
      throw new Error('the watch ended before a failover was decided');
    })();
    await crash(old);
    const decided = await killed;
    const left = (await read('resumed')).status!;
    expect(left.failover).toMatchObject({ from: old, to: decided.to });
    expect(left.failover?.phase).not.toBe('Completed');
    expect(left.failoverCount).toBe(1);
    harness = await start();
    const after = await failedOver('resumed', old);
    expect(after.status?.failover).toMatchObject({ from: old, to: decided.to });
    expect(after.status?.failoverCount).toBe(1);
    // One promotion: a second would have made timeline 3 (settled() wants 2 everywhere).
    await settled('resumed', decided.to!);
    await writer.stop();
    await remove('resumed');
  }, 300_000);
});
