import {
  ClientsSpec,
  ComputeResources,
  ConditionsSchema,
  defineKind,
  DeletionPolicyField,
  FailoverCountFields,
  FailoverRecordFields,
  FailoverSpecFields,
  FencingStatus,
  immutable,
  ProviderProfileRef,
  ReplicaStatusFields,
  requestsWithinLimits,
  SchedulingSpec,
  RolloutSpec,
  SizeClass,
  StatusEndpoint,
  storageClassNameStaysSet,
  StringEnum,
  StringMap,
  SwitchoverPauseFields,
  SwitchoverReasons,
  VolumeClaimFields,
  withValidations,
  WorkloadColumns,
  workloadPhases,
} from '@steward/crd';
import Type from 'typebox';
import { BackupSpec, BackupStatus, RecoverySpec, RestoreStatus } from './backup.js';
import { UpgradeSpec, UpgradeStatus } from './upgrade.js';

/** `spec.replication.mode`. */
export const ReplicationModes = ['async', 'sync'] as const;
export type ReplicationMode = (typeof ReplicationModes)[number];

/** `spec.replication.sync.durability`. */
export const SyncDurabilities = ['required', 'preferred'] as const;
export type SyncDurability = (typeof SyncDurabilities)[number];

/** What `status.phase` can say. */
export const PostgresPhases = workloadPhases('SwitchingOver', 'Upgrading');
export type PostgresPhase = (typeof PostgresPhases)[number];

/** An instance's role in `status.instances`. */
export const InstanceRoles = ['primary', 'standby', 'fenced', 'unknown'] as const;
export type InstanceRole = (typeof InstanceRoles)[number];

/** `status.failover.dataLossRisk` (the shared vocabulary of `@steward/crd`). */
export { DataLossRisks, type DataLossRisk } from '@steward/crd';

/**
 * The longest `metadata.name`: the StatefulSet's pods carry the label
 * `controller-revision-hash: <statefulset>-<10 characters>`, which must stay a 63-character label
 * value, and a major upgrade's StatefulSet is `<name>-v<major>` (4 more).
 */
export const MAX_NAME_LENGTH = 48;
/** Most instances of one PostgresCluster (one primary and standbys). */
export const MAX_REPLICAS = 9;
/** The port every instance and Service serves PostgreSQL on. */
export const POSTGRES_PORT = 5432;
/** At most this many `spec.parameters`. */
export const MAX_PARAMETERS = 64;
/** The longest value of a `spec.parameters` entry. */
export const MAX_PARAMETER_VALUE_LENGTH = 256;
/** The default of `spec.failover.maxLagBytes`: one WAL segment. */
export const DEFAULT_MAX_LAG_BYTES = 16 * 1024 * 1024;

/**
 * postgresql.conf settings the operator sets itself (replication, failover, where files are, how
 * the instances are reached, WAL archiving): `spec.parameters` may not name them.
 */
export const OperatorOwnedParameters = [
  'archive_command',
  'archive_library',
  'archive_mode',
  'cluster_name',
  'config_file',
  'data_directory',
  'external_pid_file',
  'full_page_writes',
  'hba_file',
  'hot_standby',
  'ident_file',
  'listen_addresses',
  'log_destination',
  'logging_collector',
  'max_replication_slots',
  'max_wal_senders',
  'port',
  'primary_conninfo',
  'primary_slot_name',
  'promote_trigger_file',
  'recovery_target',
  'recovery_target_action',
  'recovery_target_inclusive',
  'recovery_target_lsn',
  'recovery_target_name',
  'recovery_target_time',
  'recovery_target_timeline',
  'recovery_target_xid',
  'restore_command',
  'synchronous_commit',
  'synchronous_standby_names',
  'unix_socket_directories',
  'wal_level',
  'wal_log_hints',
] as const;

/**
 * Every postgresql.conf setting `spec.parameters` may not name, and why: the operator's own
 * (OperatorOwnedParameters), and those that would run a command, read another file into the
 * configuration, load code from a path or name a file on the server — each a way out of the
 * settings a database owner tunes into the pod's filesystem or a shell. `shared_preload_libraries`
 * is allowed (pg_stat_statements, auto_explain), with library names only (see its rule).
 */
