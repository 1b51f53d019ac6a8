import { workloadChildNames } from '@steward/workload';

/**
 * The names of a CacheCluster's children, all derived from the cluster's name (at most 52
 * characters, MAX_NAME_LENGTH, so `<name>-headless` and `data-<name>-<ordinal>` stay DNS labels).
 */
export interface ChildNames {
  /** The StatefulSet; its pods are `<name>-<ordinal>`. */
  statefulSet: string;
  /** The headless Service `<name>-headless`: the StatefulSet's serviceName (stable pod DNS). */
  headless: string;
  /** `<name>-rw`: the primary. */
  readWrite: string;
  /** `<name>-ro`: the replicas. */
  readOnly: string;
  /** `<name>-config`: redis.conf. */
  configMap: string;
  /** `<name>-auth`: the generated password (key `password`), when spec.auth names no Secret. */
  authSecret: string;
  podDisruptionBudget: string;
  networkPolicy: string;
  /** `<name>-<ordinal>` */
  pod(ordinal: number): string;
  /** `data-<name>-<ordinal>`: the PVC the StatefulSet makes from its `data` template. */
  pvc(ordinal: number): string;
}

/** The volumeClaimTemplate's name, hence the PVCs' prefix. */
export const DataVolumeName = 'data';
/** The key of the generated password in the Secret `<name>-auth`. */
export const PasswordKey = 'password';

export function childNames(clusterName: string): ChildNames {
  return {
    ...workloadChildNames(clusterName),
    authSecret: `${clusterName}-auth`,
    pod: (ordinal) => `${clusterName}-${checkedOrdinal(ordinal)}`,
    pvc: (ordinal) => `${DataVolumeName}-${clusterName}-${checkedOrdinal(ordinal)}`,
  };
}

function checkedOrdinal(ordinal: number): number {
  if (!Number.isSafeInteger(ordinal) || ordinal < 0) {
    throw new RangeError(`steward/cache-cluster: a pod ordinal must be an integer ≥ 0`);
  }
  return ordinal;
}
