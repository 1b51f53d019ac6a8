import {
  StatusWriter,
  TerminalError,
  type ObjectReconcileContext,
  type ObjectWithStatus,
  type StatusClient,
} from '@steward/controller';
import { type JsonPatchOperation, type KubeObject, type ResourceType } from '@steward/kube';
import { describe, expect, it, vi } from 'vitest';
import {
  PausedAnnotation,
  workloadChanges,
  workloadReconciler,
  type WorkloadKind,
} from './workload-reconciler.js';

/**
 * The workload reconciler's dispatch, over fakes of our own interfaces: a JSON-patch client that
 * records, and the real StatusWriter over a recording status client. The kinds' controllers run
 * it against a real API server and real pods in their suites.
 */

const Widgets: ResourceType = {
  group: 'smoke.steward.dev',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
const Finalizer = 'smoke.steward.dev/cleanup';
type Widget = ObjectWithStatus & { spec: { deletionPolicy?: 'Retain' | 'Delete' } };

const widget = (o: {
  finalizer?: boolean;
  deleting?: boolean;
  paused?: boolean;
  policy?: 'Retain' | 'Delete';
  pausedCondition?: boolean;
}): Widget => ({
  apiVersion: 'smoke.steward.dev/v1alpha1',
  kind: 'Widget',
  metadata: {
    name: 'w',
    namespace: 'a',
    generation: 5,
    resourceVersion: '10',
    ...(o.finalizer === false ? {} : { finalizers: [Finalizer] }),
    ...(o.deleting ? { deletionTimestamp: '2026-12-06T00:00:00Z' } : {}),
    ...(o.paused ? { annotations: { [PausedAnnotation]: 'true' } } : {}),
  },
  spec: { deletionPolicy: o.policy ?? 'Retain' },
  status: {
    observedGeneration: 4,
    conditions: o.pausedCondition
      ? [
          {
            type: 'Paused',
            status: 'True',
            reason: 'ReconcilePaused',
            message: 'x',
            observedGeneration: 4,
            lastTransitionTime: '2026-12-06T00:00:00Z',
          },
        ]
      : [],
  },
});

function harness(obj: Widget, kindOverrides: Partial<WorkloadKind<Widget>> = {}) {
  const patches: JsonPatchOperation[][] = [];
  const statuses: Record<string, unknown>[] = [];
  const client = {
    jsonPatch: async (_rt: ResourceType, _n: string, _ns: string, ops: JsonPatchOperation[]) => {
      patches.push(ops);
      return obj as KubeObject;
    },
  };
  const statusClient = {
    mergePatch: async (_rt: ResourceType, _n: string, _ns: string, patch: unknown) => {
      const status = (patch as { status: Record<string, unknown> }).status;
      statuses.push(status);
      return { ...obj, status } as KubeObject;
    },
    get: async () => obj as KubeObject,
  } as unknown as StatusClient;
  const calls: string[] = [];
  const kind: WorkloadKind<Widget> = {
    resourceType: Widgets,
    finalizer: Finalizer,
    refusal: () => undefined,
    deletionPolicy: (o) => o.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: () => undefined,
    converge: async () => {
      calls.push('converge');
      return { requeueAfter: 5000 };
    },
    retain: async () => void calls.push('retain'),
    remove: async (_c, _o, note) => void calls.push(`remove${note ? `: ${note}` : ''}`),
    forget: () => void calls.push('forget'),
    ...kindOverrides,
  };
  const ctx = {
    request: { namespace: 'a', name: 'w', key: 'a/w' },
    signal: new AbortController().signal,
    status: new StatusWriter<Widget>(statusClient, Widgets, obj),
  } as unknown as ObjectReconcileContext<Widget>;
  const run = () => workloadReconciler<Widget>(client as never, kind)(ctx, obj);
  return { run, patches, statuses, calls };
}

describe('workloadReconciler', () => {
  it('adds the finalizer first, and runs no phase in that reconcile', async () => {
    const h = harness(widget({ finalizer: false }));
    expect(await h.run()).toEqual({ requeueAfter: 100 });
    expect(h.patches).toHaveLength(1);
    expect(h.patches[0]!.some((op) => op.op === 'add')).toBe(true);
    expect(h.calls).toEqual([]);
  });

  it('runs the kind’s phases for a live, admitted object with the finalizer', async () => {
    const h = harness(widget({}));
    expect(await h.run()).toEqual({ requeueAfter: 5000 });
    expect(h.calls).toEqual(['converge']);
    expect(h.patches).toEqual([]);
  });

  it('refuses without adding the finalizer', async () => {
    const h = harness(widget({ finalizer: false }), {
      refusal: () => ({ reason: 'ProfileNotAllowedInNamespace', message: 'not here' }),
    });
    const error = await h.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect((error as TerminalError).reason).toBe('ProfileNotAllowedInNamespace');
    expect(h.patches).toEqual([]);
    expect(h.calls).toEqual([]);
  });

  it('paused: writes Paused without marking the generation observed, and changes nothing', async () => {
    const h = harness(widget({ paused: true }));
    expect(await h.run()).toBeUndefined();
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
    expect(h.statuses).toHaveLength(1);
    expect(h.statuses[0]).toMatchObject({
      observedGeneration: 4,
      conditions: [
        { type: 'Paused', status: 'True', reason: 'ReconcilePaused', observedGeneration: 4 },
      ],
    });
  });

  it('paused while deleting: the finalizer stays and nothing is retained or removed', async () => {
    const h = harness(widget({ paused: true, deleting: true, policy: 'Delete' }));
    await h.run();
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
    expect(JSON.stringify(h.statuses[0])).toContain('the deletion waits');
  });

  it('resumed: the Paused condition goes, then the phases run', async () => {
    const h = harness(widget({ pausedCondition: true }));
    await h.run();
    expect(h.statuses[0]).toMatchObject({ observedGeneration: 5, conditions: [] });
    expect(h.calls).toEqual(['converge']);
  });

  it('Retain: retains, then removes exactly its finalizer, then forgets', async () => {
    const h = harness(widget({ deleting: true }));
    await h.run();
    expect(h.calls).toEqual(['retain', 'forget']);
    expect(h.patches).toHaveLength(1);
    expect(h.patches[0]).toContainEqual({
      op: 'test',
      path: '/metadata/finalizers/0',
      value: Finalizer,
    });
  });

  it('Delete held by the guardrail: a terminal refusal, nothing removed', async () => {
    const h = harness(widget({ deleting: true, policy: 'Delete' }), {
      deletionRefusal: () => ({ reason: 'DeletionPolicyNotAllowed', message: 'no' }),
    });
    const error = await h.run().catch((e: unknown) => e);
    expect((error as TerminalError).reason).toBe('DeletionPolicyNotAllowed');
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
  });

  it('Delete waits for the pre-delete step, then removes with its note', async () => {
    const preDelete = vi
      .fn()
      .mockResolvedValueOnce({ done: false, requeueAfter: 5000 })
      .mockResolvedValueOnce({ done: true, note: 'final backup b-1' });
    const h = harness(widget({ deleting: true, policy: 'Delete' }), { preDelete });
    expect(await h.run()).toEqual({ requeueAfter: 5000 });
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
    await h.run();
    expect(h.calls).toEqual(['remove: final backup b-1', 'forget']);
    expect(h.patches).toHaveLength(1);
  });

  it('a pre-delete step that failed for good keeps the finalizer', async () => {
    const h = harness(widget({ deleting: true, policy: 'Delete' }), {
      preDelete: () => Promise.reject(new TerminalError('FinalBackupFailed', '3 attempts failed')),
    });
    const error = await h.run().catch((e: unknown) => e);
    expect((error as TerminalError).reason).toBe('FinalBackupFailed');
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
  });

  it('Delete without a pre-delete step removes at once; Retain never calls it', async () => {
    const preDelete = vi.fn();
    const h = harness(widget({ deleting: true, policy: 'Delete' }));
    await h.run();
    expect(h.calls).toEqual(['remove', 'forget']);
    const r = harness(widget({ deleting: true, policy: 'Retain' }), { preDelete });
    await r.run();
    expect(preDelete).not.toHaveBeenCalled();
  });

  it('being deleted without the finalizer: nothing', async () => {
    const h = harness(widget({ deleting: true, finalizer: false }));
    expect(await h.run()).toBeUndefined();
    expect(h.calls).toEqual([]);
    expect(h.patches).toEqual([]);
  });
});

describe('workloadChanges', () => {
  const meta = (annotations: Record<string, string>, generation = 1) => ({
    metadata: { generation, annotations },
  });
  it('wakes on the paused annotation set or removed, and on spec changes', () => {
    expect(workloadChanges.update!(meta({}), meta({ [PausedAnnotation]: 'true' }))).toBe(true);
    expect(workloadChanges.update!(meta({ [PausedAnnotation]: 'true' }), meta({}))).toBe(true);
    expect(workloadChanges.update!(meta({}), meta({}, 2))).toBe(true);
  });
  it('ignores other annotations and status-only writes', () => {
    expect(workloadChanges.update!(meta({}), meta({ note: 'x' }))).toBe(false);
    expect(workloadChanges.update!(meta({}), meta({}))).toBe(false);
  });
});
