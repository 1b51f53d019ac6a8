import { InformerFactory, type Selection } from '@steward/informer';
import {
  ConfigMaps,
  KubeClient,
  Namespaces,
  NetworkPolicies,
  NotFoundError,
  PodDisruptionBudgets,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
  type OwnerReference,
  type RequestInfo,
  type ResourceType,
} from '@steward/kube';
import { eventually, startControlPlane, type ControlPlane } from '@steward/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictReasons,
  controllerReference,
  DesiredHashAnnotation,
  generatePassword,
  RolloutReasons,
  statefulSetRolloutStatus,
  WorkloadChildren,
  type ChildrenSync,
  type DesiredChild,
  type StatefulSetLike,
} from '../src/index.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Secret extends KubeObject {
  data?: Record<string, string>;
}
interface Service extends KubeObject {
  spec: { ports: { name?: string; port: number; targetPort?: number | string }[] };
}
interface StatefulSet extends KubeObject {
  status?: StatefulSetLike['status'];
  spec: {
    replicas?: number;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
    template: {
      spec: {
        containers: {
          resources: { requests: Record<string, string>; limits: Record<string, string> };
        }[];
      };
    };
    volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
  };
}

const kinds: ResourceType[] = [
  Services,
  ConfigMaps,
  StatefulSets,
  PodDisruptionBudgets,
  NetworkPolicies,
  Secrets,
];
const FieldManager = 'cache-cluster-controller';
const labels = { app: 'web' };

/** The children a small cache cluster would have: what a domain lib's plan would hand over. */
function workload(
  options: { serviceLabels?: Record<string, string>; configData?: Record<string, string> } = {},
): DesiredChild[] {
  return [
    {
      resourceType: Services,
      object: {
        metadata: { name: 'web-rw', labels: options.serviceLabels ?? { ...labels, tier: 'cache' } },
        spec: { selector: labels, ports: [{ name: 'redis', port: 6379, targetPort: 6379 }] },
      },
    },
    {
      resourceType: ConfigMaps,
      object: {
        metadata: { name: 'web-config', labels },
        data: options.configData ?? { 'redis.conf': 'maxmemory 100mb\n', extra: 'x' },
      },
    },
    {
      resourceType: StatefulSets,
      object: {
        metadata: { name: 'web', labels },
        spec: {
          serviceName: 'web-rw',
          replicas: 3,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: 'redis',
                  image: 'redis:7.2',
                  ports: [{ name: 'redis', containerPort: 6379 }],
                  // Spelled as the server will not store them: it canonicalises quantities.
                  resources: {
                    requests: { cpu: '1000m', memory: '1024Mi' },
                    limits: { cpu: '2', memory: '2048Mi' },
                  },
                },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: {
                accessModes: ['ReadWriteOnce'],
                resources: { requests: { storage: '1024Mi' } },
              },
            },
          ],
        },
      },
    },
    {
      resourceType: PodDisruptionBudgets,
      object: {
        metadata: { name: 'web', labels },
        spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
      },
    },
    {
      resourceType: NetworkPolicies,
      object: {
        metadata: { name: 'web', labels },
        spec: {
          podSelector: { matchLabels: labels },
          policyTypes: ['Ingress'],
          ingress: [
            {
              from: [{ podSelector: { matchLabels: { role: 'client' } } }],
              ports: [{ protocol: 'TCP', port: 6379 }],
            },
          ],
        },
      },
    },
  ];
}

/** A create-once Secret whose generator counts its calls. */
function authSecret(name = 'web-auth') {
  const generator = {
    calls: 0,
    passwords: [] as string[],
    child: undefined as unknown as DesiredChild,
  };
  generator.child = {
    resourceType: Secrets,
    mode: 'create-once',
    name,
    object: () => {
      generator.calls++;
      const password = generatePassword();
      generator.passwords.push(password);
      return { metadata: { name, labels }, stringData: { password } };
    },
  };
  return generator;
}

const decode = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? '', 'base64').toString('utf8');

let plane: ControlPlane;
let admin: KubeClient;
let namespaceNumber = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  plane = await startControlPlane({ controllerManager: true });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

/**
 * A namespace of the test's own, a parent in it (a ConfigMap: an ownerReference needs only
 * apiVersion, kind, name and uid), and the toolkit on its own client and informers, with every
 * request the toolkit's client makes recorded.
 */
