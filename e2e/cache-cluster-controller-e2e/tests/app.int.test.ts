/**
 * The cache-cluster-controller as shipped — its app bundle as a process, under exactly the RBAC
 * its chart renders (namespaced to the watched namespace, a release name of this suite's own),
 * with leader election — against the node tier: a real API server, kubelet, containerd, kube-proxy
 * and dynamic local volumes running the Redis/Valkey pods it renders. Every assertion is about an
 * outcome on the real cluster or on the real servers (ioredis from this host, over the pod network
 * and the read-write Service's ClusterIP); waits are `eventually`, never elapsed time.
 *
 * The CacheCluster lifecycle: Ready (Standalone redis 7.0, Replicated valkey 8.1 with volumes),
 * scaling 2 → 3 → 2, what persistence does and does not keep across pod deletions, volume growth,
 * a kubernetes ProviderProfile's guardrails stopping a CacheCluster before any child exists, the
 * API writes of a converged controller, and both deletion policies.
 */
import { findCondition } from '@steward/conditions';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { childNames, Labels, type Pod } from '@steward/cache-cluster';
import {
  ConfigMaps,
  Events,
  isNotFound,
  KubeClient,
  Leases,
  NetworkPolicies,
  PersistentVolumeClaims,
  PodDisruptionBudgets,
  Pods,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { WorkloadAdmissionReasons } from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, gitOpsReading, installCRDs, repoRoot } from '@steward/testing';
import {
  bindChartRbac,
  kubectlTable,
  renderChart,
  requestsByMethod,
  startControllerProcess,
  type ControllerProcess,
  type Manifest,
} from '@steward/testing-charts';
import {
  acquireNodeTier,
  localImages,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = 'cache-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
/** This suite's own release name: the chart's RBAC object names never collide with another suite's. */
const releaseName = 'cc-app-e2e';
const leaseName = `${app}-leader`;
const reportingController = `steward.dev/${app}`;
const Kind = CacheCluster.resourceType;
const Profiles = ProviderProfile.resourceType;
const rbac = (kind: string, plural: string): ResourceType => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced: false,
});
const ClusterRoles = rbac('ClusterRole', 'clusterroles');
const ClusterRoleBindings = rbac('ClusterRoleBinding', 'clusterrolebindings');
const StorageClasses: ResourceType = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  namespaced: false,
};
const long = { timeoutMs: 180_000 };

interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { kind?: string; name?: string };
  reportingController?: string;
}
interface Claim extends KubeObject {
  spec?: { storageClassName?: string; resources?: { requests?: { storage?: string } } };
  status?: { phase?: string };
}
interface PodSpec {
  containers: {
    name: string;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  }[];
}
type FullPod = Pod & { spec?: PodSpec };

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let system = '';
let images: Record<string, LocalImage>;
let manifests: Manifest[] = [];
let controller: ControllerProcess | undefined;
const profiles: string[] = [];

beforeAll(async () => {
  tier = await acquireNodeTier();
  images = await localImages('redis-7.0', 'valkey-8.1');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  ns = await tier.createNamespace('cc-e2e');
  system = await tier.createNamespace('cc-e2e-sys');
  manifests = await renderChart(
    chartDir,
    { watchNamespace: ns, manageProviderProfiles: false },
    { releaseName, namespace: system },
  );
  const identity = await bindChartRbac(tier, manifests, system);
  controller = await startControllerProcess({
    app,
    kubeConfig: identity,
    env: {
      STEWARD_LEADER_ELECT: 'true',
      POD_NAMESPACE: system,
      STEWARD_WATCH_NAMESPACE: ns,
      STEWARD_POLL_INTERVAL_SECONDS: '1',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
      STEWARD_MANAGE_PROVIDER_PROFILES: 'false',
    },
  });
  await controller.ready();
}, 600_000);

