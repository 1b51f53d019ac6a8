import { type CacheCluster } from '@steward/cache-cluster-api';

/** Pods desired: Standalone 1, Replicated spec.replicas (default 2). */
export function desiredReplicas(obj: CacheCluster): number {
  return obj.spec.mode === 'Replicated' ? (obj.spec.replicas ?? 2) : 1;
}
