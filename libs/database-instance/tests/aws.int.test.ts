import {
  CreateDBInstanceCommand,
  DeleteDBInstanceCommand,
  DescribeDBInstancesCommand,
  DescribeDBSnapshotsCommand,
  type DBInstance,
  type RDSClient,
} from '@aws-sdk/client-rds';
import { findCondition } from '@steward/conditions';
import { controllerFor, Manager } from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { externalChanges, ledgerState, managedReconciler } from '@steward/external';
import { KubeClient, Namespaces, NotFoundError } from '@steward/kube';
import {
  eventually,
  repoRoot,
  gitOpsReading,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AwsConfig } from '../src/provider-config.js';
import { type ProviderProfile } from '@steward/provider-profile-api';

/** The admitted profile the provider gets as its context: only what validate reads of it. */
const profileOf = (c: AwsConfig): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'aws' },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      sizeClasses: c.sizeClasses,
      aws: { region: c.region },
    },
  }) as ProviderProfile;
import { rdsExternalProvider, rdsIdentifier, RdsTags } from '../src/aws/index.js';

type Dbi = typeof DatabaseInstance.$object;
const Dbis = DatabaseInstance.resourceType;
const PASSWORD = 'not-logged-8f3a1c';

let plane: ControlPlane;
let moto: Moto;
let admin: KubeClient;
let rds: RDSClient;
let ns = 'rds';
let testNumber = 0;
const running: { manager: Manager; started: Promise<void> }[] = [];

/** Every RDS command the provider sent in this test, by name; and the lost-response switch. */
let calls: string[] = [];
let loseNextCreateResponse = false;

beforeAll(async () => {
  [plane, moto] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  rds = moto.rdsClient();
});
beforeEach(async () => {
  ns = `rds-${++testNumber}`;
  calls = [];
  loseNextCreateResponse = false;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.manager.stop();
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), moto?.stop()]);
});

function run(): void {
  const config: AwsConfig = {
    region: moto.region,
    endpoint: moto.endpoint,
    credentials: { ...moto.credentials },
    sizeClasses: { small: 'db.t3.micro', large: 'db.m6g.large' },
  };
  const provider = rdsExternalProvider({
    resolveConfig: async () => config,
    passwordFor: async () => PASSWORD,
    clientFor: (c) => {
      const client = moto.rdsClient({ endpoint: c.endpoint!, region: c.region });
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const command = String(context.commandName).replace(/Command$/, '');
          calls.push(command);
          const result = await next(args);
          if (command === 'CreateDBInstance' && loseNextCreateResponse) {
            loseNextCreateResponse = false;
            throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
          }
          return result;
        },
        { step: 'initialize', name: 'testRecorder' },
      );
      return client;
    },
  });
  const manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'database-instance-test' });
  controllerFor(manager, Dbis, {
    selection: { namespace: ns },
    predicates: [externalChanges],
  })
    .named('databaseinstance')
    .completeObjects(
      managedReconciler<Dbi, ProviderProfile>({
        client: manager.client,
        resourceType: Dbis,
        admit: () => ({
          action: 'manage',
          provider,
          context: profileOf(config),
          adoptionAllowed: true,
        }),
        finalizer: 'database.steward.dev/external',
        busyPollIntervalMs: 200,
        pollIntervalMs: 500,
      }),
    );
  const started = manager.start();
  started.catch(() => undefined);
  running.push({ manager, started });
}

const create = (name: string, spec: Partial<Dbi['spec']> = {}) =>
  admin.create<Dbi>(Dbis, {
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace: ns },
    spec: {
      providerProfileRef: { name: 'aws' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...spec,
    },
  } as Dbi);
const read = (name: string) => admin.get<Dbi>(Dbis, name, ns);
const condition = async (name: string, type: string) =>
  findCondition((await read(name)).status?.conditions, type);
const gone = (name: string) =>
  read(name).then(
    () => false,
    (e) => e instanceof NotFoundError,
  );
const ready = (name: string) =>
  eventually(async () => (await condition(name, 'Ready'))?.status === 'True', {
    description: `${name} Ready`,
  });
const id = (name: string) => rdsIdentifier(ns, name);
async function instance(name: string): Promise<DBInstance | undefined> {
  const { DBInstances } = await rds.send(new DescribeDBInstancesCommand({}));
  return DBInstances?.find((i) => i.DBInstanceIdentifier === id(name));
}
const tag = (i: DBInstance | undefined, key: string) =>
  i?.TagList?.find((t) => t.Key === key)?.Value;
const count = (command: string) => calls.filter((c) => c === command).length;
async function snapshotsOf(name: string): Promise<string[]> {
  const { DBSnapshots } = await rds.send(
    new DescribeDBSnapshotsCommand({ SnapshotType: 'manual' }),
  );
  return (DBSnapshots ?? [])
    .filter((s) => s.DBInstanceIdentifier === id(name))
    .map((s) => s.DBSnapshotIdentifier!);
}

