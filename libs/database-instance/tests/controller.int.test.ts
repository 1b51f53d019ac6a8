import { DescribeDBInstancesCommand, type RDSClient } from '@aws-sdk/client-rds';
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { ExternalAnnotations as A } from '@steward/external';
import { KubeClient, Namespaces, NotFoundError, Secrets, type KubeObject } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  repoRoot,
  gitOpsReading,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCredentials, localCloudSqlAuth } from './support/providers.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rdsIdentifier } from '../src/aws/index.js';
import { databaseInstanceController, DatabaseInstanceFinalizer } from '../src/controller/index.js';
import { cloudSqlInstanceName } from '../src/gcp/index.js';

type DB = DatabaseInstance;
type Profile = ProviderProfile;
const Kind = DatabaseInstance.resourceType;
const Profiles = ProviderProfile.resourceType;
interface Secret extends KubeObject {
  data?: Record<string, string>;
}

const CREDS_NS = 'steward-credentials';
let plane: ControlPlane;
let moto: Moto;
let api: CloudSqlApi;
let admin: KubeClient;
let rds: RDSClient;
let ns = 'dbc';
let testNumber = 0;
const running: Manager[] = [];

const awsProfile = (name: string, guardrails?: Profile['spec']['guardrails']): Profile =>
  ({
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: {
        region: moto.region,
        endpoint: moto.endpoint,
        credentialsSecretRef: { namespace: CREDS_NS, name: 'aws-creds' },
      },
      sizeClasses: { small: 'db.t3.micro' },
      ...(guardrails ? { guardrails } : {}),
    },
  }) as Profile;

