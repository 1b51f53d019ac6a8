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
  workloadConditions,
  WorkloadReasons,
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
  const { health, replicas, cluster } = input;
  const ready =
    health.primaryServing &&
    health.readyReplicas >= replicas &&
    input.podCount === replicas &&
    input.outdated.length === 0 &&
    !health.failingOver &&
    !health.switchingOver &&
    health.degraded === undefined;
  const previous = cluster.status?.phase;
  const scalingTo = cluster.status?.replicas !== undefined && cluster.status.replicas !== replicas;
  const inRole = `${health.readyReplicas} of ${replicas} instances ready${
    health.progressing ? `: ${health.progressing.message}` : ''
  }`;

  let reason: string;
  let message: string;
  let phase: PostgresPhase;
  let progressing = true;
  if (ready) {
    reason = PostgresReasons.Available;
    phase = 'Ready';
    progressing = false;
    message = `${replicas} of ${replicas} instances ready; primary ${health.primary ?? ''}`.trim();
  } else if (health.failingOver) {
    reason = PostgresReasons.FailingOver;
    phase = 'FailingOver';
    message = health.progressing?.message ?? `failing over from ${health.primary ?? 'the primary'}`;
  } else if (health.switchingOver) {
    reason = PostgresReasons.SwitchingOver;
    phase = 'SwitchingOver';
    message =
      health.progressing?.message ?? `switching over from ${health.primary ?? 'the primary'}`;
  } else if (health.degraded && health.initialised && !health.primaryServing) {
    reason = health.degraded.reason;
    phase = 'Degraded';
    progressing = false;
    message = health.degraded.message;
  } else if (!health.initialised || previous === undefined || previous === 'Provisioning') {
    reason = health.initialised ? PostgresReasons.Provisioning : PostgresReasons.Initialising;
    phase = 'Provisioning';
    message = health.initialised ? inRole : (health.progressing?.message ?? 'initialising');
  } else if (scalingTo || previous === 'Scaling') {
    reason = PostgresReasons.Scaling;
    phase = 'Scaling';
    message =
      input.podCount !== replicas ? `${input.podCount} instances, ${replicas} desired` : inRole;
  } else if (input.outdated.length > 0) {
    reason = PostgresReasons.Updating;
    phase = 'Updating';
    message = `restarting with the new configuration: ${input.outdated.join(', ')} still to go`;
  } else if (input.podCount !== replicas) {
    reason = PostgresReasons.InstancesMissing;
    phase = 'Degraded';
    message = `${input.podCount} of ${replicas} instances exist; the StatefulSet re-creates the missing ones`;
  } else {
    reason = health.degraded?.reason ?? PostgresReasons.InstancesNotReady;
    phase = 'Degraded';
    message = health.degraded?.message ?? inRole;
  }

  const changing = phase === 'Provisioning' || phase === 'Scaling';
  const degradations: { reason: string; message: string }[] = [];
  if (health.degraded) degradations.push(health.degraded);
  else if (reason === PostgresReasons.InstancesMissing) degradations.push({ reason, message });
  else if (health.initialised && !health.failingOver && !changing && !ready && phase === 'Degraded')
    degradations.push({ reason, message });
  degradations.push(...input.problems);

  const conditions = workloadConditions({
    ready,
    reason,
    message,
    progressing,
    notes: input.notes,
    degradations,
    ...(input.failures ? { failures: input.failures } : {}),
    ...(input.refusals ? { refusals: input.refusals } : {}),
    healthyMessage: 'every instance is in its role',
  });
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
