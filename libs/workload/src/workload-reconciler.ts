import {
  generationChanged,
  or,
  TerminalError,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type ObjectWithStatus,
  type Predicate,
  type Result,
} from '@steward/controller';
import { findCondition } from '@steward/conditions';
import {
  addFinalizerPatch,
  FinalizerConflictError,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizerPatch,
} from '@steward/finalizers';
import { isInvalid, isNotFound, type KubeClient, type ResourceType } from '@steward/kube';
import { planWorkload, type WorkloadAction, type WorkloadFacts } from './workload-plan.js';

/** `steward.dev/paused: "true"` stops a workload controller from changing anything of the object. */
export const PausedAnnotation = 'steward.dev/paused';

/** The condition a paused object carries, and its reason. */
export const PausedCondition = 'Paused';
export const ReconcilePaused = 'ReconcilePaused';

/** Why the kind refuses something only a person can fix (a `TerminalError`'s reason and message). */
export interface WorkloadRefusal {
  reason: string;
  message: string;
  /** Look again after this long even if nothing changes (e.g. a Secret the user must create). */
  recheckAfterMs?: number;
}

/** What a kind's admission says of an object: what it resolved to, or why it is refused. */
export type Admission<R> = { allowed: true; resolved: R } | ({ allowed: false } & WorkloadRefusal);

/** The refusal an admission result carries (`allowed: false`), or undefined (allowed). */
export function refusalOf(
  resolution: { allowed: true } | ({ allowed: false } & WorkloadRefusal),
): WorkloadRefusal | undefined {
  if (resolution.allowed) return undefined;
  const { reason, message, recheckAfterMs } = resolution;
  return { reason, message, ...(recheckAfterMs ? { recheckAfterMs } : {}) };
}

/** What the kind's pre-delete step says when it is called (a final backup). */
export type PreDeleteOutcome =
  /** Done (or nothing to do): `note` goes into the deletion's Event. */
  | { done: true; note?: string }
  /** Under way: look again after `requeueAfter` ms; the finalizer stays. */
  | { done: false; requeueAfter: number };

/**
 * One in-cluster kind, as the workload reconciler drives it. Everything here but the `converge`,
 * `retain`, `remove` and `preDelete` calls must be pure reads (of the object and the caches).
 */
export interface WorkloadKind<T extends ObjectWithStatus> {
  resourceType: ResourceType;
  /** The cleanup finalizer, e.g. `cache.steward.dev/cleanup`. */
  finalizer: string;
  /** Why admission refuses the object (profile, namespace binding, guardrails), or undefined. */
  refusal(obj: T): WorkloadRefusal | undefined;
  deletionPolicy(obj: T): 'Retain' | 'Delete';
  /** Why the guardrails hold a `Delete` deletion (e.g. `DeletionPolicyNotAllowed`), or undefined. */
  deletionRefusal(obj: T): WorkloadRefusal | undefined;
  /**
   * The step before a `Delete` deletion (start it, or follow it): throws a `TerminalError` once it
   * has failed for good (the deletion then waits for a person). Absent: the kind has none.
   */
  preDelete?(ctx: ObjectReconcileContext<T>, obj: T): Promise<PreDeleteOutcome>;
  /** The kind's own phases, for a live, admitted object carrying the finalizer. */
  converge(ctx: ObjectReconcileContext<T>, obj: T): Promise<Result | void>;
  /** `Retain`: detach what holds data so the garbage collector leaves it, and say where it stays. */
  retain(ctx: ObjectReconcileContext<T>, obj: T): Promise<void>;
  /** `Delete`: delete the volumes this object's own StatefulSet created, and say so. */
  remove(ctx: ObjectReconcileContext<T>, obj: T, preDeleteNote?: string): Promise<void>;
  /** Drops what the process remembers of the object, once its finalizer is gone. */
  forget?(obj: T): void;
}

/** The facts `planWorkload` decides on, read from the object and the kind (pure). */
export function workloadFacts<T extends ObjectWithStatus>(
  obj: T,
  kind: WorkloadKind<T>,
): WorkloadFacts {
  const deletionPolicy = kind.deletionPolicy(obj);
  return {
    paused: obj.metadata.annotations?.[PausedAnnotation] === 'true',
    deleting: isBeingDeleted(obj),
    hasFinalizer: hasFinalizer(obj, kind.finalizer),
    admission: kind.refusal(obj) ? 'refused' : 'allowed',
    deletionPolicy,
    deletionPolicyAllowed: deletionPolicy === 'Retain' || !kind.deletionRefusal(obj),
    // The kind's step reports its own progress when called: `due` means "call it".
    preDelete: kind.preDelete ? 'due' : 'none',
  };
}

