import { jsonEqual, setCondition, type Condition } from '@steward/conditions';
import { ConfigMaps, type KubeObject, type ResourceType } from '@steward/kube';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  controllerFor,
  generationChanged,
  TerminalError,
  type Controller,
  type Manager,
  type Request,
  type Result,
} from '../../src/index.js';

export const Gizmos: ResourceType = {
  group: 'sample.steward.dev',
  version: 'v1alpha1',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
};

export interface Gizmo extends KubeObject {
  spec?: {
    message?: string;
    behaviour?: 'normal' | 'fail' | 'terminal' | 'throw-sync' | 'requeue' | 'slow';
  };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** How a reconcile ended, as the controller's `reconcile_total` result label counts it. */
export type SampleOutcome = 'success' | 'requeue_after' | 'error' | 'terminal';

export interface SampleControllerHooks {
  /** Called at the start of every reconcile. */
  onReconcile?: (request: Request) => void | Promise<void>;
  /** Called at the end of every reconcile that `onReconcile` started, with how it ended. */
  onReconciled?: (request: Request, outcome: SampleOutcome) => void;
  maxConcurrentReconciles?: number;
  /** Milliseconds a `slow` Gizmo's reconcile takes. */
  slowMs?: number;
  /** The `requeueAfter` a `requeue` Gizmo's reconcile returns. Default 300 ms. */
  requeueAfterMs?: number;
  /** Watch Gizmos and their ConfigMaps in this namespace only (default: every namespace). */
  namespace?: string;
}

/**
 * The sample controller of the runtime's tests and benchmarks: for each Gizmo, server-side apply a
 * ConfigMap child holding `spec.message`, then set `Ready=True` in status. It writes only what
 * differs from the cache, so a converged Gizmo costs no API writes. `spec.behaviour` makes it fail
 * on purpose: `fail` rejects, `throw-sync` throws before returning a promise at all, `terminal`
 * throws a `TerminalError`, `requeue` asks for `requeueAfter`, `slow` takes `slowMs`.
 */
export function sampleController(manager: Manager, hooks: SampleControllerHooks = {}): Controller {
  const selection = hooks.namespace ? { namespace: hooks.namespace } : {};
  const gizmos = manager.informers.informerFor<Gizmo>(Gizmos, selection);
  const configMaps = manager.informers.informerFor<ConfigMap>(ConfigMaps, selection);

  async function reconcile(request: Request): Promise<Result | undefined> {
    await hooks.onReconcile?.(request);
    const gizmo = gizmos.store.get(request.key);
    if (!gizmo || gizmo.metadata.deletionTimestamp) return;
    switch (gizmo.spec?.behaviour) {
      case 'fail':
        throw new Error('sample failure');
      case 'terminal':
        throw new TerminalError(
          'InvalidBehaviour',
          'spec.behaviour=terminal cannot be reconciled; change it',
        );
      case 'slow':
        await sleep(hooks.slowMs ?? 500);
        break;
      default:
        break;
    }

    const desired = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${request.name}-gizmo`,
        namespace: request.namespace,
        ownerReferences: [
          {
            apiVersion: `${Gizmos.group}/${Gizmos.version}`,
            kind: Gizmos.kind,
            name: request.name,
            uid: gizmo.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { message: gizmo.spec?.message ?? '' },
    } satisfies ConfigMap;
    const child = configMaps.store.get(`${request.namespace}/${desired.metadata.name}`);
    if (!child || !jsonEqual(child.data, desired.data)) {
      await manager.client.apply(ConfigMaps, desired, { force: true });
    }

    const generation = gizmo.metadata.generation ?? 0;
    const { conditions, changed } = setCondition(gizmo.status?.conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: 'the ConfigMap holds the message',
      observedGeneration: generation,
    });
    if (changed || gizmo.status?.observedGeneration !== generation) {
      await manager.client.mergePatch(
        Gizmos,
        request.name,
        request.namespace,
        { status: { observedGeneration: generation, conditions } },
        { subresource: 'status' },
      );
    }
    return gizmo.spec?.behaviour === 'requeue'
      ? { requeueAfter: hooks.requeueAfterMs ?? 300 }
      : undefined;
  }

  return controllerFor(manager, Gizmos, { selection, predicates: [generationChanged] })
    .named('gizmo')
    .owns(ConfigMaps, { selection })
    .gauges<Gizmo>({
      name: 'steward_gizmo_message_characters',
      description: 'Characters of spec.message, summed over the Gizmos of a namespace.',
      aggregate: 'sum',
      value: (g) => g.spec?.message?.length,
    })
    .withOptions({ maxConcurrentReconciles: hooks.maxConcurrentReconciles ?? 2 })
    .complete((_ctx, request) => {
      const gizmo = gizmos.store.get(request.key);
      if (gizmo?.spec?.behaviour === 'throw-sync' && !gizmo.metadata.deletionTimestamp) {
        // Not an async function's rejection: this reconciler throws before it returns a promise.
        void Promise.resolve(hooks.onReconcile?.(request)).catch(() => undefined);
        hooks.onReconciled?.(request, 'error');
        throw new TypeError('synchronous failure');
      }
      return reconcile(request).then(
        (result) => {
          hooks.onReconciled?.(request, result?.requeueAfter ? 'requeue_after' : 'success');
          return result;
        },
        (error: unknown) => {
          hooks.onReconciled?.(request, error instanceof TerminalError ? 'terminal' : 'error');
          throw error;
        },
      );
    });
}
