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

/** `status.failover.salvage.phase`. */
export const SalvagePhases = ['Pending', 'Saved', 'NotNeeded', 'Failed'] as const;
export type SalvagePhase = (typeof SalvagePhases)[number];

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
  primaryFencedBy: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'The time by which the old primary had stopped accepting writes by itself (its last proof of the role + status.fencing.boundSeconds): the promotion came after it, so no write was acknowledged by two primaries. Writes it acknowledged between primaryLastSeenAt and this time may be lost unless salvage saved them. Absent when the kind had no fence (status.fencing.mode None).',
    }),
  ),
  dataLossRisk: StringEnum(DataLossRisks, {
    description:
      'None: synchronous replication had confirmed every commit on the promoted replica — nothing acknowledged is lost. Bounded: at most bytesPossiblyLost of what was acknowledged by primaryLastSeenAt is lost, plus what the old primary acknowledged after primaryLastSeenAt and before primaryFencedBy (never after it); salvage says what of that was saved. Unknown: the old primary’s last position was never seen (e.g. the controller restarted while it was gone), the promoted replica was on another replication history, or the old primary had no fence (it may have gone on acknowledging writes).',
  }),
  salvage: Type.Optional(
    Type.Object(
      {
        phase: StringEnum(SalvagePhases, {
          description:
            'Pending: the old primary has not returned (or is being saved). Saved: what it had that the new primary lacks is kept at location. NotNeeded: it had nothing the new primary lacks. Failed: it could not be saved (message says why; the old primary is kept out of the cluster until a person decides).',
        }),
        from: Type.Optional(
          Type.String({
            description:
              'The position where the old primary’s history left the new primary’s (PostgreSQL: an LSN; Redis/Valkey: a replication offset).',
          }),
        ),
        to: Type.Optional(
          Type.String({ description: 'The old primary’s last position when it was saved.' }),
        ),
        bytes: Type.Optional(
          Type.Integer({
            minimum: 0,
            format: 'int64',
            description: 'to − from: the diverged replication stream that was saved.',
          }),
        ),
        location: Type.Optional(
          Type.String({
            description:
              'Where it is kept (an object-store URL in the backup bucket, or a path on a named PVC).',
          }),
        ),
        savedAt: Type.Optional(Type.String({ format: 'date-time' })),
        message: Type.String(),
      },
      {
        description:
          'What the old primary had that the new timeline lacks, saved when it returned and before it was rewound or resynced.',
      },
    ),
  ),
  message: Type.String(),
};

/**
 * How a kind's primary stops accepting writes once it can no longer prove it holds the role, so
 * that a promotion never overlaps it: `Lease` (PostgreSQL: the instance renews a Lease through the
 * API server and stops its server when it cannot), `MinReplicas` (Redis/Valkey: the server refuses
 * writes once no replica has acknowledged for the bound), `None` (no fence: a primary cut off from
 * everything may go on acknowledging writes that the next failover loses).
 */
export const FencingModes = ['Lease', 'MinReplicas', 'None'] as const;
export type FencingMode = (typeof FencingModes)[number];

/** `status.fencing`: the fence and its bound, as the controller set them up. */
export const FencingStatus = Type.Object(
  {
    mode: StringEnum(FencingModes, {
      description:
        'Lease: the primary renews a Lease and stops its server when it cannot. MinReplicas: the server refuses writes when no replica acknowledged recently. None: no fence.',
    }),
    boundSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'A primary cut off from what grants its role stops accepting writes at most this long after its last proof of the role; a promotion waits at least this long after that proof.',
      }),
    ),
    lease: Type.Optional(
      Type.String({ description: 'The Lease (mode Lease), in this namespace.' }),
    ),
    message: Type.String(),
  },
  { description: 'How a primary that is cut off stops accepting writes, and how soon.' },
);

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
