/**
 * Major upgrades of a PostgresCluster (15 → 17, the local images), the postgres-cluster-controller
 * process (under its chart's RBAC) on the node tier, with backups and rehearsals to moto's S3 API:
 *
 * - a version change alone waits for approval (Upgrading=False WaitingForApproval), PostgreSQL 15
 *   keeps serving;
 * - approved, it waits for a verified backup (NoVerifiedBackup) while no rehearsal has passed;
 * - a failure injected mid-upgrade (a view the new version cannot create: PostgreSQL 17 moved
 *   pg_stat_bgwriter's checkpoint columns away) rolls it back: PostgreSQL 15 takes writes again,
 *   the new instance set and its volume are gone, status says why;
 * - retried (a new generation) without the view, and its controller killed mid-upgrade, it
 *   resumes and completes: every acknowledged row is present
 *   in PostgreSQL 17, the Services follow the new instances, the old StatefulSet is gone and its
 *   volumes kept, and the writes were refused only between writesStoppedAt and writesResumedAt;
 * - the write stop is hard: two bypassing clients — one connected straight to the old primary's
 *   pod IP with `SET default_transaction_read_only = off`, one through the read-write Service
 *   with `BEGIN READ WRITE` — write numbered rows throughout, and none they saw acknowledged is
 *   missing from PostgreSQL 17; while writes are held the read-write Service has no endpoints
 *   and the application role is refused on the old primary.
 */
