import { v1 } from '@google-cloud/sql';
import { findCondition } from '@steward/conditions';
import { controllerFor, Manager } from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeEventRecorder } from '@steward/events';
import { externalChanges, ledgerState, managedReconciler } from '@steward/external';
import { KubeClient, Namespaces, NotFoundError } from '@steward/kube';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GcpConfig } from '../src/provider-config.js';
import { type ProviderProfile } from '@steward/provider-profile-api';

/** The admitted profile the provider gets as its context: only what validate reads of it. */
const profileOf = (c: GcpConfig): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'gcp' },
    spec: {
      provider: 'gcp',
      namespaceSelector: {},
      sizeClasses: c.sizeClasses,
      gcp: { region: c.region },
    },
  }) as ProviderProfile;
import { cloudSqlExternalProvider, cloudSqlInstanceName, OwnerLabels } from '../src/gcp/index.js';

type DB = DatabaseInstance;
type Spec = DB['spec'];
const Kind = DatabaseInstance.resourceType;
const project = 'steward-test';
const rootPassword = 'Sup3r-Secret-Root-Pw';

let plane: ControlPlane;
let admin: KubeClient;
let api: CloudSqlApi;
let config: GcpConfig;
const running: { manager: Manager; recorder: KubeEventRecorder }[] = [];
let ns = 'gcp';
let testNumber = 0;

