import { v1, type protos } from '@google-cloud/sql';
import { eventually, tcpConnect } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudSqlApi, type CloudSqlApi } from '../src/index.js';

type IDatabaseInstance = protos.google.cloud.sql.v1.IDatabaseInstance;
type IOperation = protos.google.cloud.sql.v1.IOperation;

const project = 'steward-test';

/** What the real client surfaces when a call fails. */
interface Surfaced {
  name: string;
  code: unknown;
  message: string;
  status: unknown;
}

async function rejection(call: Promise<unknown>): Promise<Surfaced> {
  try {
    await call;
  } catch (error) {
    const e = error as Error & { code?: unknown; status?: unknown };
    return { name: e.constructor.name, code: e.code, message: e.message, status: e.status };
  }
  throw new Error('expected the call to be rejected, but it succeeded');
}

function postgres(name: string, extra: Partial<IDatabaseInstance> = {}): IDatabaseInstance {
  return {
    name,
    databaseVersion: 'POSTGRES_16',
    region: 'europe-west1',
    settings: {
      tier: 'db-custom-1-3840',
      dataDiskSizeGb: { value: 10 },
      userLabels: { 'steward-dev_owner': 'ns-a-db-1', managed: 'steward' },
    },
    ...extra,
  };
}

describe('the local Cloud SQL Admin API, driven by the real @google-cloud/sql client', () => {
  let api: CloudSqlApi;
  let instances: v1.SqlInstancesServiceClient;
  let operations: v1.SqlOperationsServiceClient;
  let backupRuns: v1.SqlBackupRunsServiceClient;
  let backups: v1.SqlBackupsServiceClient;

  /** Polls operations.get until DONE; returns every status seen, in order, and the final operation. */
  async function pollOperation(op: IOperation) {
    const seen: string[] = [String(op.status)];
    const done = await eventually(
      async () => {
        const [current] = await operations.get({ project, operation: op.name! });
        if (seen.at(-1) !== current.status) seen.push(String(current.status));
        return current.status === 'DONE' && current;
      },
      { intervalMs: 20, timeoutMs: 20_000, description: `operation ${op.name} DONE` },
    );
    return { seen, done };
  }

  async function createRunnable(body: IDatabaseInstance) {
    const [op] = await instances.insert({ project, body });
    const { done } = await pollOperation(op);
    expect(done.error).toBeNull();
    const [instance] = await instances.get({ project, instance: body.name! });
    return instance;
  }

  beforeAll(async () => {
    api = await startCloudSqlApi({ operationStepMs: 300, createMs: 600 });
    instances = new v1.SqlInstancesServiceClient(api.clientOptions());
    operations = new v1.SqlOperationsServiceClient(api.clientOptions());
    backupRuns = new v1.SqlBackupRunsServiceClient(api.clientOptions());
    backups = new v1.SqlBackupsServiceClient(api.clientOptions());
  });

  afterAll(async () => {
    await Promise.all([instances, operations, backupRuns, backups].map((c) => c?.close()));
    await api?.stop();
  });

  it('creates an instance: the operation goes PENDING → RUNNING → DONE, the instance PENDING_CREATE → RUNNABLE with an address', async () => {
    const [op] = await instances.insert({ project, body: postgres('orders-db') });
    expect(op).toMatchObject({
      kind: 'sql#operation',
      operationType: 'CREATE',
      status: 'PENDING',
      targetId: 'orders-db',
      targetProject: project,
    });

    const [creating] = await instances.get({ project, instance: 'orders-db' });
    expect(creating.state).toBe('PENDING_CREATE');
    expect(creating.ipAddresses).toEqual([]);
    expect(creating.connectionName).toBe('');

    const { seen, done } = await pollOperation(op);
    expect(seen).toEqual(['PENDING', 'RUNNING', 'DONE']);
    expect(done.error).toBeNull();
    expect(done.endTime).not.toBeNull();

    const [instance] = await instances.get({ project, instance: 'orders-db' });
    expect(instance).toMatchObject({
      kind: 'sql#instance',
      name: 'orders-db',
      state: 'RUNNABLE',
      databaseVersion: 'POSTGRES_16',
      region: 'europe-west1',
      gceZone: 'europe-west1-a',
      connectionName: `${project}:europe-west1:orders-db`,
      backendType: 'SECOND_GEN',
      instanceType: 'CLOUD_SQL_INSTANCE',
    });
    expect(instance.ipAddresses).toHaveLength(1);
    expect(instance.ipAddresses![0]).toMatchObject({ type: 'PRIMARY' });
    expect(instance.ipAddresses![0]!.ipAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(instance.settings).toMatchObject({
      tier: 'db-custom-1-3840',
      dataDiskSizeGb: { value: '10' },
      availabilityType: 'ZONAL',
      edition: 'ENTERPRISE',
      settingsVersion: { value: '1' },
      userLabels: { 'steward-dev_owner': 'ns-a-db-1', managed: 'steward' },
    });

    expect(api.instances()).toEqual([
      expect.objectContaining({ name: 'orders-db', state: 'RUNNABLE', dataDiskSizeGb: 10 }),
    ]);
  });

  it('refuses to insert a name that exists: ALREADY_EXISTS (code 6), HTTP 409', async () => {
    const error = await rejection(instances.insert({ project, body: postgres('orders-db') }));
    console.log('insert of an existing name surfaces as', error);
    expect(error).toEqual({
      name: 'GoogleError',
      code: 6,
      message:
        "The Cloud SQL instance already exists. When you delete an instance, you can't reuse the name of the deleted instance until one week from the deletion date.",
      status: undefined,
    });
    expect(api.requests().at(-1)).toMatchObject({ method: 'instances.insert', status: 409 });
  });

  it('answers get of a missing instance with NOT_FOUND (code 5), HTTP 404', async () => {
    const error = await rejection(instances.get({ project, instance: 'no-such-db' }));
    console.log('get of a missing instance surfaces as', error);
    expect(error).toEqual({
      name: 'GoogleError',
      code: 5,
      message: 'The Cloud SQL instance does not exist.',
      status: undefined,
    });
    expect(api.requests().at(-1)).toMatchObject({ method: 'instances.get', status: 404 });
  });

  it('lists instances, filtered by name, label or state, a page at a time', async () => {
    await createRunnable(postgres('billing-db', { settings: { tier: 'db-f1-micro' } }));

    const names = async (filter?: string) => {
      const [list] = await instances.list({ project, filter });
      return (list.items ?? []).map((i) => i.name);
    };
    expect(await names()).toEqual(['billing-db', 'orders-db']);
    expect(await names('name:orders-db')).toEqual(['orders-db']);
    expect(await names('settings.userLabels.managed:steward')).toEqual(['orders-db']);
    expect(await names('settings.userLabels.managed:steward state:RUNNABLE')).toEqual([
      'orders-db',
    ]);
    expect(await names('-settings.userLabels.managed:*')).toEqual(['billing-db']);
    expect(await names('name:billing-*')).toEqual(['billing-db']);

    const [first] = await instances.list({ project, maxResults: 1 });
    expect(first.items?.map((i) => i.name)).toEqual(['billing-db']);
    expect(first.nextPageToken).not.toBe('');
    const [second] = await instances.list({
      project,
      maxResults: 1,
      pageToken: first.nextPageToken,
    });
    expect(second.items?.map((i) => i.name)).toEqual(['orders-db']);
    expect(second.nextPageToken).toBe('');

    const unsupported = await rejection(instances.list({ project, filter: 'name:a OR name:b' }));
    expect(unsupported.code).toBe(3);
  });

  it('patches tier, disk size, backups and availability; one operation at a time', async () => {
    const [op] = await instances.patch({
      project,
      instance: 'orders-db',
      body: {
        settings: {
          tier: 'db-custom-2-7680',
          dataDiskSizeGb: { value: 20 },
          availabilityType: 'REGIONAL',
          backupConfiguration: {
            enabled: { value: true },
            startTime: '03:00',
            pointInTimeRecoveryEnabled: { value: true },
            backupRetentionSettings: { retainedBackups: { value: 14 }, retentionUnit: 'COUNT' },
          },
        },
      },
    });
    expect(op).toMatchObject({ operationType: 'UPDATE', status: 'PENDING' });

    // Another change while the update runs is refused, as on the real service.
    const busy = await rejection(
      instances.patch({
        project,
        instance: 'orders-db',
        body: { settings: { tier: 'db-custom-4-15360' } },
      }),
    );
    console.log('a patch during another operation surfaces as', busy);
    expect(busy).toMatchObject({
      code: 10,
      message: 'Operation failed because another operation was already in progress.',
    });

    // Settings change when the operation is done, not before.
    const [during] = await instances.get({ project, instance: 'orders-db' });
    expect(during.settings?.tier).toBe('db-custom-1-3840');

    const { done } = await pollOperation(op);
    expect(done.error).toBeNull();
    const [after] = await instances.get({ project, instance: 'orders-db' });
    expect(after.settings).toMatchObject({
      tier: 'db-custom-2-7680',
      dataDiskSizeGb: { value: '20' },
      availabilityType: 'REGIONAL',
      settingsVersion: { value: '2' },
      backupConfiguration: {
        enabled: { value: true },
        startTime: '03:00',
        pointInTimeRecoveryEnabled: { value: true },
        backupRetentionSettings: { retainedBackups: { value: 14 }, retentionUnit: 'COUNT' },
      },
      // The client always sends `userLabels: {}`; that leaves the labels alone.
      userLabels: { 'steward-dev_owner': 'ns-a-db-1', managed: 'steward' },
    });
    expect(after.secondaryGceZone).toBe('europe-west1-b');

    const shrink = await rejection(
      instances.patch({
        project,
        instance: 'orders-db',
        body: { settings: { dataDiskSizeGb: { value: 15 } } },
      }),
    );
    console.log('a disk shrink surfaces as', shrink);
    expect(shrink.code).toBe(3);
    expect(shrink.message).toMatch(/^Invalid request: The disk size cannot be decreased/);

    // A non-empty label map replaces the labels.
    const [relabel] = await instances.patch({
      project,
      instance: 'orders-db',
      body: { settings: { userLabels: { managed: 'steward', 'steward-dev_create': 'done' } } },
    });
    await pollOperation(relabel);
    expect(api.instances().find((i) => i.name === 'orders-db')?.userLabels).toEqual({
      managed: 'steward',
      'steward-dev_create': 'done',
    });
  });

  it('takes an on-demand backup run: a BACKUP_VOLUME operation', async () => {
    const [op] = await backupRuns.insert({
      project,
      instance: 'orders-db',
      body: { description: 'before delete' },
    });
    expect(op.operationType).toBe('BACKUP_VOLUME');
    const id = op.backupContext?.backupId;
    expect(id).toMatch(/^\d+$/);
    await pollOperation(op);
    const [run] = await backupRuns.get({ project, instance: 'orders-db', id });
    expect(run).toMatchObject({
      status: 'SUCCESSFUL',
      type: 'ON_DEMAND',
      description: 'before delete',
      instance: 'orders-db',
    });
    const [list] = await backupRuns.list({ project, instance: 'orders-db' });
    expect(list.items?.map((r) => r.id)).toEqual([id]);
  });

  it('deletes with a final backup: PENDING_DELETE until the operation is DONE, then 404', async () => {
    const [op] = await instances.delete({
      project,
      instance: 'orders-db',
      enableFinalBackup: true,
      finalBackupTtlDays: 7,
      finalBackupDescription: 'final',
    });
    expect(op).toMatchObject({ operationType: 'DELETE', status: 'PENDING' });
    const [deleting] = await instances.get({ project, instance: 'orders-db' });
    expect(deleting.state).toBe('PENDING_DELETE');

    const { seen, done } = await pollOperation(op);
    expect(seen).toEqual(['PENDING', 'RUNNING', 'DONE']);
    expect(done.error).toBeNull();
    expect((await rejection(instances.get({ project, instance: 'orders-db' }))).code).toBe(5);

    // The backup runs went with the instance; the final backup outlives it.
    const [finals] = await backups.listBackups({ parent: `projects/${project}` });
    expect(finals).toEqual([
      expect.objectContaining({
        type: 'FINAL',
        instance: 'orders-db',
        state: 'SUCCESSFUL',
        description: 'final',
      }),
    ]);
    expect(api.backups().map((b) => b.type)).toEqual(['FINAL']);

    // The name stays taken, as on the real service (for a week).
    expect((await rejection(instances.insert({ project, body: postgres('orders-db') }))).code).toBe(
      6,
    );
  });

  it('rejects invalid input with INVALID_ARGUMENT (code 3), before any operation', async () => {
    const invalid = async (body: IDatabaseInstance) => {
      const error = await rejection(instances.insert({ project, body }));
      expect(api.requests().at(-1)?.status).toBe(400);
      return error;
    };
    // The client drops an enum name it does not know before sending: the server sees no version.
    const unknownName = await invalid(
      postgres('bad-1', { databaseVersion: 'POSTGRES_99' as unknown as 'POSTGRES_16' }),
    );
    console.log('an unknown databaseVersion name surfaces as', unknownName);
    expect(unknownName).toMatchObject({
      code: 3,
      message: 'Invalid request: Missing databaseVersion.',
    });
    expect(api.requests().at(-1)?.body).not.toHaveProperty('databaseVersion');

    const unknownNumber = await invalid(
      postgres('bad-2', { databaseVersion: 9999 as unknown as 'POSTGRES_16' }),
    );
    expect(unknownNumber).toMatchObject({
      code: 3,
      message: 'Invalid request: Invalid database version (9999).',
    });

    const tier = await invalid(postgres('bad-3', { settings: { tier: 'db-custom-3-1000' } }));
    expect(tier.message).toBe(
      'Invalid request: Invalid Tier (db-custom-3-1000) for (POSTGRES_16) Edition (ENTERPRISE). Choose a tier from the list returned by SqlTiers.List.',
    );
    const edition = await invalid(
      postgres('bad-4', { settings: { tier: 'db-perf-optimized-N-2', edition: 'ENTERPRISE' } }),
    );
    expect(edition.code).toBe(3);
    const disk = await invalid(
      postgres('bad-5', { settings: { tier: 'db-custom-1-3840', dataDiskSizeGb: { value: 5 } } }),
    );
    expect(disk.message).toMatch(/dataDiskSizeGb \(5\)/);
    const name = await invalid(postgres('Bad_Name'));
    expect(name.message).toMatch(/^Invalid request: Instance name \(Bad_Name\) is invalid/);
    expect(api.instances().map((i) => i.name)).toEqual(['billing-db']);
  });

  it('surfaces injected HTTP errors without retrying them', async () => {
    api.failNext('instances.insert', { code: 503 });
    const before = api.requests().length;
    const unavailable = await rejection(instances.insert({ project, body: postgres('flaky-db') }));
    console.log('an injected 503 on insert surfaces as', unavailable);
    expect(unavailable).toEqual({
      name: 'GoogleError',
      code: 14,
      message: 'The service is currently unavailable.',
      status: undefined,
    });
    // One request: insert (like every v1 method) is configured non-idempotent, so gax never retries.
    expect(api.requests().length - before).toBe(1);
    expect(api.instances().map((i) => i.name)).not.toContain('flaky-db');

    api.failNext('instances.get', { code: 503, times: 1 });
    const getBefore = api.requests().length;
    expect((await rejection(instances.get({ project, instance: 'billing-db' }))).code).toBe(14);
    expect(api.requests().length - getBefore).toBe(1);

    api.failNext('instances.insert', { code: 429, retryAfterSeconds: 1 });
    const quota = await rejection(instances.insert({ project, body: postgres('flaky-db') }));
    expect(quota.code).toBe(8);

    api.failNext('instances.insert', { code: 400, message: 'Invalid request: injected.' });
    expect(
      await rejection(instances.insert({ project, body: postgres('flaky-db') })),
    ).toMatchObject({
      code: 3,
      message: 'Invalid request: injected.',
    });

    // A lost response: the insert happens, the caller sees 503, its retry gets ALREADY_EXISTS.
    api.failNext('instances.insert', { code: 503, afterProcessing: true });
    expect((await rejection(instances.insert({ project, body: postgres('flaky-db') }))).code).toBe(
      14,
    );
    expect(api.instances().map((i) => i.name)).toContain('flaky-db');
    expect((await rejection(instances.insert({ project, body: postgres('flaky-db') }))).code).toBe(
      6,
    );
  });

  it('reports a failed operation as DONE with error; a failed create leaves a FAILED instance', async () => {
    api.failNextOperation('instances.insert', { code: 'QUOTA_EXCEEDED', message: 'No capacity.' });
    const [op] = await instances.insert({ project, body: postgres('doomed-db') });
    const { seen, done } = await pollOperation(op);
    expect(seen).toEqual(['PENDING', 'RUNNING', 'DONE']);
    expect(done.error).toMatchObject({
      kind: 'sql#operationErrors',
      errors: [{ kind: 'sql#operationError', code: 'QUOTA_EXCEEDED', message: 'No capacity.' }],
    });
    const [instance] = await instances.get({ project, instance: 'doomed-db' });
    expect(instance.state).toBe('FAILED');

    const [deletion] = await instances.delete({ project, instance: 'doomed-db' });
    await pollOperation(deletion);
    expect((await rejection(instances.get({ project, instance: 'doomed-db' }))).code).toBe(5);
  });

  it('updates (PUT) whole settings against settingsVersion; deletion protection blocks delete', async () => {
    const [current] = await instances.get({ project, instance: 'billing-db' });
    const stale = await rejection(
      instances.update({
        project,
        instance: 'billing-db',
        body: { settings: { tier: 'db-g1-small', settingsVersion: { value: 99 } } },
      }),
    );
    expect(stale).toMatchObject({ code: 9, message: 'Precondition check failed.' });

    const [op] = await instances.update({
      project,
      instance: 'billing-db',
      body: {
        settings: {
          tier: 'db-g1-small',
          settingsVersion: current.settings!.settingsVersion,
          deletionProtectionEnabled: { value: true },
          userLabels: { team: 'billing' },
        },
      },
    });
    await pollOperation(op);
    const [updated] = await instances.get({ project, instance: 'billing-db' });
    expect(updated.settings).toMatchObject({
      tier: 'db-g1-small',
      userLabels: { team: 'billing' },
      deletionProtectionEnabled: { value: true },
      settingsVersion: { value: '2' },
    });

    const [ops] = await operations.list({ project, instance: 'billing-db' });
    expect(ops.items?.map((o) => o.operationType)).toEqual(['UPDATE', 'CREATE']);

    const protectedDelete = await rejection(instances.delete({ project, instance: 'billing-db' }));
    expect(protectedDelete.code).toBe(9);
    expect(protectedDelete.message).toMatch(/protected from deletion/);
  });

  it('speaks enum names to callers that do not ask for numbers, and refuses unknown fields', async () => {
    const url = `${api.baseUrl}/v1/projects/${project}/instances/billing-db`;
    const named = (await (await fetch(url)).json()) as {
      state: unknown;
      settings: { availabilityType: unknown };
    };
    expect(named.state).toBe('RUNNABLE');
    expect(named.settings.availabilityType).toBe('ZONAL');
    const numeric = (await (await fetch(`${url}?$alt=json;enum-encoding=int`)).json()) as {
      state: unknown;
    };
    expect(numeric.state).toBe(1);

    const insert = await fetch(`${api.baseUrl}/v1/projects/${project}/instances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'raw-db', databaseVersion: 'MYSQL_8_0', tirer: 'x' }),
    });
    expect(insert.status).toBe(400);
    expect(await insert.json()).toEqual({
      error: {
        code: 400,
        message: `Invalid JSON payload received. Unknown name "tirer" at 'body': Cannot find field.`,
        status: 'INVALID_ARGUMENT',
        errors: [
          {
            message: `Invalid JSON payload received. Unknown name "tirer" at 'body': Cannot find field.`,
            domain: 'global',
            reason: 'invalid',
          },
        ],
      },
    });
  });
});

describe('the local Cloud SQL Admin API on another host address', () => {
  it('listens on that address only, and reports it to the real client', async () => {
    const api = await startCloudSqlApi({ host: '127.0.0.2' });
    const instances = new v1.SqlInstancesServiceClient(api.clientOptions());
    try {
      const { port } = api.endpoint;
      expect(api.endpoint).toEqual({ apiEndpoint: '127.0.0.2', port, protocol: 'http' });
      expect(api.baseUrl).toBe(`http://127.0.0.2:${port}`);
      const [op] = await instances.insert({ project, body: postgres('orders-db') });
      expect(op.selfLink).toBe(`${api.baseUrl}/v1/projects/${project}/operations/${op.name}`);
      const [list] = await instances.list({ project });
      expect(list.items?.map((i) => i.name)).toEqual(['orders-db']);
      expect(await tcpConnect('127.0.0.1', port)).toBe('ECONNREFUSED');
    } finally {
      await instances.close();
      await api.stop();
    }
  });
});
