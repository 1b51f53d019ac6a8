/**
 * WAL archiving that fails is named, on the node tier: a PostgresCluster backs up to moto's S3 API
 * (on the tier's host address, which the pods reach); the bucket is removed under it; once the
 * primary switches WAL segments its archiving fails, and within a minute the cluster says so —
 * `Degraded=True` `WalArchivingFailing` with the segment, `status.backup.walArchiving.failing` and
 * the segments waiting (the metric and alert read these) — and says it no more once the bucket is
 * back and PostgreSQL's archiver has caught up.
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { ProviderProfile } from '@steward/provider-profile-api';
import { Secrets, type KubeObject } from '@steward/kube';
import { eventually } from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { controllerOnNodeTier, type PreparedSuite } from '@steward/testing-node-tier';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresClusters } from './workload-under-test.js';

const bucket = 'steward-wal';
const profile = 'wal-archiving-backups';

let moto: Moto;
let s3: S3Client;

/** moto's S3 on the tier's host address, its bucket, the credentials Secret and the profile. */
async function backups({ tier, admin, namespace, images }: PreparedSuite) {
  moto = await startMoto({ host: tier.hostAddress });
  s3 = new S3Client({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.credentials,
    forcePathStyle: true,
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await admin.create(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-credentials', namespace },
    stringData: {
      AWS_ACCESS_KEY_ID: moto.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: moto.credentials.secretAccessKey,
    },
  } as KubeObject);
  await admin.create<ProviderProfile>(ProviderProfile.resourceType, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: profile },
    spec: {
      provider: 'kubernetes',
      namespaces: [namespace],
      kubernetes: {
        images: [{ engine: 'postgres', version: '17', image: images['postgres-17']!.ref }],
        backup: { allowWorkloadDestinations: true, allowedEndpoints: [moto.endpoint] },
      },
    },
  } as ProviderProfile);
  return async () => {
    await admin.delete(ProviderProfile.resourceType, profile).catch(() => undefined);
    s3.destroy();
    await moto.stop();
  };
}

const suite = controllerOnNodeTier({ beforeAll, afterAll }, postgresClusters, {
  images: ['postgres-17'],
  namespace: 'pgc-wal',
  busyPollIntervalMs: 500,
  controller: { defaultProfile: profile },
  prepare: backups,
});
const { read } = suite;

async function emptyAndDeleteBucket(): Promise<void> {
  for (;;) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (!keys.length) break;
    await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
}

/** Writes a row and switches WAL segments on the primary, so that a segment is to be archived. */
async function switchWal(name: string): Promise<void> {
  const obj = await read(name);
  const ip = await suite.podIp(obj.status!.primary!);
  const secret = await suite.secret(`${name}-superuser`);
  const client = new pg.Client({
    host: ip,
    port: 5432,
    user: 'postgres',
    password: secret['password']!,
    database: 'postgres',
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS wal_probe (at timestamptz)');
    await client.query('INSERT INTO wal_probe VALUES (now())');
    await client.query('SELECT pg_switch_wal()');
  } finally {
    await client.end();
  }
}

describe('WAL archiving failures named on the node tier (PostgresCluster)', () => {
  it('says WalArchivingFailing within a minute of a failing segment, and stops once it archives again', async () => {
    await suite.create('archives', {
      version: '17',
      backup: {
        destination: {
          bucket,
          endpoint: moto.endpoint,
          credentialsSecretRef: { name: 'backup-credentials' },
        },
      },
    } as PostgresClusterSpec);
    // Ready, its first base backup in the bucket, and archiving seen to work.
    await eventually(
      async () => {
        const obj = await read('archives');
        return findCondition(obj.status?.conditions, 'Ready')?.status === 'True' &&
          obj.status?.backup?.lastSuccessful &&
          obj.status.backup.walArchiving?.failing === false
          ? obj
          : undefined;
      },
      { description: 'archives Ready with a backup', timeoutMs: 240_000 },
    );

    await emptyAndDeleteBucket();
    await switchWal('archives');
    const failing = await eventually(
      async () => {
        const obj = await read('archives');
        const degraded = findCondition(obj.status?.conditions, 'Degraded');
        return degraded?.status === 'True' &&
          degraded.message.includes('WAL archiving fails') &&
          obj.status?.backup?.walArchiving?.failing
          ? obj
          : undefined;
      },
      { description: 'archives says WalArchivingFailing', timeoutMs: 60_000 },
    );
    const wal = failing.status!.backup!.walArchiving!;
    expect(wal.readySegments).toBeGreaterThanOrEqual(1);
    expect(wal.lastFailedWal).toMatch(/^[0-9A-F]{24}$/);
    expect(findCondition(failing.status?.conditions, 'Degraded')!.message).toContain(
      `segment ${wal.lastFailedWal}`,
    );

    // The bucket back: PostgreSQL's archiver retries (after a minute's pause following three
    // failures), and the condition goes with the failure.
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await eventually(
      async () => {
        const obj = await read('archives');
        const degraded = findCondition(obj.status?.conditions, 'Degraded');
        return obj.status?.backup?.walArchiving?.failing === false &&
          !degraded?.message.includes('WAL archiving fails')
          ? obj
          : undefined;
      },
      { description: 'archives archives again', timeoutMs: 180_000 },
    );
  });
});
