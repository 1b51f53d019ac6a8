import { type CacheCluster } from '@steward/cache-cluster-api';
import { type ChildObject, type CpuMemory, type WorkloadRenderInput } from '@steward/workload';

export type { CpuMemory };

/** What the children of one CacheCluster are rendered from: the cluster and what was resolved for it. */
export interface RenderInput extends WorkloadRenderInput<CacheCluster> {
  /**
   * redis.conf's `maxmemory`, resolved (spec.maxMemory, else the size class). When undefined and
   * a memory limit exists, 80 % of the limit (MaxMemoryOfLimit): the server needs memory beyond
   * its dataset (buffers, the fork of a rewrite or a full sync). Neither: no `maxmemory` line
   * (unbounded).
   */
  maxMemoryBytes?: number;
  /** Each pod's volume; present exactly when `spec.persistence.enabled`. */
  storage?: { size: string; storageClassName?: string };
  /** Where the pods read the password: `spec.auth.existingSecret`, or the generated `<name>-auth`. */
  passwordSecret: { name: string; key: string };
}

export type { ChildObject };

/** Everything a CacheCluster runs on, as apply configurations. */
export interface RenderedChildren {
  statefulSet: ChildObject;
  headless: ChildObject;
  readWrite: ChildObject;
  readOnly: ChildObject;
  configMap: ChildObject;
  podDisruptionBudget: ChildObject;
  /** `<name>-primary`: Replicated with more than one pod (the eviction-protected pods). */
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
  /**
   * The Secret `<name>-auth` holding `password`; only when the password is generated (no
   * `spec.auth.existingSecret`). The caller generates the password once, and applies this only
   * when the Secret does not exist yet (a generated password never changes).
   */
  authSecret?: (password: string) => ChildObject;
}

/** The pods of the cluster: Standalone 1; Replicated `spec.replicas`, default 2. */
export function replicasOf(cluster: CacheCluster): number {
  if (cluster.spec.mode !== 'Replicated') return 1;
  return cluster.spec.replicas ?? 2;
}
