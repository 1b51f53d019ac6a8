/**
 * @steward/cache-cluster — the CacheCluster domain: Redis or Valkey run in the cluster.
 *
 * - `children/` (pure): the StatefulSet, Services (headless, read-write, read-only), ConfigMap
 *   (redis.conf), PDB, NetworkPolicy and auth Secret a CacheCluster implies.
 * - `resolveWorkload(obj, profile)` (pure): image, resources, dataset limit and volume, through a
 *   kubernetes ProviderProfile's guardrails, size classes and image catalogue, or the built-in
 *   catalogue (`BuiltInImages`).
 * - `planRoles(input)` (pure): who is primary, what to REPLICAOF, what to label, when to fail
 *   over and what it may have cost — over the pods and one Redis observation each.
 * - `cacheStatus(input)` (pure): phase, `Ready`/`Progressing`/`Degraded`, endpoints, persistence.
 * - `redis/`: the ioredis admin layer (observe with INFO/ROLE, REPLICAOF).
 * - `cacheClusterController(manager, options)`: carries all of it out; the workload toolkit
 *   (@steward/workload) applies the children so a converged cluster costs no API writes.
 */
export {
  cacheClusterController,
  cacheClusterReconciler,
  CacheClusterFinalizer,
  cacheClusterUsers,
  desiredReplicas,
  type CacheClusterControllerOptions,
} from './controller.js';
export { BuiltInImages } from './images.js';
export { podFacts, type Pod } from './pods.js';
export {
  DEFAULT_STORAGE,
  resolveWorkload,
  type Resolution,
  type ResolvedCache,
} from './resolve.js';
export {
  byPromotionOrder,
  planRoles,
  type Health,
  type LossReason,
  type NodeView,
  type PodFacts,
  type PrimaryMemory,
  type RoleAction,
  type RoleEvent,
  type RolePlan,
  type RolePlanInput,
} from './roles/plan.js';
export { cacheStatus, CacheReasons, type CacheStatusChange, type StatusInput } from './status.js';
export * from './children/index.js';
export * from './redis/index.js';
export { cacheClusterGauges } from './metrics.js';
