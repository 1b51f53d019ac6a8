import { findCondition } from '@steward/conditions';
import { ConflictError, KubeClient, Namespaces, type KubeObject } from '@steward/kube';
import { eventually, kstatus, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  controllerFor,
  generationChanged,
  Manager,
  StatusWriter,
  TerminalError,
  type ObjectReconciler,
  type Runnable,
} from '../src/index.js';
import { Gizmos, type Gizmo } from './support/sample-controller.js';

/**
 * The runtime's second round, on a real API server: object reconcilers read once, one status
 * writer with one conflict rule, terminal failures that are observed (kstatus: Failed), "terminal
 * but look again", and lifetimes the manager owns.
 */
describe('object reconcilers, the status writer and runnables', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  let n = 0;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    plane = await startControlPlane({ crds: [join(import.meta.dirname, 'fixtures/crds')] });
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await admin?.close();
    await plane?.stop();
  });

  async function namespace(): Promise<string> {
    const name = `round2-${++n}`;
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  }
  const gizmo = (ns: string, name: string, spec: Gizmo['spec'] = {}) =>
    admin.create<Gizmo>(Gizmos, {
      apiVersion: `${Gizmos.group}/${Gizmos.version}`,
      kind: 'Gizmo',
      metadata: { name, namespace: ns },
      spec,
    });
  const read = (ns: string, name: string) => admin.get<Gizmo>(Gizmos, name, ns);

  function start(ns: string, reconcile: ObjectReconciler<Gizmo>, runnables: Runnable[] = []) {
    const manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'round2-test' });
    for (const r of runnables) manager.add(r);
    // As real controllers do: status writes (no new generation) do not wake the controller.
    controllerFor(manager, Gizmos, {
      selection: { namespace: ns },
      predicates: [generationChanged],
    }).completeObjects(reconcile);
    const started = manager.start();
    started.catch(() => undefined);
    cleanups.push(() => manager.stop());
    return { manager, started };
  }

  it('hands the reconciler the cached object, and never calls it for an object that is gone', async () => {
    const ns = await namespace();
    const seen: { name: string; uid: string | undefined; sameAsCache: boolean }[] = [];
    const { manager } = start(ns, async (ctx, obj) => {
      const cached = manager.informers
        .informerFor<Gizmo>(Gizmos, { namespace: ns })
        .store.get(ctx.request.key);
      seen.push({ name: obj.metadata.name!, uid: obj.metadata.uid, sameAsCache: cached === obj });
      await ctx.status.write({
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Done', message: obj.spec?.message ?? '' },
        ],
      });
    });
    const created = await gizmo(ns, 'once', { message: 'hello' });
    await eventually(
      async () =>
        findCondition((await read(ns, 'once')).status?.conditions, 'Ready')?.status === 'True',
    );
    expect(seen[0]).toEqual({ name: 'once', uid: created.metadata.uid, sameAsCache: true });
    await admin.delete(Gizmos, 'once', ns);
    // A sentinel created after the delete is reconciled after the deleted key was handled (one
    // worker, keys in event order): by then a call for the missing object would have happened.
    await gizmo(ns, 'sentinel');
    await eventually(() => seen.some((s) => s.name === 'sentinel'), { description: 'sentinel' });
    expect(seen.map((s) => s.name)).toEqual(['once', 'sentinel']);
  });

  it('records a terminal failure at the object generation — kstatus says Failed — and clears it once fixed', async () => {
    const ns = await namespace();
    start(ns, async (ctx, obj) => {
      if (obj.spec?.behaviour === 'terminal')
        throw new TerminalError('InvalidBehaviour', 'behaviour terminal cannot be reconciled');
      await ctx.status.write({
        conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: '' }],
      });
    });
    await gizmo(ns, 'refused', { message: 'a' });
    const verdict = async () => (await kstatus([(await read(ns, 'refused')) as KubeObject]))[0]!;
    await eventually(async () => (await verdict()).status === 'Current', {
      description: 'Current',
    });

    await admin.mergePatch(Gizmos, 'refused', ns, { spec: { behaviour: 'terminal' } });
    await eventually(async () => (await verdict()).status === 'Failed', { description: 'Failed' });
    const refused = await read(ns, 'refused');
    expect(refused.metadata.generation).toBe(2);
    expect(refused.status?.observedGeneration).toBe(2);
    expect(
      refused.status?.conditions?.map((c) => [c.type, c.status, c.observedGeneration]),
    ).toEqual([
      ['Ready', 'False', 2],
      ['Stalled', 'True', 2],
    ]);

    await admin.mergePatch(Gizmos, 'refused', ns, { spec: { behaviour: 'normal' } });
    await eventually(async () => (await verdict()).status === 'Current', {
      description: 'Current again',
    });
    expect(
      findCondition((await read(ns, 'refused')).status?.conditions, 'Stalled'),
    ).toBeUndefined();
  });

  it('looks again after recheckAfter without any change, and only then', async () => {
    const ns = await namespace();
    const calls: Record<string, number[]> = { recheck: [], stays: [] };
    start(ns, async (_ctx, obj) => {
      calls[obj.metadata.name!]!.push(performance.now());
      if (obj.metadata.name === 'recheck')
        throw new TerminalError('CredentialsNotFound', 'no Secret', { recheckAfter: 700 });
      throw new TerminalError('InvalidSpec', 'fix the spec');
    });
    await gizmo(ns, 'stays', { message: 'x' });
    await gizmo(ns, 'recheck', { message: 'recheck' });
    // The rechecking object is the clock: three rechecks take over 2 s.
    await eventually(() => calls['recheck']!.length >= 4, {
      description: 'three rechecks',
      timeoutMs: 10_000,
    });
    const times = calls['recheck']!;
    for (const [i, t] of times.slice(1).entries())
      expect(t - times[i]!).toBeGreaterThanOrEqual(700);
    // terminal without recheckAfter: nothing until a change
    expect(calls['stays']).toHaveLength(1);
  });

  describe('the status writer', () => {
    it('writes nothing when nothing changed', async () => {
      const ns = await namespace();
      const obj = await gizmo(ns, 'quiet');
      const patches: string[] = [];
      const client = new KubeClient(plane.kubeConfig, {
        fieldManager: 'writer-test',
        onRequest: (info) => void (info.verb === 'patch' && patches.push(info.path)),
      });
      cleanups.push(() => client.close());
      const writer = new StatusWriter<Gizmo>(client, Gizmos, obj);
      const change = {
        conditions: [{ type: 'Ready', status: 'True' as const, reason: 'Done', message: '' }],
      };
      expect(await writer.write(change)).toBe(true);
      expect(await writer.write(change)).toBe(false);
      expect(patches).toHaveLength(1);
      expect(writer.object.status?.observedGeneration).toBe(1);
    });

    it('on a conflict, reads once, recomputes over the fresh copy (keeping what another writer set), writes once more', async () => {
      const ns = await namespace();
      const stale = await gizmo(ns, 'contended');
      // Another writer changes the status after our copy was read.
      await admin.mergePatch(
        Gizmos,
        'contended',
        ns,
        {
          status: {
            conditions: [
              {
                type: 'Other',
                status: 'True',
                reason: 'Theirs',
                message: '',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        },
        { subresource: 'status' },
      );
      const requests: string[] = [];
      const client = new KubeClient(plane.kubeConfig, {
        fieldManager: 'writer-test',
        onRequest: (info) => void requests.push(`${info.verb} ${info.code}`),
      });
      cleanups.push(() => client.close());
      const writer = new StatusWriter<Gizmo>(client, Gizmos, stale);
      const wrote = await writer.write(() => ({
        conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: '' }],
      }));
      expect(wrote).toBe(true);
      expect(requests).toEqual(['patch 409', 'get 200', 'patch 200']);
      const types = (await read(ns, 'contended')).status?.conditions?.map((c) => c.type);
      expect(types).toEqual(['Other', 'Ready']);
    });

    it('throws the ConflictError of a second conflict (the reconcile is then retried with backoff)', async () => {
      const ns = await namespace();
      const obj = await gizmo(ns, 'busy');
      let bumps = 0;
      const client = new KubeClient(plane.kubeConfig, { fieldManager: 'writer-test' });
      cleanups.push(() => client.close());
      // A writer that always changes the object between our read and our write.
      const racing = {
        get: async <T extends KubeObject>(...args: Parameters<KubeClient['get']>) => {
          const fresh = await client.get<T>(...args);
          await admin.mergePatch(Gizmos, 'busy', ns, {
            metadata: { labels: { bump: String(++bumps) } },
          });
          return fresh;
        },
        mergePatch: client.mergePatch.bind(client),
      } as Pick<KubeClient, 'get' | 'mergePatch'>;
      await admin.mergePatch(Gizmos, 'busy', ns, { metadata: { labels: { bump: 'first' } } });
      const writer = new StatusWriter<Gizmo>(racing, Gizmos, obj);
      await expect(
        writer.write({
          conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: '' }],
        }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(bumps).toBe(1);
    });
  });

  it('starts leader runnables before the first reconcile and stops them after the last, in reverse order', async () => {
    const ns = await namespace();
    const log: string[] = [];
    const runnable = (name: string, needsLeaderElection?: boolean): Runnable => ({
      name,
      ...(needsLeaderElection === false ? { needsLeaderElection } : {}),
      start: () => void log.push(`start ${name}`),
      stop: () => void log.push(`stop ${name}`),
    });
    await gizmo(ns, 'slow');
    const { manager } = start(ns, async () => {
      log.push('reconcile begins');
      await sleep(300);
      log.push('reconcile ends');
    }, [runnable('telemetry', false), runnable('admin-cache'), runnable('recorder')]);
    await eventually(() => log.includes('reconcile begins'));
    await manager.stop();
    expect(log).toEqual([
      'start telemetry',
      'start admin-cache',
      'start recorder',
      'reconcile begins',
      'reconcile ends',
      'stop recorder',
      'stop admin-cache',
      'stop telemetry',
    ]);
  });
});
