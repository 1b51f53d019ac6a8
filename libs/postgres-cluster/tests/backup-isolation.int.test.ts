/**
 * Backups of one namespace are unreachable from another's PostgresClusters: the controller
 * in-process on a real API server (no pods: everything here is decided before an instance runs),
 * and moto's S3 API enforcing IAM, with one IAM user per namespace whose policy reaches only that
 * namespace's folder `platform/<namespace>/` of the shared bucket — the isolating setup a platform
 * team provisions (`copyCredentialsToWorkloadNamespaces` false: each namespace holds its own key).
 *
 * - A recovery source is a cluster name: a cluster in team-b naming team-a's cluster reads
 *   team-b's own folder and finds nothing; in team-a the same spec finds team-a's backup, and the
 *   restored cluster is rendered to archive into its own folder, reading the source's only.
 * - A destination or recovery source of the workload's own (another tenant's prefix) is refused
 *   before anything is called; an endpoint no profile names is never connected to, with or
 *   without a profile.
 * - team-b's key cannot read, overwrite or delete team-a's objects (moto evaluates the policies'
 *   Resource). Listing is not proven here: moto ignores the `s3:prefix` Condition that scopes
 *   ListBucket on AWS, so any key with ListBucket lists the whole bucket in moto; that the
 *   controller lists only a cluster's own folder is what the first case proves.
 * - The profile's credentials Secret is copied into a workload namespace only when the profile
 *   says copyCredentialsToWorkloadNamespaces, and a Secret the controller did not copy is never
 *   overwritten.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { ProviderProfile } from '@steward/provider-profile-api';
import { Namespaces, Secrets, StatefulSets, type KubeObject, KubeClient } from '@steward/kube';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresClusterController } from '../src/index.js';

const Kind = PostgresCluster.resourceType;
const bucket = 'steward-backups';
const prefix = 'platform';
const a = 'team-a';
const b = 'team-b';
const c = 'team-c';
const platformNs = 'platform-backups';
const sysid = '7400000000000000001';
const backupId = '20260101T000000Z';
const aFolder = `${prefix}/${a}/keeps/${sysid}/`;

let plane: ControlPlane;
let admin: KubeClient;
let moto: Moto;
let manager: Manager;
/** An HTTP server standing for an endpoint a tenant chooses: it records every connection. */
let trap: Server;
let trapEndpoint = '';
const trapped: string[] = [];
const keys: Record<string, { accessKeyId: string; secretAccessKey: string }> = {};
const s3 = (ns: string) =>
  new S3Client({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: keys[ns]!,
    maxAttempts: 1,
  });

/**
 * One IAM (query API) call during moto's unauthenticated start (`iamAfterRequests`): moto routes
 * it by the credential scope of the Authorization header and checks no signature yet.
 */
async function iam(params: Record<string, string>): Promise<string> {
  const response = await fetch(moto.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization:
        'AWS4-HMAC-SHA256 Credential=setup/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: new URLSearchParams({ ...params, Version: '2010-05-08' }).toString(),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`IAM ${params['Action']}: ${response.status} ${text}`);
  return text;
}
const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml)![1]!;

/** A user whose key reaches only `platform/<ns>/` (ListBucket: the whole bucket, see above). */
async function tenantUser(ns: string): Promise<void> {
  await iam({ Action: 'CreateUser', UserName: ns });
  await iam({
    Action: 'PutUserPolicy',
    UserName: ns,
    PolicyName: 'own-folder',
    PolicyDocument: JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          Resource: `arn:aws:s3:::${bucket}/${prefix}/${ns}/*`,
        },
        {
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: `arn:aws:s3:::${bucket}`,
          Condition: { StringLike: { 's3:prefix': [`${prefix}/${ns}/*`] } },
        },
      ],
    }),
  });
  const created = await iam({ Action: 'CreateAccessKey', UserName: ns });
  keys[ns] = {
    accessKeyId: tag(created, 'AccessKeyId'),
    secretAccessKey: tag(created, 'SecretAccessKey'),
  };
}

const secret = (namespace: string, name: string, data: Record<string, string>) =>
  admin.create(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    stringData: data,
  } as KubeObject);