beforeAll(async () => {
  [plane, moto, api] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
    startCloudSqlApi({ operationStepMs: 100 }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  rds = moto.rdsClient();
  await createCredentials(admin, moto, CREDS_NS);
  await admin.create<Profile>(Profiles, awsProfile('aws'));
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'gcp' },
    spec: {
      provider: 'gcp',
      namespaceSelector: {},
      gcp: {
        project: 'steward-test',
        region: 'europe-west1',
        endpoint: api.baseUrl,
        credentialsSecretRef: { namespace: CREDS_NS, name: 'gcp-creds' },
      },
      sizeClasses: { small: 'db-custom-1-3840' },
    },
  } as Profile);
});
beforeEach(async () => {
  ns = `dbc-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const manager of running.splice(0)) await manager.stop();
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), moto?.stop(), api?.stop()]);
});

function run(): void {
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: 'database-instance-controller',
  });
  databaseInstanceController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 500,
    busyPollIntervalMs: 200,
    // The local API's auth client; where to connect comes from the profile's spec.gcp.endpoint.
    gcpClientOptions: localCloudSqlAuth(api),
  });
  manager.start().catch(() => undefined);
  running.push(manager);
}

const create = (name: string, spec: Partial<DB['spec']> = {}) =>
  admin.create<DB>(Kind, {
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
  } as DB);
const read = (name: string) => admin.get<DB>(Kind, name, ns);
const condition = async (name: string, type: string) =>
  findCondition((await read(name)).status?.conditions, type);
const ready = (name: string) =>
  eventually(async () => (await condition(name, 'Ready'))?.status === 'True', {
    description: `${name} Ready`,
    timeoutMs: 30_000,
  });
const reason = (name: string, expected: string) =>
  eventually(async () => (await condition(name, 'Ready'))?.reason === expected, {
    description: `${name} Ready reason ${expected}`,
    timeoutMs: 30_000,
  });
const connectionSecret = async (name: string): Promise<Record<string, string> | undefined> => {
  const secret = await admin
    .get<Secret>(Secrets, `${name}-connection`, ns)
    .catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
  if (!secret) return undefined;
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
};
const rdsInstance = async (name: string) => {
  try {
    const out = await rds.send(
      new DescribeDBInstancesCommand({ DBInstanceIdentifier: rdsIdentifier(ns, name) }),
    );
    return out.DBInstances?.[0];
  } catch (error) {
    if ((error as Error).name === 'DBInstanceNotFoundFault') return undefined;
    throw error;
  }
};

describe('databaseInstanceController', () => {
  it('makes an RDS instance Ready through an aws profile and publishes its connection Secret', async () => {
    run();
    await create('orders');
    await ready('orders');
    const obj = await read('orders');
    expect(obj.metadata.finalizers).toContain(DatabaseInstanceFinalizer);
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    expect(obj.status?.endpoint?.host).toBeTruthy();
    expect((await rdsInstance('orders'))?.DBInstanceClass).toBe('db.t3.micro');
    const secret = await eventually(
      async () => {
        const s = await connectionSecret('orders');
        return s?.host ? s : undefined;
      },
      { description: 'host in the connection Secret' },
    );
    expect(secret).toMatchObject({
      username: 'steward_admin',
      host: obj.status!.endpoint!.host,
      port: String(obj.status!.endpoint!.port),
    });
    expect(secret.password?.length).toBeGreaterThanOrEqual(16);
    expect((await rdsInstance('orders'))?.MasterUsername).toBe('steward_admin');
    // the password stays out of status
    expect(JSON.stringify(obj.status)).not.toContain(secret.password);
  });

  it('makes a Cloud SQL instance Ready through a gcp profile whose endpoint is the local API', async () => {
    run();
    await create('billing', { providerProfileRef: { name: 'gcp' }, storageGiB: 10 });
    await ready('billing');
    const obj = await read('billing');
    const instance = api.instances().find((i) => i.name === cloudSqlInstanceName(ns, 'billing'));
    expect(instance?.state).toBe('RUNNABLE');
    const secret = await eventually(
      async () => {
        const s = await connectionSecret('billing');
        return s?.host ? s : undefined;
      },
      { description: 'host in the connection Secret' },
    );
    expect(secret).toMatchObject({
      host: obj.status!.endpoint!.host,
      port: '5432',
    });
    expect(secret.username).toBe('postgres'); // the user Cloud SQL set the root password for
    expect(secret.password).toBeTruthy();
    // the profile's endpoint was used: the local API saw the insert
    expect(api.requests().some((r) => r.method === 'instances.insert')).toBe(true);
  });

  it('stops with ProviderProfileNotFound and creates nothing; creating the profile resumes it', async () => {
    run();
    const profileName = `late-${testNumber}`;
    await create('orphan', { providerProfileRef: { name: profileName } });
    await reason('orphan', 'ProviderProfileNotFound');
    const obj = await read('orphan');
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect(findCondition(obj.status?.conditions, 'Synced')).toMatchObject({
      status: 'False',
      reason: 'ProviderProfileNotFound',
    });
    expect(findCondition(obj.status?.conditions, 'Ready')?.message).toContain(profileName);
    expect(obj.metadata.finalizers ?? []).toEqual([]);
    expect(obj.metadata.annotations?.[A.externalName]).toBeUndefined();
    expect(await rdsInstance('orphan')).toBeUndefined();
    expect(await connectionSecret('orphan')).toBeUndefined();
    // the profile watch re-reconciles the instances that reference it
    await admin.create<Profile>(Profiles, awsProfile(profileName));
    await ready('orphan');
    expect(findCondition((await read('orphan')).status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(await read('orphan'))).toMatchObject({
      kstatus: 'Current',
      unobserved: [],
    });
  });

  it('stops with WrongProvider for a kafka profile, creating nothing at any provider', async () => {
    run();
    const profileName = `events-${testNumber}`;
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: profileName },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: ['127.0.0.1:9092'] },
      },
    } as Profile);
    await create('misdirected', { providerProfileRef: { name: profileName } });
    await reason('misdirected', 'WrongProvider');
    expect((await condition('misdirected', 'Ready'))?.message).toBe(
      `ProviderProfile ${profileName} is for kafka; a DatabaseInstance needs an aws or gcp profile`,
    );
    expect((await condition('misdirected', 'Stalled'))?.status).toBe('True');
    expect(await rdsInstance('misdirected')).toBeUndefined();
    expect(await connectionSecret('misdirected')).toBeUndefined();
    expect(api.instances().filter((i) => i.name.includes('misdirected'))).toEqual([]);
  });

  it('pauses before anything else — even a missing profile — touches nothing, and resumes when unpaused', async () => {
    run();
    const profileName = `paused-${testNumber}`;
    await admin.create<DB>(Kind, {
      apiVersion: DatabaseInstance.apiVersion,
      kind: 'DatabaseInstance',
      metadata: { name: 'paused', namespace: ns, annotations: { [A.paused]: 'true' } },
      spec: {
        providerProfileRef: { name: profileName },
        engine: 'postgres',
        version: '16',
        size: 'small',
        storageGiB: 20,
      },
    } as DB);
    await eventually(
      async () => (await condition('paused', 'Synced'))?.reason === 'ReconcilePaused',
      {
        description: 'Synced=False ReconcilePaused',
      },
    );
    const paused = await read('paused');
    expect(findCondition(paused.status?.conditions, 'Stalled')).toBeUndefined(); // no profile judged
    expect(paused.metadata.finalizers ?? []).toEqual([]);
    expect(paused.metadata.annotations?.[A.externalName]).toBeUndefined();
    expect(await rdsInstance('paused')).toBeUndefined();
    expect((await gitOpsReading(paused)).unobserved).toEqual([]);

    await admin.create<Profile>(Profiles, awsProfile(profileName));
    await admin.mergePatch(Kind, 'paused', ns, { metadata: { annotations: { [A.paused]: null } } });
    await ready('paused');
    expect(await rdsInstance('paused')).toBeDefined();
  });

  it('reports UnknownSize for a size the profile does not define, before anything is created', async () => {
    run();
    await create('huge', { size: 'huge' });
    await reason('huge', 'UnknownSize');
    expect((await condition('huge', 'Ready'))?.message).toContain('huge');
    expect(await rdsInstance('huge')).toBeUndefined();
    expect(await connectionSecret('huge')).toBeUndefined();
  });

  it('stops with CredentialsNotFound when the Secret the profile names is missing', async () => {
    run();
    const profileName = `nocreds-${testNumber}`;
    const profile = awsProfile(profileName);
    profile.spec.aws!.credentialsSecretRef = { namespace: CREDS_NS, name: 'missing' };
    await admin.create<Profile>(Profiles, profile);
    await create('locked', { providerProfileRef: { name: profileName } });
    await reason('locked', 'CredentialsNotFound');
    expect((await condition('locked', 'Ready'))?.message).toContain(`${CREDS_NS}/missing`);
    expect(await rdsInstance('locked')).toBeUndefined();

    // The platform team creates the Secret; once the profile's Ready condition turns True (the
    // ProviderProfile controller's credentials check; written here as it would), the instances
    // referencing it are reconciled again without anyone touching them.
    await admin.create<Secret>(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'missing', namespace: CREDS_NS },
      stringData: {
        aws_access_key_id: moto.credentials.accessKeyId,
        aws_secret_access_key: moto.credentials.secretAccessKey,
      },
    } as Secret);
    const current = await admin.get<Profile>(Profiles, profileName);
    await admin.updateStatus<Profile>(Profiles, {
      ...current,
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'CredentialsVerified',
            message: 'verified',
            lastTransitionTime: new Date().toISOString(),
            observedGeneration: current.metadata.generation,
          },
        ],
      },
    });
    await ready('locked');
    await admin.delete(Secrets, 'missing', CREDS_NS);
  });

  it('a guardrail forbidding Delete stops the delete path: the instance stays, the finalizer waits; relaxing it completes the delete', async () => {
    run();
    const profileName = `guarded-${testNumber}`;
    await admin.create<Profile>(Profiles, awsProfile(profileName));
    await create('ledger', { providerProfileRef: { name: profileName }, deletionPolicy: 'Delete' });
    await ready('ledger');

    // the platform team forbids Delete: the profile change reaches the instance through the watch
    await admin.mergePatch(Profiles, profileName, undefined, {
      spec: { guardrails: { allowedDeletionPolicies: ['Retain'] } },
    });
    await reason('ledger', 'DeletionPolicyNotAllowed');

    await admin.delete(Kind, 'ledger', ns);
    await eventually(
      async () =>
        (await condition('ledger', 'Ready'))?.message?.includes('being deleted') ? true : false,
      { description: 'the deletion is reported as held back' },
    );
    await sleep(1_500); // several poll intervals
    const held = await read('ledger');
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.finalizers).toContain(DatabaseInstanceFinalizer);
    expect(findCondition(held.status?.conditions, 'Ready')?.reason).toBe(
      'DeletionPolicyNotAllowed',
    );
    expect(findCondition(held.status?.conditions, 'Stalled')?.status).toBe('True');
    expect((await rdsInstance('ledger'))?.DBInstanceStatus).toBe('available');

    // relaxing the guardrail lets the deletion run
    await admin.mergePatch(Profiles, profileName, undefined, {
      spec: { guardrails: { allowedDeletionPolicies: ['Retain', 'Delete'] } },
    });
    await eventually(
      () =>
        read('ledger').then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'ledger gone', timeoutMs: 30_000 },
    );
    await eventually(async () => (await rdsInstance('ledger')) === undefined, {
      description: 'the RDS instance deleted',
    });
  });
});
