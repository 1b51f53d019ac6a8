import {
  CreateDBInstanceCommand,
  DescribeDBInstancesCommand,
  type DBInstance,
  type RDSClient,
} from '@aws-sdk/client-rds';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { ExternalAnnotations as A } from '@steward/external';
import { KubeClient, Namespaces, NotFoundError } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCredentials, localCloudSqlAuth } from './support/providers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rdsIdentifier, RdsTags } from '../src/aws/index.js';
import { databaseInstanceController } from '../src/controller/index.js';
import { cloudSqlInstanceName, OwnerLabels } from '../src/gcp/index.js';

/**
 * Tenants on one cluster: namespaces `tenant-a` and `tenant-b` share two profiles, `tenant-c` may
 * use neither. One controller watches every namespace, as a chart installed once does. Every
 * cross-tenant attempt is checked at the provider (moto's RDS API, the local Cloud SQL API): what
 * it would have changed is still as it was.
 */
type DB = DatabaseInstance;
type Profile = ProviderProfile;
const Kind = DatabaseInstance.resourceType;
const Profiles = ProviderProfile.resourceType;

const CREDS_NS = 'platform-credentials';
const [NS_A, NS_B, NS_C] = ['tenant-a', 'tenant-b', 'tenant-c'];
const TENANT_LABEL = 'steward.dev/tenant';
let plane: ControlPlane;
let moto: Moto;
let api: CloudSqlApi;
let admin: KubeClient;
let rds: RDSClient;
let manager: Manager;

beforeAll(async () => {
  [plane, moto, api] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
    startCloudSqlApi({ operationStepMs: 100 }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  rds = moto.rdsClient();
  for (const [name, labels] of [
    [NS_A, { [TENANT_LABEL]: 'yes' }],
    [NS_B, { [TENANT_LABEL]: 'yes' }],
    [NS_C, {}],
  ] as const) {
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels },
    });
  }
  await createCredentials(admin, moto, CREDS_NS);
  // aws: bound by name; tenant-b may adopt (which must still never reach tenant-a's instances).
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'shared-aws' },
    spec: {
      provider: 'aws',
      namespaces: [NS_A, NS_B],
      adoption: { namespaces: [NS_B] },
      aws: {
        region: moto.region,
        endpoint: moto.endpoint,
        credentialsSecretRef: { namespace: CREDS_NS, name: 'aws-creds' },
      },
      sizeClasses: { small: 'db.t3.micro', large: 'db.m6g.large' },
    },
  } as Profile);
  // gcp: bound by a namespace label.
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'shared-gcp' },
    spec: {
      provider: 'gcp',
      namespaceSelector: { matchLabels: { [TENANT_LABEL]: 'yes' } },
      adoption: { namespaces: [NS_B] },
      gcp: {
        project: 'steward-test',
        region: 'europe-west1',
        endpoint: api.baseUrl,
        credentialsSecretRef: { namespace: CREDS_NS, name: 'gcp-creds' },
      },
      sizeClasses: { small: 'db-custom-1-3840', large: 'db-custom-4-15360' },
    },
  } as Profile);

  manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'database-instance-controller' });
  databaseInstanceController(manager, {
    pollIntervalMs: 500,
    busyPollIntervalMs: 200,
    gcpClientOptions: localCloudSqlAuth(api),
  });
  manager.start().catch(() => undefined);
});
afterAll(async () => {
  await manager?.stop();
  await admin?.close();
  await Promise.all([plane?.stop(), moto?.stop(), api?.stop()]);
});

const create = (
  namespace: string,
  name: string,
  spec: Partial<DB['spec']> = {},
  annotations: Record<string, string> = {},
) =>
  admin.create<DB>(Kind, {
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace, annotations },
    spec: {
      providerProfileRef: { name: 'shared-aws' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      backup: { retentionDays: 7 },
      ...spec,
    },
  } as DB);
const read = (namespace: string, name: string) => admin.get<DB>(Kind, name, namespace);
const condition = async (namespace: string, name: string, type: string) =>
  findCondition((await read(namespace, name)).status?.conditions, type);
const reason = (namespace: string, name: string, expected: string) =>
  eventually(async () => (await condition(namespace, name, 'Ready'))?.reason === expected, {
    description: `${namespace}/${name} Ready reason ${expected}`,
    timeoutMs: 30_000,
  });