const keySecret = (ns: string, owner = ns) =>
  secret(ns, 'backup-keys', {
    AWS_ACCESS_KEY_ID: keys[owner]!.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys[owner]!.secretAccessKey,
  });

const profile = (name: string, backup: Record<string, unknown>) =>
  admin.create<ProviderProfile>(ProviderProfile.resourceType, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'kubernetes',
      namespaces: [a, b, c],
      kubernetes: {
        images: [{ engine: 'postgres', version: '17', image: 'ghcr.io/steward-dev/postgres:17' }],
        backup: {
          destination: {
            bucket,
            prefix,
            endpoint: moto.endpoint,
            credentialsSecretRef: { name: 'backup-keys' },
          },
          ...backup,
        },
      },
    },
  } as ProviderProfile);

beforeAll(async () => {
  trap = createServer((req, res) => {
    trapped.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  trap.on('connection', () => trapped.push('connection'));
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapEndpoint = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;

  // CreateBucket and three IAM calls per tenant unauthenticated; every request after them is
  // signed with a tenant's key and allowed only by its policy.
  moto = await startMoto({ iamAfterRequests: 1 + 3 * 2 });
  await fetch(`${moto.endpoint}/${bucket}`, {
    method: 'PUT',
    headers: {
      authorization:
        'AWS4-HMAC-SHA256 Credential=setup/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0',
    },
  }).then(async (r) => {
    if (!r.ok) throw new Error(`CreateBucket: ${r.status} ${await r.text()}`);
  });
  await tenantUser(a);
  await tenantUser(b);

  // team-a's backup, written with team-a's own key.
  const record = {
    id: backupId,
    startedAt: '2026-01-01T00:00:00Z',
    completedAt: '2026-01-01T00:00:05Z',
    sizeBytes: 3,
    startLsn: '0/2000028',
    stopLsn: '0/2000100',
    timeline: 1,
    systemIdentifier: sysid,
    serverVersion: 170000,
  };
  const teamA = s3(a);
  for (const [file, body] of [
    ['base.tar.gz', 'tar'],
    ['backup_manifest', '{}'],
    ['backup.json', JSON.stringify(record)],
  ] as const)
    await teamA.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${aFolder}base/${backupId}/${file}`,
        Body: body,
      }),
    );
  teamA.destroy();

  plane = await startControlPlane({
    crds: [join(repoRoot(), 'charts/postgres-cluster-controller/crds')],
  });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  for (const name of [a, b, c, platformNs])
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await keySecret(a);
  await keySecret(b);
  await profile('tenants', {});
  manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'postgres-cluster-controller' });
  postgresClusterController(manager, { pollIntervalMs: 1000, busyPollIntervalMs: 300 });
  manager.start().catch(() => undefined);
}, 300_000);

afterAll(async () => {
  await manager?.stop();
  await admin?.close();
  await plane?.stop();
  await moto?.stop();
  await new Promise((resolve) => trap?.close(resolve));
});

const create = (namespace: string, name: string, spec: Partial<PostgresClusterSpec>) =>
  admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace },
    spec: {
      version: '17',
      replicas: 1,
      storage: { size: '1Gi' },
      providerProfileRef: { name: 'tenants' },
      ...spec,
    },
  } as PostgresCluster);
const stalled = (namespace: string, name: string) =>
  eventually(
    async () => {
      const o = await admin.get<PostgresCluster>(Kind, name, namespace);
      const s = findCondition(o.status?.conditions, 'Stalled');
      if (s?.status === 'True' && s.observedGeneration === o.metadata.generation) return s;
      throw new Error(`${namespace}/${name} not Stalled: ${JSON.stringify(o.status?.conditions)}`);
    },
    { description: `${namespace}/${name} Stalled`, timeoutMs: 60_000 },
  );
const noStatefulSet = async (namespace: string, name: string) =>
  expect(
    await admin.get(StatefulSets, name, namespace).then(
      () => true,
      () => false,
    ),
  ).toBe(false);
const denied = (p: Promise<unknown>) =>
  expect(p).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });

describe('backups of one namespace, unreachable from another', () => {
  it("a recovery source names a cluster of the object's own namespace: team-b finds nothing of team-a's, team-a finds its backup", async () => {
    await create(b, 'recovers', { bootstrap: { recovery: { source: { name: 'keeps' } } } });
    expect(await stalled(b, 'recovers')).toMatchObject({
      reason: 'RecoveryBackupNotFound',
      message: expect.stringContaining(
        `no complete backup in s3://${bucket}/${prefix}/${b}/keeps/ (0 database systems, 0 backups there)`,
      ),
    });
    await noStatefulSet(b, 'recovers');

    await create(a, 'recovers', {
      backup: {},
      bootstrap: { recovery: { source: { name: 'keeps' } } },
    });
    const restored = await eventually(
      async () => {
        const o = await admin.get<PostgresCluster>(Kind, 'recovers', a);
        if (o.status?.restore) return o;
        throw new Error(JSON.stringify(o.status?.conditions));
      },
      { description: `${a}/recovers chose a restore`, timeoutMs: 60_000 },
    );
    expect(restored.status!.restore).toMatchObject({
      source: `s3://${bucket}/${aFolder}`,
      systemIdentifier: sysid,
      backupId,
    });
    // The restored cluster archives (WAL, base backups) into its own folder; the source's is
    // only ever read, through the remote `source:`.
    const sts = await eventually(
      () =>
        admin.get<
          KubeObject & {
            spec: {
              template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
            };
          }
        >(StatefulSets, 'recovers', a),
      { description: `${a}/recovers StatefulSet`, timeoutMs: 60_000 },
    );
    const env = sts.spec.template.spec.containers[0]!.env;
    const value = (n: string) => env.find((e) => e.name === n)?.value;
    expect(value('STEWARD_BACKUP_PATH')).toBe(`${bucket}/${prefix}/${a}/recovers`);
    expect(value('STEWARD_RESTORE_PATH')).toBe(`${bucket}/${aFolder.replace(/\/$/, '')}`);
  }, 120_000);

  it("refuses a destination of the tenant's own — another tenant's prefix — before anything is called", async () => {
    const theirs = {
      bucket,
      prefix: `${prefix}/${a}/keeps`,
      endpoint: moto.endpoint,
      credentialsSecretRef: { name: 'backup-keys' },
    };
    await create(b, 'points-at-a', { backup: { destination: theirs } });
    await create(b, 'restores-a', {
      bootstrap: { recovery: { source: { name: 'keeps', destination: theirs } } },
    });
    expect(await stalled(b, 'points-at-a')).toMatchObject({
      reason: 'BackupDestinationNotAllowed',
      message: expect.stringMatching(
        /^spec\.backup\.destination is not allowed by ProviderProfile tenants/,
      ),
    });
    expect(await stalled(b, 'restores-a')).toMatchObject({
      reason: 'BackupDestinationNotAllowed',
      message: expect.stringMatching(
        /^spec\.bootstrap\.recovery\.source\.destination is not allowed by ProviderProfile tenants/,
      ),
    });
    await noStatefulSet(b, 'points-at-a');
    await noStatefulSet(b, 'restores-a');
  }, 120_000);

  it('never connects to an endpoint no profile names: refused with a profile that allows workload destinations, and without a profile', async () => {
    await profile('own-buckets', {
      allowWorkloadDestinations: true,
      allowedEndpoints: [moto.endpoint],
    });
    const trapDestination = {
      bucket: 'anything',
      endpoint: trapEndpoint,
      credentialsSecretRef: { name: 'backup-keys' },
    };
    await create(b, 'own-endpoint', {
      providerProfileRef: { name: 'own-buckets' },
      bootstrap: { recovery: { source: { name: 'keeps', destination: trapDestination } } },
    });
    await create(b, 'no-profile', {
      providerProfileRef: undefined,
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      bootstrap: { recovery: { source: { name: 'keeps', destination: trapDestination } } },
    });
    expect(await stalled(b, 'own-endpoint')).toMatchObject({
      reason: 'BackupEndpointNotAllowed',
      message: expect.stringContaining(
        `spec.bootstrap.recovery.source.destination.endpoint ${trapEndpoint} is not named by ProviderProfile own-buckets`,
      ),
    });
    expect(await stalled(b, 'no-profile')).toMatchObject({
      reason: 'BackupEndpointNotAllowed',
      message: expect.stringContaining('is not allowed without a ProviderProfile'),
    });
    expect(trapped).toEqual([]);
  }, 120_000);

  it("team-b's key cannot read, overwrite or delete team-a's objects; team-a's own key can", async () => {
    const teamB = s3(b);
    const teamA = s3(a);
    const key = `${aFolder}base/${backupId}/backup.json`;
    try {
      await denied(teamB.send(new GetObjectCommand({ Bucket: bucket, Key: key })));
      await denied(teamB.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '{}' })));
      await denied(teamB.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
      // A batch delete answers 200 with an error per key, as S3 does.
      const batch = await teamB.send(
        new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: key }] } }),
      );
      expect(batch.Deleted ?? []).toEqual([]);
      expect(batch.Errors).toEqual([expect.objectContaining({ Key: key, Code: 'AccessDenied' })]);
      await denied(
        teamB.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `${aFolder}wal/000000010000000000000009.gz`,
            Body: 'x',
          }),
        ),
      );
      // Its own folder it may write, and team-a's backup is untouched.
      await teamB.send(
        new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${b}/probe`, Body: 'b' }),
      );
      const body = await (
        await teamA.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
      ).Body!.transformToString('utf8');
      expect(JSON.parse(body)).toMatchObject({ id: backupId, systemIdentifier: sysid });
      const listed = await teamA.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/${a}/` }),
      );
      expect((listed.Contents ?? []).map((o) => o.Key)).toHaveLength(3);
    } finally {
      teamB.destroy();
      teamA.destroy();
    }
  });

  it('copies the profile’s credentials into a workload namespace only when the profile says so, and never over a Secret it did not copy', async () => {
    // team-c has no Secret: with the isolating profile, nothing is copied — the pods wait for one.
    await create(c, 'uncopied', {
      backup: {},
      resources: { requests: { cpu: '50m', memory: '128Mi' } },
    });
    await eventually(() => admin.get(StatefulSets, 'uncopied', c), {
      description: `${c}/uncopied StatefulSet`,
      timeoutMs: 60_000,
    });
    expect(
      await admin.get(Secrets, 'backup-keys', c).then(
        () => true,
        () => false,
      ),
    ).toBe(false);

    await secret(platformNs, 'bucket-key', {
      AWS_ACCESS_KEY_ID: keys[a]!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys[a]!.secretAccessKey,
      unrelated: 'not copied',
    });
    await profile('copying', {
      copyCredentialsToWorkloadNamespaces: true,
      credentialsSourceSecretRef: { namespace: platformNs, name: 'bucket-key' },
    });
    await create(c, 'copied', { providerProfileRef: { name: 'copying' }, backup: {} });
    const copied = await eventually(
      () => admin.get<KubeObject & { data?: Record<string, string> }>(Secrets, 'backup-keys', c),
      { description: `Secret backup-keys copied into ${c}`, timeoutMs: 60_000 },
    );
    expect(copied.metadata.annotations).toMatchObject({
      'postgres.steward.dev/credentials-copied-from': `${platformNs}/bucket-key`,
    });
    expect(Object.keys(copied.data ?? {}).sort()).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ]);
    expect(copied.metadata.ownerReferences).toBeUndefined();

    // team-b's own Secret of that name is left as it is.
    await create(b, 'copied', { providerProfileRef: { name: 'copying' }, backup: {} });
    await eventually(() => admin.get(StatefulSets, 'copied', b), {
      description: `${b}/copied StatefulSet`,
      timeoutMs: 60_000,
    });
    const own = await admin.get<KubeObject & { data?: Record<string, string> }>(
      Secrets,
      'backup-keys',
      b,
    );
    expect(Buffer.from(own.data!['AWS_ACCESS_KEY_ID']!, 'base64').toString()).toBe(
      keys[b]!.accessKeyId,
    );
    expect(
      own.metadata.annotations?.['postgres.steward.dev/credentials-copied-from'],
    ).toBeUndefined();
  }, 120_000);
});
