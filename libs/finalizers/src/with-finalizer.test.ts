import {
  InvalidError,
  NotFoundError,
  ServerError,
  type JsonPatchOperation,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { describe, expect, it, vi } from 'vitest';
import { CleanupError, FinalizerConflictError } from './errors.js';
import { withFinalizer, type FinalizerClient } from './with-finalizer.js';

const ours = 'test.steward.dev/cleanup';
const rt: ResourceType = {
  group: 'test.steward.dev',
  version: 'v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
};

function thing(finalizers: string[] | undefined, deleting = false): KubeObject {
  return {
    apiVersion: 'test.steward.dev/v1',
    kind: 'Thing',
    metadata: {
      name: 't',
      namespace: 'ns',
      resourceVersion: '9',
      finalizers,
      deletionTimestamp: deleting ? '2026-01-01T00:00:00Z' : undefined,
    },
  };
}

function fakeClient(fail?: unknown) {
  const patches: { name: string; namespace?: string; ops: JsonPatchOperation[] }[] = [];
  const client: FinalizerClient = {
    async jsonPatch(_rt, name, namespace, ops) {
      patches.push({ name, namespace, ops });
      if (fail) throw fail;
      return {} as never;
    },
  };
  return { client, patches };
}

const handlers = () => ({
  apply: vi.fn(async () => 'applied!'),
  cleanup: vi.fn(async () => undefined),
});

describe('withFinalizer', () => {
  it('adds the finalizer and returns without applying', async () => {
    const { client, patches } = fakeClient();
    const h = handlers();
    expect(await withFinalizer(client, rt, thing(undefined), ours, h)).toEqual({
      action: 'finalizer-added',
    });
    expect(h.apply).not.toHaveBeenCalled();
    expect(patches).toEqual([
      {
        name: 't',
        namespace: 'ns',
        ops: [
          { op: 'test', path: '/metadata/resourceVersion', value: '9' },
          { op: 'add', path: '/metadata/finalizers', value: [ours] },
        ],
      },
    ]);
  });

  it('applies, with no API request, when the finalizer is present', async () => {
    const { client, patches } = fakeClient();
    const h = handlers();
    const obj = thing([ours]);
    expect(await withFinalizer(client, rt, obj, ours, h)).toEqual({
      action: 'applied',
      result: 'applied!',
    });
    expect(h.apply).toHaveBeenCalledWith(obj);
    expect(patches).toEqual([]);
  });

  it('cleans up, then removes exactly our finalizer', async () => {
    const { client, patches } = fakeClient();
    const h = handlers();
    let patchesDuringCleanup: number | undefined;
    h.cleanup.mockImplementation(async () => {
      patchesDuringCleanup = patches.length;
    });
    expect(await withFinalizer(client, rt, thing(['a.io/x', ours], true), ours, h)).toEqual({
      action: 'cleaned-up',
    });
    expect(h.cleanup).toHaveBeenCalledOnce();
    expect(patchesDuringCleanup).toBe(0);
    expect(patches).toHaveLength(1);
    expect(patches[0]?.ops).toEqual([
      { op: 'test', path: '/metadata/finalizers/1', value: ours },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });

  it('keeps the finalizer while cleanup reports it is still under way', async () => {
    const { client, patches } = fakeClient();
    const outcome = await withFinalizer(client, rt, thing([ours], true), ours, {
      apply: () => undefined,
      cleanup: () => ({ requeueAfter: 30_000 }),
    });
    expect(outcome).toEqual({ action: 'cleanup-pending', requeueAfter: 30_000 });
    expect(patches).toEqual([]);
  });

  it('does nothing when deleting without our finalizer', async () => {
    const { client, patches } = fakeClient();
    const h = handlers();
    expect(await withFinalizer(client, rt, thing(['a.io/x'], true), ours, h)).toEqual({
      action: 'none',
    });
    expect(h.cleanup).not.toHaveBeenCalled();
    expect(patches).toEqual([]);
  });

  it('wraps a cleanup failure in CleanupError, keeping the finalizer', async () => {
    const { client, patches } = fakeClient();
    const cause = new Error('bucket unreachable');
    const error = await withFinalizer(client, rt, thing([ours], true), ours, {
      apply: () => undefined,
      cleanup: () => Promise.reject(cause),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CleanupError);
    expect(error).toMatchObject({ name: 'CleanupError', finalizer: ours, object: 'ns/t', cause });
    expect(patches).toEqual([]);
  });

  it.each([
    ['add', thing(['a.io/x'])],
    ['remove', thing([ours], true)],
  ])('turns a failed test on %s into FinalizerConflictError', async (operation, obj) => {
    const rejection = new InvalidError({ code: 422, reason: 'Invalid', message: 'test failed' });
    const { client } = fakeClient(rejection);
    const error = await withFinalizer(client, rt, obj, ours, handlers()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FinalizerConflictError);
    expect(error).toMatchObject({ operation, cause: rejection });
  });

  it('passes a validation failure that names fields through unchanged', async () => {
    const invalid = new InvalidError({
      code: 422,
      reason: 'Invalid',
      message: 'no new finalizers can be added if the object is being deleted',
      details: { causes: [{ field: 'metadata.finalizers', reason: 'FieldValueForbidden' }] },
    });
    const { client } = fakeClient(invalid);
    await expect(withFinalizer(client, rt, thing(undefined), ours, handlers())).rejects.toBe(
      invalid,
    );
  });

  it('passes other API errors through unchanged', async () => {
    const failure = new ServerError({ code: 500, reason: 'InternalError', message: 'etcd' });
    const { client } = fakeClient(failure);
    await expect(withFinalizer(client, rt, thing(undefined), ours, handlers())).rejects.toBe(
      failure,
    );
  });

  it.each([
    ['adding', thing(undefined), 'none'],
    ['removing', thing([ours], true), 'cleaned-up'],
  ])('treats an object already gone when %s as done', async (_case, obj, action) => {
    const { client } = fakeClient(
      new NotFoundError({ code: 404, reason: 'NotFound', message: 'gone' }),
    );
    expect(await withFinalizer(client, rt, obj, ours, handlers())).toEqual({ action });
  });

  it('refuses a finalizer name that is not domain-qualified before sending anything', async () => {
    const { client, patches } = fakeClient();
    await expect(
      withFinalizer(client, rt, thing(undefined), 'cleanup', handlers()),
    ).rejects.toThrow(TypeError);
    expect(patches).toEqual([]);
  });

  it('propagates what apply throws, unchanged', async () => {
    const { client } = fakeClient();
    const failure = new Error('apply failed');
    await expect(
      withFinalizer(client, rt, thing([ours]), ours, {
        apply: () => Promise.reject(failure),
        cleanup: () => undefined,
      }),
    ).rejects.toBe(failure);
  });
});
