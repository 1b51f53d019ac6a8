import { type ObjectWithStatus, type StatusWriter } from './status-writer.js';

/** What a reconcile asks of the controller once it returns. */
export interface Result {
  /** Reconcile this key again after this many milliseconds (e.g. to poll an external system). */
  requeueAfter?: number;
  /**
   * The queue priority of that requeue (`Priorities.high` for a failover in progress, so its next
   * step is not behind bulk work). Default: the priority this reconcile's key was handed out
   * with, but no higher than `Priorities.normal`. Ignored without `requeueAfter`.
   */
  priority?: number;
}

/** The identity of the object to reconcile — only that; reconcilers re-read from the cache. */
export interface Request {
  namespace?: string;
  name: string;
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  key: string;
}

/** Context handed to every reconcile. */
export interface ReconcileContext {
  /** Aborted when the manager shuts down or loses leadership: stop early, nothing is lost. */
  signal: AbortSignal;
  /** The controller's name, as in metrics and logs. */
  controller: string;
}

/**
 * A level-based reconciler: one async function over a key. Read the object's current state from
 * the cache (never trust an event), converge the world toward it, and return.
 * - resolve (with an optional `requeueAfter`) → done; the key's backoff is forgotten;
 * - throw a `TerminalError` → the user must change something: no retry, reported on the object;
 * - throw anything else → retried with per-key exponential backoff.
 * Never runs twice at once for one key.
 */
export type Reconciler = (ctx: ReconcileContext, request: Request) => Promise<Result | void>;

/** Context handed to an `ObjectReconciler`: the key's identity and the object's status writer. */
export interface ObjectReconcileContext<T extends ObjectWithStatus> extends ReconcileContext {
  request: Request;
  /**
   * The one status writer of this object for this reconcile, shared with the runtime (which
   * records terminal failures and clears `Stalled` through it). Tell it about metadata writes
   * (`status.track(updated)`) so its resourceVersion stays current.
   */
  status: StatusWriter<T>;
}

/**
 * A reconciler of objects (controller-runtime's `ObjectReconciler` behind `AsReconciler`): the
 * runtime reads the object from the cache once and hands it down; domain code never reads it
 * again. A key whose object is not in the cache (deleted) is not reconciled: nothing to do.
 * Outcomes as for `Reconciler`.
 */
export type ObjectReconciler<T extends ObjectWithStatus> = (
  ctx: ObjectReconcileContext<T>,
  obj: T,
) => Promise<Result | void>;

export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0
    ? { name: key, key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1), key };
}
