/**
 * @steward/finalizers — kube-rs's `finalizer` helper for TypeScript: one call runs a reconcile
 * under a finalizer, handing user code one of two cases, `apply(obj)` or `cleanup(obj)`.
 *
 * `withFinalizer(client, rt, obj, name, { apply, cleanup })`, with `obj` as just read:
 * - live, finalizer absent → adds the finalizer and returns `{ action: 'finalizer-added' }`
 *   without calling `apply`: the write itself triggers the next reconcile, which then applies;
 * - live, finalizer present → `{ action: 'applied', result: await apply(obj) }`;
 * - being deleted, finalizer present → `cleanup(obj)`; when it resolves, removes exactly this
 *   finalizer and returns `{ action: 'cleaned-up' }` (or, if it resolved `{ requeueAfter }`,
 *   keeps the finalizer and returns `{ action: 'cleanup-pending', requeueAfter }`);
 * - being deleted, finalizer absent → `{ action: 'none' }`.
 *
 * Guarantees:
 * - `cleanup` runs, and resolves, at least once before the finalizer is removed; the API server
 *   keeps the object until then. It may run more than once (a retry after its own failure, after
 *   a failed removal, or in two processes during a leadership change).
 * - Another controller's finalizer is never removed: the removal is a JSON patch that `test`s our
 *   name at the index it removes, and the addition `test`s the list (or, with no list, the
 *   resourceVersion) it extends, so a list changed since `obj` was read makes the API server reject
 *   the whole patch — nothing is written and `FinalizerConflictError` is thrown (retryable).
 * - Each call sends at most one API request (the finalizer patch), none on the `applied` path.
 *
 * Assumptions: `obj` comes from the API server or an informer (it has a resourceVersion); the
 * finalizer name is domain-qualified (`postgres.steward.dev/cleanup`); `apply` and `cleanup` are
 * idempotent; the caller re-reads the object on the next reconcile (level-based) rather than
 * reusing `obj`; the client may `patch` the resource.
 *
 * Errors: `TypeError` for a name that is not domain-qualified, or an object with neither
 * finalizers nor resourceVersion (nothing sent); `CleanupError` when `cleanup` throws — the
 * finalizer stays, the thrown error is its `cause` (unwrap it to honour a `TerminalError`);
 * `FinalizerConflictError` when a patch's `test` fails; errors from `apply`, unchanged; other
 * `@steward/kube` errors of the patch, unchanged. An object that is already gone (404) is not an
 * error: `none` when adding, `cleaned-up` when removing. Every error but `TypeError` is retryable.
 */
export { CleanupError, FinalizerConflictError } from './errors.js';
export { assertFinalizerName } from './finalizer-name.js';
export { addFinalizerPatch, removeFinalizerPatch } from './finalizer-patches.js';
export {
  finalizerStep,
  hasFinalizer,
  isBeingDeleted,
  type FinalizerStep,
} from './finalizer-step.js';
export {
  withFinalizer,
  type CleanupPending,
  type FinalizerClient,
  type FinalizerHandlers,
  type FinalizerOutcome,
  type WithFinalizerOptions,
} from './with-finalizer.js';
