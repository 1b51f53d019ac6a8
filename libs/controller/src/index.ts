/**
 * @steward/controller — controllers and the manager that runs them, with controller-runtime's
 * semantics.
 *
 * - A reconciler is one async function over a key (`Reconciler`), or — read once — over the object
 *   the runtime took from the cache (`ObjectReconciler`, via `completeObjects`; not called for a
 *   key whose object is gone). It converges the world and returns `{ requeueAfter?, priority? }`.
 *   A thrown `TerminalError` means the user must change something: no retry (unless
 *   `recheckAfter`: look again then), `Stalled=True` + `Ready=False` (+ `Synced=False`) with its
 *   reason at the object's generation, a Warning Event. Any other exception retries with per-key
 *   exponential backoff (5 ms → 1000 s, max'd with a 10 qps / burst 100 bucket). A key is never
 *   reconciled twice at once.
 * - Status has one writer per reconcile (`StatusWriter`, `ctx.status`), shared by the runtime and
 *   the domain: the generation stamped on status and on every condition, a write only when
 *   something changed, one conflict rule (one fresh read and one retry, then `ConflictError`).
 * - `manager.add(runnable)` owns lifetimes (admin-client caches, Event recorders, telemetry flush):
 *   leader-only ones per term around the controllers, others around the whole run; stopped in
 *   reverse order.
 * - `controllerFor(mgr, T).owns(C).watches(X, map).withEventFilter(generationChanged).complete(r)`:
 *   `owns(C)` is exactly `watches(C, enqueueForOwner(T), { priority: Priorities.high })`. Every
 *   kind + selection has one shared informer per manager.
 * - A controller's queue is fair (`@steward/workqueue`, `fairness: 'fair'`): the highest priority
 *   first, then the namespaces with waiting keys take turns, so a bulk change in one namespace
 *   delays another namespace's reconcile by at most one key per turn. Priorities come from events
 *   (`eventPriority`): the initial list and resyncs low, deletions and owned children's changes
 *   high, other changes normal; a failed reconcile retries at the priority it ran at; a
 *   `requeueAfter` comes back at `Result.priority` (default: the one it ran at, at most normal).
 *   `withOptions({ fairness: 'fifo' })` restores client-go's FIFO queue.
 * - While a controller runs (leads), its objects' health (`steward_objects…`) and the kind's own
 *   gauges (`.gauges(...)`: `NamespaceGauge`s of its domain) are computed from its cache at each
 *   metrics collection and reported per kind and namespace, never per object; zeros once it stops.
 * - `Manager` runs informers on every replica and controllers only while holding the Lease
 *   (15 s / 10 s / 2 s); a leader that cannot renew for the renew deadline stops reconciling before
 *   its lease could be taken, and `start()` rejects with `LeaderElectionLostError`. `/healthz` and
 *   `/readyz` (informers synced) and `/metrics` share one port. `stop()` (SIGTERM) drains in-flight
 *   reconciles, then stops informers and releases the lease.
 */
export { controllerFor, ControllerBuilder, type SourceOptions } from './builder.js';
export {
  Controller,
  type ControllerDeps,
  type ControllerOptions,
  type EventRecorder,
  type ReconcilerOf,
  type WatchSpec,
} from './controller.js';
export {
  enqueueForObject,
  enqueueForOwner,
  eventPriority,
  mappingHandler,
  type MapFunc,
} from './handlers.js';
export { startHealthServer, type Check, type HealthServerOptions } from './health-server.js';
export {
  LeaderElector,
  microTime,
  type LeaderElectionOptions,
  type LeadershipEnd,
} from './leader-election.js';
export { LeaderElectionLostError, Manager, type ManagerOptions } from './manager.js';
export { onShutdown, type Runnable } from './runnable.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  or,
  resourceVersionChanged,
  type Meta,
  type Predicate,
} from './predicates.js';
export {
  requestFromKey,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from './reconciler.js';
export {
  StatusWriter,
  type ObjectWithStatus,
  type StatusClient,
  type StatusWriteOptions,
} from './status-writer.js';
export { clearStalled, recordTerminalFailure, StalledCondition } from './terminal-status.js';
/** Re-exported so reconcilers can ask for a priority without depending on the queue's lib. */
export { type Fairness, Priorities } from '@steward/workqueue';
export {
  isTerminalError,
  terminalCause,
  TerminalError,
  type TerminalErrorOptions,
} from './terminal-error.js';