describe('the AWS RDS provider under the managed reconciler (real API server + moto)', () => {
  it('creates one tagged instance, reports it Ready with its endpoint, and grows its storage', async () => {
    run();
    const created = await create('orders');
    await ready('orders');
    const dbi = await read('orders');
    expect(dbi.status).toMatchObject({
      externalName: id('orders'),
      providerState: 'available',
      endpoint: { host: expect.stringMatching(new RegExp(`^${id('orders')}\\.`)), port: 5432 },
      atProvider: {
        status: 'available',
        instanceClass: 'db.t3.micro',
        storageGiB: 20,
        // Secure by default (spec.security), as RDS reports it.
        storageEncrypted: true,
        publiclyAccessible: false,
        deletionProtection: true,
      },
    });
    const { DBInstances } = await rds.send(new DescribeDBInstancesCommand({}));
    const ours = DBInstances!.filter((i) => i.DBInstanceIdentifier === id('orders'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({
      Engine: 'postgres',
      DBInstanceClass: 'db.t3.micro',
      AllocatedStorage: 20,
      MultiAZ: false,
      BackupRetentionPeriod: 7,
      MasterUsername: 'steward',
      StorageEncrypted: true,
      PubliclyAccessible: false,
      DeletionProtection: true,
    });
    expect(tag(ours[0], RdsTags.ownerUid)).toBe(created.metadata.uid);
    expect(tag(ours[0], RdsTags.namespace)).toBe(ns);
    expect(tag(ours[0], RdsTags.name)).toBe('orders');
    expect(JSON.stringify(dbi)).not.toContain(PASSWORD);

    await admin.update<Dbi>(Dbis, { ...dbi, spec: { ...dbi.spec, storageGiB: 30 } });
    await eventually(async () => (await instance('orders'))?.AllocatedStorage === 30, {
      description: 'storage grown at RDS',
    });
    await eventually(async () => (await read('orders')).status?.atProvider?.storageGiB === 30, {
      description: 'status.atProvider.storageGiB',
    });
    expect(count('ModifyDBInstance')).toBe(1);
    expect(count('CreateDBInstance')).toBe(1);
  });

  it('reports a major version change as NotSupported and modifies nothing; reverting it is Ready again', async () => {
    run();
    await create('versioned');
    await ready('versioned');
    const dbi = await read('versioned');
    await admin.update<Dbi>(Dbis, { ...dbi, spec: { ...dbi.spec, version: '17' } });
    const unsupported = await eventually(
      async () => {
        const c = await condition('versioned', 'Ready');
        return c?.reason === 'NotSupported' ? c : undefined;
      },
      { description: 'Ready=False NotSupported' },
    );
    expect(unsupported.status).toBe('False');
    expect(unsupported.message).toMatch(
      /^spec\.version 17 asks for postgres 17 but the instance runs 16 .*the aws provider does not change an engine's major version in place/,
    );
    expect((await condition('versioned', 'Stalled'))?.status).toBe('True');
    // the issue's case: generation 2 refused is observed — Synced=False, kstatus Failed
    const refused = await read('versioned');
    expect(refused.metadata.generation).toBe(2);
    expect(await gitOpsReading(refused)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect((await condition('versioned', 'Synced'))?.status).toBe('False');
    expect((await instance('versioned'))?.EngineVersion).toMatch(/^16/);
    expect(count('ModifyDBInstance')).toBe(0);

    const current = await read('versioned');
    await admin.update<Dbi>(Dbis, { ...current, spec: { ...current.spec, version: '16' } });
    await eventually(async () => (await condition('versioned', 'Ready'))?.status === 'True', {
      description: 'Ready again after the revert',
    });
  });

  it('with deletionPolicy Retain (default), lets the object go and keeps the instance', async () => {
    run();
    await create('kept');
    await ready('kept');
    await admin.delete(Dbis, 'kept', ns);
    await eventually(() => gone('kept'), { description: 'object gone' });
    expect((await instance('kept'))?.DBInstanceStatus).toBe('available');
    expect(count('DeleteDBInstance')).toBe(0);
  });

  it('with deletionPolicy Delete, lifts the deletion protection, takes a final snapshot and deletes the instance', async () => {
    run();
    await create('doomed', { deletionPolicy: 'Delete' });
    await ready('doomed');
    // Protected: RDS itself refuses to delete it (moto as RDS).
    await expect(
      rds.send(
        new DeleteDBInstanceCommand({
          DBInstanceIdentifier: id('doomed'),
          SkipFinalSnapshot: true,
        }),
      ),
    ).rejects.toThrow(/protect/i);
    await admin.delete(Dbis, 'doomed', ns);
    await eventually(() => gone('doomed'), { description: 'object gone' });
    expect(await instance('doomed')).toBeUndefined();
    const snapshots = await snapshotsOf('doomed');
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatch(new RegExp(`^${id('doomed')}-final-\\d{14}$`));
  });

  it('with finalSnapshot false, deletes without a snapshot', async () => {
    run();
    await create('no-snap', { deletionPolicy: 'Delete', finalSnapshot: false });
    await ready('no-snap');
    await admin.delete(Dbis, 'no-snap', ns);
    await eventually(() => gone('no-snap'), { description: 'object gone' });
    expect(await instance('no-snap')).toBeUndefined();
    expect(await snapshotsOf('no-snap')).toEqual([]);
  });

  it('refuses an instance of that identifier it did not create, touches nothing, and adopts it on spec.adopt', async () => {
    await rds.send(
      new CreateDBInstanceCommand({
        DBInstanceIdentifier: id('taken'),
        Engine: 'postgres',
        // the major version the object asks for: adopting does not upgrade (that is Unsupported)
        EngineVersion: '16.3',
        DBInstanceClass: 'db.t3.micro',
        AllocatedStorage: 20,
        MasterUsername: 'someone',
        MasterUserPassword: 'someone-elses-password',
        Tags: [{ Key: 'team', Value: 'other' }],
      }),
    );
    const settings = (i: DBInstance | undefined) => ({
      class: i?.DBInstanceClass,
      storage: i?.AllocatedStorage,
      multiAZ: i?.MultiAZ,
      retention: i?.BackupRetentionPeriod,
      tags: i?.TagList,
    });
    const before = settings(await instance('taken'));
    run();
    const created = await create('taken');
    await eventually(async () => (await condition('taken', 'Ready'))?.reason === 'AlreadyExists', {
      description: 'AlreadyExists',
    });
    expect((await condition('taken', 'Ready'))?.status).toBe('False');
    await sleep(1_000);
    expect(settings(await instance('taken'))).toEqual(before);
    expect(calls.filter((c) => c !== 'DescribeDBInstances')).toEqual([]);

    const dbi = await read('taken');
    await admin.update<Dbi>(Dbis, { ...dbi, spec: { ...dbi.spec, adopt: true } });
    await ready('taken');
    const adopted = await instance('taken');
    expect(tag(adopted, RdsTags.ownerUid)).toBe(created.metadata.uid);
    expect(tag(adopted, 'team')).toBe('other');
    expect(count('CreateDBInstance')).toBe(0);
  });

  it('stalls with InvalidParameter on what RDS would refuse, without calling CreateDBInstance', async () => {
    run();
    await create('tiny', { storageGiB: 10 });
    await eventually(
      async () => (await condition('tiny', 'Stalled'))?.reason === 'InvalidParameter',
      {
        description: 'Stalled InvalidParameter',
      },
    );
    expect((await condition('tiny', 'Stalled'))?.message).toContain('spec.storageGiB 10');
    const { resourceVersion } = (await read('tiny')).metadata;
    await sleep(1_500);
    expect((await read('tiny')).metadata.resourceVersion).toBe(resourceVersion);
    expect(count('CreateDBInstance')).toBe(0);
    expect(await instance('tiny')).toBeUndefined();
  });

  it('stalls with InvalidParameter on what RDS refuses, after one CreateDBInstance call', async () => {
    run();
    await create('bad-subnet', {
      providerOverrides: { aws: { dbSubnetGroupName: 'no-such-group' } },
    });
    await eventually(
      async () => (await condition('bad-subnet', 'Stalled'))?.reason === 'InvalidParameter',
      { description: 'Stalled InvalidParameter' },
    );
    expect((await condition('bad-subnet', 'Stalled'))?.message).toContain('no-such-group');
    await sleep(300); // the reconciler's own ledger write may still be settling
    const { resourceVersion } = (await read('bad-subnet')).metadata;
    await sleep(1_500);
    expect((await read('bad-subnet')).metadata.resourceVersion).toBe(resourceVersion);
    expect(count('CreateDBInstance')).toBe(1);
  });

  it('after a CreateDBInstance whose response was lost, ends with exactly one instance and Ready', async () => {
    loseNextCreateResponse = true;
    run();
    await create('lost');
    await ready('lost');
    const { DBInstances } = await rds.send(new DescribeDBInstancesCommand({}));
    expect(DBInstances!.filter((i) => i.DBInstanceIdentifier === id('lost'))).toHaveLength(1);
    expect(loseNextCreateResponse).toBe(false);
    expect(count('CreateDBInstance')).toBe(1);
    const dbi = await read('lost');
    expect(ledgerState(dbi.metadata.annotations)).toBe('succeeded');
  });
});