/**
 * The reconciler of an in-cluster kind: `planWorkload` over the object's facts, then the one
 * action it names. Pause writes the `Paused` condition without marking the generation observed
 * (a spec changed while paused stays "not yet observed" for GitOps tools) and changes nothing
 * else; resuming removes it. A refused object gets no finalizer (nothing was created for it); the
 * finalizer goes on before the kind's first phase and comes off only after `retain` or `remove`
 * has succeeded — by a JSON patch that tests it, so another controller's finalizer is never touched.
 */
export function workloadReconciler<T extends ObjectWithStatus>(
  client: Pick<KubeClient, 'jsonPatch'>,
  kind: WorkloadKind<T>,
): ObjectReconciler<T> {
  return async (ctx, obj) => {
    const action = planWorkload(workloadFacts(obj, kind));
    if (action.type !== 'report-paused' && findCondition(obj.status?.conditions, PausedCondition))
      await ctx.status.write({ removeConditions: [PausedCondition] });
    return carryOut(ctx, obj, action);
  };

  async function carryOut(
    ctx: ObjectReconcileContext<T>,
    obj: T,
    action: WorkloadAction,
  ): Promise<Result | void> {
    switch (action.type) {
      case 'nothing':
        return;
      case 'report-paused':
        await ctx.status.write(
          {
            conditions: [
              {
                type: PausedCondition,
                status: 'True',
                reason: ReconcilePaused,
                message: `reconciliation is paused by the ${PausedAnnotation} annotation: nothing is changed (no child, pod, server or backup action${isBeingDeleted(obj) ? ', and the deletion waits' : ''}); remove the annotation to resume`,
              },
            ],
          },
          { observe: false },
        );
        return;
      case 'refuse':
        throw terminal(kind.refusal(obj)!);
      case 'add-finalizer':
        await patchFinalizer(ctx, obj, 'add');
        return { requeueAfter: 100 };
      case 'converge':
        return kind.converge(ctx, obj);
      case 'hold-deletion':
        // Only the guardrail holds from the plan's facts; a failed pre-delete step throws itself.
        throw terminal(kind.deletionRefusal(obj)!);
      case 'pre-delete': {
        const outcome = await kind.preDelete!(ctx, obj);
        if (!outcome.done) return { requeueAfter: outcome.requeueAfter };
        await kind.remove(ctx, obj, outcome.note);
        return release(ctx, obj);
      }
      case 'retain':
        await kind.retain(ctx, obj);
        return release(ctx, obj);
      case 'delete':
        await kind.remove(ctx, obj);
        return release(ctx, obj);
    }
  }

  async function release(ctx: ObjectReconcileContext<T>, obj: T): Promise<void> {
    await patchFinalizer(ctx, obj, 'remove');
    kind.forget?.(obj);
  }

  async function patchFinalizer(
    ctx: ObjectReconcileContext<T>,
    obj: T,
    what: 'add' | 'remove',
  ): Promise<void> {
    const operations =
      what === 'add'
        ? addFinalizerPatch(obj, kind.finalizer)
        : removeFinalizerPatch(obj, kind.finalizer);
    if (!operations) return;
    try {
      const updated = await client.jsonPatch<T>(
        kind.resourceType,
        obj.metadata.name!,
        obj.metadata.namespace,
        operations,
        { signal: ctx.signal },
      );
      if (what === 'add') ctx.status.track(updated);
    } catch (error) {
      if (isNotFound(error)) return; // gone: nothing to add, and the finalizer is gone with it
      // A failed `test` is a bare 422: the finalizers changed since the object was read.
      if (isInvalid(error) && error.causes.length === 0)
        throw new FinalizerConflictError(kind.finalizer, describe(obj), what, { cause: error });
      throw error;
    }
  }
}

function terminal(refusal: WorkloadRefusal): TerminalError {
  return new TerminalError(
    refusal.reason,
    refusal.message,
    refusal.recheckAfterMs ? { recheckAfter: refusal.recheckAfterMs } : undefined,
  );
}

function describe(obj: ObjectWithStatus): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${obj.kind} ${namespace}/${name}` : `${obj.kind} ${name}`;
}

/**
 * The workload kinds' predicate on their own objects: spec changes (and deletion, finalizers)
 * as `generationChanged`, plus the `steward.dev/paused` annotation set or removed — a metadata
 * change that must wake the controller to stop or resume.
 */
export const workloadChanges: Predicate = or(generationChanged, {
  update: (old, obj) =>
    old.metadata?.annotations?.[PausedAnnotation] !== obj.metadata?.annotations?.[PausedAnnotation],
});
