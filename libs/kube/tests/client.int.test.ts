import { eventually, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConfigMaps,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  isStatus,
  jsonPointer,
  KubeClient,
  Namespaces,
  NotFoundError,
  RoleBindings,
  Roles,
  type KubeObject,
  type RequestInfo,
  type ResourceType,
  type WatchEvent,
} from '../src/index.js';

/**
 * @steward/kube against a real etcd + kube-apiserver: every status code, message and content type
 * asserted here is what the API server itself answers.
 */

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface Gadget extends KubeObject {
  spec: { size: number; color?: string };
  status?: { phase?: string; observedGeneration?: number };
}

const Gadgets: ResourceType = {
  group: 'kube.steward.dev',
  version: 'v1alpha1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

const namespace = 'kube-it';

function configMap(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  };
}

function gadget(name: string, spec: Gadget['spec']): Gadget {
  return {
    apiVersion: 'kube.steward.dev/v1alpha1',
    kind: 'Gadget',
    metadata: { name, namespace },
    spec,
  };
}

async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the API server to reject the request, but it was accepted');
}

/** Iterates a watch in the background, collecting events, until it ends or throws. */
function collect<T extends KubeObject>(events: AsyncIterable<WatchEvent<T>>) {
  const seen: WatchEvent<T>[] = [];
  const done = (async () => {
    for await (const event of events) seen.push(event);
  })();
  return { seen, done };
}

