// PostgresCluster data-protection benchmarks on the node tier (real kubelet + containerd, real
// PostgreSQL 15 and 17 pods) with moto's S3 API on the node tier's host address, the controllers
// in-process on a Manager as the app wires them (poll 5 s, busy poll 1 s). Prints a Markdown table
// for BENCHMARKS.md. Not a test: it asserts nothing but that each step happened.
//
//   npx tsx libs/postgres-cluster/bench/data-protection.ts [--mib=256]
//
// One PostgreSQL 15 cluster of one instance is filled with about --mib MiB (pg_database_size of
// the application database), then:
// - base backup: a PostgresBackup, its Job's wall time (pod start, pg_basebackup -Ft -z, upload)
//   and the database size over it;
// - restore: a new cluster bootstrapped from that backup (WAL replayed to the end of the archive),
//   create → Ready, and the size over it;
// - major upgrade 15 → 17 (dump and restore): writes refused → accepted again, as a client that
//   INSERTs every 50 ms through the read-write Service saw it, and as status.upgrade recorded it
//   (writesStoppedAt → writesResumedAt); and the whole upgrade, startedAt → completedAt.
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import {
  PostgresBackup,
  PostgresCluster,
  type PostgresClusterSpec,
} from '@steward/postgres-cluster-api';
import { Jobs, KubeClient, Secrets, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startMoto } from '@steward/testing-backends';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { ProviderProfile } from '@steward/provider-profile-api';
import { join } from 'node:path';
import pg from 'pg';
import { appLogin as login } from './support.js';
import { postgresBackupController, postgresClusterController } from '../src/index.js';

const mib = Number(process.argv.find((a) => a.startsWith('--mib='))?.split('=')[1] ?? 256);
const Kind = PostgresCluster.resourceType;
const bucket = 'steward-bench';

const tier: NodeTier = await acquireNodeTier();
const images = await localImages('postgres-15', 'postgres-17');
for (const image of Object.values(images)) await tier.importImage(image);
await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
const moto = await startMoto({ host: tier.hostAddress });
const s3 = new S3Client({
  endpoint: moto.endpoint,
  region: moto.region,
  credentials: moto.credentials,
  forcePathStyle: true,
});
await s3.send(new CreateBucketCommand({ Bucket: bucket }));
s3.destroy();
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
const ns = await tier.createNamespace('pgc-bench-data');
await admin.create(Secrets, {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'backup-credentials', namespace: ns },
  stringData: {
    AWS_ACCESS_KEY_ID: moto.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: moto.credentials.secretAccessKey,
  },
} as KubeObject);
// The clusters name their own destination on moto: a profile must allow it and name its endpoint
// (the controller connects to no other), as the default profile of clusters that name none.
const defaultProfile = `${ns}-workload-backups`;
await admin.create<ProviderProfile>(ProviderProfile.resourceType, {
  apiVersion: ProviderProfile.apiVersion,
  kind: 'ProviderProfile',
  metadata: { name: defaultProfile },
  spec: {
    provider: 'kubernetes',
    namespaces: [ns],
    kubernetes: {
      images: Object.entries(images).map(([name, i]) => ({
        engine: 'postgres',
        version: name.replace(/^postgres-/, ''),
        image: i.ref,
      })),
      backup: { allowWorkloadDestinations: true, allowedEndpoints: [moto.endpoint] },
    },
  },
} as ProviderProfile);
const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'postgres-cluster-controller' });
postgresClusterController(manager, {
  defaultProfile,
  selection: { namespace: ns },
  fieldManager: 'postgres-cluster-controller',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
});
postgresBackupController(manager, { selection: { namespace: ns }, defaultProfile });
manager.start().catch((e: unknown) => console.error(e));

const destination = {
  bucket,
  endpoint: moto.endpoint,
  credentialsSecretRef: { name: 'backup-credentials' },
};
const spec = (version: string): PostgresClusterSpec => ({
  version,
  replicas: 1,
  resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } },
  storage: { size: `${Math.max(2, Math.ceil((mib * 3) / 1024))}Gi` },
  deletionPolicy: 'Delete',
  skipFinalBackup: true,
});
const read = (name: string) => admin.get<PostgresCluster>(Kind, name, ns);
const ready = (name: string, extra: (o: PostgresCluster) => boolean = () => true) =>
  eventually(
    async () => {
      const obj = await read(name);
      const c = findCondition(obj.status?.conditions, 'Ready');
      return c?.status === 'True' &&
        c.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === obj.spec.replicas &&
        extra(obj)
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs: 1_200_000, intervalMs: 100 },
  );
const create = (name: string, s: PostgresClusterSpec) =>
  admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace: ns },
    spec: s,
  } as PostgresCluster);