async function harness(
  options: { namespace?: string; selection?: Omit<Selection, 'namespace'> } = {},
) {
  const ns = options.namespace ?? `wl-${++namespaceNumber}`;
  if (!options.namespace) {
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  const requests: RequestInfo[] = [];
  const client = new KubeClient(plane.kubeConfig, {
    fieldManager: FieldManager,
    onRequest: (info) => requests.push(info),
  });
  const informers = new InformerFactory(client);
  const children = new WorkloadChildren({
    client,
    informers,
    fieldManager: FieldManager,
    kinds,
    selection: { namespace: ns, ...options.selection },
  });
  informers.start();
  cleanups.push(
    () => client.close(),
    () => informers.stop(),
  );
  const parent = (name = 'parent') =>
    admin.create<ConfigMap>(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns },
      data: { role: 'parent' },
    });
  /** Requests from here on, apart from the informers' own lists and watches. */
  const mark = () => {
    const start = requests.length;
    return {
      requests: () => requests.slice(start).filter((r) => r.verb !== 'list' && r.verb !== 'watch'),
      writes: () => requests.slice(start).filter((r) => r.method !== 'GET'),
    };
  };
  /** Resolves once the cache holds every child as the sync left it. */
  const caughtUp = async (p: KubeObject, sync: ChildrenSync) => {
    for (const [key, obj] of sync.children) {
      const rt = kinds.find((k) => k.kind === obj.kind)!;
      await eventually(
        () =>
          children.get(p, rt, obj.metadata.name!)?.metadata.resourceVersion ===
          obj.metadata.resourceVersion,
        { description: `the cache to hold ${key} at ${obj.metadata.resourceVersion}` },
      );
    }
  };
  /** Resolves once the cache holds `obj` at its resourceVersion (e.g. after another manager's write). */
  const cacheSees = (rt: ResourceType, obj: KubeObject) =>
    eventually(
      () =>
        informers
          .informerFor(rt, { namespace: ns, ...options.selection })
          .store.get(`${ns}/${obj.metadata.name}`)?.metadata.resourceVersion ===
        obj.metadata.resourceVersion,
      {
        description: `the cache to see ${obj.kind} ${obj.metadata.name} at ${obj.metadata.resourceVersion}`,
      },
    );
  return { ns, client, informers, children, parent, mark, caughtUp, cacheSees };
}

const writesOf = (sync: ChildrenSync) => sync.writes.map((w) => `${w.verb} ${w.kind}/${w.name}`);

