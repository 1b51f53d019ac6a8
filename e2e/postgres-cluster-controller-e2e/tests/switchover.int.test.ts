/**
 * PostgresCluster planned changes, the postgres-cluster-controller process (under its chart's
 * RBAC) on the node tier, with a client committing numbered rows through the read-write Service:
 *
 * - a switchover asked for with the `postgres.steward.dev/switchover-to` annotation: refused (and
 *   the request removed) for an instance the cluster does not have; carried out for a standby —
 *   the old primary out of the Service and stopped cleanly, the standby promoted once it has all
 *   of its WAL — and no acknowledged row is missing;
 * - a rolling update (a template change): standbys restarted first, then the primary switched over
 *   to an updated standby (reason Rollout, the write pause in status.switchover) and restarted as
 *   a standby — no acknowledged row missing;
 * - scale 3 → 2 with the primary on the ordinal removed: switched over first (ScaleDown), then
 *   the instance goes with its volume (a standby's copy: the primary is never on it); 2 → 3: it is
 *   cloned again and streams; nothing lost;
 * - storage growth on a StorageClass that cannot expand: the claims stay, and Degraded says why;
 * - storage growth on one that can (the node tier's expandable class, its provisioner the
 *   resizer): every claim grows, an Event says so, the cluster stays Ready and loses nothing.
 */
import { findCondition } from '@steward/conditions';
import { childNames } from '@steward/postgres-cluster';
import { SwitchoverAnnotation, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import {
  KubeClient,
  PersistentVolumeClaims,
  Pods,
  StatefulSets,
  type KubeObject,
} from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
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
const releaseName = 'pgc-switchover-e2e';
const name = 'moves';
const grower = 'grows';

let tier: NodeTier;
let admin: KubeClient;
let harness: ChartedController | undefined;
const ctx = {} as SuiteContext;
const {
  read,
  ready,
  appLogin,
  superuserAt,
  eventNamed,
  readyWithLedger,
  settledOn,
  lostRows,
  remove,
  exists,
  startWriter,
} = postgresHelpers(ctx);

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-switchover') });
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName,
    releaseNamespace: await tier.createNamespace('pgc-switchover-sys'),
    watchNamespace: ctx.ns,
  });
}, 600_000);

