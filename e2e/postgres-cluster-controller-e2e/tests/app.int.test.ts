/**
 * The postgres-cluster-controller as shipped — its app bundle as a process, under exactly the RBAC
 * its chart renders (namespaced to the watched namespace, a release name of this suite's own), with
 * leader election — against the node tier: a real API server, kubelet, containerd, kube-proxy and
 * dynamic local volumes running the PostgreSQL pods it renders. Every assertion is about an outcome
 * on the real cluster or in the real databases (`pg` from this host, over the pod network and the
 * read-write Service's ClusterIP); waits are `eventually`, never elapsed time.
 *
 * The lifecycle: three instances Ready from a kubernetes profile's size class (kstatus Current,
 * printer columns, standbys streaming, the application role writing through the Service); a
 * failover under continuous numbered commits, with the rows a client really lost compared to what
 * status published; a spec the profile forbids stopped before any child exists and Ready once
 * fixed; no API writes once converged; deletionPolicy Retain; a clean stop.
 */
import { findCondition } from '@steward/conditions';
import { childNames, Labels, PostgresReasons, type Pod } from '@steward/postgres-cluster';
import {
  Events,
  KubeClient,
  PersistentVolumeClaims,
  Pods,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
} from '@steward/kube';
import { WorkloadAdmissionReasons } from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, gitOpsReading, installCRDs, repoRoot } from '@steward/testing';
import {
  kubectlTable,
  requestsByMethod,
  startChartedController,
  type ChartedController,
} from '@steward/testing-charts';
import {
  acquireNodeTier,
  localImages,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  Kind,
  long,
  lsnBytes,
  postgresHelpers,
  query,
  type Event,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
/** This suite's own release name: the chart's RBAC object names never collide with another suite's. */
const releaseName = 'pgc-app-e2e';
const reportingController = `steward.dev/${app}`;
const Profiles = ProviderProfile.resourceType;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let system = '';
let profile = '';
let images: Record<string, LocalImage>;
const ctx = {} as SuiteContext;
let harness: ChartedController | undefined;

beforeAll(async () => {
  tier = await acquireNodeTier();
  images = await localImages('postgres-15', 'postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  ns = await tier.createNamespace('pgc-e2e');
  Object.assign(ctx, { admin, ns });
  system = await tier.createNamespace('pgc-e2e-sys');
  profile = `${ns}-workloads`;
  await admin.create<ProviderProfile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: profile },
    spec: {
      provider: 'kubernetes',
      namespaceSelector: {},
      kubernetes: {
        sizeClasses: {
          small: { cpu: '100m', memory: '192Mi', storage: '1Gi' },
          large: { cpu: '4', memory: '16Gi', storage: '10Gi' },
        },
        images: [
          { engine: 'postgres', version: '15', image: images['postgres-15']!.ref },
          { engine: 'postgres', version: '17', image: images['postgres-17']!.ref },
        ],
        maxReplicas: 3,
        maxStorage: '20Gi',
      },
      guardrails: { allowedSizes: ['small'], allowedDeletionPolicies: ['Retain', 'Delete'] },
    },
  } as ProviderProfile);
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName,
    releaseNamespace: system,
    watchNamespace: ns,
  });
}, 600_000);