export const RefusedParameters: Readonly<Record<string, string>> = {
  ...Object.fromEntries(OperatorOwnedParameters.map((key) => [key, 'the operator owns it'])),
  include: 'it reads another file into postgresql.conf',
  include_dir: 'it reads other files into postgresql.conf',
  include_if_exists: 'it reads another file into postgresql.conf',
  archive_cleanup_command: 'it runs a shell command on the server',
  recovery_end_command: 'it runs a shell command on the server',
  ssl_passphrase_command: 'it runs a shell command on the server',
  dynamic_library_path: 'it says where the server loads code from',
  local_preload_libraries:
    'it loads code into every session (shared_preload_libraries may name libraries of the image)',
  session_preload_libraries:
    'it loads code into every session (shared_preload_libraries may name libraries of the image)',
  ssl_ca_file: 'it names a file on the server',
  ssl_cert_file: 'it names a file on the server',
  ssl_crl_dir: 'it names a directory on the server',
  ssl_crl_file: 'it names a file on the server',
  ssl_key_file: 'it names a file on the server',
  krb_server_keyfile: 'it names a file on the server',
};

/** A PostgreSQL identifier Steward creates unquoted-safe: lowercase, at most 63 bytes. */
const IDENTIFIER = '^[a-z_][a-z0-9_]{0,62}$';

/** Databases every PostgreSQL cluster has: `spec.bootstrap.database` may not name them. */
export const ReservedDatabases = ['postgres', 'template0', 'template1'] as const;
/**
 * Roles `spec.bootstrap.owner` may not name: the superuser the controller connects, replicates
 * and backs up as (`postgres`), and the names PostgreSQL reserves or reads as the current role.
 */
export const ReservedRoles = [
  'postgres',
  'public',
  'none',
  'current_user',
  'current_role',
  'session_user',
] as const;

/** A bootstrap identifier (the application database or its owner): not reserved, not `pg_…`. */
const bootstrapIdentifier = (field: string, reserved: readonly string[], description: string) =>
  withValidations(
    Type.String({ maxLength: 63, pattern: IDENTIFIER, default: 'app', description }),
    [
      {
        rule: `!(self in [${reserved.map((name) => `'${name}'`).join(', ')}]) && !self.startsWith('pg_')`,
        message: `${field} may not be ${reserved.join(', ')} or begin with pg_: PostgreSQL or the operator already uses these names; choose another, such as app`,
      },
    ],
  );

