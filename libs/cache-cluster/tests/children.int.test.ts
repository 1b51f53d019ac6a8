/**
 * The rendered children of a CacheCluster, as a real API server judges them: every object is
 * server-side applied with dryRun (validated, defaulted and admitted, nothing stored), must be
 * accepted, and must come back holding every field as rendered — no field dropped or
 * re-spelled, so comparing what is stored with what is rendered sees no drift that is not there.
 * The pod template must also pass the `restricted` Pod Security Standard.
 *
 * Then the same children run for real on the node tier (a real kubelet), once per image of the
 * catalogue (redis 7.0, redis 8.0, valkey 8.1): each server starts from the rendered redis.conf
 * and the auth file its start script writes (so every directive is one that server accepts),
 * answers only to the password (one with quotes, a backslash, spaces and a newline), and a
 * Replicated cluster's pods boot fenced.
 */
import { type CacheCluster } from '@steward/cache-cluster-api';
import {
  ConfigMaps,
  isForbidden,
  isInvalid,
  isNotFound,
  KubeClient,
  Namespaces,
  NetworkPolicies,
  PodDisruptionBudgets,
  Pods,
  Secrets,
  Services,
  StatefulSets,
  type ApplyConfiguration,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { eventually, startControlPlane, type ControlPlane } from '@steward/testing';
import {
  acquireNodeTier,
  localImages,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childNames,
  passwordSecretOf,
  renderChildren,
  replicasOf,
  type ChildObject,
  type RenderedChildren,
  type RenderInput,
} from '../src/children/index.js';

const fieldManager = 'cache-cluster-controller';
const namespace = 'shop';
const restricted = 'locked';

let plane: ControlPlane;
let kube: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane();
  kube = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  await kube.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  await kube.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: restricted,
      labels: {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  });
}, 180_000);
afterAll(async () => {
  await kube?.close();
  await plane?.stop();
});

function cacheCluster(
  name: string,
  spec: Partial<CacheCluster['spec']>,
  ns = namespace,
): CacheCluster {
  return {
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec: {
      version: '7.0',
      engine: 'redis',
      mode: 'Standalone',
      evictionPolicy: 'noeviction',
      deletionPolicy: 'Retain',
      persistence: { enabled: false },
      ...spec,
    },
  };
}

const controller = {
  namespace: 'steward-system',
  podLabels: { 'app.kubernetes.io/name': 'cache-cluster-controller' },
};

/** Inputs that between them render every variant of every child. */
const cases: [string, RenderInput][] = [
  (() => {
    const cluster = cacheCluster('plain', {});
    return [
      'Standalone redis, no persistence, nothing resolved but the image',
      {
        cluster,
        image: 'ghcr.io/steward-dev/redis:7.0.15',
        passwordSecret: passwordSecretOf(cluster),
      },
    ];
  })(),
  (() => {
    const cluster = cacheCluster('durable', {
      engine: 'valkey',
      version: '8.1',
      mode: 'Replicated',
      replicas: 3,
      evictionPolicy: 'allkeys-lru',
      persistence: { enabled: true, size: '2Gi', storageClassName: 'fast-ssd' },
      clients: { podSelector: { app: 'shop' }, namespaceSelector: { team: 'web' } },
    });
    return [
      'Replicated valkey with persistence, resources, clients and the controller',
      {
        cluster,
        image: 'ghcr.io/steward-dev/valkey:8.1.1',
        resources: {
          requests: { cpu: '100m', memory: '256Mi' },
          limits: { cpu: '1', memory: '512Mi' },
        },
        storage: { size: '2Gi', storageClassName: 'fast-ssd' },
        existingTemplateStorage: '1Gi',
        passwordSecret: passwordSecretOf(cluster),
        controller,
      },
    ];
  })(),
  (() => {
    const cluster = cacheCluster('theirs', {
      engine: 'redis',
      version: '8.0',
      mode: 'Replicated',
      auth: { existingSecret: { name: 'their-secret', key: 'redis-password' } },
      clients: { namespaceSelector: { team: 'web' } },
      maxMemory: '100Mi',
    });
    return [
      'Replicated redis with the user’s Secret, clients by namespace only, maxMemory resolved',
      {
        cluster,
        image: 'ghcr.io/steward-dev/redis:8.0.2',
        resources: { limits: { memory: '256Mi' } },
        maxMemoryBytes: 104857600,
        passwordSecret: passwordSecretOf(cluster),
        controller: { namespace: 'steward-system', podLabels: {} },
      },
    ];
  })(),
];

/** Each child with the resource type it is applied as. */
function typed(rendered: RenderedChildren): [ResourceType, ChildObject][] {
  return [
    [StatefulSets, rendered.statefulSet],
    [Services, rendered.headless],
    [Services, rendered.readWrite],
    [Services, rendered.readOnly],
    [ConfigMaps, rendered.configMap],
    [PodDisruptionBudgets, rendered.podDisruptionBudget],
    ...(rendered.primaryDisruptionBudget
      ? [[PodDisruptionBudgets, rendered.primaryDisruptionBudget] as [ResourceType, ChildObject]]
      : []),
    [NetworkPolicies, rendered.networkPolicy],
    ...(rendered.authSecret
      ? [[Secrets, rendered.authSecret('generated-once-password')] as [ResourceType, ChildObject]]
      : []),
  ];
}

