// The ProviderProfile controller handling kubernetes profiles, against a real API server with the
// CRDs the charts ship. The credential-checked providers are proven in
// libs/database-instance/tests/provider-profile.int.test.ts and libs/kafka-topic/tests.
import { findCondition } from '@steward/conditions';
import { Manager, type Controller } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import {
  Events,
  KubeClient,
  Namespaces,
  NotFoundError,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  inUseFinalizerFor,
  InUseFinalizer,
  providerProfileController,
  type ProfileUser,
} from '../src/index.js';

type Profile = ProviderProfile;
const Profiles = ProviderProfile.resourceType;

/**
 * CacheCluster, the first kind that references kubernetes profiles, as its chart's CRD declares it.
 * Spelled out here rather than imported: @steward/cache-cluster-api belongs to another family,
 * which a shared lib may not depend on (its controller process supplies this user).
 */
const CacheClusters: ResourceType = {
  group: 'cache.steward.dev',
  version: 'v1alpha1',
  kind: 'CacheCluster',
  plural: 'cacheclusters',
  namespaced: true,
};
interface CacheCluster extends KubeObject {
  spec: { version: string; providerProfileRef?: { name: string } };
}
const cacheClusterUsers: ProfileUser<CacheCluster> = {
  resourceType: CacheClusters,
  profileNameOf: (obj) => obj.spec?.providerProfileRef?.name,
};
/** PostgresCluster, the second kind on kubernetes profiles, counted by its own process. */
const PostgresClusters: ResourceType = {
  group: 'postgres.steward.dev',
  version: 'v1alpha1',
  kind: 'PostgresCluster',
  plural: 'postgresclusters',
  namespaced: true,
};
const postgresClusterUsers: ProfileUser<CacheCluster> = {
  resourceType: PostgresClusters,
  profileNameOf: (obj) => obj.spec?.providerProfileRef?.name,
};
const CacheFinalizer = inUseFinalizerFor([cacheClusterUsers]);
const PostgresFinalizer = inUseFinalizerFor([postgresClusterUsers]);

let plane: ControlPlane;
let admin: KubeClient;
let ns = 'kp';
let testNumber = 0;

