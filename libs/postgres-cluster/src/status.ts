/**
 * The status a PostgresCluster reconcile states (pure): phase, conditions `Ready`, `Progressing`,
 * `Degraded`, the instances, counts and endpoints — from the plan's health and the StatefulSet.
 *
 * `Ready=True` (`Available`) only when the primary serves and every desired instance is ready in
 * its role (standbys streaming), so kstatus reads Current only for a converged cluster; while it
 * is not, `Ready=False` names what it waits for, `Progressing=True` says the controller is moving
 * it, and `Degraded=True` says what is wrong with what exists (a refused failover, a volume that
 * cannot grow, settings PostgreSQL refuses).
 *
 * Provisioning and Scaling last until the cluster is Ready (the phase last stated is read back):
 * the new instances' first clone is part of the change, not a degradation. Scaling begins when the
 * instances desired change (`status.replicas`, the count last stated).
 */
import { type PostgresCluster, type PostgresPhase } from '@steward/postgres-cluster-api';
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
import { type PlanHealth } from './plan/plan.js';

export const PostgresReasons = {
  ...WorkloadReasons,
  Initialising: 'Initialising',
  SwitchingOver: 'SwitchingOver',
  InvalidParameters: 'InvalidParameters',
  /** The primary cannot archive its WAL into the backup destination: its volume fills. */
  WalArchivingFailing: 'WalArchivingFailing',
  /** Being deleted with deletionPolicy Delete: the final backup is taken first. */
  FinalBackup: 'FinalBackup',
  // Terminal (Stalled) reasons, besides the shared and the profile guardrails':
  SyncReplicationRequired: 'SyncReplicationRequired',
  MaxLagBytesNotAllowed: 'MaxLagBytesNotAllowed',
  BackupDestinationMissing: 'BackupDestinationMissing',
  RetentionBelowMinimum: 'RetentionBelowMinimum',
  /** A destination of the cluster's own, which its ProviderProfile does not allow. */
  BackupDestinationNotAllowed: 'BackupDestinationNotAllowed',
  /** A destination endpoint no ProviderProfile names: the controller never connects to it. */
  BackupEndpointNotAllowed: 'BackupEndpointNotAllowed',
  /** A restore from the folder the cluster's own backups would go to. */
  RecoverySourceIsBackupDestination: 'RecoverySourceIsBackupDestination',
  /** The profile's credentials Secret could not be copied into the cluster's namespace. */
  BackupCredentialsNotCopied: 'BackupCredentialsNotCopied',
} as const;

export interface StatusInput extends WorkloadStatusProblems {
  cluster: PostgresCluster;
  /** Instances desired. */
  replicas: number;
  /** Pods that exist (not being deleted). */
  podCount: number;
  health: PlanHealth;
  /** Pods still to be re-created with the current template (the controller's own roll). */
  outdated: string[];
  image: string;
  version: string;
  endpoints: {
    readWrite: string;
    readOnly: string;
    any: string;
    port: number;
    superuserSecret: string;
    appSecret: string;
  };
  /** Under way and worth saying (e.g. volumes growing). */
  notes: { reason: string; message: string }[];
}

export type PostgresStatusChange = WorkloadStatusChange<PostgresPhase>;

export function postgresStatus(input: StatusInput): PostgresStatusChange {
  const { health, replicas } = input;
  const ready =
    health.primaryServing &&
    health.readyReplicas >= replicas &&
    input.podCount === replicas &&
    input.outdated.length === 0 &&
    !health.failingOver &&
    !health.switchingOver &&
    health.degraded === undefined;
  const statement = ready
    ? availableStatement(replicas, 'instances', health.primary)
    : postgresPhase(input);
  const { phase, reason, message } = statement;

  const changing = phase === 'Provisioning' || phase === 'Scaling';
  const degradations: { reason: string; message: string }[] = [];
  if (health.degraded) degradations.push(health.degraded);
  else if (reason === PostgresReasons.InstancesMissing) degradations.push({ reason, message });
  else if (health.initialised && !health.failingOver && !changing && !ready && phase === 'Degraded')
    degradations.push({ reason, message });
  const conditions = conditionsOf(
    ready,
    statement,
    input,
    degradations,
    'every instance is in its role',
  );
  const port = input.endpoints.port;
  return {
    phase,
    conditions,
    fields: {
      phase,
      replicas,
      readyReplicas: health.readyReplicas,
      instances: health.instances,
      version: input.version,
      image: input.image,
      ...(health.timeline !== undefined ? { timeline: health.timeline } : {}),
      // Written when it changes materially (the plan keeps the record as it is otherwise).
      ...(health.primaryLastSeen ? { primaryLastSeen: health.primaryLastSeen } : {}),
      // As the serving primary's setting was decided; gone once the cluster is not in sync mode.
      ...(health.synchronous
        ? { synchronous: health.synchronous }
        : input.cluster.spec.replication?.mode !== 'sync'
          ? { synchronous: undefined }
          : {}),
      endpoints: {
        readWrite: { host: input.endpoints.readWrite, port },
        readOnly: { host: input.endpoints.readOnly, port },
        any: { host: input.endpoints.any, port },
        superuserSecret: input.endpoints.superuserSecret,
        appSecret: input.endpoints.appSecret,
      },
    },
  };
}

/** The phase of a PostgresCluster that is not converged, and why (pure; the first rule that holds). */
function postgresPhase(input: StatusInput): PhaseStatement<PostgresPhase> {
  const { health, replicas, cluster } = input;
  // The phase this status was last stated with.
  const previous = cluster.status?.phase;
  const inRole = `${health.readyReplicas} of ${replicas} instances ready${
    health.progressing ? `: ${health.progressing.message}` : ''
  }`;
  const from = health.primary ?? 'the primary';
  if (health.failingOver)
    return stated(
      'FailingOver',
      PostgresReasons.FailingOver,
      health.progressing?.message ?? `failing over from ${from}`,
    );
  if (health.switchingOver)
    return stated(
      'SwitchingOver',
      PostgresReasons.SwitchingOver,
      health.progressing?.message ?? `switching over from ${from}`,
    );
  if (health.degraded && health.initialised && !health.primaryServing)
    return stated('Degraded', health.degraded.reason, health.degraded.message, false);
  if (!health.initialised || previous === undefined || previous === 'Provisioning')
    return health.initialised
      ? stated('Provisioning', PostgresReasons.Provisioning, inRole)
      : stated(
          'Provisioning',
          PostgresReasons.Initialising,
          health.progressing?.message ?? 'initialising',
        );
  if (scaling(cluster.status, replicas))
    return stated(
      'Scaling',
      PostgresReasons.Scaling,
      input.podCount !== replicas ? `${input.podCount} instances, ${replicas} desired` : inRole,
    );
  if (input.outdated.length > 0)
    return stated(
      'Updating',
      PostgresReasons.Updating,
      `restarting with the new configuration: ${input.outdated.join(', ')} still to go`,
    );
  if (input.podCount !== replicas) return missingStatement(input.podCount, replicas, 'instances');
  return stated(
    'Degraded',
    health.degraded?.reason ?? PostgresReasons.InstancesNotReady,
    health.degraded?.message ?? inRole,
  );
}