/**
 * The StatefulSet's pod template as the Pod its controller would create for ordinal 0, in the
 * namespace that enforces the restricted Pod Security Standard.
 */
function podOf(input: RenderInput): ChildObject {
  const cluster = {
    ...input.cluster,
    metadata: { ...input.cluster.metadata, namespace: restricted },
  };
  const rendered = renderChildren({ ...input, cluster });
  const template = (
    rendered.statefulSet.spec as {
      template: { metadata: { labels: Record<string, string> }; spec: { volumes: object[] } };
    }
  ).template;
  const name = childNames(cluster.metadata.name!).pod(0);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...template.metadata, name, namespace: restricted },
    spec: {
      ...template.spec,
      // what the StatefulSet controller adds for the `data` volumeClaimTemplate
      volumes: [
        ...template.spec.volumes,
        ...(input.storage
          ? [{ name: 'data', persistentVolumeClaim: { claimName: `data-${name}` } }]
          : []),
      ],
    },
  };
}

const dryApply = (rt: ResourceType, obj: ChildObject) =>
  kube.apply(rt, obj as ApplyConfiguration<KubeObject>, { dryRun: true, fieldManager });

describe('rendered children on a real API server (server-side apply, dryRun)', () => {
  it.each(cases)(
    '%s: every child is accepted and comes back with every field as rendered',
    async (_case, input) => {
      const rendered = renderChildren(input);
      const children = typed(rendered);
      // Replicated with more than one pod: two PodDisruptionBudgets (`<name>-primary`).
      const budgets = replicasOf(input.cluster) > 1 ? 2 : 1;
      expect(children.length).toBe((input.cluster.spec.auth?.existingSecret ? 6 : 7) + budgets);
      for (const [rt, obj] of children) {
        const applied = await dryApply(rt, obj);
        expect(applied, `${obj.kind} ${obj.metadata.name}`).toMatchObject(obj);
        // dryRun: nothing stored
        const stored = await kube
          .get(rt, obj.metadata.name, obj.metadata.namespace)
          .catch((e) => e);
        expect(isNotFound(stored)).toBe(true);
      }
    },
  );

  it('the pod template passes the restricted Pod Security Standard, as a Pod in a namespace enforcing it', async () => {
    for (const [, input] of cases) {
      const applied = await dryApply(Pods, podOf(input));
      expect(applied.metadata.name).toBe(childNames(input.cluster.metadata.name!).pod(0));
    }
  });

  it('the restricted check is real: the same Pod with a capability added back is forbidden', async () => {
    const pod = podOf(cases[0]![1]) as ChildObject & {
      spec: { containers: { securityContext: { capabilities: object } }[] };
    };
    pod.spec.containers[0]!.securityContext.capabilities = { drop: ['ALL'], add: ['NET_RAW'] };
    const error = await dryApply(Pods, pod).catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/violates PodSecurity "restricted:latest"/);
  });

  it('dryRun does validate: a StatefulSet whose selector misses its pods is refused', async () => {
    const rendered = renderChildren(cases[0]![1]);
    const broken = structuredClone(rendered.statefulSet) as ChildObject & {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    broken.spec.selector.matchLabels = { 'cache.steward.dev/cluster': 'someone-else' };
    const error = await dryApply(StatefulSets, broken).catch((e: unknown) => e);
    expect(isInvalid(error)).toBe(true);
  });
});