const ready = (namespace: string, name: string) =>
  eventually(async () => (await condition(namespace, name, 'Ready'))?.status === 'True', {
    description: `${namespace}/${name} Ready`,
    timeoutMs: 30_000,
  });
const gone = (namespace: string, name: string) =>
  eventually(
    async () =>
      read(namespace, name).then(
        () => false,
        (e: unknown) => e instanceof NotFoundError,
      ),
    { description: `${namespace}/${name} gone`, timeoutMs: 30_000 },
  );
const rdsInstance = async (id: string): Promise<DBInstance | undefined> => {
  try {
    const out = await rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: id }));
    return out.DBInstances?.[0];
  } catch (error) {
    if ((error as Error).name === 'DBInstanceNotFoundFault') return undefined;
    throw error;
  }
};
/** What a takeover would change at RDS. */
const rdsSettings = (i: DBInstance | undefined) => ({
  status: i?.DBInstanceStatus,
  class: i?.DBInstanceClass,
  retention: i?.BackupRetentionPeriod,
  tags: [...(i?.TagList ?? [])].sort((x, y) => (x.Key ?? '').localeCompare(y.Key ?? '')),
});
const cloudSqlInstance = (name: string) => api.instances().find((i) => i.name === name);
/** Annotations that claim a create this object never made: the forged ledger. */
const forgedLedger = (externalName: string) => ({
  [A.externalName]: externalName,
  [A.createPending]: '2026-01-01T00:00:00.000Z',
  [A.createSucceeded]: '2026-01-01T00:00:01.000Z',
});