afterAll(async () => {
  if (admin) {
    // Whatever a failed test left: deleted while the controller can still run its finalizer;
    // without a controller, the finalizer is dropped so the namespace can go.
    const left = await admin.list<CacheCluster>(Kind, { namespace: ns }).catch(() => undefined);
    for (const obj of left?.items ?? []) {
      await admin.delete(Kind, obj.metadata.name!, ns).catch(() => undefined);
    }
    const gone = await eventually(
      async () => (await admin.list(Kind, { namespace: ns })).items.length === 0,
      { description: 'every CacheCluster gone', timeoutMs: controller ? 90_000 : 1 },
    ).catch(() => false);
    if (!gone) {
      for (const obj of (await admin.list<CacheCluster>(Kind, { namespace: ns })).items) {
        await admin
          .mergePatch(Kind, obj.metadata.name!, ns, { metadata: { finalizers: null } })
          .catch(() => undefined);
      }
    }
  }
  await controller?.kill();
  if (admin) {
    for (const name of profiles) await admin.delete(Profiles, name).catch(() => undefined);
    for (const m of manifests) {
      if (m.kind === 'ClusterRole')
        await admin.delete(ClusterRoles, m.metadata.name!).catch(() => undefined);
      if (m.kind === 'ClusterRoleBinding')
        await admin.delete(ClusterRoleBindings, m.metadata.name!).catch(() => undefined);
    }
    await admin.close();
  }
  await tier?.release();
}, 180_000);

// ---------------------------------------------------------------------------------------------
// Helpers

const create = (name: string, spec: CacheClusterSpec) =>
  admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec,
  } as CacheCluster);
const read = (name: string) => admin.get<CacheCluster>(Kind, name, ns);
const patchSpec = (name: string, spec: Record<string, unknown>) =>
  admin.mergePatch<CacheCluster>(Kind, name, ns, { spec });

/** Ready=True for the object's generation, with every desired pod ready and in its role. */
const ready = (name: string, extra: (o: CacheCluster) => boolean = () => true) =>
  eventually(
    async () => {
      const obj = await read(name);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'True' &&
        cond.observedGeneration === obj.metadata.generation &&
        obj.status?.observedGeneration === obj.metadata.generation &&
        obj.status?.readyReplicas === obj.status?.replicas &&
        extra(obj)
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, ...long },
  );