export const PostgresClusterSpec = withValidations(
  Type.Object({
    version: withValidations(
      Type.String({
        maxLength: 2,
        pattern: '^[1-9][0-9]?$',
        description:
          'The PostgreSQL major version, e.g. 15 or 17; an image of the catalogue (the ProviderProfile, or the controller’s own) must exist for it. May not go down: an older server cannot read a newer one’s data.',
      }),
      [
        {
          rule: 'int(self) >= int(oldSelf)',
          messageExpression:
            "'spec.version may not go down (from ' + oldSelf + ' to ' + self + '): PostgreSQL ' + self + ' cannot read the data directory PostgreSQL ' + oldSelf + ' wrote'",
        },
      ],
    ),
    replicas: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REPLICAS,
        default: 1,
        description:
          'Instances, the primary included: 1 is a single primary, 3 a primary and two streaming standbys.',
      }),
    ),
    size: Type.Optional(
      SizeClass(
        'A size class of the ProviderProfile (resources and storage); explicit resources and storage.size win over it.',
      ),
    ),
    resources: Type.Optional(ComputeResources('Each instance’s requests and limits.')),
    storage: Type.Optional(
      Type.Object(
        VolumeClaimFields('storage', {
          example: '10Gi or 500Gi',
          description:
            'Each instance’s volume, e.g. 10Gi (default: the size class’s, else 1Gi). Grow only.',
        }),
        {
          additionalProperties: false,
          description: 'One PersistentVolumeClaim per instance, for PGDATA.',
        },
      ),
    ),
    parameters: Type.Optional(
      withValidations(
        StringMap({
          maxProperties: MAX_PARAMETERS,
          additionalProperties: {
            type: 'string',
            maxLength: MAX_PARAMETER_VALUE_LENGTH,
            pattern: '^[^\\x00-\\x1f\\x7f]*$',
          },
          description:
            'postgresql.conf settings, e.g. max_connections: "200", shared_buffers: 256MB. Refused: the settings the operator owns (replication, files, listening, archiving, logging) and those that run commands, include files, load code or name files on the server (include, include_dir, include_if_exists, *_command, dynamic_library_path, local_ and session_preload_libraries, ssl_*_file, ssl_crl_dir, krb_server_keyfile); shared_preload_libraries takes library names, not paths; a setting PostgreSQL does not know is reported (InvalidParameters) before any instance restarts with it.',
        }),
        [
          {
            rule: "self.all(k, k.matches('^[a-z_][a-z0-9_.]{0,62}$'))",
            message:
              'spec.parameters keys must be PostgreSQL setting names such as max_connections or auto_explain.log_min_duration',
          },
          ...Object.entries(RefusedParameters).map(([key, why]) => ({
            rule: `!('${key}' in self)`,
            message: `spec.parameters may not set ${key}: ${why}`,
          })),
          {
            rule: "!('shared_preload_libraries' in self) || !self['shared_preload_libraries'].contains('/')",
            message:
              'spec.parameters.shared_preload_libraries names libraries of the image, such as pg_stat_statements, not paths',
          },
        ],
      ),
    ),
    replication: Type.Optional(
      Type.Object(
        {
          mode: Type.Optional(
            StringEnum(ReplicationModes, {
              default: 'async',
              description:
                'async: commits do not wait for standbys (a failover may lose the newest, bounded by failover.maxLagBytes). sync: each commit waits until sync.number standbys (default 1) have it on disk (no committed transaction is lost by a failover; with durability required, writes stop while fewer are connected). sync needs replicas ≥ 2.',
            }),
          ),
          sync: Type.Optional(
            Type.Object(
              {
                number: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    maximum: MAX_REPLICAS - 1,
                    default: 1,
                    description:
                      'How many standbys must have each commit on disk before it is acknowledged: synchronous_standby_names = ANY <number> (every other instance). At most spec.replicas − 1. A failover then says dataLossRisk None only when the standby promoted is the most advanced of at least (replicas − 1) − number + 1 standbys that answer — every acknowledged commit is on one of them.',
                  }),
                ),
                durability: Type.Optional(
                  StringEnum(SyncDurabilities, {
                    default: 'required',
                    description:
                      'required: while fewer than number standbys are connected, commits wait (writes stop; PostgreSQL’s own behaviour) — nothing acknowledged is ever only on the primary. preferred: the controller lowers the number to the standbys streaming (none: asynchronous) so writes go on, publishes it in status.synchronous (and a Warning Event), and raises it again once they stream; a failover meanwhile may lose what only the primary had (dataLossRisk Bounded).',
                  }),
                ),
              },
              {
                additionalProperties: false,
                description: 'Synchronous replication’s quorum and durability (mode sync only).',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    failover: Type.Optional(
      Type.Object(
        {
          ...FailoverSpecFields('standby', 'Promote a standby when the primary is lost.'),
          maxLagBytes: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 1099511627776,
              format: 'int64',
              default: DEFAULT_MAX_LAG_BYTES,
              description:
                'The most WAL (bytes) a promotion may lose: the standby promoted must have received all but at most this much of what the old primary was last seen to have written. A failover that would lose more is refused (Degraded, FailoverRefusedLagExceedsBound) and the controller waits for the primary or a person. Default 16 MiB (one WAL segment); 0 allows only a standby that had everything.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    bootstrap: Type.Optional(
      withValidations(
        Type.Object(
          {
            database: Type.Optional(
              bootstrapIdentifier(
                'spec.bootstrap.database',
                ReservedDatabases,
                'The application database created at bootstrap: a lowercase identifier of at most 63 characters, not postgres, template0, template1 or pg_….',
              ),
            ),
            owner: Type.Optional(
              bootstrapIdentifier(
                'spec.bootstrap.owner',
                ReservedRoles,
                'The role that owns it; its password is generated once into the Secret <name>-app. A lowercase identifier of at most 63 characters, not the superuser postgres, a name PostgreSQL reserves (public, none, current_user, current_role, session_user) or pg_….',
              ),
            ),
            recovery: Type.Optional(RecoverySpec),
          },
          {
            additionalProperties: false,
            description:
              'What the first instance starts from (initdb, or with recovery a backup) and creates then. Immutable.',
          },
        ),
        [
          immutable(
            'spec.bootstrap is immutable: the database and its owner exist once the cluster is initialised',
          ),
        ],
      ),
    ),
    rollout: Type.Optional(
      RolloutSpec(
        'standby',
        'the old primary stops cleanly, which waits until the streaming standbys have flushed all of its WAL, and the standby is promoted only once it has received all of it (the switchover of status.switchover, reason Rollout)',
      ),
    ),
    scheduling: Type.Optional(SchedulingSpec('instances')),
    clients: Type.Optional(ClientsSpec('instances')),
    providerProfileRef: Type.Optional(ProviderProfileRef),
    backup: Type.Optional(BackupSpec),
    upgrade: Type.Optional(UpgradeSpec),
    deletionPolicy: Type.Optional(
      DeletionPolicyField(
        'Retain: deleting the PostgresCluster leaves its volumes, Secrets and backups in place (owner references removed; an Event says where). Delete: with spec.backup, a final backup is taken first (unless skipFinalBackup), then the volumes and Secrets are deleted; the backups stay in the bucket, where nothing expires them any more.',
      ),
    ),
    skipFinalBackup: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: deletionPolicy Delete deletes the volumes without taking a final backup first. Only ever read while the PostgresCluster is being deleted.',
      }),
    ),
  }),
  [
    {
      rule: 'has(self.bootstrap) == has(oldSelf.bootstrap)',
      message:
        'spec.bootstrap is immutable: the database and its owner exist once the cluster is initialised',
    },
    storageClassNameStaysSet('storage'),
    {
      rule: "!has(self.replication) || !has(self.replication.mode) || self.replication.mode != 'sync' || (has(self.replicas) && self.replicas >= 2)",
      message:
        'spec.replication.mode sync needs spec.replicas of at least 2: each commit waits for a standby',
    },
    {
      rule: "!has(self.replication) || !has(self.replication.sync) || (has(self.replication.mode) && self.replication.mode == 'sync')",
      message: 'spec.replication.sync applies to spec.replication.mode sync only',
    },
    {
      rule: '!has(self.replication) || !has(self.replication.sync) || !has(self.replication.sync.number) || (has(self.replicas) && self.replication.sync.number <= self.replicas - 1)',
      message:
        'spec.replication.sync.number may be at most spec.replicas − 1: each commit waits for that many standbys, and there are replicas − 1',
    },
    ...requestsWithinLimits,
  ],
);

