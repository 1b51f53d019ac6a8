/**
 * The status a CacheCluster reconcile states (pure): phase, conditions `Ready`, `Progressing`,
 * `Degraded`, counts, endpoints and what persistence means for the data — from the role plan's
 * health and the StatefulSet's rollout.
 *
 * `Ready=True` (`Available`) only when every desired pod is ready and in its role and the
 * StatefulSet's rollout is complete, so kstatus reads Current only for a converged cluster; while
 * it is not, `Ready=False` names what it waits for (Provisioning, Scaling, Updating, FailingOver,
 * SwitchingOver, PrimaryLost, InstancesMissing, InstancesNotReady), `Progressing=True` says the
 * controller is moving it, and `Degraded=True` says what is wrong with what exists. The rollout is
 * the controller's own (phases/roll.ts: complete once no pod is left on an older template).
 *
 * Provisioning and Scaling last until the cluster is Ready (the phase last stated is read back for
 * it): the new pods' first sync is part of the change, not a degradation. Scaling begins only
 * when the pods desired change (`status.replicas`, the count last stated): a pod that is merely
 * gone is InstancesMissing (Degraded).
 */
import { type CacheCluster, type CachePhase } from '@steward/cache-cluster-api';
import {
  availableStatement,
  conditionsOf,
  missingStatement,
  scaling,
  stated,
  WorkloadReasons,
  type PhaseStatement,
  type WorkloadStatusChange,
  type WorkloadStatusProblems,
} from '@steward/workload';
import { fencingStatus } from './fencing.js';
import { type Health } from './roles/plan.js';

export const CacheReasons = {
  ...WorkloadReasons,
  NoReplicaToPromote: 'NoReplicaToPromote',
  SwitchingOver: 'SwitchingOver',
  FailoverDisabled: 'FailoverDisabled',
  // Terminal (Stalled), besides the shared and the profile guardrails':
  AuthSecretNotFound: 'AuthSecretNotFound',
  InvalidPassword: 'InvalidPassword',
  MaxMemoryExceedsLimit: 'MaxMemoryExceedsLimit',
} as const;

export interface Rollout {
  complete: boolean;
  message: string;
}

export interface StatusInput extends WorkloadStatusProblems {
  cluster: CacheCluster;
  replicas: number;
  /** Pods that exist (not being deleted). */
  podCount: number;
  health: Health;
  rollout: Rollout | undefined;
  image: string;
  endpoints: {
    readWrite: string;
    readOnly: string;
    port: number;
    secretName: string;
    secretKey: string;
  };
  durable: boolean;
}

export type CacheStatusChange = WorkloadStatusChange<CachePhase>;

export function cacheStatus(input: StatusInput): CacheStatusChange {
  const { health, replicas, rollout, cluster } = input;
  const ready =
    health.primaryServing &&
    health.readyReplicas >= replicas &&
    input.podCount === replicas &&
    (rollout?.complete ?? false) &&
    !health.failingOver &&
    !health.switchingOver &&
    health.lagging.length === 0;
  const established = cluster.status?.primaryRunId !== undefined || health.primaryServing;
  const statement = ready
    ? availableStatement(replicas, 'pods', cluster.status?.primary)
    : cachePhase(input, established);
  const { phase, reason, message } = statement;

  // What is wrong with what exists — not the replicas a creation or a scale is still syncing.
  const changing = phase === 'Provisioning' || phase === 'Scaling';
  const degradations: { reason: string; message: string }[] = [];
  if (health.stuck) degradations.push(health.stuck);
  else if (health.lost)
    degradations.push({ reason: CacheReasons.PrimaryLost, message: health.lost.message });
  else if (reason === CacheReasons.InstancesMissing)
    degradations.push({ reason: CacheReasons.InstancesMissing, message });
  else if (established && !health.failingOver && health.lagging.length && !changing)
    degradations.push({
      reason: CacheReasons.InstancesNotReady,
      message: health.lagging.join('; '),
    });
  const conditions = conditionsOf(
    ready,
    statement,
    input,
    degradations,
    'every pod is in its role',
  );
  return {
    phase,
    conditions,
    fields: {
      phase,
      replicas,
      readyReplicas: health.readyReplicas,
      image: input.image,
      endpoints: {
        readWrite: { host: input.endpoints.readWrite, port: input.endpoints.port },
        ...(cluster.spec.mode === 'Replicated'
          ? { readOnly: { host: input.endpoints.readOnly, port: input.endpoints.port } }
          : {}),
        secretName: input.endpoints.secretName,
        secretKey: input.endpoints.secretKey,
      },
      fencing: fencingStatus(cluster),
      persistence: input.durable
        ? {
            durable: true,
            message:
              'AOF (fsync every second) and RDB snapshots on a PersistentVolumeClaim per pod: the data survives pod restarts',
          }
        : {
            durable: false,
            message:
              'no volumes: a pod restart loses its data (a replica resynchronises from the primary); the data must be regenerable',
          },
    },
  };
}

/** The phase of a CacheCluster that is not converged, and why (pure; the first rule that holds). */
function cachePhase(input: StatusInput, established: boolean): PhaseStatement<CachePhase> {
  const { health, replicas, rollout, cluster } = input;
  // The phase this status was last stated with.
  const previous = cluster.status?.phase;
  const rolling =
    rollout && !rollout.complete
      ? `${rollout.message}${health.switchover ? `; ${health.switchover.message}` : ''}`
      : undefined;
  const inRole = `${health.readyReplicas} of ${replicas} pods ready and in their role${
    health.lagging.length ? `: ${health.lagging.join('; ')}` : ''
  }`;
  if (health.failingOver)
    return stated(
      'FailingOver',
      CacheReasons.FailingOver,
      `failing over to ${cluster.status?.failover?.to ?? 'a replica'}`,
    );
  if (health.switchingOver)
    return stated(
      'SwitchingOver',
      CacheReasons.SwitchingOver,
      health.switchover?.message ??
        `switching over from ${cluster.status?.primary ?? 'the primary'}`,
    );
  if (health.lost)
    return stated(
      health.stuck ? 'Degraded' : 'FailingOver',
      CacheReasons.PrimaryLost,
      health.stuck?.message ?? health.lost.message,
      !health.stuck,
    );
  if (!established)
    return stated(
      'Provisioning',
      CacheReasons.Provisioning,
      rolling ?? 'waiting for the first primary',
    );
  // A scale is over only once every pod desired exists and is ready and in its role (a new
  // replica synced from the primary): until then the cluster is Scaling.
  if (scaling(cluster.status, replicas))
    return stated(
      'Scaling',
      CacheReasons.Scaling,
      input.podCount !== replicas
        ? `${input.podCount} pods, ${replicas} desired${rolling ? `: ${rolling}` : ''}`
        : `${inRole}${rolling ? `; ${rolling}` : ''}`,
    );
  // The first primary serves; the replicas' first sync is still provisioning.
  if (previous === undefined || previous === 'Provisioning')
    return stated(
      'Provisioning',
      CacheReasons.Provisioning,
      `${inRole}${rolling ? `; ${rolling}` : ''}`,
    );
  // The pods desired did not change: one is gone (deleted, evicted) until the StatefulSet
  // re-creates it.
  if (input.podCount !== replicas) return missingStatement(input.podCount, replicas, 'pods');
  if (rolling) return stated('Updating', CacheReasons.Updating, rolling);
  return stated(
    'Degraded',
    CacheReasons.InstancesNotReady,
    health.lagging.length ? health.lagging.join('; ') : inRole,
  );
}