afterAll(async () => {
  if (admin) {
    await harness?.cleanUp(admin);
    if (profile) await admin.delete(Profiles, profile).catch(() => undefined);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

// ---------------------------------------------------------------------------------------------
// Helpers

const {
  create,
  read,
  patchSpec,
  ready,
  refused,
  getPod,
  appLogin,
  superuserAt,
  eventNamed,
  exists,
  startWriter,
} = postgresHelpers(ctx);

// ---------------------------------------------------------------------------------------------

describe('the postgres-cluster-controller process on the node tier', () => {
  it('makes three instances Ready from the profile’s size class: kstatus Current, printer columns, standbys streaming, the application role writing through the Service', async ({
    annotate,
  }) => {
    const started = performance.now();
    await create('orders', {
      providerProfileRef: { name: profile },
      version: '17',
      replicas: 3,
      size: 'small',
      failover: { after: '2s' },
      bootstrap: { database: 'orders', owner: 'orders' },
    });
    const obj = await ready('orders');
    await annotate(
      `create → Ready, 3 instances: ${Math.round(performance.now() - started)} ms (not a benchmark)`,
    );
    expect(obj.status).toMatchObject({
      phase: 'Ready',
      primary: 'orders-0',
      replicas: 3,
      readyReplicas: 3,
      version: '17',
      image: images['postgres-17']!.ref,
      timeline: 1,
    });
    expect(obj.status?.instances?.map((i) => [i.name, i.role, i.ready])).toEqual([
      ['orders-0', 'primary', true],
      ['orders-1', 'standby', true],
      ['orders-2', 'standby', true],
    ]);
    for (const standby of obj.status!.instances!.slice(1))
      expect(standby).toMatchObject({ replicationState: 'streaming', syncState: 'async' });
    for (const type of ['Ready', 'Progressing', 'Degraded'])
      expect(findCondition(obj.status?.conditions, type)?.observedGeneration).toBe(
        obj.metadata.generation,
      );
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    expect(
      (await kubectlTable(tier.kubeconfigPath, 'postgresclusters.postgres.steward.dev', ns))[
        'orders'
      ],
    ).toMatchObject({
      READY: 'True',
      PHASE: 'Ready',
      PRIMARY: 'orders-0',
      'READY REPLICAS': '3',
      VERSION: '17',
      REPLICAS: '3',
    });
    // The size class's resources, on every instance.
    const pod = await getPod('orders-1');
    expect(pod.spec?.containers[0]?.resources).toMatchObject({
      requests: { cpu: '100m', memory: '192Mi' },
      limits: { memory: '192Mi' },
    });
    const claim = await admin.get<
      KubeObject & { spec: { resources: { requests: { storage: string } } } }
    >(PersistentVolumeClaims, 'data-orders-2', ns);
    expect(claim.spec.resources.requests.storage).toBe('1Gi');
    // The application role owns its database and writes through the read-write Service.
    const login = await appLogin('orders');
    expect(login).toMatchObject({ user: 'orders', database: 'orders' });
    await eventually(
      () =>
        query(login, 'SELECT 1').then(
          () => true,
          () => false,
        ),
      { description: 'orders-rw answering', timeoutMs: 30_000 },
    );
    await query(login, 'CREATE TABLE ledger (n int PRIMARY KEY, at timestamptz DEFAULT now())');
    await query(login, 'INSERT INTO ledger (n) SELECT generate_series(-99, 0)');
    for (const standby of ['orders-1', 'orders-2']) {
      const at = await superuserAt('orders', standby, 'orders');
      await eventually(
        async () =>
          (
            await query<{ c: number }>(at, 'SELECT count(*)::int AS c FROM ledger').catch(() => [])
          )[0]?.c === 100,
        { description: `${standby} has the rows`, timeoutMs: 30_000 },
      );
    }
    // Events name the reporting controller.
    const events = (await admin.list<Event>(Events, { namespace: ns })).items.filter(
      (e) => e.regarding?.kind === 'PostgresCluster' && e.regarding.name === 'orders',
    );
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.reportingController).toBe(reportingController);
  });

  it('fails over when the primary pod is deleted under continuous commits: the most advanced standby promoted, the Service follows, the old primary rejoins as a standby, and every row lost is within what status published', async ({
    annotate,
  }) => {
    const before = await ready('orders');
    const maxLagBytes = BigInt(before.spec.failover?.maxLagBytes ?? 16 * 1024 * 1024);
    const writer = startWriter('orders');
    await eventually(() => writer.acked.length >= 50, {
      description: 'the writer committing',
      timeoutMs: 30_000,
    });
    const oldUid = (await getPod('orders-0')).metadata.uid;
    const deletedAt = performance.now();
    await admin.delete(Pods, 'orders-0', ns);
    // The failover: decided, carried out and recorded.
    const failedOver = await eventually(
      async () => {
        const obj = await read('orders');
        return obj.status?.failover?.phase === 'Completed' && obj.status.primary !== 'orders-0'
          ? obj
          : undefined;
      },
      { description: 'orders failed over', ...long },
    );
    const ackedAtCompletion = writer.acked.length;
    // Writes resume through the read-write Service, on the new primary.
    await eventually(() => writer.acked.length >= ackedAtCompletion + 50, {
      description: 'commits resume through orders-rw',
      timeoutMs: 60_000,
    });
    const writableAfter = performance.now() - deletedAt;
    const promoted = failedOver.status!.primary!;
    const failover = failedOver.status!.failover!;
    expect(failover).toMatchObject({
      phase: 'Completed',
      from: 'orders-0',
      to: promoted,
      newTimeline: 2,
    });
    expect(['Bounded', 'None']).toContain(failover.dataLossRisk);
    expect(failedOver.status?.failoverCount).toBe(1);
    // The old primary comes back (a new pod, the same volume) as a standby of the new primary.
    const after = await ready('orders', (o) =>
      (o.status?.instances ?? []).every((i) => i.ready && i.timeline === 2),
    );
    expect(after.status?.primary).toBe(promoted);
    expect(Object.fromEntries(after.status!.instances!.map((i) => [i.name, i.role]))).toEqual({
      'orders-0': 'standby',
      'orders-1': promoted === 'orders-1' ? 'primary' : 'standby',
      'orders-2': promoted === 'orders-2' ? 'primary' : 'standby',
    });
    expect((await getPod('orders-0')).metadata.uid).not.toBe(oldUid);
    const labels = (
      await admin.list<Pod>(Pods, { namespace: ns, labelSelector: `${Labels.cluster}=orders` })
    ).items;
    expect(
      labels
        .filter((p) => p.metadata.labels?.[Labels.role] === 'primary')
        .map((p) => p.metadata.name),
    ).toEqual([promoted]);
    await writer.stop();
    // What a client really lost: acknowledged commits missing on the new primary.
    const present = new Set(
      (await query<{ n: number }>(await appLogin('orders'), 'SELECT n FROM ledger')).map(
        (r) => r.n,
      ),
    );
    const lost = writer.acked.filter((r) => !present.has(r.n));
    const promotedLsn = lsnBytes(failover.promotedLsn!);
    // A lost commit is one the promoted standby had not received: its WAL is past promotedLsn
    // (its commit record ends after the insert position recorded, hence ≥, not >).
    for (const row of lost) expect(lsnBytes(row.lsn) + 8192n).toBeGreaterThan(promotedLsn);
    // And all of it within the bound the failover was allowed to lose.
    const lostSpan = lost.length ? lsnBytes(lost[lost.length - 1]!.lsn) - promotedLsn : 0n;
    expect(lostSpan).toBeLessThanOrEqual(maxLagBytes);
    if (failover.dataLossRisk === 'None') expect(lost).toEqual([]);
    await annotate(
      `acked ${writer.acked.length} commits, ${writer.uncertain.length} uncertain, lost ${lost.length}; published bound ${failover.bytesPossiblyLost} B (max ${failover.maxLagBytes} B, risk ${failover.dataLossRisk}); writable again ${Math.round(writableAfter)} ms after the delete (not a benchmark)`,
    );
    await eventNamed('orders', 'Promoted', new RegExp(`${promoted} promoted`));
  });

  it('stops a PostgresCluster its profile forbids before any child exists (Stalled, kstatus Failed, a Warning Event); fixing the spec makes it Ready', async () => {
    await create('audit', { providerProfileRef: { name: profile }, version: '15', size: 'large' });
    const stopped = await refused('audit', WorkloadAdmissionReasons.SizeNotAllowed);
    expect(findCondition(stopped.status?.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: WorkloadAdmissionReasons.SizeNotAllowed,
    });
    expect(findCondition(stopped.status?.conditions, 'Ready')?.message).toContain('large');
    expect(await gitOpsReading(stopped)).toMatchObject({ kstatus: 'Failed' });
    await eventNamed('audit', WorkloadAdmissionReasons.SizeNotAllowed, /large/);
    for (const [kind, child] of [
      [StatefulSets, 'audit'],
      [Secrets, childNames('audit').superuserSecret],
      [Services, childNames('audit').readWrite],
    ] as const)
      expect(await exists(kind, child)).toBe(false);
    await patchSpec('audit', { size: 'small' });
    const fixed = await ready('audit');
    expect(findCondition(fixed.status?.conditions, 'Stalled')).toBeUndefined();
    expect(fixed.status).toMatchObject({ version: '15', primary: 'audit-0' });
    expect(await gitOpsReading(fixed)).toMatchObject({ kstatus: 'Current' });
  });

  it('costs no API writes once converged: over 20 s, no POST/DELETE and no Event; the only PUTs are its Lease renewals, the only PATCHes status.primaryLastSeen refreshes', async ({
    annotate,
  }) => {
    await ready('orders');
    await ready('audit');
    // Converged: every standby has replayed what its primary wrote after the bootstrap (the
    // checkpoint), so status has nothing left to say.
    for (const n of ['orders', 'audit']) {
      await eventually(
        async () =>
          ((await read(n)).status?.instances ?? []).every(
            (i) => i.role !== 'standby' || i.lagBytes === 0,
          ),
        { description: `${n}: every standby caught up (status lagBytes 0)`, timeoutMs: 60_000 },
      );
    }
    await sleep(3000);
    const eventsBefore = (await admin.list<Event>(Events, { namespace: ns })).items.length;
    const statusOf = async () =>
      Promise.all(['orders', 'audit'].map(async (n) => (await read(n)).status ?? {}));
    const statusBefore = await statusOf();
    const before = requestsByMethod(await harness!.process!.metrics());
    await sleep(20_000);
    const after = requestsByMethod(await harness!.process!.metrics());
    const statusAfter = await statusOf();
    const delta = (m: string) => (after[m] ?? 0) - (before[m] ?? 0);
    // The one status write a converged cluster makes: status.primaryLastSeen, rewritten at most
    // once a minute while the primary's WAL position moves (checkpoints after the bootstrap).
    const refreshed = statusBefore.filter(
      (s, i) =>
        JSON.stringify(s.primaryLastSeen) !== JSON.stringify(statusAfter[i]!.primaryLastSeen),
    ).length;
    const withoutRecord = (all: typeof statusBefore) =>
      all.map(({ primaryLastSeen: _seen, ...rest }) => rest);
    await annotate(
      `GET ${delta('GET')}, PUT ${delta('PUT')}, PATCH ${delta('PATCH')} (primaryLastSeen refreshed ${refreshed}) over 20 s`,
    );
    expect(withoutRecord(statusAfter)).toEqual(withoutRecord(statusBefore));
    expect({ POST: delta('POST'), DELETE: delta('DELETE') }).toEqual({ POST: 0, DELETE: 0 });
    // The status reads enclose the metrics reads: every PATCH counted is a refresh seen.
    expect(delta('PATCH')).toBeLessThanOrEqual(refreshed);
    // Lease renewals every few seconds; nothing else is updated.
    expect(delta('PUT')).toBeLessThanOrEqual(12);
    expect((await admin.list<Event>(Events, { namespace: ns })).items.length).toBe(eventsBefore);
  });

  it('deletionPolicy Retain keeps the volumes and both Secrets (no owner left) and says so', async () => {
    const obj = await read('audit');
    expect(obj.spec.deletionPolicy).toBe('Retain');
    await admin.delete(Kind, 'audit', ns);
    await eventually(() => exists(Kind, 'audit').then((e) => !e), {
      description: 'audit gone',
      ...long,
    });
    const retained = await eventNamed('audit', 'Retained', /data-audit-0/);
    expect(retained.note).toContain('Secret audit-superuser');
    expect(retained.note).toContain('Secret audit-app');
    for (const [kind, name] of [
      [PersistentVolumeClaims, 'data-audit-0'],
      [Secrets, 'audit-superuser'],
      [Secrets, 'audit-app'],
    ] as const) {
      const kept = await admin.get<KubeObject>(kind, name, ns);
      expect(kept.metadata.ownerReferences ?? []).toEqual([]);
    }
    await eventually(() => exists(StatefulSets, 'audit').then((e) => !e), {
      description: 'the StatefulSet audit gone',
      ...long,
    });
  });

  it('holds a PostgresCluster to its profile’s production guardrails (sync replication required, the failover bound capped) before any child exists', async () => {
    const production = `${ns}-production`;
    await admin.create<ProviderProfile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: production },
      spec: {
        provider: 'kubernetes',
        namespaceSelector: {},
        kubernetes: {
          sizeClasses: { small: { cpu: '100m', memory: '192Mi', storage: '1Gi' } },
          images: [{ engine: 'postgres', version: '17', image: images['postgres-17']!.ref }],
          requireSyncReplication: true,
          maxFailoverLagBytes: 1048576,
        },
      },
    } as ProviderProfile);
    await create('payments', {
      providerProfileRef: { name: production },
      version: '17',
      size: 'small',
      replicas: 2,
      deletionPolicy: 'Delete',
    });
    const asyncOne = await refused('payments', PostgresReasons.SyncReplicationRequired);
    expect(findCondition(asyncOne.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(findCondition(asyncOne.status?.conditions, 'Ready')?.message).toContain(
      'set spec.replication.mode: sync',
    );
    expect(await exists(StatefulSets, 'payments')).toBe(false);
    await patchSpec('payments', { replication: { mode: 'sync' } });
    const unbounded = await refused('payments', PostgresReasons.MaxLagBytesNotAllowed);
    expect(findCondition(unbounded.status?.conditions, 'Ready')?.message).toContain(
      'spec.failover.maxLagBytes 16777216 (the default) exceeds spec.kubernetes.maxFailoverLagBytes 1048576',
    );
    expect(await exists(StatefulSets, 'payments')).toBe(false);
    await patchSpec('payments', { failover: { maxLagBytes: 1048576 } });
    await eventually(() => exists(StatefulSets, 'payments'), {
      description: 'the StatefulSet payments, once the spec keeps to the guardrails',
      ...long,
    });
    // The reconcile that created it states the status next: Stalled goes.
    await eventually(
      async () =>
        findCondition((await read('payments')).status?.conditions, 'Stalled') === undefined,
      { description: 'payments no longer Stalled' },
    );
    await admin.delete(Kind, 'payments', ns);
    await eventually(() => exists(Kind, 'payments').then((e) => !e), {
      description: 'payments gone',
      ...long,
    });
    await admin.delete(Profiles, production);
  });

  it('stops cleanly on SIGTERM, handing its Lease back', async () => {
    expect(await harness!.process!.stop()).toBe(0);
    harness!.stopped();
  });
});