/** One instance as the controller last saw it. */
export const InstanceStatus = Type.Object({
  name: Type.String({ description: 'The pod.' }),
  role: StringEnum(InstanceRoles, {
    description:
      'primary, standby, fenced (an old primary kept out of service until it rejoins as a standby) or unknown (not reachable).',
  }),
  ready: Type.Boolean({ description: 'Serving in its role (a standby: streaming).' }),
  timeline: Type.Optional(Type.Integer({ minimum: 1 })),
  lsn: Type.Optional(
    Type.String({
      description: 'The primary’s current WAL position; a standby’s received position.',
    }),
  ),
  replayLsn: Type.Optional(Type.String({ description: 'A standby’s replayed position.' })),
  lagBytes: Type.Optional(
    Type.Integer({
      minimum: 0,
      format: 'int64',
      description: 'A standby: WAL the primary has and this one has not received.',
    }),
  ),
  replicationState: Type.Optional(
    Type.String({ description: 'pg_stat_replication.state on the primary (streaming, catchup…).' }),
  ),
  syncState: Type.Optional(
    Type.String({ description: 'pg_stat_replication.sync_state (async, sync, quorum).' }),
  ),
  message: Type.Optional(Type.String()),
});

/**
 * One failover as the controller carried it out (the newest is in status.failover): the shared
 * record (`FailoverRecordFields`: `bytesPossiblyLost` in bytes of WAL) with PostgreSQL's positions.
 */
