import { DescribeDBInstancesCommand } from '@aws-sdk/client-rds';
import { findCondition } from '@steward/conditions';
import { Manager, type Controller } from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { RecordingEventRecorder } from '@steward/events';
import { KubeClient, Namespaces, NotFoundError, Secrets, type KubeObject } from '@steward/kube';
import {
  inUseFinalizerFor,
  providerProfileController,
  type CredentialsCheck,
} from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  freePort,
  repoRoot,
  gitOpsReading,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { createTelemetry, type Telemetry } from '@steward/telemetry';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rdsIdentifier } from '../src/aws/index.js';
import { databaseInstanceController } from '../src/controller/index.js';
import { databaseCredentialsCheck, databaseInstanceUsers } from '../src/credentials/index.js';

const InUseFinalizer = inUseFinalizerFor([databaseInstanceUsers]);

type DB = DatabaseInstance;
type Profile = ProviderProfile;
const Kind = DatabaseInstance.resourceType;
const Profiles = ProviderProfile.resourceType;
interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const CREDS_NS = 'steward-credentials';
const PROJECT = 'steward-test';
const EMAIL = `steward@${PROJECT}.iam.gserviceaccount.com`;
/** Moto accepts any credentials: these are long enough to be searched for in what users see. */
const AWS = {
  accessKeyId: 'AKIASTEWARDPROFILE01',
  secretAccessKey: 'steward/Profile+Secret+Key/never-shown-5678',
};

let plane: ControlPlane;
let moto: Moto;
let api: CloudSqlApi;
let admin: KubeClient;
let gcpPrivateKey = '';
let ns = 'pp';
let testNumber = 0;

