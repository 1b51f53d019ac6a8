import { type CacheCluster, type CacheEngine } from '@steward/cache-cluster-api';
import { storedName, storedNamespace, workloadLabels, type ChildMeta } from '@steward/workload';

/**
 * The labels the CacheCluster controller sets and selects on. `cluster` is on every child and on
 * every pod (the StatefulSet selects on it alone); `role` is on pods only, set by the controller
 * itself once it knows a pod's role — never by the pod template, so a restarted pod carries no
 * role until the controller has given it one — and the Services `<name>-rw` / `<name>-ro` select
 * on it.
 */
export const Labels = {
  cluster: 'cache.steward.dev/cluster',
  role: 'cache.steward.dev/role',
} as const;

/** Values of `Labels.role`. */
export const Roles = { primary: 'primary', replica: 'replica' } as const;
export type Role = (typeof Roles)[keyof typeof Roles];

/**
 * Pod-template annotation: a hash of the rendered redis.conf. The servers read their config once,
 * at start; a changed config changes the pod template, so the StatefulSet rolls the pods.
 */
export const ConfigHashAnnotation = 'cache.steward.dev/config-hash';

/** The engine a cluster runs (the API server defaults it to redis). */
export function engineOf(cluster: CacheCluster): CacheEngine {
  return cluster.spec.engine ?? 'redis';
}

/** The labels on every child of `cluster` and on its pods (the role label aside). */
export function commonLabels(cluster: CacheCluster): Record<string, string> {
  return workloadLabels(engineOf(cluster), 'cache', Labels.cluster, clusterName(cluster));
}

/** The StatefulSet's selector, and the base of every other one: the cluster label alone. */
export function clusterSelector(name: string): Record<string, string> {
  return { [Labels.cluster]: name };
}

/** `metadata.name` of a CacheCluster, which every rendered child needs. */
export const clusterName = (cluster: CacheCluster): string =>
  storedName(cluster, 'CacheCluster', 'steward/cache-cluster');

/** `metadata.namespace` of a CacheCluster (namespaced kind: always set on a stored object). */
export const clusterNamespace = (cluster: CacheCluster): string =>
  storedNamespace(cluster, 'CacheCluster', 'steward/cache-cluster');

/** Where a child of `cluster` goes and the labels it carries. */
export function childMeta(cluster: CacheCluster): ChildMeta {
  return { namespace: clusterNamespace(cluster), labels: commonLabels(cluster) };
}
