/**
 * PostgresCluster backups, the postgres-cluster-controller process (under its chart's RBAC) on the
 * node tier, to the S3 API of a moto server the pods reach on the node tier's host address:
 *
 * - a first base backup as soon as the cluster is Ready (a Job: pg_basebackup from the primary,
 *   uploaded with rclone), its objects in the bucket and backup.json last, status.backup stating
 *   what the bucket holds;
 * - WAL archived continuously from the primary (a switched segment lands in wal/);
 * - backups on the schedule (every minute here), one Job each, deterministic names;
 * - retention: a backup older than the window (an aged copy planted in the bucket) and the WAL
 *   before the oldest backup kept are deleted, the newest backups never;
 * - point-in-time recovery: a new PostgresCluster bootstrapped from those backups up to a moment
 *   between two batches of commits holds exactly the rows committed before it, and archives (WAL
 *   on its new timeline, base backups) into its own folder, never its source's;
 * - restore rehearsals: the newest backup restored in a throwaway Job, checked (manifest,
 *   recovery, pg_amcheck, a row count) and recorded; a corrupted backup object fails the next one
 *   loudly (Degraded VerificationFailed, a Warning Event);
 * - on-demand backups (PostgresBackup): a Job at once, the record read back from the bucket;
 *   deletionPolicy Delete removes it from the bucket, but never the cluster's newest backup;
 * - deletion: Delete takes a final backup before the volumes go; Retain says where the backups
 *   stay; what cannot be done (no such cluster, no backup to recover from) is Stalled with a
 *   reason, before anything is created.
 *
 * The clusters name their own destination on moto: the chart's defaultProviderProfile allows
 * workload destinations and names moto's endpoint (the controller connects to no other).
 */
import {
  CopyObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { findCondition } from '@steward/conditions';
import {
  PostgresBackup,
  type BackupRecord,
  type PostgresClusterSpec,
} from '@steward/postgres-cluster-api';
import {
  Events,
  Jobs,
  KubeClient,
  PersistentVolumeClaims,
  StatefulSets,
  type KubeObject,
} from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { type Moto } from '@steward/testing-backends';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { ProviderProfile } from '@steward/provider-profile-api';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backupBucket,
  Kind,
  long,
  postgresHelpers,
  query,
  workloadBackupsProfile,
  type Event,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const releaseName = 'pgc-backup-e2e';
const name = 'keeps';
const restored = 'recovers';
const rehearsed = 'rehearses';
const bucket = 'steward-backups';

let tier: NodeTier;
let admin: KubeClient;
let moto: Moto;
let store: Awaited<ReturnType<typeof backupBucket>> | undefined;
let s3: S3Client;
let harness: ChartedController | undefined;
let images: Awaited<ReturnType<typeof localImages>>;
const ctx = {} as SuiteContext;
const { create, read, ready, appLogin, superuserAt, eventNamed, remove, patchSpec } =
  postgresHelpers(ctx);

beforeAll(async () => {
  tier = await acquireNodeTier();
  images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-backup') });
  store = await backupBucket(tier, admin, ctx.ns, bucket);
  ({ moto, s3 } = store);
  // The clusters here name their own destination on moto: a profile must allow it and its endpoint.
  await workloadBackupsProfile(admin, defaultProfile(), ctx.ns, moto.endpoint, [
    { version: '17', image: images['postgres-17']!.ref },
  ]);
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName,
    releaseNamespace: await tier.createNamespace('pgc-backup-sys'),
    watchNamespace: ctx.ns,
    values: { defaultProviderProfile: defaultProfile() },
    env: { STEWARD_DEFAULT_PROVIDER_PROFILE: defaultProfile() },
  });
}, 600_000);

afterAll(async () => {
  if (admin) {
    await remove(restored).catch(() => undefined);
    await remove(rehearsed).catch(() => undefined);
    await remove(name).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin.delete(ProviderProfile.resourceType, defaultProfile()).catch(() => undefined);
    await admin.close();
  }
  await store?.stop();
  await tier?.release();
}, 180_000);

const defaultProfile = () => `${ctx.ns}-workload-backups`;
const keys = async (prefix: string) =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? [])
    .map((o) => o.Key!)
    .sort();
