import { SwitchoverAnnotation } from '@steward/postgres-cluster-api';
import { currentInstanceSet, ordinalOf } from '../children/index.js';
import { type Pod } from '../pods.js';
import { PostgresReasons } from '../status.js';
import { extraInstanceSet, type ExtraInstanceSet } from '../upgrade/upgrade.js';
import { type Cluster, type Problem } from './env.js';

/** A switchover the plan is to carry out this reconcile. */
export type SwitchoverAsk =
  | { reason: 'ScaleDown' }
  | { reason: 'Rollout' }
  /** `avoid`: the instances on cordoned nodes, never chosen. */
  | { reason: 'NodeDrain'; avoid: string[] }
  | { to: string; reason: 'Requested' };

/** Which instances there are and are to be (pure: from the cluster and its pods). */
export interface Topology {
  /** The StatefulSet that serves (`status.instanceSet`). */
  set: string;
  /** A major upgrade's second instance set, while there is one. */
  extra?: ExtraInstanceSet;
  /** Every pod of the cluster (both sets). */
  allPods: Pod[];
  /** The pods of the set that serves: the plan, the roll and the status are about these. */
  pods: Pod[];
  /** Instances desired (`spec.replicas`). */
  desired: number;
  /** The StatefulSet's replicas: never fewer than the primary's ordinal + 1. */
  statefulSetReplicas: number;
  switchover?: SwitchoverAsk;
  /** The switchover annotation's value, when set (cleared once dealt with). */
  requested?: string;
  notes: Problem[];
}

/**
 * The instances of a cluster: the set that serves and its pods, and a primary never scaled away —
 * `spec.replicas` below the primary's ordinal keeps the StatefulSet at the primary's size and asks
 * for a switchover to a standby that stays (`ScaleDown`); the switchover annotation asks for one
 * to a named standby (`Requested`).
 */
export function planTopology(cluster: Cluster, allPods: Pod[]): Topology {
  const set = currentInstanceSet(cluster);
  const pods = allPods.filter((p) => ordinalOf(set, p.metadata.name ?? '') !== undefined);
  const desired = cluster.spec.replicas ?? 1;
  const primary = cluster.status?.primary;
  const primaryOrdinal = primary ? (ordinalOf(set, primary) ?? 0) : 0;
  const statefulSetReplicas = Math.max(desired, primaryOrdinal + 1);
  const requested = cluster.metadata.annotations?.[SwitchoverAnnotation]?.trim() || undefined;
  const switchover: SwitchoverAsk | undefined =
    statefulSetReplicas > desired
      ? { reason: 'ScaleDown' }
      : requested
        ? { to: requested, reason: 'Requested' }
        : undefined;
  const notes: Problem[] =
    statefulSetReplicas > desired
      ? [
          {
            reason: PostgresReasons.Scaling,
            message: `spec.replicas ${desired} would remove the primary ${primary}: it is kept until a switchover moved the primary to a standby that stays`,
          },
        ]
      : [];
  const extra = extraInstanceSet(cluster);
  return {
    set,
    ...(extra ? { extra } : {}),
    allPods,
    pods,
    desired,
    statefulSetReplicas,
    ...(switchover ? { switchover } : {}),
    ...(requested ? { requested } : {}),
    notes,
  };
}