describe('DatabaseInstance tenancy', () => {
  it('refuses a profile from a namespace it does not allow (ProfileNotAllowedInNamespace, Stalled) and creates nothing; labelling the namespace lets it through', async () => {
    await create(NS_C, 'reports', { providerProfileRef: { name: 'shared-gcp' }, storageGiB: 10 });
    await reason(NS_C, 'reports', 'ProfileNotAllowedInNamespace');
    const obj = await read(NS_C, 'reports');
    expect(findCondition(obj.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(
        'ProviderProfile shared-gcp may not be used from namespace tenant-c',
      ),
    });
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect(obj.metadata.annotations?.[A.externalName]).toBeUndefined();
    expect(cloudSqlInstance(cloudSqlInstanceName(NS_C, 'reports'))).toBeUndefined();
    expect(api.requests().some((r) => r.method === 'instances.insert')).toBe(false);

    // The aws profile lists its namespaces by name: tenant-c is not among them either.
    await create(NS_C, 'ledger');
    await reason(NS_C, 'ledger', 'ProfileNotAllowedInNamespace');
    expect(await rdsInstance(rdsIdentifier(NS_C, 'ledger'))).toBeUndefined();

    // The platform team labels the namespace: the label change alone wakes its objects.
    await admin.mergePatch(Namespaces, NS_C, undefined, {
      metadata: { labels: { [TENANT_LABEL]: 'yes' } },
    });
    await ready(NS_C, 'reports');
    expect(cloudSqlInstance(cloudSqlInstanceName(NS_C, 'reports'))?.state).toBe('RUNNABLE');
    await admin.mergePatch(Namespaces, NS_C, undefined, {
      metadata: { labels: { [TENANT_LABEL]: null } },
    });
    await reason(NS_C, 'reports', 'ProfileNotAllowedInNamespace');
  });

  it("cannot take over another namespace's RDS instance with forged ledger annotations, spec.adopt and Delete: ExternalResourceOwnedElsewhere, nothing changed or deleted at RDS", async () => {
    await create(NS_A, 'orders');
    await ready(NS_A, 'orders');
    const victimId = rdsIdentifier(NS_A, 'orders');
    const victim = await rdsInstance(victimId);
    expect(victim?.TagList?.find((t) => t.Key === RdsTags.namespace)?.Value).toBe(NS_A);
    const before = rdsSettings(victim);

    // tenant-b may adopt through this profile, and still cannot reach tenant-a's instance.
    await create(
      NS_B,
      'thief',
      {
        adopt: true,
        size: 'large',
        backup: { retentionDays: 0 },
        deletionPolicy: 'Delete',
        finalSnapshot: false,
      },
      forgedLedger(victimId),
    );
    await reason(NS_B, 'thief', 'ExternalResourceOwnedElsewhere');
    const thief = await read(NS_B, 'thief');
    expect(findCondition(thief.status?.conditions, 'Ready')?.message).toContain(
      `belongs to an object of another namespace (${NS_A}/orders)`,
    );
    expect(findCondition(thief.status?.conditions, 'Stalled')?.status).toBe('True');
    await sleep(1_500); // several poll intervals: still nothing
    expect(rdsSettings(await rdsInstance(victimId))).toEqual(before);

    // Deleting the thief with Delete deletes nothing at RDS.
    await admin.delete(Kind, 'thief', NS_B);
    await gone(NS_B, 'thief');
    await sleep(1_000);
    expect(rdsSettings(await rdsInstance(victimId))).toEqual(before);
    expect((await condition(NS_A, 'orders', 'Ready'))?.status).toBe('True');
  });

  it("cannot take over another namespace's Cloud SQL instance either", async () => {
    await create(NS_A, 'catalog', { providerProfileRef: { name: 'shared-gcp' }, storageGiB: 10 });
    await ready(NS_A, 'catalog');
    const victimName = cloudSqlInstanceName(NS_A, 'catalog');
    const before = cloudSqlInstance(victimName);
    expect(before?.userLabels[OwnerLabels.namespace]).toBe(NS_A);
    const writes = () =>
      api
        .requests()
        .filter(
          (r) =>
            r.path.includes(`/instances/${victimName}`) && r.httpMethod !== 'GET' && r.status < 400,
        ).length;
    const writesBefore = writes();

    await create(
      NS_B,
      'catalog-thief',
      {
        providerProfileRef: { name: 'shared-gcp' },
        adopt: true,
        size: 'large',
        storageGiB: 10,
        deletionPolicy: 'Delete',
        finalSnapshot: false,
      },
      forgedLedger(victimName),
    );
    await reason(NS_B, 'catalog-thief', 'ExternalResourceOwnedElsewhere');
    await admin.delete(Kind, 'catalog-thief', NS_B);
    await gone(NS_B, 'catalog-thief');
    await sleep(1_000);
    const after = cloudSqlInstance(victimName);
    expect(after?.state).toBe('RUNNABLE');
    expect(after?.tier).toBe(before?.tier);
    expect(after?.userLabels).toEqual(before?.userLabels);
    expect(writes()).toBe(writesBefore);
  });

  it('adopts an unmarked instance only where the profile allows adoption for the namespace', async () => {
    const legacyA = rdsIdentifier(NS_A, 'legacy');
    const legacyB = rdsIdentifier(NS_B, 'legacy');
    for (const id of [legacyA, legacyB]) {
      await rds.send(
        new CreateDBInstanceCommand({
          DBInstanceIdentifier: id,
          Engine: 'postgres',
          EngineVersion: '16.3',
          DBInstanceClass: 'db.t3.micro',
          AllocatedStorage: 20,
          BackupRetentionPeriod: 7,
          MasterUsername: 'someone',
          MasterUserPassword: 'someone-elses-password',
          Tags: [{ Key: 'team', Value: 'legacy' }],
        }),
      );
    }
    const beforeA = rdsSettings(await rdsInstance(legacyA));

    // tenant-a may not adopt through shared-aws: spec.adopt alone changes nothing.
    await create(NS_A, 'legacy', { adopt: true });
    await reason(NS_A, 'legacy', 'AdoptionNotAllowed');
    expect((await condition(NS_A, 'legacy', 'Ready'))?.message).toContain(
      'does not allow adoption from namespace tenant-a',
    );
    await sleep(1_000);
    expect(rdsSettings(await rdsInstance(legacyA))).toEqual(beforeA);

    // Forged ledger annotations without spec.adopt are no proof either: AlreadyExists.
    await create(NS_A, 'legacy-claim', {}, forgedLedger(legacyA));
    await reason(NS_A, 'legacy-claim', 'AlreadyExists');
    expect(rdsSettings(await rdsInstance(legacyA))).toEqual(beforeA);

    // tenant-b may: its instance is adopted, tagged as its own, recorded.
    const adopter = await create(NS_B, 'legacy', { adopt: true });
    await ready(NS_B, 'legacy');
    expect((await read(NS_B, 'legacy')).status?.adoptedAt).toBeTruthy();
    const adopted = await rdsInstance(legacyB);
    expect(adopted?.TagList).toEqual(
      expect.arrayContaining([
        { Key: RdsTags.ownerUid, Value: adopter.metadata.uid },
        { Key: RdsTags.namespace, Value: NS_B },
        { Key: 'team', Value: 'legacy' },
      ]),
    );
  });
});