beforeAll(async () => {
  [plane, moto, api] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
    // The real Cloud SQL client signs requests with the Secret's key; the local API verifies them.
    startCloudSqlApi({ verifyCredentials: true }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  await admin.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: CREDS_NS },
  });
  await secret('aws-creds', {
    aws_access_key_id: AWS.accessKeyId,
    aws_secret_access_key: AWS.secretAccessKey,
  });
  const key = api.createServiceAccountKey(EMAIL);
  gcpPrivateKey = key.private_key;
  await secret('gcp-creds', { 'service-account.json': JSON.stringify(key) });
});
beforeEach(async () => {
  ns = `pp-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.manager.stop();
    await r.telemetry.shutdown();
  }
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), moto?.stop(), api?.stop()]);
});

const secret = (name: string, stringData: Record<string, string>) =>
  admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: CREDS_NS },
    stringData,
  });

/** One controller process as the app runs it, with everything a test looks at. */
interface Running {
  manager: Manager;
  controller: Controller;
  telemetry: Telemetry;
  /** Every Event, from the runtime (terminal failures) and from the profile controller. */
  events: RecordingEventRecorder;
  /** `verb path` of every write the manager's client sent. */
  writes: string[];
  /** Credential checks per profile name. */
  checks: Map<string, number>;
  /** Every log line. */
  logs: string[];
}
const running: Running[] = [];

function run(
  options: {
    recheckIntervalMs?: number;
    resyncPeriodMs?: number;
    check?: CredentialsCheck;
    databaseController?: boolean;
  } = {},
): Running {
  const writes: string[] = [];
  const logs: string[] = [];
  const events = new RecordingEventRecorder();
  const telemetry = createTelemetry({
    serviceName: 'provider-profile-test',
    log: { level: 'debug', destination: { write: (line: string) => logs.push(line) } },
  });
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: 'database-instance-controller',
    telemetry,
    events,
    ...(options.resyncPeriodMs ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
    client: {
      onRequest: (info) => {
        if (!['get', 'list', 'watch'].includes(info.verb)) writes.push(`${info.verb} ${info.path}`);
      },
    },
  });
  const checks = new Map<string, number>();
  const real = databaseCredentialsCheck(manager.client);
  const check = options.check ?? real;
  const controller = providerProfileController(manager, {
    providers: ['aws', 'gcp'],
    checkCredentials: (profile, signal) => {
      const name = profile.metadata.name!;
      checks.set(name, (checks.get(name) ?? 0) + 1);
      return check(profile, signal);
    },
    users: [databaseInstanceUsers],
    events,
    ...(options.recheckIntervalMs ? { recheckIntervalMs: options.recheckIntervalMs } : {}),
  });
  if (options.databaseController) {
    databaseInstanceController(manager, {
      selection: { namespace: ns },
      pollIntervalMs: 500,
      busyPollIntervalMs: 200,
      events,
    });
  }
  manager.start().catch(() => undefined);
  const r = { manager, controller, telemetry, events, writes, checks, logs };
  running.push(r);
  return r;
}

const awsProfile = (name: string, aws: Partial<NonNullable<Profile['spec']['aws']>> = {}) =>
  admin.create<Profile>(Profiles, {
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
        ...aws,
      },
      sizeClasses: { small: 'db.t3.micro' },
    },
  } as Profile);
const gcpProfile = (name: string, secretName = 'gcp-creds') =>
  admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'gcp',
      namespaceSelector: {},
      gcp: {
        project: PROJECT,
        region: 'europe-west1',
        endpoint: api.baseUrl,
        credentialsSecretRef: { namespace: CREDS_NS, name: secretName },
      },
    },
  } as Profile);

const readProfile = (name: string) => admin.get<Profile>(Profiles, name);
const profileGone = (name: string) =>
  readProfile(name).then(
    () => false,
    (e) => e instanceof NotFoundError,
  );
const ready = async (name: string) =>
  findCondition((await readProfile(name)).status?.conditions, 'Ready');
const waitReady = (name: string, reason: string, status?: string) =>
  eventually(
    async () => {
      const c = await ready(name);
      return c?.reason === reason && (!status || c.status === status) ? c : undefined;
    },
    { description: `${name} Ready reason ${reason}`, timeoutMs: 30_000 },
  );
const waitUsedBy = (name: string, count: number) =>
  eventually(async () => (await readProfile(name)).status?.usedBy === count, {
    description: `${name} usedBy ${count}`,
    timeoutMs: 30_000,
  });
const profilePath = (name: string) => `/apis/steward.dev/v1alpha1/providerprofiles/${name}`;
/**
 * Waits until the controller's cache holds the profile as the API server has it and nothing waits
 * in its queue, twice in a row: every echo of its own writes has arrived (and been filtered) — the
 * point to take a baseline from, instead of a fixed sleep.
 */
async function settled(r: Running, name: string): Promise<void> {
  const profiles = r.manager.informers.informerFor<Profile>(Profiles);
  let calm = 0;
  await eventually(
    async () => {
      const server = (await readProfile(name)).metadata.resourceVersion;
      const cached = profiles.store.get(name)?.metadata.resourceVersion;
      calm = cached === server && r.controller.queue.len() === 0 ? calm + 1 : 0;
      return calm >= 2;
    },
    { description: `${name} settled in the controller's cache`, intervalMs: 100 },
  );
}

const writesTo = (r: Running, name: string) =>
  r.writes.filter((w) => w.endsWith(profilePath(name)) || w.includes(`${profilePath(name)}/`));

const createDb = (name: string, profileName: string, extra: Partial<DB> = {}, namespace = ns) =>
  admin.create<DB>(Kind, {
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    ...extra,
    metadata: { name, namespace, ...extra.metadata },
    spec: {
      providerProfileRef: { name: profileName },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...extra.spec,
    },
  } as DB);

/** Nothing a user can read — status, Events, logs — contains a credential. */
function expectNoSecrets(r: Running, ...profiles: Profile[]): void {
  const keyLines = gcpPrivateKey.split('\n').filter((l) => l.length > 20 && !l.startsWith('---'));
  const visible = [
    JSON.stringify(profiles.map((p) => p.status)),
    JSON.stringify(r.events.events),
    r.logs.join('\n'),
  ].join('\n');
  for (const s of [AWS.accessKeyId, AWS.secretAccessKey, ...keyLines]) {
    expect(visible).not.toContain(s);
  }
}

