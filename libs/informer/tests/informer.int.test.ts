import {
  ConfigMaps,
  GoneError,
  KubeClient,
  Namespaces,
  RoleBindings,
  Roles,
  type KubeObject,
  type RequestInfo,
} from '@steward/kube';
import {
  eventually,
  kubeConfigWithServer,
  startControlPlane,
  startTcpProxy,
  type ControlPlane,
  type TcpProxy,
} from '@steward/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Backoff,
  byNamespace,
  DeletedFinalStateUnknown,
  Informer,
  InformerFactory,
  listerWatcherFor,
  SelectionError,
  stripManagedFields,
  type InformerOptions,
  type ReflectorEvent,
} from '../src/index.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let plane: ControlPlane;
let admin: KubeClient;
let proxy: TcpProxy;
const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  // No watch cache and a short compaction interval: a watch resumed from an old resourceVersion
  // meets a real 410 Gone from etcd, as in a busy production cluster.
  plane = await startControlPlane({
    apiServerArgs: ['--watch-cache=false', '--etcd-compaction-interval=1s'],
  });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  proxy = await startTcpProxy({ port: Number(new URL(plane.server).port) });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await proxy?.close();
  await plane?.stop();
});

async function namespace(name: string): Promise<string> {
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

const cm = (ns: string, name: string, value: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data: { value },
});

/** An informer on ConfigMaps of `ns`, through the proxy, with its events and reflector events recorded. */
function watchConfigMaps(ns: string, options: InformerOptions<ConfigMap> = {}) {
  const requests: RequestInfo[] = [];
  const client = new KubeClient(
    kubeConfigWithServer(plane.kubeConfig, `https://127.0.0.1:${proxy.port}`),
    { onRequest: (info) => requests.push(info) },
  );
  /** Resolves once the server has answered a watch of this informer: its stream is open. */
  const watchOpen = () =>
    eventually(() => requests.some((r) => r.verb === 'watch' && r.code === 200), {
      description: 'the watch to be open',
    });
  const events: string[] = [];
  const reflector: ReflectorEvent[] = [];
  const informer = new Informer<ConfigMap>(
    listerWatcherFor<ConfigMap>(client, ConfigMaps, { namespace: ns }),
    {
      backoff: new Backoff(200, 2_000),
      transform: stripManagedFields,
      onEvent: (e) => reflector.push(e),
      ...options,
    },
  );
  informer.addEventHandler({
    onAdd: (o) => events.push(`add ${o.metadata.name}=${o.data?.value}`),
    onUpdate: (old, o) =>
      events.push(`update ${o.metadata.name} ${old.data?.value}->${o.data?.value}`),
    onDelete: (o) =>
      events.push(
        o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `delete ${o.metadata.name}`,
      ),
  });
  informer.start();
  // cleanups run in reverse: stop the informer (ending its watch), then close the client
  cleanups.push(
    () => client.close(),
    () => informer.stop(),
  );
  return { informer, events, reflector, watchOpen };
}

async function serverState(ns: string): Promise<Record<string, string | undefined>> {
  const list = await admin.list<ConfigMap>(ConfigMaps, { namespace: ns });
  return Object.fromEntries(
    list.items
      .filter((i) => i.metadata.name !== 'kube-root-ca.crt')
      .map((i) => [`${ns}/${i.metadata.name}`, i.data?.value]),
  );
}

/** A canonical text of a state, independent of key order. */
function sorted(state: Record<string, string | undefined>): string {
  return JSON.stringify(Object.entries(state).sort(([a], [b]) => a.localeCompare(b)));
}

function cacheState(informer: Informer<ConfigMap>): Record<string, string | undefined> {
  return Object.fromEntries(
    informer.store
      .list()
      .filter((i) => i.metadata.name !== 'kube-root-ca.crt')
      .map((i) => [`${i.metadata.namespace}/${i.metadata.name}`, i.data?.value]),
  );
}

