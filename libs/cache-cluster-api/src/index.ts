/**
 * @steward/cache-cluster-api — the `CacheCluster` kind (`cache.steward.dev/v1alpha1`, namespaced,
 * short name `cc`): one source of truth for its TypeScript types and its CRD (generated into
 * charts/cache-cluster-controller/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - `metadata.name` is a DNS label of at most MAX_NAME_LENGTH (52) characters starting with a
 *   letter (it names the StatefulSet, whose pods' revision label must fit 63, and the Services).
 * - `engine` (redis | valkey), `mode`, `persistence.enabled`, `persistence.storageClassName` and
 *   `auth` are immutable; `version` (major.minor) never goes down; `persistence.size` only grows.
 * - Standalone has exactly one replica and no failover; Replicated has at least two pods.
 * - `fencing` (Replicated only): `minReplicas` ≤ `replicas` − 1, `maxLag` whole seconds 1s–60s.
 * - Quantities are quantities; `maxMemory` stays below the memory limit; requests ≤ limits.
 * - `scheduling` (one schema with the other in-cluster kind: `@steward/crd`'s `SchedulingSpec`):
 *   `spread.nodes` / `spread.zones` — `Preferred` (default: a preferred pod anti-affinity on
 *   kubernetes.io/hostname, a ScheduleAnyway maxSkew-1 spread over topology.kubernetes.io/zone)
 *   or `Required` (never two pods on a node; DoNotSchedule over at least two zones);
 *   `nodeSelector` and `tolerations` as given; `affinity` (its parts added as given; a
 *   `podAntiAffinity` replaces the node spread) and `topologySpreadConstraints` (replace the zone
 *   spread), a term without `labelSelector` selecting the cluster's own pods. Label keys and
 *   values, operators and their values, weights, taint effects and `tolerationSeconds` are
 *   checked, and a `Required` spread beside the override that would replace it is refused.
 * - Defaults: `engine: redis`, `mode: Standalone`, `evictionPolicy: noeviction`,
 *   `persistence.enabled: false`, `failover.after: 10s`, `rollout.primary: Switchover`,
 *   `scheduling.spread: { nodes: Preferred, zones: Preferred }`, `deletionPolicy: Retain`.
 *
 * What only the controller can know (the image catalogue, a profile's size classes and
 * guardrails — among them `requireSpread`, reason `SpreadRequired`) is a condition with a reason
 * (@steward/cache-cluster); a pod the spread holds back is `Unschedulable`.
 *
 * Status: `phase`, `primary`, `replicas`/`readyReplicas`, `image`, `endpoints`, `persistence`
 * (durable or not, said in words), `fencing` (MinReplicas with its bound, or None),
 * `failover` (with `primaryFencedBy` and `salvage`) (the newest failover, with the offsets that bound
 * what it may have lost), `failoverCount`, `lastFailover`, `switchover` (the newest planned
 * switchover — a rolling update's, reason `Rollout`: FAILOVER TO an up-to-date replica, with when
 * writes stopped and resumed and the offsets at both ends), `switchoverCount`, conditions
 * `Ready`, `Progressing`, `Degraded` (+ `Stalled` for a spec the controller refuses),
 * `observedGeneration`. Phases include `SwitchingOver` while a switchover is under way.
 */
export {
  CACHE_PORT,
  CacheCluster,
  CacheClusterSpec,
  CacheClusterStatus,
  CacheEngines,
  CacheModes,
  CachePhases,
  EvictionPolicies,
  FailoverRecord,
  FENCING_BOUND_MARGIN_SECONDS,
  FENCING_MAX_LAG_SECONDS,
  MAX_NAME_LENGTH,
  MAX_REPLICAS,
  SwitchoverRecord,
  type CacheEngine,
  type CacheFencing,
  type CacheMode,
  type CachePhase,
  type EvictionPolicy,
} from './cache-cluster.js';