export const FailoverRecord = Type.Object({
  ...FailoverRecordFields,
  primaryLastLsn: Type.Optional(
    Type.String({ description: 'The newest WAL position the controller saw on the old primary.' }),
  ),
  promotedLsn: Type.String({
    description: 'The WAL position the promoted standby had received when it was chosen.',
  }),
  newTimeline: Type.Optional(Type.Integer({ minimum: 1 })),
  maxLagBytes: Type.Optional(
    Type.Integer({ minimum: 0, format: 'int64', description: 'The bound the spec allowed.' }),
  ),
});

/**
 * Annotation asking for a switchover: its value names the standby to become primary (e.g.
 * `kubectl annotate pgc orders postgres.steward.dev/switchover-to=orders-1`). A one-shot request:
 * the controller removes it once the switchover completed, failed or had nothing to do (the
 * instance is already primary), and records the outcome in `status.switchover` — so a GitOps
 * tool should not own it.
 */
export const SwitchoverAnnotation = 'postgres.steward.dev/switchover-to';

/** One planned switchover as the controller carried it out (the newest is in status.switchover). */
export const SwitchoverRecord = Type.Object({
  phase: StringEnum(['Demoting', 'Promoting', 'Repointing', 'Completed', 'Failed'] as const, {
    description:
      'Demoting: the old primary is out of the read-write Service and shutting down (a clean shutdown waits until the streaming standbys flushed every byte of its WAL). Promoting: it has stopped and the standby has received all of it. Repointing, Completed, or Failed (the old primary kept or made primary again; message says why).',
  }),
  from: Type.String({ description: 'The instance that was primary.' }),
  to: Type.String({ description: 'The standby made primary.' }),
  reason: StringEnum(SwitchoverReasons, {
    description: `Requested (the ${SwitchoverAnnotation} annotation), ScaleDown (spec.replicas would remove the primary), Rollout (a rolling update reached the primary, spec.rollout.primary Switchover) or NodeDrain (the primary's node was cordoned: it moves to a standby on another node before its pod may be evicted).`,
  }),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  ...SwitchoverPauseFields,
  primaryLastLsn: Type.Optional(
    Type.String({
      description:
        'The newest WAL position the controller saw on the old primary before it stopped.',
    }),
  ),
  promotedLsn: Type.Optional(
    Type.String({
      description:
        'The WAL position the standby had received when it was promoted: at least primaryLastLsn.',
    }),
  ),
  newTimeline: Type.Optional(Type.Integer({ minimum: 1 })),
  message: Type.String(),
});

/**
 * The primary's position as the controller last recorded it (`status.primaryLastSeen`): what a
 * controller that restarts — or a new leader — starts from, so `failover.maxLagBytes` still holds.
 * Rewritten when the primary, its timeline or its synchronous standbys change, or its position
 * has moved more than `slackBytes` past the one recorded — not on every poll.
 */
export const PrimaryLastSeen = Type.Object({
  pod: Type.String({ description: 'The primary it describes.' }),
  lsn: Type.String({
    description:
      'Its WAL position, read no earlier than at: every write it acknowledged by at lies at or before it.',
  }),
  at: Type.String({ format: 'date-time' }),
  timeline: Type.Optional(Type.Integer({ minimum: 1 })),
  slackBytes: Type.Integer({
    minimum: 0,
    format: 'int64',
    description:
      'The controller that wrote it may have seen the primary up to this much further on (it rewrites the record only past that): a controller starting from the record refuses a failover that could lose more than maxLagBytes − slackBytes of it.',
  }),
  syncStandbys: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'The standbys that may have confirmed a commit since syncFromLsn (synchronous_standby_names, as set and as read).',
    }),
  ),
  syncNumber: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Every commit acknowledged since syncFromLsn was on at least this many of syncStandbys.',
    }),
  ),
  syncFromLsn: Type.Optional(
    Type.String({
      description:
        'The position from which the primary was seen synchronous at every observation (absent: not synchronous).',
    }),
  ),
});

/** `status.synchronous`: synchronous replication as it is now (mode sync). */
export const SynchronousStatus = Type.Object({
  number: Type.Integer({ minimum: 1, description: 'spec.replication.sync.number.' }),
  durability: StringEnum(SyncDurabilities),
  connected: Type.Integer({
    minimum: 0,
    description: 'Standbys streaming from the primary that synchronous_standby_names names.',
  }),
  effective: Type.Integer({
    minimum: 0,
    description:
      'The number synchronous_standby_names asks for now: below number only with durability preferred while fewer standbys stream (0: commits are asynchronous).',
  }),
  message: Type.String(),
});