describe('Informer against a real API server', () => {
  it('lists, then watches with bookmarks and a randomised timeout, delivering add/update(old,new)/delete', async () => {
    const ns = await namespace('follow');
    await admin.create(ConfigMaps, cm(ns, 'a', '1'));
    const { informer, events, reflector } = watchConfigMaps(ns);
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual(['add a=1']);
    const started = (await eventually(() =>
      reflector.find((e) => e.type === 'watch-started'),
    )) as Extract<ReflectorEvent, { type: 'watch-started' }>;
    expect(started.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(started.timeoutSeconds).toBeLessThanOrEqual(600);

    await admin.create(ConfigMaps, cm(ns, 'b', '1'));
    await admin.mergePatch(ConfigMaps, 'a', ns, { data: { value: '2' } });
    await admin.delete(ConfigMaps, 'b', ns);
    await eventually(() => events.length === 4, { description: 'three more events' });
    expect(events).toEqual(['add a=1', 'add b=1', 'update a 1->2', 'delete b']);
    expect(informer.store.get(`${ns}/a`)?.metadata.managedFields).toBeUndefined();
  });

  it('relists after a real 410 Gone and emits exactly the missed changes — none lost, none invented', async () => {
    const ns = await namespace('gone');
    for (const name of ['same', 'changed', 'removed'])
      await admin.create(ConfigMaps, cm(ns, name, '1'));
    const { informer, events, reflector, watchOpen } = watchConfigMaps(ns, {
      inactivityTimeoutMs: 600_000,
    });
    await informer.waitForSync();
    await watchOpen(); // through the proxy, so stall() freezes it
    events.length = 0;

    proxy.stall(); // the informer's watch hears nothing from here on
    const stale = informer.resourceVersion;
    await admin.mergePatch(ConfigMaps, 'changed', ns, { data: { value: '2' } });
    await admin.delete(ConfigMaps, 'removed', ns);
    await admin.create(ConfigMaps, cm(ns, 'added', '1'));
    // Compaction (every 1 s) compacts to the revision of the previous run: keep writing until the
    // server no longer serves the revision after the informer's, the first one a watch from it
    // would read. (Only in tests: resourceVersions are opaque, but etcd's are increasing integers.)
    const next = String(Number(stale) + 1);
    let churn = 0;
    await eventually(
      async () => {
        await admin.create(ConfigMaps, cm('default', `churn-${ns}-${churn++}`, 'x'));
        return admin
          .list(ConfigMaps, {
            namespace: ns,
            resourceVersion: next,
            resourceVersionMatch: 'Exact',
          })
          .then(
            () => false,
            (error: unknown) => error instanceof GoneError,
          );
      },
      { description: `resourceVersion ${next} to be compacted`, timeoutMs: 30_000 },
    );
    proxy.cut(); // the stalled watch breaks; the informer resumes from its old resourceVersion
    proxy.heal();

    await eventually(() => reflector.some((e) => e.type === 'gone'), {
      description: 'a 410 Gone',
      timeoutMs: 30_000,
    });
    // The relist delivers its events before the informer watches again; a change made after that
    // comes on the new watch, behind any event the informer might wrongly have invented.
    const gone = reflector.findIndex((e) => e.type === 'gone');
    await eventually(() => reflector.slice(gone).some((e) => e.type === 'watch-started'), {
      description: 'the watch after the relist',
    });
    await admin.create(ConfigMaps, cm(ns, 'sentinel', '1'));
    await eventually(() => events.includes('add sentinel=1'), { description: 'the sentinel' });
    expect(events.at(-1)).toBe('add sentinel=1');
    expect(events.slice(0, -1).sort()).toEqual(
      ['add added=1', `tombstone ${ns}/removed`, 'update changed 1->2'].sort(),
    );
    expect(cacheState(informer)).toEqual(await serverState(ns));
  });

  it('reconnects with backoff after the API server restarts, and its cache equals the server state', async () => {
    const ns = await namespace('restart');
    await admin.create(ConfigMaps, cm(ns, 'before', '1'));
    const { informer, reflector } = watchConfigMaps(ns);
    await informer.waitForSync();
    await plane.stopApiServer();
    await eventually(() => reflector.some((e) => e.type === 'error'), {
      description: 'a failed reconnect',
      timeoutMs: 30_000,
    });
    await plane.startApiServer();
    await admin.create(ConfigMaps, cm(ns, 'after', '1'));
    await admin.mergePatch(ConfigMaps, 'before', ns, { data: { value: '2' } });
    await eventually(async () => sorted(cacheState(informer)) === sorted(await serverState(ns)), {
      description: 'cache to equal the server',
      timeoutMs: 60_000,
    });
    const retry = reflector.find((e) => e.type === 'error') as Extract<
      ReflectorEvent,
      { type: 'error' }
    >;
    expect(retry.retryInMs).toBeGreaterThanOrEqual(200);
  });

  it('restarts a stalled watch when the inactivity timer fires', async () => {
    const ns = await namespace('stall');
    const { informer, events, reflector, watchOpen } = watchConfigMaps(ns, {
      inactivityTimeoutMs: 2_000,
    });
    await informer.waitForSync();
    await watchOpen(); // through the proxy, so stall() freezes it
    proxy.stall();
    await eventually(
      () => reflector.some((e) => e.type === 'watch-ended' && e.reason === 'inactivity'),
      {
        description: 'the inactivity timer',
        timeoutMs: 30_000,
      },
    );
    await admin.create(ConfigMaps, cm(ns, 'seen', '1'));
    await eventually(() => events.includes('add seen=1'), {
      description: 'an event on the new watch',
    });
  });

  it('shares one informer per kind and selection, with secondary indexes', async () => {
    const ns = await namespace('shared');
    const factory = new InformerFactory(admin);
    const a = factory.informerFor<ConfigMap>(ConfigMaps, { namespace: ns });
    expect(factory.informerFor(ConfigMaps, { namespace: ns })).toBe(a);
    expect(factory.informerFor(ConfigMaps, { namespace: 'other' })).not.toBe(a);
    a.store.addIndexers({ namespace: byNamespace });
    factory.start();
    cleanups.push(() => factory.stop());
    await admin.create(ConfigMaps, cm(ns, 'x', '1'));
    await factory.waitForSync();
    await eventually(() => a.store.byIndex('namespace', ns).some((o) => o.metadata.name === 'x'));
    expect(factory.hasSynced()).toBe(true);
  });

  it('follows a list of namespaces with one list-watch each, as a user allowed in those namespaces only', async () => {
    const [a, b, c] = [
      await namespace('many-a'),
      await namespace('many-b'),
      await namespace('many-c'),
    ];
    const user = 'namespaced-reader';
    for (const ns of [a, b]) {
      await admin.create(Roles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'reader', namespace: ns },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] }],
      } as KubeObject);
      await admin.create(RoleBindings, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'reader', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      } as KubeObject);
    }
    for (const ns of [a, b, c]) await admin.create(ConfigMaps, cm(ns, 'x', ns));
    const reader = new KubeClient(await plane.kubeConfigFor({ name: user }));
    cleanups.push(() => reader.close());
    // It may not list across namespaces, nor in c: which is why its selection is a list.
    await expect(reader.list(ConfigMaps)).rejects.toMatchObject({ code: 403 });
    await expect(reader.list(ConfigMaps, { namespace: c })).rejects.toMatchObject({ code: 403 });

    const factory = new InformerFactory(reader);
    const many = factory.informerFor<ConfigMap>(ConfigMaps, { namespaces: [b, a, b] });
    expect(factory.informerFor(ConfigMaps, { namespaces: [a, b] })).toBe(many);
    expect(factory.informerFor(ConfigMaps, { namespaces: [a] })).toBe(
      factory.informerFor(ConfigMaps, { namespace: a }),
    );
    expect(() => factory.informerFor(ConfigMaps, { namespace: a, namespaces: [b] })).toThrow(
      SelectionError,
    );
    factory.start();
    cleanups.push(() => factory.stop());
    await factory.waitForSync();
    expect(sorted(cacheState(many))).toBe(sorted({ [`${a}/x`]: a, [`${b}/x`]: b }));

    await admin.create(ConfigMaps, cm(c, 'y', 'elsewhere'));
    await admin.create(ConfigMaps, cm(b, 'y', 'watched'));
    await admin.delete(ConfigMaps, 'x', a);
    await eventually(() => many.store.has(`${b}/y`) && !many.store.has(`${a}/x`), {
      description: 'the changes in a and b cached',
    });
    expect(sorted(cacheState(many))).toBe(sorted(await allowedState(a, b)));
    expect(many.store.has(`${c}/y`)).toBe(false);
  });
});

/** The server's ConfigMaps of `namespaces`, as `cacheState` shows a cache. */
async function allowedState(...namespaces: string[]): Promise<Record<string, string | undefined>> {
  return Object.assign({}, ...(await Promise.all(namespaces.map(serverState)))) as Record<
    string,
    string | undefined
  >;
}