const appLogin = (name: string) => login(admin, ns, name, { connectMs: 1000 });
async function sql<T>(name: string, text: string): Promise<T[]> {
  const client = new pg.Client({ ...(await appLogin(name)), query_timeout: 600_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}
const size = async (name: string) =>
  Number(
    (await sql<{ s: string }>(name, 'select pg_database_size(current_database()) as s'))[0]!.s,
  );
const MiB = 1024 * 1024;

// The source: PostgreSQL 15 with about `mib` MiB of rows, backed up once a year (the first at once)
// and rehearsed every minute (the upgrade's gate).
const source = 'bulk';
await create(source, {
  ...spec('15'),
  backup: { destination, schedule: '0 0 1 1 *', verify: { schedule: '* * * * *' } },
});
await ready(source);
await eventually(() => sql(source, 'create table if not exists bulk (n bigint, pad text)'), {
  description: `${source} takes writes`,
});
const rowsPerBatch = Math.ceil((32 * MiB) / 300);
for (let batch = 0; (await size(source)) < mib * MiB; batch++)
  await sql(
    source,
    `insert into bulk select n, repeat(md5(n::text), 8) from generate_series(${batch * rowsPerBatch + 1}, ${(batch + 1) * rowsPerBatch}) n`,
  );
await sql(source, 'checkpoint').catch(() => undefined);
const databaseBytes = await size(source);
console.error(`bench: ${source} holds ${(databaseBytes / MiB).toFixed(0)} MiB`);

// Base backup, on demand.
await admin.create<PostgresBackup>(PostgresBackup.resourceType, {
  apiVersion: PostgresBackup.apiVersion,
  kind: 'PostgresBackup',
  metadata: { name: 'bench', namespace: ns },
  spec: { cluster: { name: source } },
} as PostgresBackup);
const taken = await eventually(
  async () => {
    const b = await admin.get<PostgresBackup>(PostgresBackup.resourceType, 'bench', ns);
    if (b.status?.phase === 'Failed') throw new Error(`backup failed: ${b.status.message}`);
    return b.status?.phase === 'Completed' ? b : undefined;
  },
  { description: 'PostgresBackup bench Completed', timeoutMs: 1_200_000 },
);
const job = await admin.get<KubeObject & { status: { startTime: string; completionTime: string } }>(
  Jobs,
  taken.status!.job!,
  ns,
);
const backupSeconds =
  (Date.parse(job.status.completionTime) - Date.parse(job.status.startTime)) / 1000;

// Restore into a new cluster (PostgreSQL 15, to the end of the archived WAL).
const restoreStart = performance.now();
await create('restored', {
  ...spec('15'),
  bootstrap: { recovery: { source: { name: source, destination } } },
});
await ready('restored', (o) => o.status?.restore?.completedAt !== undefined);
const restoreSeconds = (performance.now() - restoreStart) / 1000;
const restoredRows = (await sql<{ c: string }>('restored', 'select count(*) as c from bulk'))[0]!.c;

// Major upgrade 15 → 17, once a rehearsal passed on the backup just taken.
await eventually(
  async () => {
    const v = (await read(source)).status?.backup?.lastVerification;
    return v?.result === 'Passed' && v.backupId === taken.status!.backupId;
  },
  { description: `${source}: a passed rehearsal of ${taken.status!.backupId}`, timeoutMs: 900_000 },
);
let lastOk = 0;
let longestGap = 0;
let stop = false;
const writer = (async () => {
  let client: pg.Client | undefined;
  let i = 0;
  while (!stop) {
    try {
      if (!client) {
        client = new pg.Client({ ...(await appLogin(source)), query_timeout: 2000 });
        client.on('error', () => undefined);
        await client.connect();
      }
      await client.query('insert into bulk values ($1, null)', [-++i]);
      const now = performance.now();
      if (lastOk) longestGap = Math.max(longestGap, now - lastOk);
      lastOk = now;
    } catch {
      await client?.end().catch(() => undefined);
      client = undefined;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await client?.end().catch(() => undefined);
})();
await new Promise((r) => setTimeout(r, 2000));
await admin.mergePatch(Kind, source, ns, {
  spec: { version: '17', upgrade: { approvedVersion: '17' } },
});
const upgraded = await eventually(
  async () => {
    const o = await read(source);
    if (o.status?.upgrade?.phase === 'RolledBack')
      throw new Error(`upgrade rolled back: ${o.status.upgrade.message}`);
    return o.status?.upgrade?.phase === 'Completed' ? o : undefined;
  },
  { description: `${source} upgraded`, timeoutMs: 1_800_000 },
);
await new Promise((r) => setTimeout(r, 3000));
stop = true;
await writer;
const u = upgraded.status!.upgrade!;
const recorded = (Date.parse(u.writesResumedAt!) - Date.parse(u.writesStoppedAt!)) / 1000;
const whole = (Date.parse(u.completedAt!) - Date.parse(u.startedAt)) / 1000;

const mibOf = (bytes: number) => (bytes / MiB).toFixed(0);
const rate = (bytes: number, seconds: number) => `${(bytes / MiB / seconds).toFixed(1)} MiB/s`;
console.log(`database: ${mibOf(databaseBytes)} MiB (pg_database_size), ${restoredRows} rows`);
console.log('');
console.log('| measure | figure |');
console.log('| --- | --- |');
console.log(
  `| base backup (PostgresBackup Job: pod start, pg_basebackup -Ft -z, upload; ${mibOf(taken.status!.sizeBytes!)} MiB compressed) | ${backupSeconds.toFixed(1)} s, ${rate(databaseBytes, backupSeconds)} |`,
);
console.log(
  `| restore into a new cluster (create → Ready: fetch, pg_verifybackup, unpack, WAL replay) | ${restoreSeconds.toFixed(1)} s, ${rate(databaseBytes, restoreSeconds)} |`,
);
console.log(
  `| upgrade 15 → 17: writes refused → accepted again (client, longest gap between commits) | ${(longestGap / 1000).toFixed(1)} s |`,
);
console.log(
  `| upgrade 15 → 17: writesStoppedAt → writesResumedAt (status) | ${recorded.toFixed(1)} s |`,
);
console.log(`| upgrade 15 → 17: startedAt → completedAt (status) | ${whole.toFixed(1)} s |`);
console.log('');
console.log(`steps: ${u.steps.map((s) => `${s.name}: ${s.message}`).join(' | ')}`);

await manager.stop();
for (const n of ['restored', source]) await admin.delete(Kind, n, ns).catch(() => undefined);
await admin.close();
await moto.stop();
await tier.release();