export const PostgresClusterStatus = Type.Object({
  phase: Type.Optional(StringEnum(PostgresPhases)),
  ...ReplicaStatusFields,
  instances: Type.Optional(Type.Array(InstanceStatus)),
  version: Type.Optional(
    Type.String({
      description:
        'The PostgreSQL major the data directory was initialised with (what the instances run).',
    }),
  ),
  image: Type.Optional(Type.String({ description: 'The image the instances run.' })),
  systemIdentifier: Type.Optional(
    Type.String({
      description:
        'The database system identifier initdb gave the cluster: an instance with another one is not part of it.',
    }),
  ),
  timeline: Type.Optional(Type.Integer({ minimum: 1, description: 'The primary’s timeline.' })),
  endpoints: Type.Optional(
    Type.Object({
      readWrite: Type.Optional(StatusEndpoint),
      readOnly: Type.Optional(StatusEndpoint),
      any: Type.Optional(StatusEndpoint),
      superuserSecret: Type.Optional(
        Type.String({ description: 'The Secret with the postgres superuser’s password.' }),
      ),
      appSecret: Type.Optional(
        Type.String({
          description: 'The Secret with the application role’s credentials and URI.',
        }),
      ),
    }),
  ),
  failover: Type.Optional(FailoverRecord),
  ...FailoverCountFields,
  switchover: Type.Optional(SwitchoverRecord),
  switchoverCount: Type.Optional(Type.Integer({ minimum: 0 })),
  primaryLastSeen: Type.Optional(PrimaryLastSeen),
  synchronous: Type.Optional(SynchronousStatus),
  fencing: Type.Optional(FencingStatus),
  backup: Type.Optional(BackupStatus),
  restore: Type.Optional(RestoreStatus),
  upgrade: Type.Optional(UpgradeStatus),
  instanceSet: Type.Optional(
    Type.String({
      description:
        'The StatefulSet whose instances serve: <name>, or <name>-v<major> after a major upgrade.',
    }),
  ),
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** PostgreSQL run in the cluster by Steward's PostgresCluster controller (@steward/postgres-cluster). */
export const PostgresCluster = defineKind({
  group: 'postgres.steward.dev',
  version: 'v1alpha1',
  kind: 'PostgresCluster',
  plural: 'postgresclusters',
  shortNames: ['pgc'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    'PostgreSQL run in the cluster: a primary and streaming standbys on a StatefulSet, Services read-write (the primary), read-only (standbys) and any, generated credentials, grow-only storage, failover that refuses to lose more than allowed and publishes what it may have cost.',
  spec: PostgresClusterSpec,
  status: PostgresClusterStatus,
  validations: [
    {
      rule: `self.metadata.name.size() <= ${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`,
      message: `metadata.name must be a DNS label of at most ${MAX_NAME_LENGTH} characters starting with a letter: it names the StatefulSets (<name>, and <name>-v<major> after an upgrade), their pods and the Services <name>-rw, <name>-ro and <name>-r`,
    },
  ],
  printerColumns: [
    WorkloadColumns.ready,
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    WorkloadColumns.primary,
    WorkloadColumns.readyReplicas,
    { name: 'Version', type: 'string', jsonPath: '.spec.version' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
    {
      name: 'Last Backup',
      type: 'date',
      jsonPath: '.status.backup.lastSuccessful.completedAt',
      priority: 1,
    },
    WorkloadColumns.reason,
  ],
});

export type PostgresCluster = typeof PostgresCluster.$object;
export type PostgresClusterSpec = PostgresCluster['spec'];
export type PostgresClusterStatus = NonNullable<PostgresCluster['status']>;
export type FailoverRecord = NonNullable<PostgresClusterStatus['failover']>;
export type SwitchoverRecord = NonNullable<PostgresClusterStatus['switchover']>;
export type InstanceStatus = NonNullable<PostgresClusterStatus['instances']>[number];
export type PrimaryLastSeen = NonNullable<PostgresClusterStatus['primaryLastSeen']>;
export type SynchronousStatus = NonNullable<PostgresClusterStatus['synchronous']>;