describe('providerProfileController', () => {
  it('verifies aws and gcp profiles: Ready=True CredentialsVerified with observedGeneration, the in-use finalizer, usedBy 0', async () => {
    const r = run();
    const aws = `verified-aws-${testNumber}`;
    const gcp = `verified-gcp-${testNumber}`;
    await awsProfile(aws);
    await gcpProfile(gcp);
    for (const name of [aws, gcp]) {
      const condition = await waitReady(name, 'CredentialsVerified', 'True');
      const profile = await readProfile(name);
      expect(condition.observedGeneration).toBe(1);
      expect(profile.status?.observedGeneration).toBe(1);
      expect(profile.status?.usedBy).toBe(0);
      expect(profile.metadata.finalizers).toEqual([InUseFinalizer]);
      expect(findCondition(profile.status?.conditions, 'Stalled')).toBeUndefined();
      expect(await gitOpsReading(profile)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    }
    expect((await ready(aws))?.message).toContain('RDS DescribeDBInstances');
    expect((await ready(gcp))?.message).toContain(`instances.list in project ${PROJECT}`);
    await eventually(() => r.events.withReason('CredentialsVerified').length === 2, {
      description: 'a Normal CredentialsVerified Event per profile',
    });
    expectNoSecrets(r, await readProfile(aws), await readProfile(gcp));
  });

  it('reports a missing Secret as CredentialsNotFound with Stalled, checks once (no retry storm), and finds the Secret at the next recheck', async () => {
    const r = run({ recheckIntervalMs: 4_000 });
    const name = `nosecret-${testNumber}`;
    await awsProfile(name, {
      credentialsSecretRef: { namespace: CREDS_NS, name: `late-${testNumber}` },
    });
    const condition = await waitReady(name, 'CredentialsNotFound', 'False');
    expect(condition.message).toContain(`${CREDS_NS}/late-${testNumber}`);
    const profile = await readProfile(name);
    expect(findCondition(profile.status?.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'CredentialsNotFound',
    });
    expect(r.events.withReason('CredentialsNotFound')[0]?.type).toBe('Warning');
    expect(await gitOpsReading(profile)).toMatchObject({ kstatus: 'Failed', unobserved: [] });

    await settled(r, name);
    const writesBefore = writesTo(r, name).length;
    await sleep(2_000); // well inside the recheck interval
    expect(r.checks.get(name)).toBe(1);
    expect(writesTo(r, name).slice(writesBefore)).toEqual([]);

    // the platform team creates the Secret: no event reaches the profile, the recheck finds it
    await secret(`late-${testNumber}`, {
      aws_access_key_id: AWS.accessKeyId,
      aws_secret_access_key: AWS.secretAccessKey,
    });
    await waitReady(name, 'CredentialsVerified', 'True');
    await eventually(
      async () =>
        findCondition((await readProfile(name)).status?.conditions, 'Stalled') === undefined,
      { description: 'Stalled removed' },
    );
    expect(r.checks.get(name)).toBeLessThanOrEqual(3);
  });

  it('keeps usedBy equal to the DatabaseInstances referencing the profile, in every namespace', async () => {
    run();
    const name = `counted-${testNumber}`;
    const other = `${ns}-other`;
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: other },
    });
    await awsProfile(name);
    await waitReady(name, 'CredentialsVerified', 'True');
    await createDb('a', name);
    await createDb('b', name);
    await createDb('c', name, {}, other);
    await createDb('unrelated', `not-${name}`);
    await waitUsedBy(name, 3);
    await admin.delete(Kind, 'b', ns);
    await waitUsedBy(name, 2);
    await admin.delete(Kind, 'a', ns);
    await admin.delete(Kind, 'c', other);
    await waitUsedBy(name, 0);
    // the count never disturbed the credentials verdict
    expect((await ready(name))?.reason).toBe('CredentialsVerified');
  });

  it('keeps a profile deleted while in use, InUse naming its users with a Warning Event, until the last user — one being deleted too — is gone; another finalizer stays', async () => {
    const r = run();
    const name = `inuse-${testNumber}`;
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name, finalizers: ['example.com/keep'] },
      spec: {
        provider: 'aws',
        namespaceSelector: {},
        aws: {
          region: moto.region,
          endpoint: moto.endpoint,
          credentialsSecretRef: { namespace: CREDS_NS, name: 'aws-creds' },
        },
      },
    } as Profile);
    await waitReady(name, 'CredentialsVerified', 'True');
    await createDb('plain', name);
    await createDb('held', name, {
      metadata: { name: 'held', finalizers: ['test.steward.dev/hold'] },
    } as Partial<DB>);
    await waitUsedBy(name, 2);

    await admin.delete(Profiles, name);
    const inUse = await waitReady(name, 'InUse', 'False');
    expect(inUse.message).toContain('2 resources reference it');
    expect(inUse.message).toContain(`DatabaseInstance ${ns}/held`);
    expect(inUse.message).toContain(`DatabaseInstance ${ns}/plain`);
    await eventually(() => r.events.withReason('InUse').some((e) => e.type === 'Warning'), {
      description: 'a Warning InUse Event',
    });
    const held = await readProfile(name);
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.finalizers).toEqual(
      expect.arrayContaining([InUseFinalizer, 'example.com/keep']),
    );

    await admin.delete(Kind, 'plain', ns);
    await waitUsedBy(name, 1);
    // a user being deleted still counts: its cleanup may need the profile's credentials
    await admin.delete(Kind, 'held', ns);
    await sleep(1_500);
    const stillHeld = await readProfile(name);
    expect(stillHeld.status?.usedBy).toBe(1);
    expect(stillHeld.metadata.finalizers).toContain(InUseFinalizer);
    expect(findCondition(stillHeld.status?.conditions, 'Ready')?.message).toContain(
      `1 resource references it: DatabaseInstance ${ns}/held`,
    );

    await admin.mergePatch(Kind, 'held', ns, { metadata: { finalizers: null } });
    await eventually(
      async () => (await readProfile(name)).metadata.finalizers?.join() === 'example.com/keep',
      { description: 'our finalizer removed, the other one kept' },
    );
    await admin.mergePatch(Profiles, name, undefined, { metadata: { finalizers: null } });
    await eventually(() => profileGone(name), { description: `${name} gone` });
  });

  it('deletes an unused profile at once', async () => {
    run();
    const name = `unused-${testNumber}`;
    await awsProfile(name);
    await waitReady(name, 'CredentialsVerified', 'True');
    await admin.delete(Profiles, name);
    await eventually(() => profileGone(name), { description: `${name} gone` });
  });

  it('leaves a kafka profile alone: no finalizer, no status, no writes — even when referenced or deleted', async () => {
    const r = run();
    const kafka = `events-${testNumber}`;
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: kafka },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: ['127.0.0.1:9092'] },
      },
    } as Profile);
    await createDb('misdirected', kafka);
    // an aws profile created afterwards is handled: the controller has seen the kafka one by then
    const aws = `witness-${testNumber}`;
    await awsProfile(aws);
    await waitReady(aws, 'CredentialsVerified', 'True');
    await sleep(500);
    const profile = await readProfile(kafka);
    expect(profile.metadata.finalizers ?? []).toEqual([]);
    expect(profile.status).toBeUndefined();
    expect(writesTo(r, kafka)).toEqual([]);
    expect(r.checks.has(kafka)).toBe(false);
    await admin.delete(Profiles, kafka);
    await eventually(() => profileGone(kafka), {
      description: 'the kafka profile deleted at once',
    });
  });

  it('costs zero API writes once converged, across resyncs, rechecks and forced reconciles', async () => {
    const r = run({ resyncPeriodMs: 300, recheckIntervalMs: 700 });
    const name = `quiet-${testNumber}`;
    await awsProfile(name);
    await createDb('user', name);
    await waitReady(name, 'CredentialsVerified', 'True');
    await waitUsedBy(name, 1);
    await settled(r, name);
    const before = await readProfile(name);
    const writesBefore = writesTo(r, name).length;
    const checksBefore = r.checks.get(name) ?? 0;
    for (let i = 0; i < 6; i++) {
      r.controller.enqueue(name); // a reconcile for no reason at all
      await sleep(500);
    }
    const after = await readProfile(name);
    expect(writesTo(r, name).slice(writesBefore)).toEqual([]);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(r.checks.get(name)! - checksBefore).toBeGreaterThanOrEqual(2); // rechecks did run
    expect(findCondition(after.status?.conditions, 'Ready')?.lastTransitionTime).toBe(
      findCondition(before.status?.conditions, 'Ready')?.lastTransitionTime,
    );
  });

  it('retries an unreachable provider with backoff, without Stalled, and checks again on a spec change', async () => {
    const r = run();
    const name = `unreachable-${testNumber}`;
    await awsProfile(name, { endpoint: `http://127.0.0.1:${await freePort()}` });
    const condition = await waitReady(name, 'ProviderUnreachable', 'False');
    expect(condition.message).toContain('ECONNREFUSED');
    expect(findCondition((await readProfile(name)).status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(await readProfile(name))).toMatchObject({
      kstatus: 'InProgress',
      unobserved: [],
    });
    await eventually(() => (r.checks.get(name) ?? 0) >= 2, {
      description: 'a retry',
      timeoutMs: 30_000,
    });
    await sleep(2_000);
    expect(r.checks.get(name)).toBeLessThan(10); // backoff 1 s, 2 s, 4 s, …: no storm

    await admin.mergePatch(Profiles, name, undefined, {
      spec: { aws: { endpoint: moto.endpoint } },
    });
    const verified = await waitReady(name, 'CredentialsVerified', 'True');
    expect(verified.observedGeneration).toBe(2);
    expect((await readProfile(name)).status?.observedGeneration).toBe(2);
  });

  it('notices a deleted service-account key at the next recheck (CredentialsInvalid, Stalled, Warning) and its replacement after it', async () => {
    const r = run({ recheckIntervalMs: 1_500 });
    const name = `rotated-${testNumber}`;
    const secretName = `gcp-rotated-${testNumber}`;
    const first = api.createServiceAccountKey(EMAIL);
    await secret(secretName, { 'service-account.json': JSON.stringify(first) });
    await gcpProfile(name, secretName);
    await waitReady(name, 'CredentialsVerified', 'True');

    api.deleteServiceAccountKey(first.private_key_id);
    const invalid = await waitReady(name, 'CredentialsInvalid', 'False');
    expect(invalid.message).toContain(`Secret ${CREDS_NS}/${secretName}`);
    expect(findCondition((await readProfile(name)).status?.conditions, 'Stalled')?.status).toBe(
      'True',
    );
    expect(r.events.withReason('CredentialsInvalid').some((e) => e.type === 'Warning')).toBe(true);

    const second = api.createServiceAccountKey(EMAIL);
    await admin.mergePatch(Secrets, secretName, CREDS_NS, {
      stringData: { 'service-account.json': JSON.stringify(second) },
    });
    await waitReady(name, 'CredentialsVerified', 'True');
    const keyLines = [first, second].flatMap((k) =>
      k.private_key.split('\n').filter((l) => l.length > 20 && !l.startsWith('---')),
    );
    const visible =
      JSON.stringify((await readProfile(name)).status) +
      JSON.stringify(r.events.events) +
      r.logs.join('\n');
    for (const line of keyLines) expect(visible).not.toContain(line);
  });

  it('keeps the profile of a DatabaseInstance with deletionPolicy Delete until the database is deleted with its credentials', async () => {
    run({ databaseController: true });
    const name = `deleting-${testNumber}`;
    await awsProfile(name);
    await createDb('orders', name, {
      spec: { deletionPolicy: 'Delete', finalSnapshot: false },
    } as Partial<DB>);
    await eventually(
      async () =>
        findCondition((await admin.get<DB>(Kind, 'orders', ns)).status?.conditions, 'Ready')
          ?.status === 'True',
      { description: 'orders Ready', timeoutMs: 60_000 },
    );
    await waitUsedBy(name, 1);

    // the platform team removes the profile first: it waits for the instance
    await admin.delete(Profiles, name);
    await waitReady(name, 'InUse', 'False');

    // deleting the instance needs the profile's credentials, which are still there
    await admin.delete(Kind, 'orders', ns);
    await eventually(
      () =>
        admin.get(Kind, 'orders', ns).then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'orders gone', timeoutMs: 60_000 },
    );
    await eventually(() => profileGone(name), { description: `${name} gone` });
    const rds = moto.rdsClient();
    await expect(
      rds.send(
        new DescribeDBInstancesCommand({ DBInstanceIdentifier: rdsIdentifier(ns, 'orders') }),
      ),
    ).rejects.toMatchObject({ name: expect.stringMatching(/^DBInstanceNotFound/) as string });
  });
});