describe('KubeClient against a real API server', () => {
  let plane: ControlPlane;
  let client: KubeClient;

  beforeAll(async () => {
    plane = await startControlPlane({ crds: [join(import.meta.dirname, 'fixtures/crds')] });
    client = new KubeClient(plane.kubeConfig, { fieldManager: 'kube-it' });
    await client.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  });

  afterAll(async () => {
    await client?.close();
    await plane?.stop();
  });

  /** A client of its own; `opened()` resolves once the server has answered its first watch. */
  function observedClient() {
    const requests: RequestInfo[] = [];
    const watcher = new KubeClient(plane.kubeConfig, { onRequest: (i) => requests.push(i) });
    const opened = () =>
      eventually(() => requests.some((r) => r.verb === 'watch' && r.code === 200), {
        description: 'the watch to be open',
      });
    return { watcher, opened };
  }

  describe('reads and writes', () => {
    it('creates, gets, updates, lists and deletes a ConfigMap', async () => {
      const created = await client.create<ConfigMap>(ConfigMaps, configMap('crud', { k: 'v1' }));
      expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);

      const read = await client.get<ConfigMap>(ConfigMaps, 'crud', namespace);
      expect(read).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v1' } });
      // create answers the stored object, not the one it was given
      expect(read.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

      const updated = await client.update<ConfigMap>(ConfigMaps, { ...read, data: { k: 'v2' } });
      expect(updated.data).toEqual({ k: 'v2' });
      expect(updated.metadata.resourceVersion).not.toBe(read.metadata.resourceVersion);

      const listed = await client.list<ConfigMap>(ConfigMaps, { namespace });
      const item = listed.items.find((i) => i.metadata.name === 'crud');
      expect(item).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v2' } });
      expect(listed.metadata.resourceVersion).toBeTruthy();

      const answer = await client.delete(ConfigMaps, 'crud', namespace);
      expect(isStatus(answer) && answer.status).toBe('Success');
      await expect(client.get(ConfigMaps, 'crud', namespace)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('pages through a list with limit and continue, all pages from one snapshot', async () => {
      const labels = { suite: 'pagination' };
      for (let i = 0; i < 7; i++)
        await client.create(ConfigMaps, configMap(`page-${i}`, {}, labels));

      const names: string[] = [];
      const versions = new Set<string>();
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await client.list(ConfigMaps, {
          namespace,
          labelSelector: 'suite=pagination',
          limit: 3,
          continue: token,
        });
        pages++;
        expect(page.items.length).toBeLessThanOrEqual(3);
        expect(page.items.every((i) => i.kind === 'ConfigMap' && i.apiVersion === 'v1')).toBe(true);
        names.push(...page.items.map((i) => i.metadata.name ?? ''));
        versions.add(page.metadata.resourceVersion);
        token = page.metadata.continue;
      } while (token);
      expect(pages).toBe(3);
      expect(names.sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
      expect(versions.size).toBe(1);

      // A list at an exact resourceVersion shows the collection as it was then.
      const [snapshot] = versions;
      await client.create(ConfigMaps, configMap('page-7', {}, labels));
      const then = await client.list(ConfigMaps, {
        namespace,
        labelSelector: 'suite=pagination',
        resourceVersion: snapshot,
        resourceVersionMatch: 'Exact',
      });
      expect(then.items).toHaveLength(7);
      const now = await client.list(ConfigMaps, { namespace, labelSelector: 'suite=pagination' });
      expect(now.items).toHaveLength(8);
    });

    it('refuses an update from a stale resourceVersion with ConflictError', async () => {
      const original = await client.create<ConfigMap>(ConfigMaps, configMap('stale', { k: 'a' }));
      await client.update<ConfigMap>(ConfigMaps, { ...original, data: { k: 'b' } });

      const error = await rejection(
        client.update<ConfigMap>(ConfigMaps, { ...original, data: { k: 'c' } }),
      );
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).code).toBe(409);
      expect((error as ConflictError).reason).toBe('Conflict');
      expect((error as ConflictError).message).toContain('the object has been modified');
      expect((await client.get<ConfigMap>(ConfigMaps, 'stale', namespace)).data).toEqual({
        k: 'b',
      });
    });

    it('refuses a second create of one name with AlreadyExistsError', async () => {
      await client.create(ConfigMaps, configMap('twice'));
      const error = await rejection(client.create(ConfigMaps, configMap('twice')));
      expect(error).toBeInstanceOf(AlreadyExistsError);
      expect((error as AlreadyExistsError).code).toBe(409);
      expect((error as AlreadyExistsError).message).toBe('configmaps "twice" already exists');
    });

    it('answers a missing object with NotFoundError', async () => {
      const error = await rejection(client.get(ConfigMaps, 'missing', namespace));
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).message).toBe('configmaps "missing" not found');
      expect((error as NotFoundError).details?.name).toBe('missing');
    });

    it('rejects a custom resource that violates its schema with InvalidError and the server’s message', async () => {
      const error = await rejection(
        client.create(Gadgets, gadget('too-big', { size: 11, color: 'pink' })),
      );
      expect(error).toBeInstanceOf(InvalidError);
      const invalid = error as InvalidError;
      expect(invalid.code).toBe(422);
      expect(invalid.message).toContain('Gadget.kube.steward.dev "too-big" is invalid');
      expect(invalid.message).toContain('spec.size in body should be less than or equal to 10');
      expect(invalid.causes.map((c) => c.field).sort()).toEqual(['spec.color', 'spec.size']);
      await expect(client.get(Gadgets, 'too-big', namespace)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('deletes only when the uid precondition matches', async () => {
      const created = await client.create(ConfigMaps, configMap('guarded'));
      const error = await rejection(
        client.delete(ConfigMaps, 'guarded', namespace, { preconditions: { uid: 'not-the-uid' } }),
      );
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).message).toContain(
        'the UID in the precondition (not-the-uid)',
      );
      await client.get(ConfigMaps, 'guarded', namespace);

      await client.delete(ConfigMaps, 'guarded', namespace, {
        preconditions: { uid: created.metadata.uid! },
      });
      await expect(client.get(ConfigMaps, 'guarded', namespace)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });
  });

  describe('server-side apply', () => {
    it('creates, then updates, recording the field manager in managedFields', async () => {
      const applied = await client.apply<ConfigMap>(
        ConfigMaps,
        { metadata: { name: 'ssa', namespace }, data: { owned: 'a' } },
        { fieldManager: 'manager-a' },
      );
      expect(applied).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { owned: 'a' } });
      const entry = applied.metadata.managedFields?.find((m) => m.manager === 'manager-a');
      expect(entry?.operation).toBe('Apply');
      expect(entry?.fieldsV1).toMatchObject({ 'f:data': { 'f:owned': {} } });

      const again = await client.apply<ConfigMap>(
        ConfigMaps,
        { metadata: { name: 'ssa', namespace }, data: { owned: 'a2', also: 'x' } },
        { fieldManager: 'manager-a' },
      );
      expect(again.data).toEqual({ owned: 'a2', also: 'x' });
    });

    it('refuses a conflicting apply from a second manager unless forced', async () => {
      await client.apply(
        ConfigMaps,
        { metadata: { name: 'contested', namespace }, data: { k: 'a' } },
        { fieldManager: 'manager-a' },
      );
      const error = await rejection(
        client.apply(
          ConfigMaps,
          { metadata: { name: 'contested', namespace }, data: { k: 'b' } },
          { fieldManager: 'manager-b' },
        ),
      );
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).message).toContain('conflict with "manager-a"');
      expect((await client.get<ConfigMap>(ConfigMaps, 'contested', namespace)).data).toEqual({
        k: 'a',
      });

      const forced = await client.apply<ConfigMap>(
        ConfigMaps,
        { metadata: { name: 'contested', namespace }, data: { k: 'b' } },
        { fieldManager: 'manager-b', force: true },
      );
      expect(forced.data).toEqual({ k: 'b' });
      const owner = forced.metadata.managedFields?.find((m) => m.manager === 'manager-b');
      expect(owner?.fieldsV1).toMatchObject({ 'f:data': { 'f:k': {} } });
    });
  });

  describe('patches', () => {
    it('merge-patches: objects merge and null deletes a key', async () => {
      await client.create(ConfigMaps, configMap('merge', { keep: '1', drop: '2' }));
      const patched = await client.mergePatch<ConfigMap>(ConfigMaps, 'merge', namespace, {
        metadata: { labels: { tier: 'db' } },
        data: { drop: null, add: '3' },
      });
      expect(patched.data).toEqual({ keep: '1', add: '3' });
      expect(patched.metadata.labels).toEqual({ tier: 'db' });
    });

    it('JSON-patches atomically: a failing test op writes nothing', async () => {
      const created = await client.create<ConfigMap>(
        ConfigMaps,
        configMap('json', { k: 'original' }),
      );
      const error = await rejection(
        client.jsonPatch(ConfigMaps, 'json', namespace, [
          { op: 'test', path: '/data/k', value: 'something-else' },
          { op: 'replace', path: '/data/k', value: 'changed' },
        ]),
      );
      // The server answers a failed test with a generic 422 Invalid and no causes.
      expect(error).toBeInstanceOf(InvalidError);
      expect((error as InvalidError).code).toBe(422);
      expect((error as InvalidError).message).toBe(
        'the server rejected our request due to an error in our request',
      );
      const unchanged = await client.get<ConfigMap>(ConfigMaps, 'json', namespace);
      expect(unchanged.data).toEqual({ k: 'original' });
      expect(unchanged.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

      const patched = await client.jsonPatch<ConfigMap>(ConfigMaps, 'json', namespace, [
        { op: 'test', path: '/data/k', value: 'original' },
        { op: 'replace', path: '/data/k', value: 'changed' },
        { op: 'add', path: '/metadata/annotations', value: {} },
        {
          op: 'add',
          path: jsonPointer('metadata', 'annotations', 'steward.dev/paused'),
          value: 'true',
        },
      ]);
      expect(patched.data).toEqual({ k: 'changed' });
      expect(patched.metadata.annotations).toEqual({ 'steward.dev/paused': 'true' });
    });
  });

  describe('the status subresource', () => {
    it('applies and updates status without touching spec', async () => {
      const created = await client.create(Gadgets, gadget('with-status', { size: 1 }));
      expect(created.metadata.generation).toBe(1);

      const applied = await client.apply<Gadget>(
        Gadgets,
        {
          apiVersion: 'kube.steward.dev/v1alpha1',
          kind: 'Gadget',
          metadata: { name: 'with-status', namespace },
          status: { phase: 'Progressing' },
        },
        { fieldManager: 'status-writer', subresource: 'status' },
      );
      expect(applied.status).toEqual({ phase: 'Progressing' });
      const entry = applied.metadata.managedFields?.find((m) => m.manager === 'status-writer');
      expect(entry?.subresource).toBe('status');

      const updated = await client.updateStatus<Gadget>(Gadgets, {
        ...applied,
        spec: { size: 9 },
        status: { phase: 'Ready', observedGeneration: 1 },
      });
      expect(updated.status).toEqual({ phase: 'Ready', observedGeneration: 1 });
      expect(updated.spec.size).toBe(1);
      expect(updated.metadata.generation).toBe(1);

      // A plain update ignores status for a kind with a status subresource.
      const viaMain = await client.update<Gadget>(Gadgets, {
        ...updated,
        status: { phase: 'Failed' },
      });
      expect(viaMain.status?.phase).toBe('Ready');
    });
  });

  describe('watch', () => {
    it('streams ADDED, MODIFIED and DELETED, and ends quietly when aborted', async () => {
      const start = await client.list(ConfigMaps, { namespace });
      const controller = new AbortController();
      const { seen, done } = collect(
        client.watch<ConfigMap>(ConfigMaps, {
          namespace,
          resourceVersion: start.metadata.resourceVersion,
          fieldSelector: 'metadata.name=watched',
          signal: controller.signal,
        }),
      );

      const created = await client.create<ConfigMap>(ConfigMaps, configMap('watched', { n: '1' }));
      await client.update<ConfigMap>(ConfigMaps, { ...created, data: { n: '2' } });
      await client.delete(ConfigMaps, 'watched', namespace);
      await eventually(() => seen.length >= 3, { description: 'three watch events' });
      expect(seen.map((e) => `${e.type}:${e.object.data?.n}`)).toEqual([
        'ADDED:1',
        'MODIFIED:2',
        'DELETED:2',
      ]);
      expect(seen.every((e) => e.object.kind === 'ConfigMap')).toBe(true);

      controller.abort();
      await expect(done).resolves.toBeUndefined();
    });

    it('ends quietly when aborted while no event is coming', async () => {
      const { watcher, opened } = observedClient();
      const controller = new AbortController();
      const { seen, done } = collect(
        watcher.watch(ConfigMaps, {
          namespace,
          fieldSelector: 'metadata.name=nothing-here',
          signal: controller.signal,
        }),
      );
      await opened(); // the server answered 200: the stream is open, with nothing to send
      controller.abort();
      await expect(done).resolves.toBeUndefined();
      expect(seen).toEqual([]);
      await watcher.close();
    });

    it('leaving a for-await loop early cancels the watch', async () => {
      await client.create(ConfigMaps, configMap('break-early'));
      const { watcher } = observedClient();
      // The server would keep this stream open for five minutes.
      for await (const event of watcher.watch<ConfigMap>(ConfigMaps, {
        namespace,
        fieldSelector: 'metadata.name=break-early',
        timeoutSeconds: 300,
      })) {
        expect(event.type).toBe('ADDED');
        break;
      }
      // close() waits for every request still in flight: it returns only if the watch was cancelled.
      let timer: NodeJS.Timeout | undefined;
      const stillOpen = new Promise<string>((resolve) => {
        timer = setTimeout(resolve, 30_000, 'still open after 30 s');
      });
      try {
        expect(await Promise.race([watcher.close().then(() => 'closed'), stillOpen])).toBe(
          'closed',
        );
      } finally {
        clearTimeout(timer);
      }
    });

    it('sends BOOKMARKs when asked and ends by itself when timeoutSeconds elapses', async () => {
      const quiet = 'kube-it-quiet';
      await client.create(Namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: quiet },
      });
      const start = await client.list(ConfigMaps, { namespace: quiet });
      const { watcher, opened } = observedClient();
      const { seen, done } = collect(
        watcher.watch(ConfigMaps, {
          namespace: quiet,
          resourceVersion: start.metadata.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: 8,
        }),
      );
      // The server sends a watcher a bookmark (shortly before its deadline) only when the
      // collection's resourceVersion moved on: a write in another namespace, once the watch is
      // open, moves it.
      await opened();
      const elsewhere = await client.create(ConfigMaps, configMap('moves-the-version'));
      await done; // the server closed the stream after timeoutSeconds
      await watcher.close();
      const bookmarks = seen.filter((e) => e.type === 'BOOKMARK');
      expect(seen.length).toBe(bookmarks.length);
      expect(bookmarks.length).toBeGreaterThan(0);
      // Only in tests: resourceVersions are opaque, but etcd's are increasing integers.
      expect(Number(bookmarks.at(-1)!.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
        Number(elsewhere.metadata.resourceVersion),
      );
      expect(bookmarks[0]!.object.metadata.name).toBeUndefined();
    });

    it('throws GoneError for a resourceVersion older than the server can serve', async () => {
      // The watch cache of a custom resource starts at the resourceVersion current when its CRD
      // was established (a few hundred here), and refuses anything older with an ERROR event
      // carrying 410 Expired inside a 200 stream — every time. (A built-in kind's cache starts
      // when the API server does, at a near-zero version, so "1" would be replayed there until
      // etcd compacts, every 5 minutes.)
      await client.create(Gadgets, gadget('gone', { size: 2 }));
      const requests: RequestInfo[] = [];
      const watcher = new KubeClient(plane.kubeConfig, { onRequest: (i) => requests.push(i) });
      const error = await rejection(
        (async () => {
          for await (const _event of watcher.watch(Gadgets, { namespace, resourceVersion: '1' })) {
            // no event comes before the error
          }
        })(),
      );
      expect(error).toBeInstanceOf(GoneError);
      expect((error as GoneError).code).toBe(410);
      expect((error as GoneError).reason).toBe('Expired');
      expect((error as GoneError).message).toMatch(/^too old resource version: 1 \(\d+\)$/);
      expect(requests.map((r) => `${r.verb} ${r.code}`)).toEqual(['watch 200']);
      await watcher.close();
    });
  });

  describe('RBAC', () => {
    it('answers a user without rights with ForbiddenError, for reads, writes and watches', async () => {
      const nobody = new KubeClient(await plane.kubeConfigFor({ name: 'nobody' }));
      try {
        const read = await rejection(nobody.get(ConfigMaps, 'anything', namespace));
        expect(read).toBeInstanceOf(ForbiddenError);
        expect((read as ForbiddenError).code).toBe(403);
        expect((read as ForbiddenError).message).toBe(
          `configmaps "anything" is forbidden: User "nobody" cannot get resource "configmaps" in API group "" in the namespace "${namespace}"`,
        );
        await expect(nobody.create(ConfigMaps, configMap('nope'))).rejects.toBeInstanceOf(
          ForbiddenError,
        );
        const watch = async (): Promise<void> => {
          for await (const _event of nobody.watch(ConfigMaps, { namespace })) {
            // refused before any event
          }
        };
        await expect(watch()).rejects.toBeInstanceOf(ForbiddenError);
      } finally {
        await nobody.close();
      }
    });
  });

  describe('onRequest', () => {
    it('hears every request once, with its verb and status code', async () => {
      await client.create(ConfigMaps, configMap('observed-exists'));
      const requests: RequestInfo[] = [];
      const observed = new KubeClient(plane.kubeConfig, {
        fieldManager: 'observed',
        onRequest: (info) => requests.push(info),
      });
      const missing = observed.get(ConfigMaps, 'observed', namespace);
      await expect(missing).rejects.toBeInstanceOf(NotFoundError);
      const created = await observed.create<ConfigMap>(ConfigMaps, configMap('observed'));
      await observed.update<ConfigMap>(ConfigMaps, { ...created, data: { k: 'v' } });
      await observed.mergePatch(ConfigMaps, 'observed', namespace, { data: { k: 'w' } });
      await observed.jsonPatch(ConfigMaps, 'observed', namespace, [
        { op: 'replace', path: '/data/k', value: 'x' },
      ]);
      await observed.apply(ConfigMaps, {
        metadata: { name: 'observed', namespace },
        data: { a: '1' },
      });
      await observed.list(ConfigMaps, { namespace, limit: 1 });
      for await (const _event of observed.watch(ConfigMaps, {
        namespace,
        fieldSelector: 'metadata.name=observed',
        timeoutSeconds: 1,
      })) {
        // the ADDED of the current state, then the server closes after 1 s
      }
      await observed.delete(ConfigMaps, 'observed', namespace);
      await expect(
        observed.create(ConfigMaps, configMap('observed-exists')),
      ).rejects.toBeInstanceOf(AlreadyExistsError);
      await observed.close();

      expect(requests.map((r) => `${r.verb} ${r.method} ${r.code}`)).toEqual([
        'get GET 404',
        'create POST 201',
        'update PUT 200',
        'patch PATCH 200',
        'patch PATCH 200',
        'apply PATCH 200',
        'list GET 200',
        'watch GET 200',
        'delete DELETE 200',
        'create POST 409',
      ]);
      expect(requests[0]?.path).toBe(`/api/v1/namespaces/${namespace}/configmaps/observed`);
      expect(requests.every((r) => r.durationMs >= 0)).toBe(true);
    });
  });

  describe('API Priority and Fairness', () => {
    it('retries the 429s the server answers when a priority level is full, until all succeed', async () => {
      // A priority level with almost no seats that rejects instead of queueing, for one user.
      const FlowSchemas: ResourceType = {
        group: 'flowcontrol.apiserver.k8s.io',
        version: 'v1',
        kind: 'FlowSchema',
        plural: 'flowschemas',
        namespaced: false,
      };
      const PriorityLevels: ResourceType = {
        ...FlowSchemas,
        kind: 'PriorityLevelConfiguration',
        plural: 'prioritylevelconfigurations',
      };
      await client.apply(PriorityLevels, {
        metadata: { name: 'kube-it-tiny' },
        spec: {
          type: 'Limited',
          limited: {
            nominalConcurrencyShares: 1,
            lendablePercent: 0,
            borrowingLimitPercent: 0,
            limitResponse: { type: 'Reject' },
          },
        },
      });
      await client.apply(FlowSchemas, {
        metadata: { name: 'kube-it-throttled' },
        spec: {
          priorityLevelConfiguration: { name: 'kube-it-tiny' },
          matchingPrecedence: 100,
          distinguisherMethod: { type: 'ByUser' },
          rules: [
            {
              subjects: [{ kind: 'User', user: { name: 'throttled' } }],
              resourceRules: [
                { verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] },
              ],
            },
          ],
        },
      });
      // Not the built-in `view` ClusterRole: its rules are aggregated by kube-controller-manager.
      await client.create(Roles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'configmap-lister', namespace },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      });
      await client.create(RoleBindings, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'throttled-lists-configmaps', namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-lister' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'throttled' }],
      });

      const requests: RequestInfo[] = [];
      const throttled = new KubeClient(await plane.kubeConfigFor({ name: 'throttled' }), {
        qps: Infinity,
        maxRetries: 100,
        onRequest: (info) => requests.push(info),
      });
      try {
        // The server applies new flow-control objects within moments; burst until it rejects.
        await eventually(
          async () => {
            const results = await Promise.all(
              Array.from({ length: 40 }, () => throttled.list(ConfigMaps, { namespace })),
            );
            expect(results).toHaveLength(40);
            return requests.some((r) => r.code === 429);
          },
          { description: 'the API server to reject some requests with 429', timeoutMs: 90_000 },
        );
        const rejected = requests.filter((r) => r.code === 429).length;
        const succeeded = requests.filter((r) => r.code === 200).length;
        expect(rejected).toBeGreaterThan(0);
        expect(succeeded % 40).toBe(0); // every list call of every burst ended in a 200
        expect(requests.every((r) => r.code === 200 || r.code === 429)).toBe(true);
      } finally {
        await throttled.close();
      }
    });
  });
});