beforeAll(async () => {
  [plane, api] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    // PENDING_CREATE lasts long enough to be seen in status.
    startCloudSqlApi({ operationStepMs: 100, createMs: 1_500 }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  config = {
    project,
    region: 'europe-west1',
    clientOptions: api.clientOptions() as Record<string, unknown>,
    sizeClasses: { small: 'db-custom-1-3840', medium: 'db-custom-2-7680' },
  };
});
beforeEach(async () => {
  ns = `gcp-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.manager.stop();
    await r.recorder.shutdown();
  }
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), api?.stop()]);
});

function run(): void {
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: 'database-instance-controller',
  });
  const recorder = new KubeEventRecorder(manager.client, {
    reportingController: 'steward.dev/database-instance-controller',
  });
  controllerFor(manager, Kind, {
    selection: { namespace: ns },
    predicates: [externalChanges],
  })
    .named('databaseinstance')
    .completeObjects(
      managedReconciler<DB, ProviderProfile>({
        client: manager.client,
        resourceType: Kind,
        admit: () => ({
          action: 'manage',
          provider: cloudSqlExternalProvider({
            resolveConfig: async () => config,
            passwordFor: () => rootPassword,
          }),
          context: profileOf(config),
          adoptionAllowed: true,
        }),
        finalizer: 'database.steward.dev/external',
        busyPollIntervalMs: 150,
        pollIntervalMs: 1_000,
        events: recorder,
      }),
    );
  manager.start().catch(() => undefined);
  running.push({ manager, recorder });
}

const create = (name: string, spec: Partial<Spec> = {}) =>
  admin.create<DB>(Kind, {
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace: ns },
    spec: {
      providerProfileRef: { name: 'gcp' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 10,
      ...spec,
    },
  });
const read = (name: string) => admin.get<DB>(Kind, name, ns);
const condition = async (name: string, type: string) =>
  findCondition((await read(name)).status?.conditions, type);
const ready = (name: string) =>
  eventually(async () => (await condition(name, 'Ready'))?.status === 'True', {
    description: `${name} Ready`,
    timeoutMs: 30_000,
  });
const gone = (name: string) =>
  eventually(
    () =>
      read(name).then(
        () => false,
        (e) => e instanceof NotFoundError,
      ),
    { description: `${name} gone`, timeoutMs: 30_000 },
  );
const instanceName = (name: string) => cloudSqlInstanceName(ns, name);
const instance = (name: string) => api.instances().find((i) => i.name === instanceName(name));
const requestsFor = (method: string, name: string) =>
  api
    .requests()
    .filter(
      (r) =>
        r.method === method &&
        ((r.body as { name?: string } | undefined)?.name === instanceName(name) ||
          r.path.endsWith(`/instances/${instanceName(name)}`)),
    );

describe('DatabaseInstance on Cloud SQL (local Cloud SQL Admin API, real client, real API server)', () => {
  it('creates one labelled instance, reports creating, then Ready with its endpoint once RUNNABLE', async () => {
    run();
    const created = await create('orders');
    await eventually(async () => (await read('orders')).status?.providerState === 'creating', {
      description: 'providerState creating',
    });
    expect(instance('orders')?.state).toBe('PENDING_CREATE');
    await ready('orders');

    const db = await read('orders');
    const [only] = api
      .instances()
      .filter((i) => i.userLabels[OwnerLabels.uid] === created.metadata.uid);
    expect(
      api.instances().filter((i) => i.userLabels[OwnerLabels.uid] === created.metadata.uid),
    ).toHaveLength(1);
    expect(only).toMatchObject({
      name: instanceName('orders'),
      state: 'RUNNABLE',
      databaseVersion: 'POSTGRES_16',
      region: 'europe-west1',
      tier: 'db-custom-1-3840',
      dataDiskSizeGb: 10,
      availabilityType: 'ZONAL',
      backupEnabled: true,
      userLabels: {
        [OwnerLabels.uid]: created.metadata.uid,
        [OwnerLabels.namespace]: ns,
        [OwnerLabels.name]: 'orders',
        [OwnerLabels.managedBy]: 'steward',
      },
    });
    expect(db.status).toMatchObject({
      externalName: instanceName('orders'),
      providerState: 'available',
      endpoint: { host: only!.ipAddresses[0]!.ipAddress, port: 5432 },
      atProvider: {
        status: 'RUNNABLE',
        instanceClass: 'db-custom-1-3840',
        engineVersion: 'POSTGRES_16',
        storageGiB: 10,
        highAvailability: false,
        backupRetentionDays: 7,
        // Secure by default (spec.security), as Cloud SQL reports it.
        storageEncrypted: true,
        deletionProtection: true,
        requireTLS: true,
      },
    });
    const settings = only!.resource['settings'] as {
      deletionProtectionEnabled: boolean;
      ipConfiguration: { sslMode: string; ipv4Enabled: boolean };
    };
    expect(settings.deletionProtectionEnabled).toBe(true);
    expect(settings.ipConfiguration).toMatchObject({
      sslMode: 'ENCRYPTED_ONLY',
      ipv4Enabled: true,
    });
    expect(requestsFor('instances.insert', 'orders')).toHaveLength(1);
    // The root password went to Cloud SQL and nowhere else.
    expect(requestsFor('instances.insert', 'orders')[0]!.body).toMatchObject({ rootPassword });
    expect(JSON.stringify(db)).not.toContain(rootPassword);
  });

  it('grows the storage with instances.patch', async () => {
    run();
    await create('growing');
    await ready('growing');
    const db = await read('growing');
    await admin.update<DB>(Kind, { ...db, spec: { ...db.spec, storageGiB: 20 } });
    await eventually(() => instance('growing')?.dataDiskSizeGb === 20, {
      description: 'disk grown to 20 GB',
      timeoutMs: 30_000,
    });
    await eventually(async () => (await read('growing')).status?.atProvider?.storageGiB === 20, {
      description: 'status shows 20 GB',
    });
    await ready('growing');
    const patches = requestsFor('instances.patch', 'growing').filter((r) => r.status === 200);
    expect(patches).toHaveLength(1);
    expect(patches[0]!.body).toMatchObject({ settings: { dataDiskSizeGb: '20' } });
    expect(requestsFor('instances.insert', 'growing')).toHaveLength(1);
  });

  it('reports a major version change as NotSupported and patches nothing; status shows the version by name', async () => {
    run();
    await create('versioned');
    await ready('versioned');
    const db = await read('versioned');
    expect(db.status?.atProvider?.engineVersion).toMatch(/^POSTGRES_\d+$/);
    await admin.update<DB>(Kind, { ...db, spec: { ...db.spec, version: '17' } });
    const unsupported = await eventually(
      async () => {
        const c = await condition('versioned', 'Ready');
        return c?.reason === 'NotSupported' ? c : undefined;
      },
      { description: 'Ready=False NotSupported' },
    );
    expect(unsupported.status).toBe('False');
    expect(unsupported.message).toMatch(
      /^spec\.version 17 asks for postgres 17 but the instance runs 16 \(POSTGRES_16\): the gcp provider/,
    );
    expect(requestsFor('instances.patch', 'versioned')).toHaveLength(0);
  });

  it('keeps the instance with the default deletionPolicy Retain', async () => {
    run();
    await create('kept');
    await ready('kept');
    await admin.delete(Kind, 'kept', ns);
    await gone('kept');
    expect(instance('kept')?.state).toBe('RUNNABLE');
    expect(requestsFor('instances.delete', 'kept')).toHaveLength(0);
  });

  it('deletes with deletionPolicy Delete, lifting the deletion protection first and taking a FINAL backup by default', async () => {
    run();
    await create('doomed', { deletionPolicy: 'Delete' });
    await ready('doomed');
    await admin.delete(Kind, 'doomed', ns);
    await gone('doomed');
    // The protection was lifted by a patch before the delete (Cloud SQL refuses it otherwise).
    const patches = requestsFor('instances.patch', 'doomed');
    expect(
      patches.map((r) => (r.body as { settings?: Record<string, unknown> }).settings),
    ).toContainEqual(expect.objectContaining({ deletionProtectionEnabled: false }));
    expect(instance('doomed')).toBeUndefined();
    expect(api.backups().filter((b) => b.instance === instanceName('doomed'))).toEqual([
      expect.objectContaining({ type: 'FINAL', status: 'SUCCESSFUL' }),
    ]);
    expect(requestsFor('instances.delete', 'doomed')[0]!.query).toMatchObject({
      enableFinalBackup: 'true',
    });
  });

  it('deletes without a final backup when spec.finalSnapshot is false', async () => {
    run();
    await create('no-backup', { deletionPolicy: 'Delete', finalSnapshot: false });
    await ready('no-backup');
    await admin.delete(Kind, 'no-backup', ns);
    await gone('no-backup');
    expect(instance('no-backup')).toBeUndefined();
    expect(api.backups().filter((b) => b.instance === instanceName('no-backup'))).toEqual([]);
  });

  it('refuses an existing instance it did not create (AlreadyExists, untouched) until spec.adopt', async () => {
    const foreign = new v1.SqlInstancesServiceClient(api.clientOptions());
    try {
      await foreign.insert({
        project,
        body: {
          name: instanceName('taken'),
          databaseVersion: 'POSTGRES_16',
          region: 'europe-west1',
          settings: {
            tier: 'db-custom-1-3840',
            dataDiskSizeGb: { value: 10 },
            backupConfiguration: {
              enabled: { value: true },
              backupRetentionSettings: { retentionUnit: 'COUNT', retainedBackups: { value: 7 } },
            },
            userLabels: { team: 'billing' },
          },
        },
      });
    } finally {
      await foreign.close();
    }
    await eventually(() => instance('taken')?.state === 'RUNNABLE', { description: 'RUNNABLE' });
    const before = instance('taken')!.resource;

    run();
    await create('taken');
    await eventually(async () => (await condition('taken', 'Ready'))?.reason === 'AlreadyExists', {
      description: 'AlreadyExists',
    });
    expect((await condition('taken', 'Stalled'))?.status).toBe('True');
    await sleep(1_000);
    expect(instance('taken')!.resource).toEqual(before);
    expect(requestsFor('instances.insert', 'taken')).toHaveLength(1); // the foreign one
    expect(requestsFor('instances.patch', 'taken')).toHaveLength(0);

    const db = await read('taken');
    await admin.update<DB>(Kind, { ...db, spec: { ...db.spec, adopt: true } });
    await eventually(() => instance('taken')?.userLabels[OwnerLabels.uid] === db.metadata.uid, {
      description: 'owner label added on adoption',
      timeoutMs: 30_000,
    });
    await ready('taken');
    expect(instance('taken')!.userLabels).toMatchObject({ team: 'billing' });
    expect(requestsFor('instances.insert', 'taken')).toHaveLength(1);
  });

  it('stalls with InvalidParameter, without retrying, for a version or tier Cloud SQL refuses', async () => {
    run();
    await create('bad-version', { version: '99' });
    await create('bad-tier', {
      size: undefined,
      providerOverrides: { gcp: { tier: 'db-custom-3-1000' } },
    });
    for (const name of ['bad-version', 'bad-tier']) {
      await eventually(
        async () => (await condition(name, 'Stalled'))?.reason === 'InvalidParameter',
        {
          description: `${name} Stalled InvalidParameter`,
        },
      );
    }
    expect((await condition('bad-version', 'Ready'))?.message).toContain('spec.version 99');
    expect((await condition('bad-tier', 'Ready'))?.message).toContain(
      'Invalid Tier (db-custom-3-1000)',
    );
    expect(ledgerState((await read('bad-tier')).metadata.annotations)).toBe('failed');
    const versions = [
      (await read('bad-version')).metadata.resourceVersion,
      (await read('bad-tier')).metadata.resourceVersion,
    ];
    await sleep(1_500);
    expect(requestsFor('instances.insert', 'bad-version')).toHaveLength(0);
    expect(requestsFor('instances.insert', 'bad-tier')).toHaveLength(1);
    // No write storm on the API server either: the stalled objects are left alone.
    expect([
      (await read('bad-version')).metadata.resourceVersion,
      (await read('bad-tier')).metadata.resourceVersion,
    ]).toEqual(versions);

    // Fixing the spec is all it takes.
    const bad = await read('bad-version');
    await admin.update<DB>(Kind, { ...bad, spec: { ...bad.spec, version: '16' } });
    await ready('bad-version');
    expect(requestsFor('instances.insert', 'bad-version')).toHaveLength(1);
  });

  it('after an insert whose response was lost (503 after it took effect), ends with exactly one instance and Ready', async () => {
    api.failNext('instances.insert', { code: 503, afterProcessing: true });
    run();
    const created = await create('lost-response');
    await ready('lost-response');
    const inserts = requestsFor('instances.insert', 'lost-response');
    expect(inserts[0]!.status).toBe(503);
    expect(inserts.filter((r) => r.status === 200)).toHaveLength(0);
    expect(
      api.instances().filter((i) => i.userLabels[OwnerLabels.uid] === created.metadata.uid),
    ).toHaveLength(1);
    expect(ledgerState((await read('lost-response')).metadata.annotations)).toBe('succeeded');
  });

  it('retries an insert refused with 503 and becomes Ready', async () => {
    api.failNext('instances.insert', { code: 503 });
    run();
    await create('flaky');
    await ready('flaky');
    expect(requestsFor('instances.insert', 'flaky').map((r) => r.status)).toEqual([503, 200]);
    expect(api.instances().filter((i) => i.name === instanceName('flaky'))).toHaveLength(1);
  });
});
