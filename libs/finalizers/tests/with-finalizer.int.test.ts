import { join } from 'node:path';
import {
  InvalidError,
  isNotFound,
  KubeClient,
  Namespaces,
  type KubeObject,
  type RequestInfo,
  type ResourceType,
} from '@steward/kube';
import { eventually, startControlPlane, type ControlPlane } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CleanupError,
  FinalizerConflictError,
  withFinalizer,
  type FinalizerHandlers,
} from '../src/index.js';

const Gadgets: ResourceType = {
  group: 'finalizers.steward.dev',
  version: 'v1alpha1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};
const namespace = 'finalizers-test';
const ours = 'finalizers.steward.dev/cleanup';
const theirs = 'other.example.com/protect';

interface Gadget extends KubeObject {
  spec: { size: number };
}

describe('withFinalizer against a real API server', () => {
  let plane: ControlPlane;
  let client: KubeClient;
  const writes: RequestInfo[] = [];

  beforeAll(async () => {
    plane = await startControlPlane({ crds: [join(import.meta.dirname, 'fixtures/crds')] });
    client = new KubeClient(plane.kubeConfig, {
      fieldManager: 'finalizers-test',
      onRequest: (info) => {
        if (!['get', 'list', 'watch'].includes(info.verb)) writes.push(info);
      },
    });
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

  async function create(name: string, finalizers?: string[]): Promise<Gadget> {
    return client.create<Gadget>(Gadgets, {
      apiVersion: 'finalizers.steward.dev/v1alpha1',
      kind: 'Gadget',
      metadata: { name, namespace, finalizers },
      spec: { size: 1 },
    });
  }

  const read = (name: string) => client.get<Gadget>(Gadgets, name, namespace);

  async function gone(name: string): Promise<boolean> {
    try {
      await read(name);
      return false;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }

  /** Asks the API server to delete; with finalizers the object stays, with deletionTimestamp. */
  async function deleteAndRead(name: string): Promise<Gadget> {
    await client.delete(Gadgets, name, namespace);
    return read(name);
  }

  function handlers(): FinalizerHandlers<Gadget, string> & {
    apply: ReturnType<typeof vi.fn>;
    cleanup: ReturnType<typeof vi.fn>;
  } {
    return { apply: vi.fn(async () => 'reconciled'), cleanup: vi.fn(async () => undefined) };
  }

  it('adds the finalizer and returns without calling apply', async () => {
    const gadget = await create('new');
    const h = handlers();
    const outcome = await withFinalizer(client, Gadgets, gadget, ours, h);
    expect(outcome).toEqual({ action: 'finalizer-added' });
    expect(h.apply).not.toHaveBeenCalled();
    expect((await read('new')).metadata.finalizers).toEqual([ours]);
  });

  it('appends to another controller’s finalizers, keeping them', async () => {
    const gadget = await create('shared-add', [theirs]);
    expect(await withFinalizer(client, Gadgets, gadget, ours, handlers())).toEqual({
      action: 'finalizer-added',
    });
    expect((await read('shared-add')).metadata.finalizers).toEqual([theirs, ours]);
  });

  it('calls apply, and writes nothing, once the finalizer is present', async () => {
    await create('present', [ours]);
    const current = await read('present');
    const h = handlers();
    const before = writes.length;
    const outcome = await withFinalizer(client, Gadgets, current, ours, h);
    expect(outcome).toEqual({ action: 'applied', result: 'reconciled' });
    expect(h.apply).toHaveBeenCalledWith(current);
    expect(h.cleanup).not.toHaveBeenCalled();
    expect(writes.length).toBe(before);
  });

  it('on delete, runs cleanup, then removes the finalizer and the object goes', async () => {
    const gadget = await create('deleted');
    await withFinalizer(client, Gadgets, gadget, ours, handlers());
    const deleting = await deleteAndRead('deleted');
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();

    // What the API server holds while cleanup runs: the finalizer must still be there.
    let duringCleanup: string[] | undefined;
    const h = handlers();
    h.cleanup.mockImplementation(async () => {
      duringCleanup = (await read('deleted')).metadata.finalizers;
    });
    const outcome = await withFinalizer(client, Gadgets, deleting, ours, h);
    expect(outcome).toEqual({ action: 'cleaned-up' });
    expect(h.cleanup).toHaveBeenCalledExactlyOnceWith(deleting);
    expect(duringCleanup).toEqual([ours]);
    expect(h.apply).not.toHaveBeenCalled();
    await eventually(() => gone('deleted'), { description: 'the Gadget to be gone' });
  });

  it('leaves another controller’s finalizer alone; the object stays until that one goes too', async () => {
    await create('shared', [theirs, ours]);
    const deleting = await deleteAndRead('shared');

    expect(await withFinalizer(client, Gadgets, deleting, ours, handlers())).toEqual({
      action: 'cleaned-up',
    });
    const remaining = await read('shared');
    expect(remaining.metadata.finalizers).toEqual([theirs]);
    expect(remaining.metadata.deletionTimestamp).toBeTruthy();

    // The next reconcile finds nothing left to do for us.
    const h = handlers();
    expect(await withFinalizer(client, Gadgets, remaining, ours, h)).toEqual({ action: 'none' });
    expect(h.cleanup).not.toHaveBeenCalled();

    await client.jsonPatch(Gadgets, 'shared', namespace, [
      { op: 'remove', path: '/metadata/finalizers/0' },
    ]);
    await eventually(() => gone('shared'), { description: 'the Gadget to be gone' });
  });

  it('keeps the finalizer, and the object, when cleanup fails — and throws CleanupError', async () => {
    await create('stuck', [ours]);
    const deleting = await deleteAndRead('stuck');
    const cause = new Error('final backup failed: bucket unreachable');

    const error = await withFinalizer(client, Gadgets, deleting, ours, {
      apply: () => 'unused',
      cleanup: () => Promise.reject(cause),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CleanupError);
    expect(error).toMatchObject({ finalizer: ours, object: `${namespace}/stuck`, cause });

    const still = await read('stuck');
    expect(still.metadata.finalizers).toEqual([ours]);
    expect(still.metadata.deletionTimestamp).toBeTruthy();

    // A later reconcile whose cleanup succeeds lets the object go.
    expect(await withFinalizer(client, Gadgets, still, ours, handlers())).toEqual({
      action: 'cleaned-up',
    });
    await eventually(() => gone('stuck'), { description: 'the Gadget to be gone' });
  });

  it('rejects a removal when the list changed since the read, removing nothing', async () => {
    const first = 'first.example.com/hold';
    await create('raced', [first, ours, theirs]);
    const stale = await deleteAndRead('raced');
    // Meanwhile the first controller finishes: ours moves from index 1 to 0, theirs to index 1.
    // Removing index 1 unchecked would now remove theirs.
    await client.jsonPatch(Gadgets, 'raced', namespace, [
      { op: 'test', path: '/metadata/finalizers/0', value: first },
      { op: 'remove', path: '/metadata/finalizers/0' },
    ]);

    const error = await withFinalizer(client, Gadgets, stale, ours, handlers()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FinalizerConflictError);
    expect(error).toMatchObject({ operation: 'remove' });
    expect((error as FinalizerConflictError).cause).toBeInstanceOf(InvalidError);
    expect((await read('raced')).metadata.finalizers).toEqual([ours, theirs]);

    // The retry, from a fresh read, removes ours alone.
    const fresh = await read('raced');
    expect(await withFinalizer(client, Gadgets, fresh, ours, handlers())).toEqual({
      action: 'cleaned-up',
    });
    const remaining = await read('raced');
    expect(remaining.metadata.finalizers).toEqual([theirs]);
    expect(remaining.metadata.deletionTimestamp).toBeTruthy();
  });

  it('rejects an addition when the list changed since the read, overwriting nothing', async () => {
    const stale = await create('raced-add');
    await client.jsonPatch(Gadgets, 'raced-add', namespace, [
      { op: 'add', path: '/metadata/finalizers', value: [theirs] },
    ]);

    const error = await withFinalizer(client, Gadgets, stale, ours, handlers()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FinalizerConflictError);
    expect(error).toMatchObject({ operation: 'add' });
    expect((await read('raced-add')).metadata.finalizers).toEqual([theirs]);
  });
});
