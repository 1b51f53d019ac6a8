import {
  isInvalid,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { CleanupError, FinalizerConflictError } from './errors.js';
import { assertFinalizerName } from './finalizer-name.js';
import { addFinalizerPatch, removeFinalizerPatch } from './finalizer-patches.js';
import { finalizerStep } from './finalizer-step.js';

/** What `withFinalizer` needs of a `KubeClient`: one JSON patch. */
export type FinalizerClient = Pick<KubeClient, 'jsonPatch'>;

/** `cleanup` started work it could not finish yet: keep the finalizer, look again later. */
export interface CleanupPending {
  /** Milliseconds until the next reconcile should check on the cleanup. */
  requeueAfter: number;
}

/** The two cases a finalizer hands to user code — kube-rs's `Event::Apply` and `Event::Cleanup`. */
export interface FinalizerHandlers<T extends KubeObject, R> {
  /**
   * Called when the object is live and already carries the finalizer: the ordinary reconcile.
   * Gets the object as the caller passed it; may change anything the controller owns (never the
   * finalizers). Must be idempotent: it runs on every reconcile. Its errors propagate unchanged.
   */
  apply(obj: T): Promise<R> | R;
  /**
   * Called when the object is being deleted (`deletionTimestamp` set) and still carries the
   * finalizer: release what the finalizer guards (external resources, backups, …). Must be
   * idempotent: it runs at least once, and again after any failure — its own, or a failure to
   * remove the finalizer after it succeeded. Resolve when done (the finalizer is then removed);
   * resolve `{ requeueAfter }` when the work is under way but not finished (the finalizer stays);
   * throw to keep the finalizer and retry with backoff (as a `CleanupError`).
   */
  cleanup(obj: T): Promise<CleanupPending | void> | CleanupPending | void;
}

/** What `withFinalizer` did. */
export type FinalizerOutcome<R> =
  /** The finalizer was added; `apply` did not run — the patch itself triggers the next reconcile. */
  | { action: 'finalizer-added' }
  /** `apply` ran and returned `result`. */
  | { action: 'applied'; result: R }
  /** `cleanup` finished and the finalizer was removed (or the object was already gone). */
  | { action: 'cleaned-up' }
  /** `cleanup` is under way; the finalizer stays. Reconcile again after `requeueAfter` ms. */
  | { action: 'cleanup-pending'; requeueAfter: number }
  /** Nothing for this finalizer to do: the object is being deleted and does not carry it (or is gone). */
  | { action: 'none' };

export interface WithFinalizerOptions {
  /** Aborts the finalizer patch (not the handlers). */
  signal?: AbortSignal;
}

/**
 * Runs one reconcile of `obj` under `finalizer`, kube-rs style; see the package doc for the
 * guarantees. `obj` is the object just read (from the cache): its finalizers and resourceVersion
 * are what the JSON patches test, so a stale copy costs a `FinalizerConflictError` and a retry,
 * never a wrong write.
 *
 * Throws: `TypeError` for a finalizer name that is not domain-qualified (before any request);
 * `CleanupError` when `cleanup` throws; `FinalizerConflictError` when the finalizers changed
 * since `obj` was read; whatever `apply` throws; other `@steward/kube` errors of the patch.
 */
export async function withFinalizer<T extends KubeObject, R>(
  client: FinalizerClient,
  rt: ResourceType,
  obj: T,
  finalizer: string,
  handlers: FinalizerHandlers<T, R>,
  options: WithFinalizerOptions = {},
): Promise<FinalizerOutcome<R>> {
  assertFinalizerName(finalizer);
  switch (finalizerStep(obj, finalizer)) {
    case 'add':
      try {
        await patch(client, rt, obj, addFinalizerPatch(obj, finalizer), options);
      } catch (error) {
        if (isNotFound(error)) return { action: 'none' };
        throw conflictOr(error, finalizer, obj, 'add');
      }
      return { action: 'finalizer-added' };
    case 'apply':
      return { action: 'applied', result: await handlers.apply(obj) };
    case 'none':
      return { action: 'none' };
    case 'cleanup': {
      let pending: CleanupPending | void;
      try {
        pending = await handlers.cleanup(obj);
      } catch (error) {
        throw new CleanupError(finalizer, describeObject(obj), { cause: error });
      }
      if (pending && typeof pending.requeueAfter === 'number') {
        return { action: 'cleanup-pending', requeueAfter: pending.requeueAfter };
      }
      const operations = removeFinalizerPatch(obj, finalizer);
      if (!operations) return { action: 'cleaned-up' };
      try {
        await patch(client, rt, obj, operations, options);
      } catch (error) {
        // Gone already: the finalizer is gone with it.
        if (isNotFound(error)) return { action: 'cleaned-up' };
        throw conflictOr(error, finalizer, obj, 'remove');
      }
      return { action: 'cleaned-up' };
    }
  }
}

async function patch(
  client: FinalizerClient,
  rt: ResourceType,
  obj: KubeObject,
  operations: ReturnType<typeof addFinalizerPatch>,
  options: WithFinalizerOptions,
): Promise<void> {
  const name = obj.metadata.name;
  if (!name) throw new TypeError('steward/finalizers: the object has no metadata.name');
  await client.jsonPatch(rt, name, obj.metadata.namespace, operations, { signal: options.signal });
}

/**
 * The API server answers a JSON patch whose `test` fails with a bare 422 (reason Invalid, no
 * field causes); validation failures of the patched object name their fields and pass through.
 */
function conflictOr(
  error: unknown,
  finalizer: string,
  obj: KubeObject,
  operation: 'add' | 'remove',
): unknown {
  if (!isInvalid(error) || error.causes.length > 0) return error;
  return new FinalizerConflictError(finalizer, describeObject(obj), operation, { cause: error });
}

function describeObject(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : `${name}`;
}