import { findCondition } from '@steward/conditions';
import { type PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import {
  KubeClient,
  Leases,
  PersistentVolumeClaims,
  Pods,
  StatefulSets,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  backupBucket,
  Kind,
  long,
  postgresHelpers,
  query,
  workloadBackupsProfile,
  type Login,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const name = 'moves';
const bucket = 'steward-upgrades';

let tier: NodeTier;
let admin: KubeClient;
let system = '';
let store: Awaited<ReturnType<typeof backupBucket>>;
let harness: ChartedController | undefined;
const ctx = {} as SuiteContext;
const {
  create,
  read,
  ready,
  appLogin,
  patchSpec,
  eventNamed,
  remove,
  startWriter,
  lostRows,
  podIp,
  superuserAt,
} = postgresHelpers(ctx);

/**
 * The role each standby streams as, from the primary's pg_stat_replication (issue 27: the
 * replication role, not the superuser), once every other instance streams.
 */
const streamingAs = (primary: string, standbys: number) =>
  eventually(
    async () => {
      const rows = await query<{ application_name: string; usename: string }>(
        await superuserAt(name, primary),
        "select application_name, usename from pg_stat_replication where state = 'streaming' order by 1",
      );
      return rows.length === standbys
        ? rows.map((r) => [r.application_name, r.usename])
        : undefined;
    },
    { description: `${primary}: ${standbys} standbys streaming`, ...long },
  );

const EndpointSlices: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  namespaced: true,
};
interface EndpointSlice extends KubeObject {
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
}
/** The ready addresses behind a Service, from its EndpointSlices. */
const endpointsOf = async (service: string) =>
  (
    await admin.list<EndpointSlice>(EndpointSlices, {
      namespace: ctx.ns,
      labelSelector: `kubernetes.io/service-name=${service}`,
    })
  ).items
    .flatMap((s) => s.endpoints ?? [])
    .filter((e) => e.conditions?.ready !== false)
    .flatMap((e) => e.addresses);

/**
 * A client that tries to write around a write stop: connected where `target()` says (reconnecting
 * there on any failure), it turns read-only off for its session (`session`) or opens every
 * transaction READ WRITE (`transaction`), and inserts numbered rows into `bypass` (tagged `via`).
 * `acked` are the rows whose commit it saw succeed; `refused` counts failed connects and writes.
 */
function startBypasser(via: string, how: 'session' | 'transaction', target: () => Promise<Login>) {
  const acked: number[] = [];
  let refused = 0;
  let stopped = false;
  let n = 0;
  const errors = new Set<string>();
  const done = (async () => {
    while (!stopped) {
      const login = await target().catch(() => undefined);
      if (!login) {
        await sleep(200);
        continue;
      }
      const client = new pg.Client({
        ...login,
        port: 5432,
        connectionTimeoutMillis: 2000,
        query_timeout: 3000,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (how === 'session') await client.query('SET default_transaction_read_only = off');
        while (!stopped) {
          const next = ++n;
          if (how === 'transaction') {
            await client.query('BEGIN READ WRITE');
            await client.query('INSERT INTO bypass (n, via) VALUES ($1, $2)', [next, via]);
            await client.query('COMMIT');
          } else await client.query('INSERT INTO bypass (n, via) VALUES ($1, $2)', [next, via]);
          acked.push(next);
          await sleep(20);
        }
      } catch (e) {
        refused++;
        errors.add((e as Error).message.slice(0, 120));
        await sleep(200);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  })();
  return {
    acked,
    errors,
    refused: () => refused,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-15', 'postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-upgrade') });
  store = await backupBucket(tier, admin, ctx.ns, bucket);
  // The cluster names its own destination on moto: a profile must allow it and its endpoint.
  await workloadBackupsProfile(admin, `${ctx.ns}-workload-backups`, ctx.ns, store.moto.endpoint, [
    { version: '15', image: images['postgres-15']!.ref },
    { version: '17', image: images['postgres-17']!.ref },
  ]);
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: 'pgc-upgrade-e2e',
    releaseNamespace: (system = await tier.createNamespace('pgc-upgrade-sys')),
    watchNamespace: ctx.ns,
    values: { defaultProviderProfile: `${ctx.ns}-workload-backups` },
    env: { STEWARD_DEFAULT_PROVIDER_PROFILE: `${ctx.ns}-workload-backups` },
  });
}, 600_000);

afterAll(async () => {
  if (admin) {
    await remove(name).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin
      .delete(ProviderProfile.resourceType, `${ctx.ns}-workload-backups`)
      .catch(() => undefined);
    await admin.close();
  }
  await store?.stop();
  await tier?.release();
}, 180_000);

const backup = (): NonNullable<PostgresClusterSpec['backup']> => ({
  destination: store.destination,
  schedule: '0 0 1 1 *',
});

const upgrading = (o: PostgresCluster) => findCondition(o.status?.conditions, 'Upgrading');

/** Upgrading=False with `reason`, for the object's generation. */
const waitsWith = (reason: string) =>
  eventually(
    async () => {
      const o = await read(name);
      const c = upgrading(o);
      return c?.status === 'False' &&
        c.reason === reason &&
        c.observedGeneration === o.metadata.generation
        ? o
        : undefined;
    },
    { description: `${name} Upgrading=False ${reason}`, ...long },
  );

const serverVersion = async () => {
  const [row] = await query<{ v: string }>(
    await appLogin(name),
    "select current_setting('server_version_num') as v",
  );
  return Number(row!.v);
};
const exists = (kind: ResourceType, n: string) =>
  admin.get(kind, n, ctx.ns).then(
    () => true,
    () => false,
  );

describe('PostgresCluster major upgrades, the postgres-cluster-controller process on the node tier', () => {
  it('waits for approval, then for a verified backup, while PostgreSQL 15 keeps serving', async () => {
    await create(name, {
      version: '15',
      replicas: 2,
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      storage: { size: '1Gi' },
      deletionPolicy: 'Delete',
      backup: backup(),
    });
    await ready(name);
    expect(await streamingAs(`${name}-0`, 1)).toEqual([[`${name}-1`, 'steward_replication']]);
    const login = await appLogin(name);
    await eventually(() => query(login, 'create table ledger (n int primary key, pad text)'), {
      description: `${name} takes writes`,
    });
    await query(login, 'create table bulk (n int primary key, pad text)');
    await query(login, 'insert into bulk select n, md5(n::text) from generate_series(1, 5000) n');

    await patchSpec(name, { version: '17' });
    const waiting = await waitsWith('WaitingForApproval');
    expect(upgrading(waiting)?.message).toContain('set spec.upgrade.approvedVersion to "17"');
    expect(waiting.status?.version).toBe('15');
    expect(findCondition(waiting.status?.conditions, 'Ready')?.status).toBe('True');
    expect(await serverVersion()).toBeLessThan(160000);

    await patchSpec(name, { upgrade: { approvedVersion: '17' } });
    const unverified = await waitsWith('NoVerifiedBackup');
    expect(upgrading(unverified)?.message).toContain('spec.backup.verify is not set');
    expect(unverified.status?.upgrade).toBeUndefined();
    expect(await exists(StatefulSets, `${name}-v17`)).toBe(false);
  }, 420_000);

  it('rolls back a failure before the switch: PostgreSQL 15 takes writes again, the new instances and their volume are gone', async () => {
    // PostgreSQL 17 moved pg_stat_bgwriter's checkpoint columns to pg_stat_checkpointer: the
    // dump of this view cannot be restored there.
    const login = await appLogin(name);
    await query(
      login,
      'create view checkpoints as select buffers_checkpoint from pg_stat_bgwriter',
    );
    await patchSpec(name, { backup: { ...backup(), verify: { schedule: '* * * * *' } } });
    const rolledBack = await waitsWith('UpgradeRolledBack');
    const u = rolledBack.status!.upgrade!;
    expect(u).toMatchObject({ phase: 'RolledBack', from: '15', to: '17', method: 'DumpRestore' });
    expect(u.message).toMatch(
      /restoring database app into PostgreSQL 17.* failed: .*buffers_checkpoint/,
    );
    expect(u.steps.map((s) => [s.name, s.outcome])).toEqual([
      ['StopWrites', 'Succeeded'],
      ['Provision', 'Succeeded'],
      ['RollBack', 'Failed'],
    ]);
    expect(rolledBack.status?.version).toBe('15');
    expect(findCondition(rolledBack.status?.conditions, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'UpgradeRolledBack',
    });
    await eventNamed(name, 'UpgradeRolledBack', /PostgreSQL 15 serves and takes writes again/);
    // Writes again, on 15; nothing of the new set is left.
    await eventually(() => query(login, 'insert into bulk values (5001, null)'), {
      description: `${name} takes writes again`,
    });
    expect(await serverVersion()).toBeLessThan(160000);
    await eventually(async () => !(await exists(StatefulSets, `${name}-v17`)), {
      description: `StatefulSet ${name}-v17 gone`,
    });
    await eventually(async () => !(await exists(PersistentVolumeClaims, `data-${name}-v17-0`)), {
      description: `PersistentVolumeClaim data-${name}-v17-0 gone`,
    });
  }, 420_000);

  it('completes once retried without the obstacle: every acknowledged row in PostgreSQL 17, the Services on the new instances, the old volumes kept', async () => {
    const login = await appLogin(name);
    const oldSystem = (await read(name)).status!.systemIdentifier;
    await query(login, 'drop view checkpoints');
    await query(login, 'create table bypass (n int, via text, primary key (via, n))');
    const writer = startWriter(name);
    // The old primary's pod IP, fixed now: the direct client keeps going there, whatever happens.
    const oldPrimary = (await read(name)).status!.primary!;
    const oldIp = await podIp(oldPrimary);
    const direct = startBypasser('pod', 'session', async () => ({ ...login, host: oldIp }));
    const viaService = startBypasser('service', 'transaction', () => appLogin(name));
    await eventually(
      () => writer.acked.length >= 50 && direct.acked.length >= 20 && viaService.acked.length >= 20,
      { description: 'the writer and both bypassing clients committing' },
    );
    // Any change of the spec is a new generation: the upgrade is tried again.
    const retried = await patchSpec(name, {
      upgrade: { approvedVersion: '17', maxBackupAge: '23h' },
    });
    // The controller crashes mid-upgrade (its pod killed, no grace): the one the Deployment
    // starts resumes the machine where status says it is, never from the start.
    const midway = await eventually(
      async () => {
        const u = (await read(name)).status?.upgrade;
        if (!u || u.generation !== retried.metadata.generation) return undefined;
        return u.phase === 'Provisioning' || u.phase === 'Restoring' ? u : undefined;
      },
      { description: `${name}: the retried upgrade under way`, intervalMs: 100, ...long },
    );
    // While writes are held: no endpoint behind the read-write Service (the old primary never
    // is one), the application role refused on the old primary (its sessions were ended, so a
    // refusal is the only answer).
    await eventually(
      async () => {
        const behind = await endpointsOf(`${name}-rw`);
        expect(behind).not.toContain(oldIp);
        const phase = (await read(name)).status?.upgrade?.phase ?? '';
        return behind.length === 0 || !['Provisioning', 'Restoring'].includes(phase);
      },
      { description: `${name}-rw without endpoints while writes are held`, timeoutMs: 10_000 },
    );
    await expect(query({ ...login, host: oldIp }, 'select 1')).rejects.toThrow(
      /too many connections for database/,
    );
    for (const pod of (await admin.list<KubeObject>(Pods, { namespace: system })).items)
      await admin.delete(Pods, pod.metadata.name!, system, { gracePeriodSeconds: 0 });
    const done = await waitsWith('UpgradeCompleted');
    expect(done.status!.upgrade!.startedAt).toBe(midway.startedAt);
    console.log(`${name}: controller killed in phase ${midway.phase}; the upgrade resumed`);
    await ready(name, (o) => o.status?.version === '17');
    await eventually(() => writer.acked.length > 0 && Date.now() - writer.acked.at(-1)!.at < 2000, {
      description: 'the writer committing on PostgreSQL 17',
    });
    const serviceAtCompletion = viaService.acked.length;
    await eventually(() => viaService.acked.length > serviceAtCompletion, {
      description: 'the client through the Service committing on PostgreSQL 17',
    });
    await writer.stop();
    await direct.stop();
    await viaService.stop();

    const u = done.status!.upgrade!;
    expect(u.phase).toBe('Completed');
    expect(u.steps.map((s) => s.name)).toEqual([
      'StopWrites',
      'Provision',
      'Restore',
      'Check',
      'Switch',
      'Complete',
    ]);
    expect(u.steps.every((s) => s.outcome === 'Succeeded')).toBe(true);
    expect(u.steps.find((s) => s.name === 'Check')?.message).toMatch(
      /\d+ tables, \d+ rows: every row count equal/,
    );
    const after = await read(name);
    expect(after.status).toMatchObject({
      version: '17',
      instanceSet: `${name}-v17`,
      primary: `${name}-v17-0`,
      readyReplicas: 2,
    });
    expect(after.status!.systemIdentifier).not.toBe(oldSystem);
    expect(await serverVersion()).toBeGreaterThanOrEqual(170000);
    // The new set fences itself on a Lease of its own, renewed by its primary.
    expect(after.status!.fencing).toMatchObject({ mode: 'Lease', lease: `${name}-v17-primary` });
    const renewed = async () =>
      (
        await admin.get<KubeObject & { spec: { holderIdentity: string; renewTime: string } }>(
          Leases,
          `${name}-v17-primary`,
          ctx.ns,
        )
      ).spec;
    const first = await renewed();
    expect(first.holderIdentity).toBe(`${name}-v17-0`);
    await eventually(async () => (await renewed()).renewTime !== first.renewTime, {
      description: `${name}-v17-0 renews Lease ${name}-v17-primary`,
    });
    // PostgreSQL 17's standby streams as the replication role too (it came with the dump's
    // globals; the bootstrap set its password and grants).
    expect(await streamingAs(`${name}-v17-0`, 1)).toEqual([
      [`${name}-v17-1`, 'steward_replication'],
    ]);

    // Every row the writer saw committed is there; the refused window is the recorded one.
    expect(await lostRows(name, writer.acked)).toEqual([]);
    // Neither bypassing client got a write acknowledged that PostgreSQL 17 lacks; both were
    // refused while writes were held (and the direct one for good once its server went).
    const present = await query<{ n: number; via: string }>(
      await appLogin(name),
      'select n, via from bypass',
    );
    for (const [via, c] of [
      ['pod', direct],
      ['service', viaService],
    ] as const) {
      const have = new Set(present.filter((r) => r.via === via).map((r) => r.n));
      const missing = c.acked.filter((n) => !have.has(n));
      console.log(
        `${name}: bypassing client via ${via}: ${c.acked.length} acknowledged, ${missing.length} missing, ${c.refused()} refusals (${[...c.errors].slice(0, 3).join(' | ')})`,
      );
      expect(missing).toEqual([]);
      expect(c.acked.length).toBeGreaterThanOrEqual(20);
      expect(c.refused()).toBeGreaterThan(0);
    }

    const [{ count }] = (await query<{ count: string }>(
      await appLogin(name),
      'select count(*) as count from bulk',
    )) as [{ count: string }];
    expect(count).toBe('5001');
    const stopped = Date.parse(u.writesStoppedAt!);
    const resumed = Date.parse(u.writesResumedAt!);
    const gaps = writer.acked
      .slice(1)
      .map((r, i) => ({ from: writer.acked[i]!.at, to: r.at }))
      .sort((a, b) => b.to - b.from - (a.to - a.from));
    const longest = gaps[0]!;
    expect(longest.from).toBeLessThanOrEqual(stopped + 1000);
    // The controller records writesResumedAt once it sees the new primary serve; the writer's
    // first commit there comes through the Service, about as soon.
    expect(longest.to).toBeGreaterThanOrEqual(resumed - 3000);

    // The old StatefulSet is gone; its volumes stay, as the Event says.
    await eventually(async () => !(await exists(StatefulSets, name)), {
      description: `StatefulSet ${name} gone`,
    });
    expect(await exists(PersistentVolumeClaims, `data-${name}-0`)).toBe(true);
    await eventNamed(name, 'UpgradeCompleted', new RegExp(`The old volumes data-${name}-0`));
    // The new system's first backup, in its own folder.
    await eventually(
      async () =>
        (await read(name)).status?.backup?.lastSuccessful?.systemIdentifier ===
        after.status!.systemIdentifier,
      { description: `${name}: a first backup of the PostgreSQL 17 system`, ...long },
    );
  }, 600_000);
});