beforeAll(async () => {
  plane = await startControlPlane({
    crds: [
      join(
        repoRoot(),
        'charts/database-instance-controller/crds/providerprofiles.steward.dev.yaml',
      ),
      join(repoRoot(), 'charts/cache-cluster-controller/crds/cacheclusters.cache.steward.dev.yaml'),
      join(
        repoRoot(),
        'charts/postgres-cluster-controller/crds/postgresclusters.postgres.steward.dev.yaml',
      ),
    ],
  });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
beforeEach(async () => {
  ns = `kp-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.manager.stop();
    await r.events.shutdown();
  }
});
afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

/** One controller process handling kubernetes profiles only, as a workload controller runs it. */
interface Running {
  manager: Manager;
  controller: Controller;
  events: KubeEventRecorder;
  /** `verb path` of every write the manager's client sent. */
  writes: string[];
}
const running: Running[] = [];

function run(
  options: { resyncPeriodMs?: number; users?: ProfileUser[]; name?: string } = {},
): Running {
  const writes: string[] = [];
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: options.name ?? 'cache-cluster-controller',
    ...(options.resyncPeriodMs ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
    client: {
      onRequest: (info) => {
        if (!['get', 'list', 'watch'].includes(info.verb)) writes.push(`${info.verb} ${info.path}`);
      },
    },
  });
  const events = new KubeEventRecorder(manager.client, {
    reportingController: 'steward.dev/cache-cluster-controller',
  });
  // No checkCredentials: a kubernetes profile has none.
  const controller = providerProfileController(manager, {
    providers: ['kubernetes'],
    users: options.users ?? [cacheClusterUsers],
    events,
  });
  manager.start().catch(() => undefined);
  const r = { manager, controller, events, writes };
  running.push(r);
  return r;
}

const catalogue = {
  sizeClasses: {
    small: { cpu: '250m', memory: '512Mi', maxMemory: '400Mi' },
    large: { cpu: '2', memory: '8Gi', storage: '50Gi' },
  },
  images: [
    { engine: 'redis', version: '8.0', image: 'registry.example/redis:8.0.2' },
    { engine: 'redis', version: '7.0', image: 'registry.example/redis:7.0.15' },
  ],
  maxReplicas: 5,
};
const kubernetesProfile = (name: string, extra: Partial<Profile['metadata']> = {}) =>
  admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name, ...extra },
    spec: { provider: 'kubernetes', namespaceSelector: {}, kubernetes: catalogue },
  } as Profile);
const createCache = (name: string, profileName: string, namespace = ns, extra = {}) =>
  admin.create<CacheCluster>(CacheClusters, {
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name, namespace, ...extra },
    spec: { version: '7.0', providerProfileRef: { name: profileName } },
  });

const readProfile = (name: string) => admin.get<Profile>(Profiles, name);
const profileGone = (name: string) =>
  readProfile(name).then(
    () => false,
    (e) => e instanceof NotFoundError,
  );
const ready = async (name: string) =>
  findCondition((await readProfile(name)).status?.conditions, 'Ready');
/** `Ready` once it has `status` and `reason` (stated for `generation`, when given). */
const waitReady = (name: string, reason: string, status: string, generation?: number) =>
  eventually(
    async () => {
      const c = await ready(name);
      const observed = generation === undefined || c?.observedGeneration === generation;
      return c?.reason === reason && c.status === status && observed ? c : undefined;
    },
    { description: `${name} Ready ${status} ${reason}`, timeoutMs: 30_000 },
  );
const waitUsedBy = (name: string, count: number) =>
  eventually(async () => (await readProfile(name)).status?.usedBy === count, {
    description: `${name} usedBy ${count}`,
    timeoutMs: 30_000,
  });
/** The Events the API server holds about the cluster-scoped profile `name` (kept in `default`). */
const eventsAbout = async (name: string, reason: string) =>
  (
    await admin.list<
      KubeObject & { regarding?: { name?: string }; reason?: string; type?: string }
    >(Events, { namespace: 'default' })
  ).items.filter((e) => e.regarding?.name === name && e.reason === reason);
const profilePath = (name: string) => `/apis/steward.dev/v1alpha1/providerprofiles/${name}`;
const writesTo = (r: Running, name: string) =>
  r.writes.filter((w) => w.endsWith(profilePath(name)) || w.includes(`${profilePath(name)}/`));

/** Waits until the controller's cache holds the profile as the server has it and its queue is empty, twice. */
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

describe('providerProfileController with kubernetes profiles', () => {
  it('makes a kubernetes profile Ready=True CatalogueAccepted — no credentials, none checked — with the in-use finalizer, usedBy 0 and a Normal Event', async () => {
    run();
    const name = `catalogue-${testNumber}`;
    await kubernetesProfile(name);
    const condition = await waitReady(name, 'CatalogueAccepted', 'True', 1);
    expect(condition.message).toBe(
      'in-cluster workloads, no credentials to check: images redis 7.0, 8.0; size classes large, small; any StorageClass, at most 5 replicas',
    );
    const profile = await readProfile(name);
    expect(profile.status?.observedGeneration).toBe(1);
    expect(profile.status?.usedBy).toBe(0);
    expect(profile.metadata.finalizers).toEqual([CacheFinalizer]);
    expect(findCondition(profile.status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(profile)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    const [event] = await eventually(
      async () => {
        const found = await eventsAbout(name, 'CatalogueAccepted');
        return found.length > 0 ? found : undefined;
      },
      { description: 'a CatalogueAccepted Event' },
    );
    expect(event?.type).toBe('Normal');
  });

  it('keeps usedBy equal to the CacheClusters referencing the profile, in every namespace', async () => {
    run();
    const name = `counted-${testNumber}`;
    const other = `${ns}-other`;
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: other },
    });
    await kubernetesProfile(name);
    await waitReady(name, 'CatalogueAccepted', 'True');
    await createCache('a', name);
    await createCache('b', name);
    await createCache('c', name, other);
    await createCache('unrelated', `not-${name}`);
    await waitUsedBy(name, 3);
    await admin.delete(CacheClusters, 'b', ns);
    await waitUsedBy(name, 2);
    await admin.delete(CacheClusters, 'a', ns);
    await admin.delete(CacheClusters, 'c', other);
    await waitUsedBy(name, 0);
    expect((await ready(name))?.reason).toBe('CatalogueAccepted');
  });

  it('states a catalogue change at its new generation, keeping lastTransitionTime', async () => {
    run();
    const name = `changed-${testNumber}`;
    await kubernetesProfile(name);
    const before = await waitReady(name, 'CatalogueAccepted', 'True');
    await admin.mergePatch(Profiles, name, undefined, {
      spec: {
        kubernetes: {
          images: [
            ...catalogue.images,
            { engine: 'valkey', version: '8.1', image: 'registry.example/valkey:8.1.1' },
          ],
          storageClassNames: ['fast-ssd'],
          maxStorage: '100Gi',
          requirePersistence: true,
        },
      },
    });
    const after = await waitReady(name, 'CatalogueAccepted', 'True', 2);
    expect(after.message).toBe(
      'in-cluster workloads, no credentials to check: images redis 7.0, 8.0; valkey 8.1; size classes large, small; StorageClasses fast-ssd, at most 5 replicas, volumes up to 100Gi, persistence required',
    );
    expect(after.lastTransitionTime).toBe(before.lastTransitionTime);
    const profile = await readProfile(name);
    expect(profile.status?.observedGeneration).toBe(2);
    expect(await gitOpsReading(profile)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('costs zero API writes once converged, across resyncs and forced reconciles', async () => {
    const r = run({ resyncPeriodMs: 300 });
    const name = `quiet-${testNumber}`;
    await kubernetesProfile(name);
    await createCache('user', name);
    await waitReady(name, 'CatalogueAccepted', 'True');
    await waitUsedBy(name, 1);
    await settled(r, name);
    const before = await readProfile(name);
    const writesBefore = writesTo(r, name).length;
    for (let i = 0; i < 5; i++) {
      r.controller.enqueue(name); // a reconcile for no reason at all
      await sleep(400);
    }
    expect(writesTo(r, name).slice(writesBefore)).toEqual([]);
    expect((await readProfile(name)).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });

  it('counts each kind in its own process without overwriting the other (usedByKind), and holds the profile for either kind’s users', async () => {
    run();
    run({ users: [postgresClusterUsers], name: 'postgres-cluster-controller' });
    const name = `shared-${testNumber}`;
    await kubernetesProfile(name);
    await createCache('a', name);
    await createCache('b', name);
    await admin.create<CacheCluster>(PostgresClusters, {
      apiVersion: 'postgres.steward.dev/v1alpha1',
      kind: 'PostgresCluster',
      metadata: { name: 'pg', namespace: ns },
      spec: { version: '17', providerProfileRef: { name } },
    });
    await waitUsedBy(name, 3);
    const counted = await readProfile(name);
    expect(counted.status?.usedByKind).toEqual({ CacheCluster: 2, PostgresCluster: 1 });
    expect(counted.metadata.finalizers?.sort()).toEqual([CacheFinalizer, PostgresFinalizer].sort());

    // The caches go, then the profile is deleted: the cache process lets go, the postgres one holds.
    await admin.delete(CacheClusters, 'a', ns);
    await admin.delete(CacheClusters, 'b', ns);
    await waitUsedBy(name, 1);
    await admin.delete(Profiles, name);
    await waitReady(name, 'InUse', 'False');
    await eventually(
      async () => (await readProfile(name)).metadata.finalizers?.join() === PostgresFinalizer,
      { description: 'only the postgres process holds the profile' },
    );
    await sleep(1_000);
    expect(await profileGone(name)).toBe(false);
    await admin.delete(PostgresClusters, 'pg', ns);
    await eventually(() => profileGone(name), { description: `${name} gone` });
  });

  it('replaces the finalizer every process used to share (steward.dev/in-use) with its own', async () => {
    run();
    const name = `legacy-${testNumber}`;
    await kubernetesProfile(name, { finalizers: [InUseFinalizer] });
    await eventually(
      async () => (await readProfile(name)).metadata.finalizers?.join() === CacheFinalizer,
      { description: 'the shared finalizer replaced by the process’s own' },
    );
  });

  it('keeps a profile deleted while CacheClusters reference it (InUse, Warning Event) until the last is gone; another finalizer stays', async () => {
    run();
    const name = `inuse-${testNumber}`;
    await kubernetesProfile(name, { finalizers: ['example.com/keep'] });
    await waitReady(name, 'CatalogueAccepted', 'True');
    await createCache('plain', name);
    await createCache('held', name, ns, { finalizers: ['test.steward.dev/hold'] });
    await waitUsedBy(name, 2);

    await admin.delete(Profiles, name);
    const inUse = await waitReady(name, 'InUse', 'False');
    expect(inUse.message).toBe(
      `ProviderProfile ${name} is being deleted but 2 resources reference it: CacheCluster ${ns}/held, CacheCluster ${ns}/plain; it is deleted once nothing references it`,
    );
    const [warning] = await eventually(
      async () => {
        const found = await eventsAbout(name, 'InUse');
        return found.length > 0 ? found : undefined;
      },
      { description: 'an InUse Event' },
    );
    expect(warning?.type).toBe('Warning');

    await admin.delete(CacheClusters, 'plain', ns);
    await waitUsedBy(name, 1);
    // a CacheCluster being deleted still counts: its cleanup may still act under the profile
    await admin.delete(CacheClusters, 'held', ns);
    await sleep(1_000);
    const stillHeld = await readProfile(name);
    expect(stillHeld.status?.usedBy).toBe(1);
    expect(stillHeld.metadata.finalizers).toContain(CacheFinalizer);

    await admin.mergePatch(CacheClusters, 'held', ns, { metadata: { finalizers: null } });
    await eventually(
      async () => (await readProfile(name)).metadata.finalizers?.join() === 'example.com/keep',
      { description: 'our finalizer removed, the other one kept' },
    );
    await admin.mergePatch(Profiles, name, undefined, { metadata: { finalizers: null } });
    await eventually(() => profileGone(name), { description: `${name} gone` });
  });

  it('leaves profiles of other providers alone: no finalizer, no status, no writes', async () => {
    const r = run();
    const aws = `aws-${testNumber}`;
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: aws },
      spec: {
        provider: 'aws',
        namespaceSelector: {},
        aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: 'ops', name: 'aws' } },
      },
    } as Profile);
    // a kubernetes profile created afterwards is handled: the aws one has been seen by then
    const witness = `witness-${testNumber}`;
    await kubernetesProfile(witness);
    await waitReady(witness, 'CatalogueAccepted', 'True');
    await sleep(500);
    const profile = await readProfile(aws);
    expect(profile.metadata.finalizers ?? []).toEqual([]);
    expect(profile.status).toBeUndefined();
    expect(writesTo(r, aws)).toEqual([]);
    await admin.delete(Profiles, aws);
    await eventually(() => profileGone(aws), { description: 'the aws profile deleted at once' });
  });

  it('refuses to start for a provider with credentials but no checkCredentials', () => {
    const manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'misconfigured' });
    expect(() => providerProfileController(manager, { providers: ['kubernetes', 'aws'] })).toThrow(
      'steward: providerProfileController needs checkCredentials for aws profiles',
    );
  });
});
