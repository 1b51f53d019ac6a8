import Type from 'typebox';
import { StringEnum } from './schema-helpers.js';
import { type PrinterColumn } from './define-kind.js';

/**
 * The status vocabulary every in-cluster workload kind shares (CacheCluster, PostgresCluster, and
 * a kind the scaffold makes): one word for one concept — the primary, the replica counts, the
 * failover record and its loss bound — so a dashboard, an alert or a runbook reads both kinds alike.
 */

/** `status.failover.dataLossRisk`: what a failover may have lost. */
export const DataLossRisks = ['None', 'Bounded', 'Unknown'] as const;
export type DataLossRisk = (typeof DataLossRisks)[number];

/** A Service the clients use: its DNS name and port. */
export const StatusEndpoint = Type.Object({
  host: Type.String({ description: 'The Service’s DNS name.' }),
  port: Type.Integer(),
});

/** `status.primary`, `status.replicas`, `status.readyReplicas`. */
export const ReplicaStatusFields = {
  primary: Type.Optional(
    Type.String({ description: 'The pod that is primary (serves the read-write Service).' }),
  ),
  replicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Pods desired.' })),
  readyReplicas: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Pods ready and in their role.' }),
  ),
};

/**
 * The fields of a failover record every kind has (the newest is `status.failover`): what happened,
 * when, and what it may have lost — `dataLossRisk` with `bytesPossiblyLost`, in bytes of the kind's
 * replication stream (WAL for PostgreSQL, the replication offset for Redis/Valkey). A kind adds
 * its positions (`primaryLast…`, `promoted…`).
 */
export const FailoverRecordFields = {
  phase: StringEnum(['Promoting', 'Repointing', 'Completed'] as const, {
    description:
      'Promoting: recorded (the old primary fenced) before the promotion, so a restarted controller resumes it and never chooses again. Repointing: the others are being pointed at the new primary. Completed.',
  }),
  from: Type.String({ description: 'The pod that was primary.' }),
  to: Type.String({ description: 'The replica promoted.' }),
  reason: Type.String({
    description: 'Why: PrimaryUnreachable, PrimaryPodDeleted, PrimaryNotRunning …',
  }),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  primaryLostAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the primary was first seen lost.' }),
  ),
  primaryLastSeenAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'A time no later than the old primary’s last position was read: every write acknowledged by then is within it.',
    }),
  ),
  bytesPossiblyLost: Type.Optional(
    Type.Integer({
      minimum: 0,
      format: 'int64',
      description:
        'The old primary’s last position − the promoted replica’s (at least 0): the replication stream the promoted replica had not received, of what the old primary had when last seen. With dataLossRisk Bounded: at most this much of what was acknowledged by primaryLastSeenAt is lost.',
    }),
  ),
  dataLossRisk: StringEnum(DataLossRisks, {
    description:
      'None: synchronous replication had confirmed every commit on the promoted replica — nothing acknowledged is lost. Bounded: at most bytesPossiblyLost of what was acknowledged by primaryLastSeenAt is lost. Unknown: the old primary’s last position was never seen (e.g. the controller restarted while it was gone), or the promoted replica was on another replication history.',
  }),
  message: Type.String(),
};

/**
 * Why a planned switchover moved the primary role: `Requested` (a person asked), `ScaleDown`
 * (spec.replicas would remove the primary), `Rollout` (a rolling update reached the primary and
 * `spec.rollout.primary` is Switchover), `NodeDrain` (the primary's node was cordoned to be
 * drained: the primary moves to a replica on another node before its pod may be evicted).
 */
export const SwitchoverReasons = ['Requested', 'ScaleDown', 'Rollout', 'NodeDrain'] as const;
export type SwitchoverReason = (typeof SwitchoverReasons)[number];

/**
 * The write pause of a planned switchover, to spread into a kind's switchover record: when the
 * controller stopped writes on the old primary, and when it put the new primary in the read-write
 * Service. A client sees at most this pause, plus its own reconnect.
 */
export const SwitchoverPauseFields = {
  writesStoppedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When the old primary was taken out of the read-write Service and told to stop accepting writes.',
    }),
  ),
  writesResumedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When the new primary served and was put in the read-write Service: writes resume from here.',
    }),
  ),
};

/** `status.failoverCount`, `status.lastFailover`. */
export const FailoverCountFields = {
  failoverCount: Type.Optional(Type.Integer({ minimum: 0 })),
  lastFailover: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the newest failover completed.' }),
  ),
};

/**
 * What `status.phase` of a workload kind can say: the phases every kind has, with the kind's own
 * moving phases (e.g. SwitchingOver, Upgrading) after FailingOver.
 */
export function workloadPhases<const Extra extends readonly string[]>(...extra: Extra) {
  return [
    'Pending',
    'Provisioning',
    'Ready',
    'Scaling',
    'Updating',
    'FailingOver',
    ...extra,
    'Degraded',
    'Failed',
    'Deleting',
  ] as const;
}

/** The printer columns every workload kind shows: `Ready` first, the primary, the ready count, `Reason` (wide) last. */
export const WorkloadColumns = {
  ready: {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  },
  primary: { name: 'Primary', type: 'string', jsonPath: '.status.primary' },
  readyReplicas: { name: 'Ready Replicas', type: 'integer', jsonPath: '.status.readyReplicas' },
  reason: {
    name: 'Reason',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
    priority: 1,
  },
} as const satisfies Record<string, PrinterColumn>;