describe('rendered children running on the node tier, for every engine image', () => {
  /** [image, engine, spec.version, the server's own version] */
  const engines = [
    ['redis-7.0', 'redis', '7.0', '7.0.15'],
    ['redis-8.0', 'redis', '8.0', '8.0.2'],
    ['valkey-8.1', 'valkey', '8.1', '8.1.1'],
  ] as const;
  /** Everything redis.conf's quoting could trip over: quotes, a backslash, spaces, a newline. */
  const password = `p"w 'x' \\ $HOME\n${randomBytes(8).toString('hex')}`;
  let tier: NodeTier;
  let tierKube: KubeClient;
  let images: Record<string, LocalImage>;
  let ns = '';
  const clients: Redis[] = [];

  beforeAll(async () => {
    tier = await acquireNodeTier();
    tierKube = new KubeClient(tier.kubeConfig, { fieldManager });
    images = await localImages(...engines.map(([image]) => image));
    for (const image of Object.values(images)) await tier.importImage(image);
    ns = await tier.createNamespace('cc-children');
  }, 900_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await tierKube?.close();
    await tier?.release();
  });

  /** Applies every child (the generated Secret with `password`), as the controller will. */
  async function applyAll(input: RenderInput): Promise<void> {
    const rendered = renderChildren(input);
    for (const [rt, obj] of typed({
      ...rendered,
      ...(rendered.authSecret ? { authSecret: () => rendered.authSecret!(password) } : {}),
    })) {
      await tierKube.apply(rt, obj as ApplyConfiguration<KubeObject>);
    }
  }

  /** The pod's IP once it is Ready: its readiness probe, an authenticated PING, passes. */
  const readyIp = (name: string) =>
    eventually(
      async () => {
        const pod = await tierKube
          .get<KubeObject & { status?: PodStatus }>(Pods, name, ns)
          .catch(() => undefined);
        const ready = pod?.status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        );
        return ready ? pod?.status?.podIP : undefined;
      },
      { timeoutMs: 180_000, description: `pod ${ns}/${name} Ready` },
    );

  const connect = (host: string, auth?: string) => {
    const client = new Redis({
      host,
      port: 6379,
      ...(auth !== undefined ? { password: auth } : {}),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableReadyCheck: false,
    });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };

  const configGet = async (client: Redis, key: string) =>
    ((await client.call('CONFIG', 'GET', key)) as string[])[1];

  it.each(engines)(
    '%s: a Replicated, persistent, fenced cluster starts from the rendered config, answers only to the password, and boots fenced',
    async (image, engine, version, serverVersion) => {
      const cluster = cacheCluster(
        `rep-${engine}-${version.replace('.', '')}`,
        {
          engine,
          version,
          mode: 'Replicated',
          replicas: 2,
          persistence: { enabled: true },
          fencing: { minReplicas: 1, maxLag: '3s' },
        },
        ns,
      );
      await applyAll({
        cluster,
        image: images[image]!.ref,
        resources: { requests: { memory: '64Mi' }, limits: { memory: '128Mi' } },
        storage: { size: '64Mi', storageClassName: tier.storageClass },
        passwordSecret: passwordSecretOf(cluster),
      });
      const names = childNames(cluster.metadata.name!);
      for (const ordinal of [0, 1]) {
        const ip = await readyIp(names.pod(ordinal));
        await expect(connect(ip).call('PING')).rejects.toThrow(/NOAUTH/);
        await expect(connect(ip, `${password}x`).call('PING')).rejects.toThrow(
          /WRONGPASS|invalid password/,
        );
        const client = connect(ip, password);
        expect(await client.call('PING')).toBe('PONG');
        expect(await client.info('server')).toContain(`${engine}_version:${serverVersion}`);
        // fenced: a replica of an address that does not exist, refusing writes and replicas
        expect(((await client.call('ROLE')) as unknown[]).slice(0, 3)).toEqual([
          'slave',
          '127.0.0.1',
          1,
        ]);
        await expect(client.set('k', 'v')).rejects.toThrow(/READONLY/);
        await expect(client.call('PSYNC', '?', '-1')).rejects.toThrow(/NOMASTERLINK/);
        // the rendered directives, as the server holds them
        expect(await configGet(client, 'maxmemory')).toBe(String(Math.floor(128 * 2 ** 20 * 0.8)));
        expect(await configGet(client, 'appendonly')).toBe('yes');
        expect(await configGet(client, 'save')).toBe('3600 1 300 100 60 10000');
        expect(await configGet(client, 'dir')).toBe('/data');
        expect(await configGet(client, 'enable-debug-command')).toBe('no');
        expect(await configGet(client, 'shutdown-on-sigterm')).toBe('default');
        // spec.fencing
        expect(await configGet(client, 'min-replicas-to-write')).toBe('1');
        expect(await configGet(client, 'min-replicas-max-lag')).toBe('3');
        // salvage: the controller may set dbfilename
        expect(await configGet(client, 'enable-protected-configs')).toBe('yes');
      }
    },
    300_000,
  );

  it.each(engines)(
    '%s: a Standalone cluster without persistence is a writable primary from its first start',
    async (image, engine, version) => {
      const cluster = cacheCluster(
        `one-${engine}-${version.replace('.', '')}`,
        { engine, version, evictionPolicy: 'allkeys-lru' },
        ns,
      );
      await applyAll({
        cluster,
        image: images[image]!.ref,
        passwordSecret: passwordSecretOf(cluster),
      });
      const client = connect(await readyIp(childNames(cluster.metadata.name!).pod(0)), password);
      expect(((await client.call('ROLE')) as unknown[])[0]).toBe('master');
      expect(await client.set('k', 'v')).toBe('OK');
      expect(await client.get('k')).toBe('v');
      expect(await configGet(client, 'appendonly')).toBe('no');
      expect(await configGet(client, 'save')).toBe('');
      expect(await configGet(client, 'maxmemory')).toBe('0');
      expect(await configGet(client, 'maxmemory-policy')).toBe('allkeys-lru');
    },
    300_000,
  );
});

interface PodStatus {
  podIP?: string;
  conditions?: { type: string; status: string }[];
}