const text = async (key: string) =>
  (await (
    await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
  ).Body!.transformToString('utf8')) as string;

const spec = (): PostgresClusterSpec => ({
  version: '17',
  replicas: 1,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  deletionPolicy: 'Delete',
  backup: {
    destination: {
      bucket,
      endpoint: moto.endpoint,
      credentialsSecretRef: { name: 'backup-credentials' },
    },
    schedule: '* * * * *',
    retentionDays: 2,
  },
});

describe('PostgresCluster backups, the postgres-cluster-controller process on the node tier', () => {
  let root = '';
  let first: BackupRecord;

  it('takes a first base backup once Ready: a Job, its objects in the bucket, status.backup from the bucket', async () => {
    await create(name, spec());
    await ready(name);
    const obj = await eventually(
      async () => {
        const o = await read(name);
        if (o.status?.backup?.lastSuccessful) return o;
        throw new Error(
          `status.backup ${JSON.stringify(o.status?.backup)}, conditions ${JSON.stringify(o.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]))}`,
        );
      },
      { description: `${name}: a first backup in status.backup`, ...long },
    );
    const sysid = obj.status!.systemIdentifier!;
    root = `${ctx.ns}/${name}/${sysid}/`;
    const status = obj.status!.backup!;
    first = status.lastSuccessful!;
    expect(status.destination).toBe(`s3://${bucket}/${root}`);
    expect(first.systemIdentifier).toBe(sysid);
    expect(first.serverVersion).toBeGreaterThanOrEqual(170000);
    expect(first.timeline).toBe(1);
    expect(first.sizeBytes).toBeGreaterThan(1000);
    expect(Date.parse(first.completedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));
    expect(status.firstRecoverabilityPoint).toBe(first.completedAt);
    expect(status.count).toBeGreaterThanOrEqual(1);

    // What the bucket holds is what status says.
    const base = `${root}base/${first.id}/`;
    expect(await keys(base)).toEqual(
      ['backup.json', 'backup_manifest', 'base.tar.gz'].map((f) => `${base}${f}`),
    );
    expect(JSON.parse(await text(`${base}backup.json`))).toEqual(first);
    const manifest = JSON.parse(await text(`${base}backup_manifest`)) as {
      'WAL-Ranges': { Timeline: number; 'Start-LSN': string; 'End-LSN': string }[];
    };
    expect(manifest['WAL-Ranges'][0]).toMatchObject({
      Timeline: 1,
      'Start-LSN': first.startLsn,
      'End-LSN': first.stopLsn,
    });

    // The Job that took it: named from its due time (the time its id names), labelled with its
    // id, succeeded. The schedule (every minute) may have gone on since: status.lastScheduleTime
    // is that due time or a later one.
    const due = Date.parse(
      first.id.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    const jobs = (
      await admin.list<KubeObject & { status?: { succeeded?: number } }>(Jobs, {
        namespace: ctx.ns,
        labelSelector: `postgres.steward.dev/backup-id=${first.id}`,
      })
    ).items;
    expect(jobs.map((j) => j.metadata.name)).toEqual([
      `${name}-bk-${Math.floor(due / 1000).toString(36)}`,
    ]);
    expect(Date.parse(status.lastScheduleTime!)).toBeGreaterThanOrEqual(due);
    expect(jobs[0]!.status?.succeeded).toBe(1);
    await eventNamed(name, 'BackupCompleted', new RegExp(`backup ${first.id}: \\d+ bytes`));
  }, 300_000);

  it('archives WAL from the primary continuously', async () => {
    const login = await appLogin(name);
    await query(login, 'create table if not exists marks (n int primary key)');
    await query(login, 'insert into marks select generate_series(1, 1000)');
    const primary = (await read(name)).status!.primary!;
    const su = await superuserAt(name, primary);
    const [switched] = await query<{ file: string }>(
      su,
      'select pg_walfile_name(pg_switch_wal()) as file',
    );
    await eventually(
      async () => (await keys(`${root}wal/`)).includes(`${root}wal/${switched!.file}.gz`),
      { description: `WAL ${switched!.file} archived to s3://${bucket}/${root}wal/`, ...long },
    );
  }, 300_000);

  it('backs up on the schedule, and expires what is past retention but never the newest', async () => {
    // Aged copies of the first backup planted in the bucket, five and three days old (retention
    // is two), and a WAL file from before them. Retention keeps the three-day one (restoring to
    // the start of the window replays WAL from it) and deletes the five-day one and the WAL older
    // than every backup kept, once the next scheduled backup has listed the bucket.
    const plant = async (daysOld: number, startLsn: string) => {
      const at = new Date(Date.parse(first.completedAt) - daysOld * 86_400_000);
      const id = at
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z')
        .replace(/[-:]/g, '');
      const dir = `${root}base/${id}/`;
      for (const f of ['base.tar.gz', 'backup_manifest'])
        await s3.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: `${dir}${f}`,
            CopySource: `${bucket}/${root}base/${first.id}/${f}`,
          }),
        );
      const record = {
        ...first,
        id,
        startedAt: new Date(at.getTime() - 1000).toISOString(),
        completedAt: at.toISOString(),
        startLsn,
        stopLsn: startLsn,
      };
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${dir}backup.json`,
          Body: JSON.stringify(record),
        }),
      );
      return { id, dir, record };
    };
    const expired = await plant(5, '0/28');
    const covering = await plant(3, '0/1000028');
    const agedId = expired.id;
    const aged = expired.dir;
    const oldWal = `${root}wal/000000010000000000000000.gz`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: oldWal, Body: 'old' }));

    const later = await eventually(
      async () => {
        const obj = await read(name);
        const b = obj.status?.backup;
        if (b?.lastSuccessful && b.lastSuccessful.id > first.id && !(await keys(aged)).length)
          return obj;
        throw new Error(
          `status.backup ${JSON.stringify(b)}; ${aged}: ${(await keys(aged)).length} objects`,
        );
      },
      {
        description: `${name}: a scheduled backup after ${first.id}, and ${agedId} expired`,
        ...long,
      },
    );
    const status = later.status!.backup!;
    expect(status.lastFailed).toBeUndefined();
    // Both real backups are inside the window: kept; the aged one and the WAL before them gone.
    const ids = (await keys(`${root}base/`))
      .filter((k) => k.endsWith('/backup.json'))
      .map((k) => k.split('/').at(-2));
    expect(ids).toContain(first.id);
    expect(ids).toContain(status.lastSuccessful!.id);
    expect(ids).not.toContain(agedId);
    expect(ids).toContain(covering.id);
    expect(await keys(oldWal)).toEqual([]);
    // The archive's real segments (from the first backup's on) stay.
    expect((await keys(`${root}wal/`)).length).toBeGreaterThan(0);
    expect(status.firstRecoverabilityPoint).toBe(covering.record.completedAt);
    expect(status.count).toBe(ids.length);
    await eventNamed(
      name,
      'BackupsExpired',
      new RegExp(`backups ${agedId}.* and 1 WAL files deleted`),
    );
    // A Job per backup, one at a time.
    const jobs = (
      await admin.list<KubeObject & { status?: { active?: number } }>(Jobs, {
        namespace: ctx.ns,
        labelSelector: `postgres.steward.dev/backup-of=${name}`,
      })
    ).items;
    expect(jobs.filter((j) => (j.status?.active ?? 0) > 0).length).toBeLessThanOrEqual(1);
    expect(jobs.length).toBeGreaterThanOrEqual(2);
  }, 360_000);

  it('restores into a new cluster up to a moment between two batches of commits: exactly the rows before it', async () => {
    await ready(name);
    const login = await appLogin(name);
    await eventually(
      () =>
        query(
          login,
          'create table if not exists pitr (n int primary key, at timestamptz not null)',
        ),
      { description: `${name} accepts writes through its read-write Service` },
    );
    await eventually(
      () =>
        query(
          login,
          'insert into pitr select n, clock_timestamp() from generate_series(1, 100) n on conflict do nothing',
        ),
      { description: 'the first batch committed' },
    );
    await sleep(1500);
    const [{ target }] = (await query<{ target: Date }>(
      login,
      'select clock_timestamp() as target',
    )) as [{ target: Date }];
    await sleep(1500);
    await eventually(
      () =>
        query(
          login,
          'insert into pitr select n, clock_timestamp() from generate_series(101, 200) n on conflict do nothing',
        ),
      { description: 'the second batch committed' },
    );
    const primary = (await read(name)).status!.primary!;
    const [switched] = await query<{ file: string }>(
      await superuserAt(name, primary),
      'select pg_walfile_name(pg_switch_wal()) as file',
    );
    await eventually(
      async () => (await keys(`${root}wal/`)).includes(`${root}wal/${switched!.file}.gz`),
      { description: `WAL ${switched!.file} archived`, ...long },
    );

    const targetTime = target.toISOString();
    await create(restored, {
      version: '17',
      replicas: 1,
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      storage: { size: '1Gi' },
      deletionPolicy: 'Delete',
      // Backed up itself: into its own folder, never its source's.
      backup: { ...spec().backup!, schedule: '0 0 1 1 *', retentionDays: 7 },
      bootstrap: {
        recovery: {
          source: {
            name,
            destination: {
              bucket,
              endpoint: moto.endpoint,
              credentialsSecretRef: { name: 'backup-credentials' },
            },
          },
          targetTime,
        },
      },
    });
    const obj = await ready(restored, (o) => o.status?.restore?.completedAt !== undefined);
    const restore = obj.status!.restore!;
    expect(restore.systemIdentifier).toBe(first.systemIdentifier);
    expect(restore.source).toBe(`s3://${bucket}/${root}`);
    expect(restore.targetTime).toBe(targetTime);
    expect(Date.parse(restore.backupCompletedAt)).toBeLessThanOrEqual(target.getTime());
    // Promoted on a new timeline; the rows are exactly those committed before the target.
    expect(obj.status!.timeline).toBeGreaterThan(1);
    // Through the read-write Service, once its endpoints (and kube-proxy) follow the new primary.
    const restoredLogin = await appLogin(restored);
    const rows = await eventually(
      () =>
        query<{ count: string; max: number | null }>(
          restoredLogin,
          'select count(*) as count, max(n) as max from pitr',
        ),
      { description: `${restored} answers through its read-write Service` },
    );
    expect(rows[0]).toEqual({ count: '100', max: 100 });
    await eventNamed(restored, 'RestoreChosen', new RegExp(`restoring backup ${restore.backupId}`));

    // The restored cluster keeps its source's system identifier, and archives into its own
    // folder: its first base backup, its new timeline's history file and WAL. The source's folder
    // gets nothing of it (the source itself never left timeline 1).
    const ownFolder = `${ctx.ns}/${restored}/${restore.systemIdentifier}/`;
    const own = await eventually(
      async () => {
        const o = await read(restored);
        const found = await keys(ownFolder);
        if (o.status?.backup?.lastSuccessful && found.some((k) => /\.history\.gz$/.test(k)))
          return { o, found };
        throw new Error(`backup ${JSON.stringify(o.status?.backup)}, objects ${found.join(' ')}`);
      },
      {
        description: `${restored}: a first backup and its timeline's history in its own folder`,
        ...long,
      },
    );
    expect(own.o.status!.backup!.destination).toBe(`s3://${bucket}/${ownFolder}`);
    expect(own.found).toContain(
      `${ownFolder}base/${own.o.status!.backup!.lastSuccessful!.id}/backup.json`,
    );
    expect(own.o.status!.backup!.lastSuccessful!.timeline).toBe(obj.status!.timeline);
    const sourceWal = (await keys(`${root}wal/`)).map((k) => k.slice(`${root}wal/`.length));
    expect(sourceWal.length).toBeGreaterThan(0);
    expect(sourceWal.filter((f) => !f.startsWith('00000001'))).toEqual([]);
    const sourceBackups = (await keys(`${root}base/`)).filter((k) => k.endsWith('/backup.json'));
    for (const k of sourceBackups) expect(JSON.parse(await text(k))).toMatchObject({ timeline: 1 });
  }, 600_000);

  it('rehearses restores of the newest backup, and fails loudly on a corrupted backup object', async () => {
    // Backups once a year (the first at once), rehearsals every minute: the same backup each time.
    await create(rehearsed, {
      ...spec(),
      backup: {
        ...spec().backup!,
        schedule: '0 0 1 1 *',
        verify: {
          schedule: '* * * * *',
          rowCounts: [{ database: 'postgres', table: 'pg_catalog.pg_class', atLeast: 100 }],
        },
      },
    });
    const passed = await eventually(
      async () => {
        const o = await read(rehearsed);
        if (o.status?.backup?.lastVerification) return o;
        throw new Error(`status.backup ${JSON.stringify(o.status?.backup)}`);
      },
      { description: `${rehearsed}: a first restore rehearsal recorded`, ...long },
    );
    const backup = passed.status!.backup!;
    const verification = backup.lastVerification!;
    expect(verification).toMatchObject({ result: 'Passed', backupId: backup.lastSuccessful!.id });
    expect(verification.recoveryPoint).toBe(backup.lastSuccessful!.completedAt);
    expect(verification.durationSeconds).toBeGreaterThanOrEqual(0);
    expect(verification.checks).toEqual([
      expect.stringMatching(/^pg_verifybackup: \d+ files match the manifest/),
      'recovered to the consistent point and promoted',
      expect.stringMatching(
        /^pg_amcheck: \d+ databases, every table and B-tree index, no corruption$/,
      ),
      expect.stringMatching(/^postgres\.pg_catalog\.pg_class: \d+ rows \(at least 100\)$/),
    ]);
    await eventNamed(rehearsed, 'VerificationPassed', /restores: it matches its manifest/);

    // Corrupt the backup in the bucket (bytes overwritten in the middle of base.tar.gz): the next
    // rehearsal fails, saying so in status, a condition and an Event.
    const sysid = passed.status!.systemIdentifier!;
    const key = `${ctx.ns}/${rehearsed}/${sysid}/base/${backup.lastSuccessful!.id}/base.tar.gz`;
    const original = Buffer.from(
      await (
        await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
      ).Body!.transformToByteArray(),
    );
    const corrupted = Buffer.from(original);
    corrupted.fill(0x5a, Math.floor(corrupted.length / 3), Math.floor(corrupted.length / 3) + 4096);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: corrupted }));
    const failed = await eventually(
      async () => {
        const o = await read(rehearsed);
        const v = o.status?.backup?.lastVerification;
        return v && v.job !== verification.job && v.result === 'Failed' ? o : undefined;
      },
      { description: `${rehearsed}: a failed rehearsal of the corrupted backup`, ...long },
    );
    const why = failed.status!.backup!.lastVerification!;
    expect(why.backupId).toBe(backup.lastSuccessful!.id);
    expect(why.message).toMatch(/cannot be fetched and unpacked|does not match its manifest/);
    const degraded = findCondition(failed.status?.conditions, 'Degraded');
    expect(degraded).toMatchObject({ status: 'True', reason: 'VerificationFailed' });
    expect(degraded?.message).toContain(why.job);
    await eventNamed(rehearsed, 'VerificationFailed', new RegExp(`backup ${why.backupId}`));
    // …and on /metrics, for the StewardPostgresRestoreRehearsalFailed alert: this namespace's
    // clusters with a failed newest rehearsal (this one), and their backups on time.
    const labels = `{kind="PostgresCluster",namespace="${ctx.ns}"}`;
    const metrics = await eventually(
      async () => {
        const text = await harness!.process!.metrics();
        return text.includes(`steward_postgres_restore_rehearsals_failed${labels} 1`)
          ? text
          : undefined;
      },
      { description: 'steward_postgres_restore_rehearsals_failed 1', timeoutMs: 30_000 },
    );
    expect(metrics).toContain(`steward_postgres_backups_overdue${labels} 0`);
  }, 420_000);

  it('takes a backup on demand (PostgresBackup), and deletes it from the bucket only when asked', async () => {
    // Not at a whole minute: the schedule's Job of that second would be this backup's too.
    while ([58, 59, 0, 1].includes(new Date().getUTCSeconds())) await sleep(500);
    const created = await createBackup('keeps-now', name, 'Delete');
    const done = await backupCompleted('keeps-now');
    const status = done.status!;
    const id = status.backupId!;
    expect(id).toBe(idOf(new Date(Date.parse(created.metadata.creationTimestamp!))));
    expect(status).toMatchObject({
      phase: 'Completed',
      job: `${name}-bk-${Math.floor(Date.parse(created.metadata.creationTimestamp!) / 1000).toString(36)}`,
      destination: `s3://${bucket}/${root}base/${id}/`,
      systemIdentifier: first.systemIdentifier,
    });
    // The record is the bucket's.
    const record = JSON.parse(await text(`${root}base/${id}/backup.json`)) as BackupRecord;
    expect(status).toMatchObject({
      startedAt: record.startedAt,
      completedAt: record.completedAt,
      sizeBytes: record.sizeBytes,
      startLsn: record.startLsn,
      stopLsn: record.stopLsn,
      timeline: record.timeline,
    });
    const job = await admin.get<KubeObject>(Jobs, status.job!, ctx.ns);
    expect(job.metadata.labels?.['postgres.steward.dev/requested-by']).toBe('keeps-now');
    expect(job.metadata.annotations?.['postgres.steward.dev/backup-reason']).toBe(
      'PostgresBackup keeps-now',
    );
    await backupEvent('keeps-now', 'BackupCompleted', new RegExp(`backup ${id}: \\d+ bytes`));

    // Once the schedule took a newer one, deleting the PostgresBackup deletes its objects.
    await eventually(
      async () => ((await read(name)).status?.backup?.lastSuccessful?.id ?? '') > id,
      { description: `${name}: a scheduled backup after ${id}`, ...long },
    );
    await removeBackup('keeps-now');
    expect(await keys(`${root}base/${id}/`)).toEqual([]);
    await backupEvent('keeps-now', 'Deleted', new RegExp(`backup ${id} deleted from s3://`));
  }, 360_000);

  it('never deletes the newest backup for a PostgresBackup; deletionPolicy Delete takes a final backup before the volumes go', async () => {
    // rehearsed backs up once a year: the PostgresBackup's is its newest.
    await createBackup('rehearses-now', rehearsed, 'Delete');
    const done = await backupCompleted('rehearses-now');
    const id = done.status!.backupId!;
    const base = `${ctx.ns}/${rehearsed}/${done.status!.systemIdentifier}/base/${id}/`;
    await removeBackup('rehearses-now');
    await backupEvent('rehearses-now', 'BackupNotDeleted', /the cluster's newest backup/);
    expect(await keys(base)).toHaveLength(3);

    const claims = async () =>
      (
        await admin.list<KubeObject>(PersistentVolumeClaims, {
          namespace: ctx.ns,
          labelSelector: `postgres.steward.dev/cluster=${rehearsed}`,
        })
      ).items.map((c) => c.metadata.name);
    expect(await claims()).toEqual([`data-${rehearsed}-0`]);
    const before = await read(rehearsed);
    const sysid = before.status!.systemIdentifier!;
    const deletedAt = Date.now();
    await remove(rehearsed);
    const final = await eventNamed(
      rehearsed,
      'FinalBackupCompleted',
      /^final backup \d{8}T\d{6}Z: \d+ bytes/,
    );
    const finalId = /final backup (\S+):/.exec(final.note!)![1]!;
    expect(finalId > id).toBe(true);
    const record = JSON.parse(
      await text(`${ctx.ns}/${rehearsed}/${sysid}/base/${finalId}/backup.json`),
    ) as BackupRecord;
    expect(Date.parse(record.startedAt)).toBeGreaterThanOrEqual(deletedAt - 1000);
    await eventNamed(
      rehearsed,
      'Deleted',
      new RegExp(
        `PersistentVolumeClaims data-${rehearsed}-0 deleted.*the final backup ${finalId} and the earlier ones stay in s3://${bucket}/`,
      ),
    );
    await eventually(async () => (await claims()).length === 0, {
      description: `${rehearsed}'s volume deleted`,
    });
  }, 420_000);

  it('what cannot be done is Stalled with a reason before anything is created: a PostgresBackup of no cluster, a recovery with no backup', async () => {
    await createBackup('nobodys', 'no-such-cluster', 'Retain');
    const stalled = await eventually(
      async () => {
        const b = await admin.get<PostgresBackup>(PostgresBackup.resourceType, 'nobodys', ctx.ns);
        const c = findCondition(b.status?.conditions, 'Stalled');
        return c?.status === 'True' && c.observedGeneration === b.metadata.generation
          ? b
          : undefined;
      },
      { description: 'PostgresBackup nobodys Stalled' },
    );
    expect(findCondition(stalled.status?.conditions, 'Stalled')).toMatchObject({
      reason: 'ClusterNotFound',
      message: expect.stringContaining('PostgresCluster no-such-cluster does not exist'),
    });
    expect(findCondition(stalled.status?.conditions, 'Ready')?.status).toBe('False');
    await removeBackup('nobodys');

    await create('from-nothing', {
      version: '17',
      replicas: 1,
      storage: { size: '1Gi' },
      deletionPolicy: 'Delete',
      bootstrap: {
        recovery: {
          source: {
            name: 'never-backed-up',
            destination: {
              bucket,
              endpoint: moto.endpoint,
              credentialsSecretRef: { name: 'backup-credentials' },
            },
          },
        },
      },
    });
    const refused = await eventually(
      async () => {
        const o = await read('from-nothing');
        const c = findCondition(o.status?.conditions, 'Stalled');
        return c?.status === 'True' && c.observedGeneration === o.metadata.generation
          ? o
          : undefined;
      },
      { description: 'from-nothing Stalled' },
    );
    expect(findCondition(refused.status?.conditions, 'Stalled')).toMatchObject({
      reason: 'RecoveryBackupNotFound',
      message: expect.stringContaining(
        `no complete backup in s3://${bucket}/${ctx.ns}/never-backed-up/`,
      ),
    });
    expect(findCondition(refused.status?.conditions, 'Ready')?.status).toBe('False');
    const sts = await admin.get(StatefulSets, 'from-nothing', ctx.ns).then(
      () => true,
      () => false,
    );
    expect(sts).toBe(false);
    await remove('from-nothing');
  }, 240_000);

  it("backs up to the destination its ProviderProfile sets, holds it to the profile's minimum retention, and skips the final backup only when told", async () => {
    const profile = `${ctx.ns}-platform`;
    await admin.create<ProviderProfile>(ProviderProfile.resourceType, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: profile },
      spec: {
        provider: 'kubernetes',
        namespaceSelector: {},
        kubernetes: {
          images: [{ engine: 'postgres', version: '17', image: images['postgres-17']!.ref }],
          backup: {
            destination: {
              bucket,
              prefix: 'platform',
              endpoint: moto.endpoint,
              credentialsSecretRef: { name: 'backup-credentials' },
            },
            minRetentionDays: 3,
          },
        },
      },
    } as ProviderProfile);
    try {
      await create('platformed', {
        ...spec(),
        providerProfileRef: { name: profile },
        backup: { schedule: '0 0 1 1 *' },
      });
      const backedUp = await eventually(
        async () => {
          const o = await read('platformed');
          if (o.status?.backup?.lastSuccessful) return o;
          throw new Error(`status ${JSON.stringify(o.status?.backup)}`);
        },
        { description: 'platformed: a first backup', ...long },
      );
      const folder = `platform/${ctx.ns}/platformed/${backedUp.status!.systemIdentifier}/`;
      expect(backedUp.status!.backup!.destination).toBe(`s3://${bucket}/${folder}`);
      expect(
        await keys(`${folder}base/${backedUp.status!.backup!.lastSuccessful!.id}/`),
      ).toHaveLength(3);

      // Below the profile's minimum: refused, for this generation.
      await patchSpec('platformed', { backup: { schedule: '0 0 1 1 *', retentionDays: 1 } });
      const refused = await eventually(
        async () => {
          const o = await read('platformed');
          const c = findCondition(o.status?.conditions, 'Stalled');
          return c?.status === 'True' && c.observedGeneration === o.metadata.generation
            ? o
            : undefined;
        },
        { description: 'platformed Stalled' },
      );
      expect(findCondition(refused.status?.conditions, 'Stalled')).toMatchObject({
        reason: 'RetentionBelowMinimum',
        message: `spec.backup.retentionDays 1 is below the 3 days ProviderProfile ${profile} requires: keep at least 3`,
      });

      await patchSpec('platformed', { skipFinalBackup: true });
      await remove('platformed');
      await eventNamed(
        'platformed',
        'Deleted',
        new RegExp(
          `no final backup \\(spec.skipFinalBackup\\); the backups taken before stay in s3://${bucket}/${folder}`,
        ),
      );
      // No final backup: the one backup taken is all the folder holds.
      expect((await keys(`${folder}base/`)).filter((k) => k.endsWith('/backup.json'))).toEqual([
        `${folder}base/${backedUp.status!.backup!.lastSuccessful!.id}/backup.json`,
      ]);
    } finally {
      await admin.delete(ProviderProfile.resourceType, profile).catch(() => undefined);
    }
  }, 300_000);

  it('deletionPolicy Retain keeps the volumes, Secrets and backups, and says where', async () => {
    await patchSpec(name, { deletionPolicy: 'Retain' });
    await eventually(async () => (await read(name)).spec.deletionPolicy === 'Retain', {
      description: `${name} Retain`,
    });
    await remove(name);
    const retained = await eventNamed(name, 'Retained', /deletionPolicy Retain/);
    expect(retained.note).toContain(`PersistentVolumeClaim data-${name}-0`);
    // Backups may still have been taken until the deletion: the Event names the newest.
    const kept = new RegExp(
      `the backups stay in s3://${bucket}/${root} \\((\\d+), the newest (\\S+)\\), where nothing expires them any more`,
    ).exec(retained.note ?? '');
    expect(kept, retained.note).not.toBeNull();
    expect(Number(kept![1])).toBeGreaterThanOrEqual(2);
    expect(await keys(`${root}base/${kept![2]}/`)).toHaveLength(3);
    await admin.delete(PersistentVolumeClaims, `data-${name}-0`, ctx.ns);
  }, 240_000);
});