/** Ready=False with `reason`, for the object's generation. */
const refused = (name: string, reason: string) =>
  eventually(
    async () => {
      const obj = await read(name);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'False' &&
        cond.reason === reason &&
        cond.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    { description: `${name} Ready=False ${reason}` },
  );

const passwordOf = async (name: string) => {
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  return Buffer.from(secret.data['password']!, 'base64').toString('utf8');
};
const getPod = (name: string) => admin.get<FullPod>(Pods, name, ns);
const podIp = async (name: string) => (await getPod(name)).status?.podIP ?? '';
const podReady = (p: Pod) =>
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The pod `name` once it is a new pod (not `oldUid`), running, ready and with an IP. */
const replaced = (name: string, oldUid: string) =>
  eventually(
    async () => {
      const p = await getPod(name).catch(() => undefined);
      return p && p.metadata.uid !== oldUid && !p.metadata.deletionTimestamp && podReady(p)
        ? p
        : undefined;
    },
    { description: `a new ${name} ready`, ...long },
  );

/** Runs `fn` on a fresh ioredis connection to `host`:6379. */
async function redisAt<T>(host: string, password: string, fn: (r: Redis) => Promise<T>) {
  const client = new Redis({
    host,
    port: 6379,
    password,
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined); // a refused connection rejects connect() below
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

/** Through the read-write Service's ClusterIP (kube-proxy on this host), once it routes. */
async function throughReadWrite<T>(name: string, fn: (r: Redis) => Promise<T>) {
  const svc = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ns,
  );
  const password = await passwordOf(name);
  return eventually(() => redisAt(svc.spec.clusterIP, password, fn), {
    description: `${name}-rw answering`,
  });
}

const eventsOf = async (name: string, reason: string) =>
  (await admin.list<Event>(Events, { namespace: ns })).items.filter(
    (e) => e.regarding?.kind === 'CacheCluster' && e.regarding.name === name && e.reason === reason,
  );
const eventNamed = (name: string, reason: string, note: RegExp) =>
  eventually(
    async () => {
      const seen = await eventsOf(name, reason);
      const found = seen.find((e) => note.test(e.note ?? ''));
      if (!found)
        throw new Error(`${reason} Events about ${name}: ${seen.map((e) => e.note).join(' | ')}`);
      return found;
    },
    { description: `Event ${reason} about ${name} saying ${note}` },
  );

/** The children of `name` that exist, by kind and name (label selector and the names it renders). */
async function childrenOf(name: string): Promise<string[]> {
  const found: string[] = [];
  for (const kind of [
    StatefulSets,
    Services,
    Secrets,
    ConfigMaps,
    PodDisruptionBudgets,
    NetworkPolicies,
    PersistentVolumeClaims,
    Pods,
  ]) {
    const list = await admin.list(kind, {
      namespace: ns,
      labelSelector: `${Labels.cluster}=${name}`,
    });
    for (const item of list.items) found.push(`${kind.kind}/${item.metadata.name}`);
  }
  const names = childNames(name);
  for (const [kind, child] of [
    [StatefulSets, names.statefulSet],
    [Services, names.readWrite],
    [Services, names.headless],
    [Secrets, names.authSecret],
    [ConfigMaps, names.configMap],
  ] as const) {
    const exists = await admin.get(kind, child, ns).then(
      () => true,
      (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
    );
    if (exists && !found.includes(`${kind.kind}/${child}`)) found.push(`${kind.kind}/${child}`);
  }
  return found;
}

const gone = (kind: ResourceType, name: string) =>
  eventually(
    () =>
      admin.get(kind, name, ns).then(
        () => false,
        (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
      ),
    { description: `${kind.kind} ${name} gone`, ...long },
  );

/** `kubectl get cacheclusters -o wide`, as a user reads it: row name → column → value. */
const printed = () => kubectlTable(tier.kubeconfigPath, 'cacheclusters.cache.steward.dev', ns);
const requestsOfController = async () => requestsByMethod(await controller!.metrics());

const conditionsOf = (obj: CacheCluster) =>
  Object.fromEntries(
    (obj.status?.conditions ?? []).map((c) => [c.type, { status: c.status, reason: c.reason }]),
  );

// ---------------------------------------------------------------------------------------------

describe('the cache-cluster-controller process on the node tier', () => {
  it('makes a Standalone redis 7.0 and a Replicated valkey 8.1 with volumes Ready: kstatus Current, every condition observed, endpoints that answer, printer columns', async ({
    annotate,
  }) => {
    const started = performance.now();
    await create('solo', { version: '7.0' });
    await create('pair', {
      engine: 'valkey',
      version: '8.1',
      mode: 'Replicated',
      replicas: 2,
      persistence: { enabled: true },
      failover: { after: '2s' },
    });
    const timings: Record<string, number> = {};
    const [solo, pair] = await Promise.all(
      ['solo', 'pair'].map((name) =>
        ready(name).then((obj) => {
          timings[name] = Math.round(performance.now() - started);
          return obj;
        }),
      ),
    );
    await annotate(
      `create → Ready: Standalone redis 7.0 ${timings['solo']} ms, Replicated valkey 8.1 (2 pods, PVCs) ${timings['pair']} ms (both created together)`,
    );

    for (const obj of [solo!, pair!]) {
      expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
      expect(conditionsOf(obj)).toEqual({
        Ready: { status: 'True', reason: 'Available' },
        Progressing: { status: 'False', reason: 'Converged' },
        Degraded: { status: 'False', reason: 'Healthy' },
      });
    }
    expect(solo!.status).toMatchObject({
      phase: 'Ready',
      primary: 'solo-0',
      replicas: 1,
      readyReplicas: 1,
      image: images['redis-7.0']!.ref,
      endpoints: {
        readWrite: { host: `solo-rw.${ns}.svc`, port: 6379 },
        secretName: 'solo-auth',
        secretKey: 'password',
      },
      persistence: { durable: false },
    });
    expect(solo!.status?.endpoints?.readOnly).toBeUndefined();
    expect(pair!.status).toMatchObject({
      phase: 'Ready',
      primary: 'pair-0',
      replicas: 2,
      readyReplicas: 2,
      image: images['valkey-8.1']!.ref,
      endpoints: {
        readWrite: { host: `pair-rw.${ns}.svc`, port: 6379 },
        readOnly: { host: `pair-ro.${ns}.svc`, port: 6379 },
        secretName: 'pair-auth',
        secretKey: 'password',
      },
      persistence: { durable: true },
    });
    expect(pair!.status?.persistence?.message).toMatch(/survives pod restarts/);
    const claims = await admin.list<Claim>(PersistentVolumeClaims, {
      namespace: ns,
      labelSelector: `${Labels.cluster}=pair`,
    });
    expect(claims.items.map((c) => c.metadata.name).sort()).toEqual(['data-pair-0', 'data-pair-1']);
    expect(claims.items.every((c) => c.status?.phase === 'Bound')).toBe(true);

    // The endpoints answer: a write and a read through each read-write Service, and the replica
    // has the primary's write.
    expect(await throughReadWrite('solo', async (r) => (await r.set('k', 'solo')) === 'OK')).toBe(
      true,
    );
    expect(
      await throughReadWrite('pair', async (r) => {
        await r.set('before-scaling', 'v1');
        return r.call('WAIT', 1, 5000);
      }),
    ).toBe(1);
    expect(await redisAt(await podIp('pair-1'), await passwordOf('pair'), (r) => r.role())).toEqual(
      ['slave', await podIp('pair-0'), 6379, 'connected', expect.any(Number)],
    );

    const table = await printed();
    expect(table['solo']).toMatchObject({
      READY: 'True',
      MODE: 'Standalone',
      PRIMARY: 'solo-0',
      'READY REPLICAS': '1',
      PHASE: 'Ready',
      VERSION: '7.0',
      REASON: 'Available',
    });
    expect(table['pair']).toMatchObject({
      READY: 'True',
      MODE: 'Replicated',
      PRIMARY: 'pair-0',
      'READY REPLICAS': '2',
      PHASE: 'Ready',
      VERSION: '8.1',
      REASON: 'Available',
    });
  }, 300_000);

  it('scales the Replicated cache 2 → 3 → 2: Ready at each step, the new pod a replica of the unchanged primary, Scaling/Scaled Events', async () => {
    const before = await read('pair');
    const primaryRunId = before.status?.primaryRunId;
    expect(primaryRunId).toBeDefined();
    const password = await passwordOf('pair');

    await patchSpec('pair', { replicas: 3 });
    const up = await ready('pair', (o) => o.status?.replicas === 3);
    expect(up.status).toMatchObject({ primary: 'pair-0', primaryRunId, readyReplicas: 3 });
    expect(up.status?.failoverCount).toBeUndefined();
    const primaryIp = await podIp('pair-0');
    await redisAt(await podIp('pair-2'), password, async (r) => {
      expect(await r.role()).toEqual(['slave', primaryIp, 6379, 'connected', expect.any(Number)]);
      expect(await r.get('before-scaling')).toBe('v1');
    });
    expect((await printed())['pair']).toMatchObject({ 'READY REPLICAS': '3', PHASE: 'Ready' });
    expect(await gitOpsReading(up)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    await eventNamed('pair', 'Scaling', /^3 pods desired/);
    await eventNamed('pair', 'Scaled', /^3 pods desired, 3 ready/);

    await patchSpec('pair', { replicas: 2 });
    const down = await ready('pair', (o) => o.status?.replicas === 2);
    expect(down.status).toMatchObject({ primary: 'pair-0', primaryRunId, readyReplicas: 2 });
    await gone(Pods, 'pair-2');
    // The scaled-down pod's volume stays (whenScaled: Retain); the StatefulSet reuses it.
    await admin.get(PersistentVolumeClaims, 'data-pair-2', ns);
    expect(await gitOpsReading(down)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    await eventNamed('pair', 'Scaling', /^2 pods desired/);
    await eventNamed('pair', 'Scaled', /^2 pods desired, 2 ready/);
    // Scaled only once a scale is over: every one says as many pods ready as desired.
    for (const e of await eventsOf('pair', 'Scaled'))
      expect(e.note).toMatch(/^(\d) pods desired, \1 ready$/);
  }, 300_000);

  it('with persistence, keys survive deleting a replica pod and deleting a Standalone cache’s only pod; without, status says the data is regenerable and a pod deletion loses it', async () => {
    await create('durable', { version: '7.0', persistence: { enabled: true } });
    const durable = await ready('durable');
    expect(durable.status?.persistence).toMatchObject({ durable: true });

    // Standalone with persistence: its one pod deleted, the key is there when it returns.
    const durablePassword = await passwordOf('durable');
    const durablePod = await getPod('durable-0');
    await redisAt(durablePod.status!.podIP!, durablePassword, (r) => r.set('kept', 'yes'));
    const claimUid = (await admin.get(PersistentVolumeClaims, 'data-durable-0', ns)).metadata.uid;
    await admin.delete(Pods, 'durable-0', ns);
    const back = await replaced('durable-0', durablePod.metadata.uid!);
    expect(await redisAt(back.status!.podIP!, durablePassword, (r) => r.get('kept'))).toBe('yes');
    expect((await admin.get(PersistentVolumeClaims, 'data-durable-0', ns)).metadata.uid).toBe(
      claimUid,
    );
    const durableAgain = await ready(
      'durable',
      (o) => o.status?.primaryRunId !== durable.status?.primaryRunId,
    );
    expect(durableAgain.status?.primaryRunId).not.toBe(durable.status?.primaryRunId);
    expect(await throughReadWrite('durable', (r) => r.get('kept'))).toBe('yes');

    // Replicated with persistence: a replica pod deleted comes back with the keys, on its volume.
    const pairPassword = await passwordOf('pair');
    const primaryIp = await podIp('pair-0');
    expect(
      await redisAt(primaryIp, pairPassword, async (r) => {
        for (let i = 0; i < 50; i++) await r.set(`durable-${i}`, `${i}`);
        return r.call('WAIT', 1, 5000);
      }),
    ).toBe(1);
    const replica = await getPod('pair-1');
    const replicaClaim = (await admin.get(PersistentVolumeClaims, 'data-pair-1', ns)).metadata.uid;
    await admin.delete(Pods, 'pair-1', ns);
    const newReplica = await replaced('pair-1', replica.metadata.uid!);
    await ready('pair', (o) => o.status?.primary === 'pair-0');
    // Ready may still be the reading from before the deletion: wait for the new server's link.
    await eventually(
      () =>
        redisAt(newReplica.status!.podIP!, pairPassword, async (r) => {
          const role = await r.role();
          return role[0] === 'slave' && role[1] === primaryIp && role[3] === 'connected';
        }),
      { description: 'the new pair-1 a connected replica of pair-0' },
    );
    await redisAt(newReplica.status!.podIP!, pairPassword, async (r) => {
      expect(await r.get('durable-49')).toBe('49');
      expect(await r.get('before-scaling')).toBe('v1');
    });
    expect((await admin.get(PersistentVolumeClaims, 'data-pair-1', ns)).metadata.uid).toBe(
      replicaClaim,
    );
    expect((await read('pair')).status?.failoverCount).toBeUndefined();

    // Without persistence: the status says so, and a pod deletion loses the keys.
    const solo = await read('solo');
    expect(solo.status?.persistence).toEqual({
      durable: false,
      message: expect.stringMatching(/a pod restart loses its data.*must be regenerable/),
    });
    const soloPassword = await passwordOf('solo');
    const soloPod = await getPod('solo-0');
    await redisAt(soloPod.status!.podIP!, soloPassword, async (r) => {
      await r.set('lost', 'soon');
      expect(await r.dbsize()).toBeGreaterThan(0);
    });
    await admin.delete(Pods, 'solo-0', ns);
    const soloBack = await replaced('solo-0', soloPod.metadata.uid!);
    await ready('solo', (o) => o.status?.primaryRunId !== solo.status?.primaryRunId);
    await redisAt(soloBack.status!.podIP!, soloPassword, async (r) => {
      expect(await r.get('lost')).toBeNull();
      expect(await r.dbsize()).toBe(0);
    });
    expect(
      await admin.list(PersistentVolumeClaims, {
        namespace: ns,
        labelSelector: `${Labels.cluster}=solo`,
      }),
    ).toMatchObject({ items: [] });
    // A pod that is gone is not a scale: no Scaling/Scaled Event for any of these deletions.
    for (const name of ['durable', 'solo'])
      for (const reason of ['Scaling', 'Scaled']) expect(await eventsOf(name, reason)).toEqual([]);
    expect((await eventsOf('pair', 'Scaling')).length).toBe(2); // 2 → 3 and 3 → 2 only
  }, 300_000);

  it('grows the volumes with persistence.size as far as the StorageClass allows, and says so', async ({
    annotate,
  }) => {
    const storageClass = await admin.get<KubeObject & { allowVolumeExpansion?: boolean }>(
      StorageClasses,
      tier.storageClass,
    );
    await patchSpec('pair', { persistence: { enabled: true, size: '2Gi' } });
    const claimNames = ['data-pair-0', 'data-pair-1', 'data-pair-2'];
    if (storageClass.allowVolumeExpansion === true) {
      await annotate(`StorageClass ${tier.storageClass} allows expansion: the PVCs are patched`);
      for (const name of claimNames) {
        await eventually(
          async () =>
            (await admin.get<Claim>(PersistentVolumeClaims, name, ns)).spec?.resources?.requests
              ?.storage === '2Gi',
          { description: `${name} asks for 2Gi` },
        );
      }
      await eventNamed('pair', 'VolumeExpanding', /data-pair-0 grows from 1Gi to 2Gi/);
      return;
    }
    await annotate(
      `StorageClass ${tier.storageClass} has no allowVolumeExpansion: the API server refuses the PVC patch, and the CacheCluster says Degraded=True VolumeExpansionFailed with its message`,
    );
    const obj = await eventually(
      async () => {
        const o = await read('pair');
        const degraded = findCondition(o.status?.conditions, 'Degraded');
        return degraded?.status === 'True' &&
          degraded.reason === 'VolumeExpansionFailed' &&
          degraded.observedGeneration === o.metadata.generation
          ? o
          : undefined;
      },
      { description: 'pair Degraded VolumeExpansionFailed' },
    );
    const message = findCondition(obj.status?.conditions, 'Degraded')!.message;
    for (const name of claimNames) {
      expect(message).toContain(`PersistentVolumeClaim ${name} cannot grow from 1Gi to 2Gi`);
    }
    // The API server's own words (the PersistentVolumeClaimResize admission plugin).
    expect(message).toMatch(
      /only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize/,
    );
    for (const name of claimNames) {
      expect(
        (await admin.get<Claim>(PersistentVolumeClaims, name, ns)).spec?.resources?.requests
          ?.storage,
      ).toBe('1Gi');
    }
    // The servers are fine: still Ready, the GitOps reading is not stuck "in progress".
    expect(findCondition(obj.status?.conditions, 'Ready')?.status).toBe('True');
    expect(await gitOpsReading(obj)).toMatchObject({ unobserved: [] });
  }, 300_000);

  it('stops a CacheCluster its kubernetes profile forbids before any child exists (Stalled, kstatus Failed); fixing the spec makes it Ready, with the size class’s resources', async () => {
    const profile = `${ns}-guarded`;
    await admin.create(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: profile },
      spec: {
        provider: 'kubernetes',
        namespaceSelector: {},
        kubernetes: {
          sizeClasses: {
            small: { cpu: '50m', memory: '96Mi', maxMemory: '48Mi', storage: '1Gi' },
            large: { cpu: '2', memory: '4Gi' },
          },
          images: [
            { engine: 'redis', version: '7.0', image: images['redis-7.0']!.ref },
            { engine: 'valkey', version: '8.1', image: images['valkey-8.1']!.ref },
          ],
          storageClassNames: [tier.storageClass],
          maxReplicas: 2,
        },
        guardrails: { allowedDeletionPolicies: ['Retain'], allowedSizes: ['small'] },
      },
    } as KubeObject);
    profiles.push(profile);
    const ref = { providerProfileRef: { name: profile } };
    const R = WorkloadAdmissionReasons;
    const cases: {
      name: string;
      spec: CacheClusterSpec;
      reason: string;
      message: RegExp;
      fix?: Record<string, unknown>;
    }[] = [
      {
        name: 'g-unknown-size',
        spec: { version: '7.0', size: 'medium', ...ref },
        reason: R.UnknownSize,
        message:
          /spec\.size medium is not a size class of ProviderProfile .* \(known: large, small\)/,
        fix: { size: 'small' },
      },
      {
        name: 'g-size-not-allowed',
        spec: { version: '7.0', size: 'large', ...ref },
        reason: R.SizeNotAllowed,
        message: /spec\.size large is not allowed by ProviderProfile .* \(allowed: small\)/,
        fix: { size: null },
      },
      {
        name: 'g-storage-class',
        spec: {
          version: '7.0',
          persistence: { enabled: true, storageClassName: 'fast-ssd' },
          ...ref,
        },
        reason: R.StorageClassNotAllowed,
        message: new RegExp(
          `spec\\.persistence\\.storageClassName fast-ssd is not allowed by ProviderProfile .* \\(allowed: ${tier.storageClass}\\)`,
        ),
        // storageClassName is immutable: this one stays refused (the converged-cost test counts
        // it); the fix is a new CacheCluster, below.
      },
      {
        name: 'g-delete',
        spec: { version: '7.0', deletionPolicy: 'Delete', ...ref },
        reason: R.DeletionPolicyNotAllowed,
        message:
          /spec\.deletionPolicy Delete is not allowed by ProviderProfile .* \(allowed: Retain\)/,
        fix: { deletionPolicy: 'Retain' },
      },
      {
        name: 'g-replicas',
        spec: { engine: 'valkey', version: '8.1', mode: 'Replicated', replicas: 3, ...ref },
        reason: R.ReplicasExceedLimit,
        message: /spec\.replicas 3 exceeds spec\.kubernetes\.maxReplicas 2 of ProviderProfile/,
        fix: { replicas: 2 },
      },
      {
        name: 'g-version',
        spec: { version: '6.2', ...ref },
        reason: R.ImageNotInCatalogue,
        message:
          /spec\.version 6\.2 of redis .* has no image in the catalogue of ProviderProfile .*redis 7\.0/,
        fix: { version: '7.0' },
      },
    ];
    await Promise.all(cases.map((c) => create(c.name, c.spec)));
    for (const c of cases) {
      const obj = await refused(c.name, c.reason);
      const cond = findCondition(obj.status?.conditions, 'Ready')!;
      expect(cond.message, c.name).toMatch(c.message);
      expect(findCondition(obj.status?.conditions, 'Stalled'), c.name).toMatchObject({
        status: 'True',
        reason: c.reason,
      });
      expect(await gitOpsReading(obj), c.name).toMatchObject({
        kstatus: 'Failed',
        unobserved: [],
      });
      expect(await childrenOf(c.name), c.name).toEqual([]);
      await eventNamed(c.name, c.reason, /ProviderProfile/);
    }

    // Fixed: each becomes Ready (Stalled gone, kstatus Current).
    await Promise.all(cases.filter((c) => c.fix).map((c) => patchSpec(c.name, c.fix!)));
    await create('g-storage-class-ok', {
      version: '7.0',
      persistence: { enabled: true, storageClassName: tier.storageClass },
      ...ref,
    });
    const fixed = await Promise.all(
      [...cases.filter((c) => c.fix).map((c) => c.name), 'g-storage-class-ok'].map((name) =>
        ready(name),
      ),
    );
    for (const obj of fixed) {
      expect(findCondition(obj.status?.conditions, 'Stalled'), obj.metadata.name).toBeUndefined();
      expect(await gitOpsReading(obj), obj.metadata.name).toMatchObject({
        kstatus: 'Current',
        unobserved: [],
      });
    }
    expect((await read('g-replicas')).status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      image: images['valkey-8.1']!.ref,
    });
    expect(
      (await admin.get<Claim>(PersistentVolumeClaims, 'data-g-storage-class-ok-0', ns)).spec,
    ).toMatchObject({ storageClassName: tier.storageClass });
    // The refused one still has nothing.
    expect(await childrenOf('g-storage-class')).toEqual([]);

    // A valid size class: its resources on the pod, its maxMemory in the server.
    const sized = await getPod('g-unknown-size-0');
    expect(sized.spec?.containers.find((c) => c.name === 'server')?.resources).toEqual({
      requests: { cpu: '50m', memory: '96Mi' },
      limits: { memory: '96Mi' },
    });
    expect(
      await redisAt(sized.status!.podIP!, await passwordOf('g-unknown-size'), (r) =>
        r.config('GET', 'maxmemory'),
      ),
    ).toEqual(['maxmemory', String(48 * 1024 * 1024)]);
    // Without a size class: no resources from the profile.
    const unsized = await getPod('g-size-not-allowed-0');
    expect(unsized.spec?.containers.find((c) => c.name === 'server')?.resources).toEqual({});
  }, 300_000);

  it('costs no API writes once converged: over 20 s, no POST/PATCH/DELETE and no Event; the only PUTs are its Lease renewals', async ({
    annotate,
  }) => {
    // Everything converged first (the guardrail-refused one stays Stalled).
    const all = (await admin.list<CacheCluster>(Kind, { namespace: ns })).items.map(
      (o) => o.metadata.name!,
    );
    for (const name of all.filter((n) => n !== 'g-storage-class')) await ready(name);
    await refused('g-storage-class', WorkloadAdmissionReasons.StorageClassNotAllowed);
    const ourEvents = async () =>
      Object.fromEntries(
        (await admin.list<Event>(Events, { namespace: ns })).items
          .filter((e) => e.reportingController === reportingController)
          .map((e) => [e.metadata.name, e.metadata.resourceVersion]),
      );
    // A few polls first, so nothing of the last convergence is still in flight.
    await new Promise((r) => setTimeout(r, 3000));

    const lease = await admin.get(Leases, leaseName, system);
    const watching = new AbortController();
    let renewals = 0;
    const seen = new Set([lease.metadata.resourceVersion]);
    const watch = (async () => {
      for await (const event of admin.watch(Leases, {
        namespace: system,
        fieldSelector: `metadata.name=${leaseName}`,
        resourceVersion: lease.metadata.resourceVersion!,
        signal: watching.signal,
      })) {
        if (event.type === 'MODIFIED') renewals++;
        seen.add(event.object.metadata.resourceVersion);
      }
    })();
    const eventsBefore = await ourEvents();
    const before = await requestsOfController();
    await new Promise((r) => setTimeout(r, 20_000));
    const after = await requestsOfController();
    const eventsAfter = await ourEvents();
    const leaseAfter = await admin.get(Leases, leaseName, system);
    await eventually(() => seen.has(leaseAfter.metadata.resourceVersion), {
      description: 'the Lease watch caught up',
    });
    watching.abort();
    await watch;

    const delta = (method: string) => (after[method] ?? 0) - (before[method] ?? 0);
    await annotate(
      `20 s converged, ${all.length} CacheClusters: GET ${delta('GET')}, PUT ${delta('PUT')} (Lease renewals seen: ${renewals}), POST ${delta('POST')}, PATCH ${delta('PATCH')}, DELETE ${delta('DELETE')}`,
    );
    expect({ POST: delta('POST'), PATCH: delta('PATCH'), DELETE: delta('DELETE') }).toEqual({
      POST: 0,
      PATCH: 0,
      DELETE: 0,
    });
    // Leader election is the process's only PUT (client.update of its Lease); every one of them
    // is a renewal the Lease's own watch saw.
    expect(delta('PUT')).toBeGreaterThan(0);
    expect(delta('PUT')).toBeLessThanOrEqual(renewals);
    expect(eventsAfter).toEqual(eventsBefore);
  }, 300_000);

  it('deletionPolicy Retain keeps the volumes and the auth Secret (no owner left) and says so; Delete takes them', async () => {
    const password = await passwordOf('durable');
    await patchSpec('pair', { deletionPolicy: 'Delete' });
    await ready('pair', (o) => o.metadata.generation === o.status?.observedGeneration);
    await Promise.all([admin.delete(Kind, 'durable', ns), admin.delete(Kind, 'pair', ns)]);
    await Promise.all([gone(Kind, 'durable'), gone(Kind, 'pair')]);

    // Retain: the StatefulSet, Services and the rest go; the PVC and the Secret stay, ownerless.
    await Promise.all([
      gone(StatefulSets, 'durable'),
      gone(Services, 'durable-rw'),
      gone(Services, 'durable-headless'),
      gone(ConfigMaps, 'durable-config'),
      gone(PodDisruptionBudgets, 'durable'),
      gone(NetworkPolicies, 'durable'),
      gone(Pods, 'durable-0'),
    ]);
    const claim = await admin.get<Claim>(PersistentVolumeClaims, 'data-durable-0', ns);
    expect(claim.metadata.deletionTimestamp).toBeUndefined();
    expect(claim.metadata.ownerReferences ?? []).toEqual([]);
    const secret = await admin.get(Secrets, 'durable-auth', ns);
    expect(secret.metadata.deletionTimestamp).toBeUndefined();
    expect(secret.metadata.ownerReferences ?? []).toEqual([]);
    expect(await passwordOf('durable')).toBe(password);
    const retained = await eventNamed('durable', 'Retained', /deletionPolicy Retain/);
    expect(retained.note).toContain('PersistentVolumeClaim data-durable-0');
    expect(retained.note).toContain('Secret durable-auth');

    // Delete: every volume (the scaled-down pod's too) and the Secret go.
    await Promise.all([
      gone(StatefulSets, 'pair'),
      gone(Secrets, 'pair-auth'),
      gone(PersistentVolumeClaims, 'data-pair-0'),
      gone(PersistentVolumeClaims, 'data-pair-1'),
      gone(PersistentVolumeClaims, 'data-pair-2'),
    ]);
    expect(await childrenOf('pair')).toEqual([]);
    await eventNamed(
      'pair',
      'Deleted',
      /PersistentVolumeClaims data-pair-0, data-pair-1, data-pair-2 deleted/,
    );
  }, 300_000);

  it('deletes what is left and stops cleanly on SIGTERM, handing its Lease back', async () => {
    const left = (await admin.list<CacheCluster>(Kind, { namespace: ns })).items;
    await Promise.all(left.map((o) => admin.delete(Kind, o.metadata.name!, ns)));
    await Promise.all(left.map((o) => gone(Kind, o.metadata.name!)));
    const stopped = controller!.process;
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
    // Nothing the controller did was refused by the chart's RBAC.
    expect(readFileSync(stopped.logFile, 'utf8')).not.toMatch(/User "system:serviceaccount:/);
    const lease = await admin.get<KubeObject & { spec?: { holderIdentity?: string } }>(
      Leases,
      leaseName,
      system,
    );
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  }, 300_000);
});
