/**
 * @steward/cache-cluster — the CacheCluster domain: what a CacheCluster's spec means, as pure functions, and the
 * controller that keeps every CacheCluster converged to it.
 *
 * - `planCacheCluster(spec)` (pure): accept the spec, or refuse it with a reason the user can act on
 *   (`UnknownParameter`: a `spec.parameters` key the controller does not know). Decisions live
 *   here, as functions over (desired, observed) that are easy to test; the reconciler only
 *   carries them out.
 * - `cacheClusterController(manager, options)`: `reconcileCacheCluster` on `completeObjects`. It writes
 *   `Ready=True` (`Accepted`) through the one status writer, or throws a `TerminalError`: the
 *   runtime records it (`Ready=False` and `Stalled=True` at the object's generation — kstatus
 *   reads Failed — and a Warning Event) and does not retry until the spec changes.
 *
 * Nothing exists outside a CacheCluster yet, so deleting one deletes nothing, whatever its
 * `deletionPolicy`. Once the controller manages something, keep a finalizer
 * (@steward/finalizers) and honour `spec.deletionPolicy` in its cleanup.
 */
export {
  cacheClusterController,
  reconcileCacheCluster,
  type CacheClusterControllerOptions,
} from './controller.js';
export {
  CacheClusterParameterKeys,
  planCacheCluster,
  type CacheClusterPlan,
} from './plan-cache-cluster.js';
export { CacheClusterReasons } from './reasons.js';