afterAll(async () => {
  if (admin) {
    await remove(name).catch(() => undefined);
    await remove(grower).catch(() => undefined);
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
  deletionPolicy: 'Delete',
};

const annotate = (value: string) =>
  admin.mergePatch(Kind, name, ctx.ns, {
    metadata: { annotations: { [SwitchoverAnnotation]: value } },
  });

/** The newest switchover finished (Completed or Failed) to `to`, its request removed. */
const switched = (to: string, phase: 'Completed' | 'Failed') =>
  eventually(
    async () => {
      const obj = await read(name);
      const record = obj.status?.switchover;
      return record?.to === to &&
        record.phase === phase &&
        obj.metadata.annotations?.[SwitchoverAnnotation] === undefined
        ? obj
        : undefined;
    },
    { description: `${name}: switchover to ${to} ${phase}, its request removed`, ...long },
  );

/** The longest time between two consecutive acknowledgements: how long writes were refused. */
const longestGap = (acked: { at: number }[]) =>
  acked.reduce((gap, r, i) => (i === 0 ? 0 : Math.max(gap, r.at - acked[i - 1]!.at)), 0);

let writer: Awaited<ReturnType<typeof readyWithLedger>>['writer'];

describe('PostgresCluster switchover and scaling, the postgres-cluster-controller process on the node tier', () => {
  it('switches over on request under continuous commits: nothing lost, the old primary a standby, the request removed (and an unknown instance refused)', async ({
    annotate: note,
  }) => {
    const started = await readyWithLedger(name, spec);
    writer = started.writer;
    const old = started.before.status!.primary!;
    expect(old).toBe(`${name}-0`);

    // An instance the cluster does not have: refused once, the request removed, nothing moved.
    await annotate(`${name}-7`);
    const refused = await switched(`${name}-7`, 'Failed');
    expect(refused.status?.switchover?.message).toContain('not an instance of this cluster');
    expect(refused.status?.primary).toBe(old);
    await eventNamed(name, 'SwitchoverFailed', /moves-7 refused/);

    const target = `${name}-2`;
    const ackedBefore = writer.acked.length;
    await annotate(target);
    const done = await switched(target, 'Completed');
    const record = done.status!.switchover!;
    expect(record).toMatchObject({ from: old, to: target, reason: 'Requested', newTimeline: 2 });
    expect(done.status?.primary).toBe(target);
    expect(done.status?.switchoverCount).toBe(1);
    expect(done.status?.failoverCount ?? 0).toBe(0);
    // The standby had everything the old primary was last seen with when it was promoted.
    expect(lsnBytes(record.promotedLsn!)).toBeGreaterThanOrEqual(lsnBytes(record.primaryLastLsn!));
    await eventNamed(name, 'SwitchoverCompleted', /nothing committed is lost/);

    const resumed = writer.acked.length;
    await eventually(() => writer.acked.length >= resumed + 100, {
      description: 'commits resume through moves-rw',
      timeoutMs: 60_000,
    });
    await settledOn(name, target, 2);
    const lost = await lostRows(name, writer.acked);
    expect(lost).toEqual([]);
    const during = writer.acked.slice(ackedBefore);
    await note(
      `switchover: ${writer.acked.length} acked, ${writer.uncertain.length} uncertain, 0 lost; writes refused for ${longestGap(during)} ms at most`,
    );
  }, 420_000);

  it('scales 3 → 2 with the primary on the ordinal removed (switched over first, nothing lost), then 2 → 3 cloned again', async () => {
    const old = (await read(name)).status!.primary!;
    expect(old).toBe(`${name}-2`);
    await admin.mergePatch(Kind, name, ctx.ns, { spec: { replicas: 2 } });
    const moved = await eventually(
      async () => {
        const obj = await read(name);
        const record = obj.status?.switchover;
        return record?.reason === 'ScaleDown' && record.phase === 'Completed' ? obj : undefined;
      },
      { description: `${name}: the primary moved off ${old}`, ...long },
    );
    const primary = moved.status!.primary!;
    expect([`${name}-0`, `${name}-1`]).toContain(primary);
    const two = await ready(
      name,
      (o) => o.status?.instances?.length === 2 && o.status.instances.every((i) => i.ready),
    );
    expect(two.status?.replicas).toBe(2);
    expect(await exists(Pods, old)).toBe(false);
    const sts = await admin.get<KubeObject & { spec: { replicas: number } }>(
      StatefulSets,
      childNames(name).statefulSet,
      ctx.ns,
    );
    expect(sts.spec.replicas).toBe(2);
    // The volume of the instance scaled away goes with it: by then it is a standby's copy (the
    // primary was moved off it first), and an instance that comes back is cloned afresh.
    await eventually(async () => !(await exists(PersistentVolumeClaims, `data-${old}`)), {
      description: `claim data-${old} deleted with the scaled-away standby`,
      timeoutMs: 60_000,
    });
    expect(await lostRows(name, writer.acked)).toEqual([]);

    await admin.mergePatch(Kind, name, ctx.ns, { spec: { replicas: 3 } });
    await settledOn(name, primary, 3);
    const resumed = writer.acked.length;
    await eventually(() => writer.acked.length >= resumed + 100, {
      description: 'commits continue',
      timeoutMs: 60_000,
    });
    await writer.stop();
    expect(await lostRows(name, writer.acked)).toEqual([]);
    // The instance that came back has every row too.
    const last = writer.acked[writer.acked.length - 1]!.n;
    // The ledger is in the application's database; the superuser reads it on that pod.
    const { database } = await appLogin(name);
    await eventually(
      async () => {
        const rows = await query<{ n: number | null }>(
          await superuserAt(name, old, database),
          'SELECT max(n) AS n FROM ledger',
          [],
        );
        const seen = rows[0]?.n;
        if (seen === null || seen === undefined || Number(seen) < last)
          throw new Error(`${old} has replayed up to row ${seen ?? 'none'}`);
        return true;
      },
      { description: `${old} has replayed row ${last}`, timeoutMs: 60_000 },
    );
  }, 420_000);

  it('rolls a template change standbys first, then switches the primary over to an updated standby and restarts the old primary as a standby: nothing lost, the write pause in status', async ({
    annotate: note,
  }) => {
    const before = await read(name);
    const old = before.status!.primary!;
    const switchovers = before.status?.switchoverCount ?? 0;
    const failovers = before.status?.failoverCount ?? 0;
    await query(await appLogin(name), 'TRUNCATE ledger');
    const rolling = startWriter(name);
    await eventually(() => rolling.acked.length >= 100, {
      description: `${name}: the writer committing`,
      timeoutMs: 30_000,
    });
    const resources = { requests: { cpu: '60m', memory: '128Mi' }, limits: { memory: '256Mi' } };
    await admin.mergePatch(Kind, name, ctx.ns, { spec: { resources } });
    const moved = await eventually(
      async () => {
        const obj = await read(name);
        const record = obj.status?.switchover;
        return record?.reason === 'Rollout' && record.phase === 'Completed' ? obj : undefined;
      },
      { description: `${name}: the rolling update switched the primary over`, ...long },
    );
    const record = moved.status!.switchover!;
    expect(record.from).toBe(old);
    expect(record.to).not.toBe(old);
    expect(moved.status?.switchoverCount).toBe(switchovers + 1);
    expect(moved.status?.failoverCount ?? 0).toBe(failovers);
    expect(lsnBytes(record.promotedLsn!)).toBeGreaterThanOrEqual(lsnBytes(record.primaryLastLsn!));
    const stoppedAt = Date.parse(record.writesStoppedAt!);
    const resumedAt = Date.parse(record.writesResumedAt!);
    expect(resumedAt).toBeGreaterThanOrEqual(stoppedAt);
    await eventNamed(
      name,
      'SwitchoverCompleted',
      /\(Rollout\).*nothing committed is lost; writes paused for/,
    );

    // Every instance on the new template — the old primary last, restarted as a standby.
    const rolled = await eventually(
      async () => {
        const sts = await admin.get<KubeObject & { status?: { updateRevision?: string } }>(
          StatefulSets,
          childNames(name).statefulSet,
          ctx.ns,
        );
        const pods = (
          await admin.list<FullPod>(Pods, {
            namespace: ctx.ns,
            labelSelector: `postgres.steward.dev/cluster=${name}`,
          })
        ).items;
        const revision = sts.status?.updateRevision;
        return pods.length === 3 &&
          pods.every(
            (p) =>
              p.metadata.labels?.['controller-revision-hash'] === revision &&
              !p.metadata.deletionTimestamp,
          )
          ? pods
          : undefined;
      },
      { description: `${name}: every pod on the new revision`, ...long },
    );
    for (const p of rolled)
      expect(p.spec?.containers[0]?.resources?.requests).toMatchObject({ cpu: '60m' });
    await settledOn(name, record.to, record.newTimeline!);
    const resumed = rolling.acked.length;
    await eventually(() => rolling.acked.length >= resumed + 100, {
      description: 'commits continue',
      timeoutMs: 60_000,
    });
    await rolling.stop();
    expect(await lostRows(name, rolling.acked)).toEqual([]);
    await note(
      `rolling update: ${rolling.acked.length} acked, ${rolling.uncertain.length} uncertain, 0 lost; status: writes paused ${resumedAt - stoppedAt} ms (${record.writesStoppedAt} → ${record.writesResumedAt}); the client saw no commit for ${longestGap(rolling.acked)} ms at most`,
    );
  }, 600_000);

  it('says a volume cannot grow on a StorageClass without expansion, instead of doing nothing', async () => {
    await admin.mergePatch(Kind, name, ctx.ns, { spec: { storage: { size: '2Gi' } } });
    const degraded = await eventually(
      async () => {
        const obj = await read(name);
        const cond = findCondition(obj.status?.conditions, 'Degraded');
        return cond?.status === 'True' &&
          cond.reason === 'VolumeExpansionFailed' &&
          cond.observedGeneration === obj.metadata.generation
          ? { obj, cond }
          : undefined;
      },
      { description: `${name}: Degraded VolumeExpansionFailed`, ...long },
    );
    expect(degraded.cond.message).toMatch(
      new RegExp(`PersistentVolumeClaim data-${name}-\\d cannot grow from 1Gi to 2Gi: .*`),
    );
    // The cluster still serves; the claims are as they were.
    expect(findCondition(degraded.obj.status?.conditions, 'Ready')?.status).toBe('True');
    const claim = await admin.get<
      KubeObject & { spec: { resources: { requests: { storage: string } } } }
    >(PersistentVolumeClaims, `data-${name}-0`, ctx.ns);
    expect(claim.spec.resources.requests.storage).toBe('1Gi');
  }, 300_000);

  it('grows every claim on a StorageClass that can expand, and stays Ready', async () => {
    const { writer } = await readyWithLedger(grower, {
      ...spec,
      replicas: 2,
      storage: { size: '1Gi', storageClassName: tier.expandableStorageClass },
    });
    await admin.mergePatch(Kind, grower, ctx.ns, { spec: { storage: { size: '2Gi' } } });
    type Claim = KubeObject & {
      spec: { resources: { requests: { storage: string } } };
      status?: { capacity?: { storage?: string } };
    };
    const claims = await eventually(
      async () => {
        const all = await Promise.all(
          [0, 1].map((i) =>
            admin.get<Claim>(PersistentVolumeClaims, `data-${grower}-${i}`, ctx.ns),
          ),
        );
        if (!all.every((c) => c.status?.capacity?.storage === '2Gi'))
          throw new Error(
            `capacities: ${all.map((c) => `${c.metadata.name} ${c.status?.capacity?.storage}`).join(', ')}`,
          );
        return all;
      },
      { description: `${grower}: every claim 2Gi`, ...long },
    );
    expect(claims.map((c) => c.spec.resources.requests.storage)).toEqual(['2Gi', '2Gi']);
    await eventNamed(
      grower,
      'VolumeExpanding',
      new RegExp(`data-${grower}-0 grows from 1Gi to 2Gi`),
    );
    const after = await ready(grower, (o) => {
      const degraded = findCondition(o.status?.conditions, 'Degraded');
      const progressing = findCondition(o.status?.conditions, 'Progressing');
      return (
        degraded?.status === 'False' &&
        degraded.observedGeneration === o.metadata.generation &&
        progressing?.status === 'False' &&
        progressing.observedGeneration === o.metadata.generation
      );
    });
    expect(after.status?.readyReplicas).toBe(2);
    expect(after.status?.observedGeneration).toBe(after.metadata.generation);
    await writer.stop();
    expect(writer.acked.length).toBeGreaterThan(100);
    expect(await lostRows(grower, writer.acked)).toEqual([]);
  }, 300_000);
});