describe('WorkloadChildren on a real API server', () => {
  it('applies every child with a controller reference, then a converged parent costs no request at all', async () => {
    const h = await harness();
    const parent = await h.parent();
    const auth = authSecret();
    const desired = [...workload(), auth.child];

    const first = await h.children.sync(parent, desired);
    expect(writesOf(first)).toEqual([
      'apply Service/web-rw',
      'apply ConfigMap/web-config',
      'apply StatefulSet/web',
      'apply PodDisruptionBudget/web',
      'apply NetworkPolicy/web',
      'create Secret/web-auth',
    ]);
    expect(first.conflicts).toEqual([]);
    expect(auth.calls).toBe(1);
    for (const [key, child] of first.children) {
      expect(child.metadata.ownerReferences, key).toEqual([controllerReference(parent)]);
    }
    const service = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(service.metadata.annotations?.[DesiredHashAnnotation]).toMatch(/^[0-9a-f]{16}$/);
    // The server canonicalised the quantities; the comparison must not call that drift.
    const sts = await admin.get<StatefulSet>(StatefulSets, 'web', h.ns);
    expect(sts.spec.template.spec.containers[0]!.resources).toEqual({
      requests: { cpu: '1', memory: '1Gi' },
      limits: { cpu: '2', memory: '2Gi' },
    });
    expect(sts.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe('1Gi');

    await h.caughtUp(parent, first);
    const converged = h.mark();
    const second = await h.children.sync(parent, desired);
    expect(second.writes).toEqual([]);
    expect(converged.requests()).toEqual([]);
    expect([...second.children.keys()].sort()).toEqual([...first.children.keys()].sort());
    expect(auth.calls).toBe(1);

    // Again with the parent as a fresh read and the desired state rebuilt: still nothing.
    const again = h.mark();
    const third = await h.children.sync(await admin.get(ConfigMaps, 'parent', h.ns), [
      ...workload(),
      authSecret().child,
    ]);
    expect(third.writes).toEqual([]);
    expect(again.requests()).toEqual([]);
    expect(h.children.ownedBy(parent, Services).map((s) => s.metadata.name)).toEqual(['web-rw']);
  });

  it('re-applies what another field manager changed, and converges again', async () => {
    const h = await harness();
    const parent = await h.parent();
    await h.caughtUp(parent, await h.children.sync(parent, workload()));

    // kubectl-style edits by another manager: a label we set, a port field, a config value.
    await admin.mergePatch(Services, 'web-rw', h.ns, { metadata: { labels: { tier: 'other' } } });
    const drifted = await admin.jsonPatch<Service>(Services, 'web-rw', h.ns, [
      { op: 'replace', path: '/spec/ports/0/targetPort', value: 7000 },
    ]);
    const cm = await admin.mergePatch<ConfigMap>(ConfigMaps, 'web-config', h.ns, {
      data: { extra: 'edited' },
    });
    await h.cacheSees(Services, drifted);
    await h.cacheSees(ConfigMaps, cm);

    const counted = h.mark();
    const repaired = await h.children.sync(parent, workload());
    expect(writesOf(repaired)).toEqual(['apply Service/web-rw', 'apply ConfigMap/web-config']);
    expect(counted.writes().map((w) => w.verb)).toEqual(['apply', 'apply']);
    const service = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(service.metadata.labels).toMatchObject({ tier: 'cache' });
    expect(service.spec.ports[0]!.targetPort).toBe(6379);
    expect((await admin.get<ConfigMap>(ConfigMaps, 'web-config', h.ns)).data?.extra).toBe('x');

    await h.caughtUp(parent, repaired);
    expect((await h.children.sync(parent, workload())).writes).toEqual([]);
  });

  it('leaves alone fields it does not declare, even when another manager changes them', async () => {
    const h = await harness();
    const parent = await h.parent();
    await h.caughtUp(parent, await h.children.sync(parent, workload()));
    const edited = await admin.mergePatch<Service>(Services, 'web-rw', h.ns, {
      metadata: { labels: { team: 'payments' }, annotations: { note: 'mine' } },
    });
    await h.cacheSees(Services, edited);

    const counted = h.mark();
    expect((await h.children.sync(parent, workload())).writes).toEqual([]);
    expect(counted.requests()).toEqual([]);
    const service = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(service.metadata.labels).toMatchObject({ team: 'payments' });
    expect(service.metadata.annotations).toMatchObject({ note: 'mine' });
  });

  it('removes on the server a field removed from the desired state', async () => {
    const h = await harness();
    const parent = await h.parent();
    await h.caughtUp(parent, await h.children.sync(parent, workload()));

    const smaller = workload({
      serviceLabels: labels,
      configData: { 'redis.conf': 'maxmemory 100mb\n' },
    });
    const removed = await h.children.sync(parent, smaller);
    expect(writesOf(removed)).toEqual(['apply Service/web-rw', 'apply ConfigMap/web-config']);
    const service = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(service.metadata.labels).toEqual(labels);
    const cm = await admin.get<ConfigMap>(ConfigMaps, 'web-config', h.ns);
    expect(cm.data).toEqual({ 'redis.conf': 'maxmemory 100mb\n' });

    await h.caughtUp(parent, removed);
    expect((await h.children.sync(parent, smaller)).writes).toEqual([]);
  });

  it("deletes a child no longer desired, and only this parent's", async () => {
    const h = await harness();
    const parent = await h.parent();
    const neighbour = await h.parent('neighbour');
    const neighbourPolicy: DesiredChild = {
      resourceType: NetworkPolicies,
      object: {
        metadata: { name: 'neighbour' },
        spec: { podSelector: { matchLabels: { app: 'neighbour' } }, policyTypes: ['Ingress'] },
      },
    };
    await h.caughtUp(neighbour, await h.children.sync(neighbour, [neighbourPolicy]));
    await h.caughtUp(parent, await h.children.sync(parent, workload()));

    const fewer = workload().filter(
      (c) => c.resourceType !== PodDisruptionBudgets && c.resourceType !== NetworkPolicies,
    );
    const pruned = await h.children.sync(parent, fewer);
    expect(writesOf(pruned).sort()).toEqual([
      'delete NetworkPolicy/web',
      'delete PodDisruptionBudget/web',
    ]);
    await expect(admin.get(PodDisruptionBudgets, 'web', h.ns)).rejects.toThrow(NotFoundError);
    await expect(admin.get(NetworkPolicies, 'web', h.ns)).rejects.toThrow(NotFoundError);
    // Another parent's child of the same kind stays.
    await admin.get(NetworkPolicies, 'neighbour', h.ns);

    await eventually(() => h.children.ownedBy(parent, NetworkPolicies).length === 0, {
      description: 'the cache to see the deletion',
    });
    await eventually(() => h.children.ownedBy(parent, PodDisruptionBudgets).length === 0, {
      description: 'the cache to see the deletion',
    });
    const counted = h.mark();
    expect((await h.children.sync(parent, fewer)).writes).toEqual([]);
    expect(counted.requests()).toEqual([]);
    expect(h.children.ownedBy(neighbour, NetworkPolicies)).toHaveLength(1);
  });

  it('reports an object of a desired name that another owner (or nobody) controls, and leaves it exactly as it was', async () => {
    const h = await harness();
    const parent = await h.parent();
    const other = await h.parent('other-parent');
    const unowned = await admin.create<Service>(Services, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web-rw', namespace: h.ns, labels: { made: 'by-hand' } },
      spec: { ports: [{ port: 80 }] },
    });
    const foreign = await admin.create<ConfigMap>(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'web-config',
        namespace: h.ns,
        ownerReferences: [controllerReference(other)],
      },
      data: { theirs: 'yes' },
    });

    const counted = h.mark();
    const sync = await h.children.sync(parent, workload());
    expect(sync.conflicts).toEqual([
      expect.objectContaining({
        kind: 'Service',
        name: 'web-rw',
        reason: ConflictReasons.NotControlled,
      }),
      expect.objectContaining({
        kind: 'ConfigMap',
        name: 'web-config',
        owner: 'ConfigMap/other-parent',
        reason: ConflictReasons.ControlledByAnother,
      }),
    ]);
    expect(sync.conflicts.find((c) => c.name === 'web-rw')?.owner).toBeUndefined();
    expect(writesOf(sync)).toEqual([
      'apply StatefulSet/web',
      'apply PodDisruptionBudget/web',
      'apply NetworkPolicy/web',
    ]);
    expect(
      counted.writes().every((w) => !w.path.endsWith('/web-rw') && !w.path.endsWith('/web-config')),
    ).toBe(true);
    expect(sync.children.has('Service/web-rw')).toBe(false);
    const service = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(service.metadata.resourceVersion).toBe(unowned.metadata.resourceVersion);
    expect(service.metadata.ownerReferences).toBeUndefined();
    const cm = await admin.get<ConfigMap>(ConfigMaps, 'web-config', h.ns);
    expect(cm.metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
    expect(cm.data).toEqual({ theirs: 'yes' });

    // Again, later: still a conflict, still untouched, still no write.
    await h.caughtUp(parent, sync);
    const later = h.mark();
    const again = await h.children.sync(parent, workload());
    expect(again.conflicts.map((c) => c.name)).toEqual(['web-rw', 'web-config']);
    expect(later.writes()).toEqual([]);
    expect((await admin.get(Services, 'web-rw', h.ns)).metadata.resourceVersion).toBe(
      unowned.metadata.resourceVersion,
    );
  });

  it('never takes over an object its cache has not seen: the server is asked first', async () => {
    // The toolkit watches only labelled objects; the hand-made Service is invisible to its cache.
    const h = await harness({ selection: { labelSelector: 'app=web' } });
    const parent = await h.parent();
    const unowned = await admin.create<Service>(Services, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web-rw', namespace: h.ns },
      spec: { ports: [{ port: 80 }] },
    });
    const service = workload()[0]!;
    const sync = await h.children.sync(parent, [service]);
    expect(sync.writes).toEqual([]);
    expect(sync.conflicts).toEqual([
      expect.objectContaining({ name: 'web-rw', reason: ConflictReasons.NotControlled }),
    ]);
    const live = await admin.get<Service>(Services, 'web-rw', h.ns);
    expect(live.metadata.resourceVersion).toBe(unowned.metadata.resourceVersion);
  });

  it('creates a create-once Secret once and never regenerates it', async () => {
    const h = await harness();
    const parent = await h.parent();
    const first = authSecret();
    const created = await h.children.sync(parent, [first.child]);
    expect(writesOf(created)).toEqual(['create Secret/web-auth']);
    expect(first.calls).toBe(1);
    const secret = await admin.get<Secret>(Secrets, 'web-auth', h.ns);
    expect(decode(secret.data, 'password')).toBe(first.passwords[0]);
    expect(secret.metadata.ownerReferences).toEqual([controllerReference(parent)]);

    await h.caughtUp(parent, created);
    const second = authSecret();
    const counted = h.mark();
    const kept = await h.children.sync(parent, [second.child]);
    expect(kept.writes).toEqual([]);
    expect(counted.requests()).toEqual([]);
    expect(second.calls).toBe(0);
    expect(kept.children.get('Secret/web-auth')?.metadata.uid).toBe(secret.metadata.uid);

    // Even a changed Secret is not "repaired": create-once means once.
    const edited = await admin.mergePatch<Secret>(Secrets, 'web-auth', h.ns, {
      data: { password: Buffer.from('rotated-by-hand').toString('base64') },
    });
    await h.cacheSees(Secrets, edited);
    expect((await h.children.sync(parent, [authSecret().child])).writes).toEqual([]);
    expect(decode((await admin.get<Secret>(Secrets, 'web-auth', h.ns)).data, 'password')).toBe(
      'rotated-by-hand',
    );
  });

  it('keeps a create-once Secret the cache has not seen yet (the POST answers AlreadyExists)', async () => {
    const h = await harness();
    const parent = await h.parent();
    const mine = authSecret();
    await h.children.sync(parent, [mine.child]);
    const original = await admin.get<Secret>(Secrets, 'web-auth', h.ns);

    // A second toolkit whose cache never sees the Secret (it watches only other labels).
    const blind = await harness({ namespace: h.ns, selection: { labelSelector: 'never=matches' } });
    const late = authSecret();
    const counted = blind.mark();
    const sync = await blind.children.sync(parent, [late.child]);
    expect(sync.writes).toEqual([]);
    expect(counted.writes().map((w) => `${w.verb} ${w.code}`)).toEqual(['create 409']);
    expect(sync.children.get('Secret/web-auth')?.metadata.resourceVersion).toBe(
      original.metadata.resourceVersion,
    );
    const after = await admin.get<Secret>(Secrets, 'web-auth', h.ns);
    expect(after.metadata.resourceVersion).toBe(original.metadata.resourceVersion);
    expect(decode(after.data, 'password')).toBe(mine.passwords[0]);

    // Two syncs racing with empty caches: one create wins, the other keeps what it made.
    const racers = [authSecret('race-auth'), authSecret('race-auth')];
    const results = await Promise.all(racers.map((r) => h.children.sync(parent, [r.child])));
    const winners = results.flatMap((r, i) => (r.writes.length > 0 ? [i] : []));
    expect(winners).toHaveLength(1);
    const raced = await admin.get<Secret>(Secrets, 'race-auth', h.ns);
    expect(decode(raced.data, 'password')).toBe(racers[winners[0]!]!.passwords[0]);
    for (const r of results) {
      expect(r.children.get('Secret/race-auth')?.metadata.uid).toBe(raced.metadata.uid);
    }
  });

  it("detaches only this parent's reference, so the garbage collector spares what was detached", async () => {
    const h = await harness();
    const parent = await h.parent();
    const bystander = await h.parent('bystander');
    const auth = authSecret('keep-auth');
    const cm = (name: string): DesiredChild => ({
      resourceType: ConfigMaps,
      object: { metadata: { name }, data: { k: name } },
    });
    const sync = await h.children.sync(parent, [
      auth.child,
      cm('keep-config'),
      cm('attached-config'),
    ]);
    expect(sync.writes).toHaveLength(3);
    // Another (non-controller) owner listed before ours on the Secret.
    const otherRef: OwnerReference = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'bystander',
      uid: bystander.metadata.uid!,
    };
    await admin.jsonPatch(Secrets, 'keep-auth', h.ns, [
      { op: 'add', path: '/metadata/ownerReferences/0', value: otherRef },
    ]);

    const detached = await h.children.detach(parent, [
      { resourceType: Secrets, name: 'keep-auth' },
      { resourceType: ConfigMaps, name: 'keep-config' },
      { resourceType: ConfigMaps, name: 'never-existed' },
    ]);
    expect(detached).toEqual(['Secret/keep-auth', 'ConfigMap/keep-config']);
    expect((await admin.get(Secrets, 'keep-auth', h.ns)).metadata.ownerReferences).toEqual([
      otherRef,
    ]);
    expect(
      (await admin.get(ConfigMaps, 'keep-config', h.ns)).metadata.ownerReferences ?? [],
    ).toEqual([]);
    expect((await admin.get(ConfigMaps, 'attached-config', h.ns)).metadata.ownerReferences).toEqual(
      [controllerReference(parent)],
    );
    // Idempotent: nothing left to detach.
    expect(
      await h.children.detach(parent, [{ resourceType: ConfigMaps, name: 'keep-config' }]),
    ).toEqual([]);

    await admin.delete(ConfigMaps, 'parent', h.ns, { propagationPolicy: 'Background' });
    await eventually(
      async () => {
        try {
          await admin.get(ConfigMaps, 'attached-config', h.ns);
          return false;
        } catch (error) {
          if (error instanceof NotFoundError) return true;
          throw error;
        }
      },
      { description: 'the garbage collector to delete the attached child' },
    );
    const keptConfig = await admin.get<ConfigMap>(ConfigMaps, 'keep-config', h.ns);
    expect(keptConfig.data).toEqual({ k: 'keep-config' });
    const keptSecret = await admin.get<Secret>(Secrets, 'keep-auth', h.ns);
    expect(decode(keptSecret.data, 'password')).toBe(auth.passwords[0]);
  });

  it('detach reads the object again when its references moved since the cache saw them', async () => {
    const h = await harness();
    const parent = await h.parent();
    const bystander = await h.parent('bystander');
    const sync = await h.children.sync(parent, [
      { resourceType: ConfigMaps, object: { metadata: { name: 'kept' }, data: { k: 'v' } } },
    ]);
    await h.caughtUp(parent, sync);
    // Freeze the cache, then put another owner's reference where ours was (index 0).
    await h.informers.stop();
    const otherRef: OwnerReference = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'bystander',
      uid: bystander.metadata.uid!,
    };
    await admin.jsonPatch(ConfigMaps, 'kept', h.ns, [
      { op: 'add', path: '/metadata/ownerReferences/0', value: otherRef },
    ]);

    const counted = h.mark();
    expect(await h.children.detach(parent, [{ resourceType: ConfigMaps, name: 'kept' }])).toEqual([
      'ConfigMap/kept',
    ]);
    // The stale index failed its test (nothing written), a fresh read found ours at index 1.
    expect(counted.requests().map((r) => `${r.verb} ${r.code}`)).toEqual([
      'patch 422',
      'get 200',
      'patch 200',
    ]);
    expect((await admin.get(ConfigMaps, 'kept', h.ns)).metadata.ownerReferences).toEqual([
      otherRef,
    ]);
  });

  it('judges a real StatefulSet as kubectl rollout status does', async () => {
    const h = await harness();
    const parent = await h.parent();
    const sync = await h.children.sync(parent, workload());
    const sts = sync.children.get('StatefulSet/web') as StatefulSet;
    // The server defaults the strategy: RollingUpdate with partition 0 (kubectl's partition branch).
    expect(sts.spec.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { partition: 0 },
    });
    // This control plane runs no StatefulSet controller (and has no node): nobody observes it.
    expect(statefulSetRolloutStatus(sts)).toEqual({
      complete: false,
      reason: RolloutReasons.SpecNotObserved,
      message: 'Waiting for statefulset spec update to be observed...',
    });

    // The test stands in for the StatefulSet controller: pods created, none ready (no node).
    const revision = 'web-5d8f7b9c6';
    const observed = await admin.updateStatus<StatefulSet>(StatefulSets, {
      ...sts,
      status: {
        observedGeneration: sts.metadata.generation,
        replicas: 3,
        currentReplicas: 3,
        updatedReplicas: 3,
        currentRevision: revision,
        updateRevision: revision,
      },
    } as StatefulSet);
    expect(statefulSetRolloutStatus(observed)).toEqual({
      complete: false,
      reason: RolloutReasons.PodsNotReady,
      message: 'Waiting for 3 pods to be ready...',
    });
    const ready = await admin.updateStatus<StatefulSet>(StatefulSets, {
      ...observed,
      status: { ...observed.status, readyReplicas: 3, availableReplicas: 3 },
    } as StatefulSet);
    expect(statefulSetRolloutStatus(ready)).toEqual({
      complete: true,
      reason: RolloutReasons.PartitionedRolloutComplete,
      message: 'partitioned roll out complete: 3 new pods have been updated...',
    });

    // A status written by another manager is not drift of ours.
    await h.cacheSees(StatefulSets, ready);
    await h.caughtUp(parent, {
      ...sync,
      children: new Map([...sync.children].filter(([k]) => k !== 'StatefulSet/web')),
    });
    expect((await h.children.sync(parent, workload())).writes).toEqual([]);
  });
});