const idOf = (at: Date) =>
  at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');

function createBackup(backupName: string, cluster: string, deletionPolicy: 'Retain' | 'Delete') {
  return admin.create<PostgresBackup>(PostgresBackup.resourceType, {
    apiVersion: PostgresBackup.apiVersion,
    kind: 'PostgresBackup',
    metadata: { name: backupName, namespace: ctx.ns },
    spec: { cluster: { name: cluster }, deletionPolicy },
  } as PostgresBackup);
}

function backupCompleted(backupName: string) {
  return eventually(
    async () => {
      const b = await admin.get<PostgresBackup>(PostgresBackup.resourceType, backupName, ctx.ns);
      const c = findCondition(b.status?.conditions, 'Ready');
      if (
        b.status?.phase === 'Completed' &&
        c?.status === 'True' &&
        c.observedGeneration === b.metadata.generation &&
        b.status.observedGeneration === b.metadata.generation
      )
        return b;
      throw new Error(`PostgresBackup ${backupName}: ${JSON.stringify(b.status)}`);
    },
    { description: `PostgresBackup ${backupName} Completed`, ...long },
  );
}

async function removeBackup(backupName: string) {
  await admin.delete(PostgresBackup.resourceType, backupName, ctx.ns);
  await eventually(
    () =>
      admin.get(PostgresBackup.resourceType, backupName, ctx.ns).then(
        () => false,
        () => true,
      ),
    { description: `PostgresBackup ${backupName} gone` },
  );
}

const backupEvent = (backupName: string, reason: string, note: RegExp) =>
  eventually(
    async () => {
      const seen = (await admin.list<Event>(Events, { namespace: ctx.ns })).items.filter(
        (e) =>
          e.regarding?.kind === 'PostgresBackup' &&
          e.regarding.name === backupName &&
          e.reason === reason,
      );
      const found = seen.find((e) => note.test(e.note ?? ''));
      if (!found)
        throw new Error(
          `${reason} Events about ${backupName}: ${seen.map((e) => e.note).join(' | ')}`,
        );
      return found;
    },
    { description: `Event ${reason} about PostgresBackup ${backupName} saying ${note}` },
  );
