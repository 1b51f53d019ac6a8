/**
 * @steward/cache-cluster-api — the `CacheCluster` kind (`cache.steward.dev/v1alpha1`, namespaced, short name
 * `cc`): one source of truth for its TypeScript types and its CRD (generated into
 * charts/cache-cluster-controller/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - `spec.parameters` holds at most MAX_PARAMETERS keys, each value at most
 *   MAX_PARAMETER_VALUE_LENGTH characters.
 * - Defaults: `deletionPolicy: Retain` (nothing is lost without an explicit opt-in).
 *
 * What only the controller can know is a condition with a reason, not an admission error
 * (@steward/cache-cluster: a `spec.parameters` key it does not know is `UnknownParameter`).
 *
 * Status: the `Ready` condition and `observedGeneration`.
 */
export {
  CacheCluster,
  CacheClusterDeletionPolicies,
  CacheClusterSpec,
  CacheClusterStatus,
  MAX_PARAMETER_VALUE_LENGTH,
  MAX_PARAMETERS,
  type CacheClusterDeletionPolicy,
} from './cache-cluster.js';
