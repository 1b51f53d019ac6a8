/**
 * The fence of a Replicated CacheCluster (`spec.fencing`): Redis/Valkey `min-replicas-to-write` /
 * `min-replicas-max-lag` in every pod's redis.conf, and the bound it implies (pure).
 *
 * A primary refuses writes (NOREPLICAS) once fewer than `minReplicas` of its replicas have
 * acknowledged within `maxLag` whole seconds; it counts them once a second, against its clock in
 * whole seconds, so it refuses at most `maxLag + 2` s (`boundSeconds`) after the last
 * acknowledgement it received. The controller promotes a replica only once fewer than
 * `minReplicas` replicas can have been linked to the old primary within that bound (roles/plan.ts).
 */
import {
  FENCING_BOUND_MARGIN_SECONDS,
  type CacheCluster,
  type CacheClusterStatus,
} from '@steward/cache-cluster-api';

export interface Fence {
  minReplicas: number;
  maxLagSeconds: number;
  /** A primary cut off from its replicas refuses writes at most this long after their last ack. */
  boundSeconds: number;
}

/** The fence `spec.fencing` asks for (Replicated only), or undefined (mode None). */
export function fenceOf(cluster: Pick<CacheCluster, 'spec'>): Fence | undefined {
  const fencing = cluster.spec.fencing;
  if (!fencing || cluster.spec.mode !== 'Replicated') return undefined;
  const maxLagSeconds = Number.parseInt(fencing.maxLag ?? '2s', 10);
  return {
    minReplicas: fencing.minReplicas ?? 1,
    maxLagSeconds,
    boundSeconds: maxLagSeconds + FENCING_BOUND_MARGIN_SECONDS,
  };
}

/** `status.fencing` (pure): the fence and its bound, or mode None saying what that means. */
export function fencingStatus(
  cluster: Pick<CacheCluster, 'spec'>,
): NonNullable<CacheClusterStatus['fencing']> {
  const fence = fenceOf(cluster);
  if (!fence)
    return {
      mode: 'None',
      message:
        cluster.spec.mode === 'Replicated'
          ? 'no fence (spec.fencing unset): a primary cut off from the controller and its replicas may keep acknowledging writes, and a failover may lose them (status.failover.dataLossRisk Unknown when the old primary was unreachable)'
          : 'no fence: a Standalone cache has no replica and is never failed over',
    };
  return {
    mode: 'MinReplicas',
    boundSeconds: fence.boundSeconds,
    message: `the primary refuses writes unless ${fence.minReplicas} replica${fence.minReplicas === 1 ? '' : 's'} acknowledged within ${fence.maxLagSeconds}s (min-replicas-to-write ${fence.minReplicas}, min-replicas-max-lag ${fence.maxLagSeconds}): cut off from its replicas, it stops accepting writes within ${fence.boundSeconds}s, and a failover promotes only after that`,
  };
}
