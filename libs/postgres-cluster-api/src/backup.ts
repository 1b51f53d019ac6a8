import { StringEnum, withValidations } from '@steward/crd';
import { S3CredentialKeys, s3Destination } from '@steward/provider-profile-api';
import Type, { type Static } from 'typebox';
import { cronScheduleRules } from './cron-schedule.js';

/** The longest `spec.backup.retentionDays` (ten years). */
export const MAX_RETENTION_DAYS = 3650;
/** `spec.backup.retentionDays` when absent. */
export const DEFAULT_RETENTION_DAYS = 7;
/** The default keys of the credentials Secret (the AWS SDKs' environment names). */
export const DefaultCredentialKeys = S3CredentialKeys;

/** Where backups and archived WAL go (the schema ProviderProfiles' backup destinations share). */
export const BackupDestination = s3Destination(
  'The key prefix, without leading or trailing slash (default: <namespace>/<name>). Each database system (its identifier) gets a folder below it: base/ for base backups, wal/ for WAL.',
);

/** `spec.backup`. */
export const BackupSpec = Type.Object(
  {
    destination: Type.Optional({
      ...BackupDestination,
      description:
        'Where the backups go — only where the cluster’s kubernetes ProviderProfile says allowWorkloadDestinations (else refused: BackupDestinationNotAllowed), and with an endpoint only one the profile names (BackupEndpointNotAllowed; without a profile, no endpoint: AWS S3 only). Absent: the profile’s destination (spec.kubernetes.backup.destination), in the folder <its prefix>/<namespace>/<name> the controller derives; with neither, the cluster is refused (BackupDestinationMissing).',
    }),
    schedule: Type.Optional(
      withValidations(
        Type.String({
          maxLength: 64,
          default: '0 3 * * *',
          description:
            'When base backups run: a cron expression of five fields (minute hour day-of-month month day-of-week), in UTC. Default 03:00 every day. A first backup is taken as soon as the cluster is Ready, whatever the schedule.',
        }),
        cronScheduleRules('spec.backup.schedule'),
      ),
    ),
    verify: Type.Optional(
      Type.Object(
        {
          schedule: Type.Optional(
            withValidations(
              Type.String({
                maxLength: 64,
                default: '0 5 * * *',
                description:
                  'When the newest backup is restored into a throwaway pod and checked: five cron fields, UTC. Default 05:00 every day.',
              }),
              cronScheduleRules('spec.backup.verify.schedule'),
            ),
          ),
          rowCounts: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  database: Type.Optional(
                    Type.String({
                      pattern: '^[a-z_][a-z0-9_]{0,62}$',
                      description: 'Default: spec.bootstrap.database.',
                    }),
                  ),
                  table: Type.String({
                    pattern: '^[a-z_][a-z0-9_]{0,62}(\\.[a-z_][a-z0-9_]{0,62})?$',
                    description: 'A table, optionally schema-qualified: public.orders.',
                  }),
                  atLeast: Type.Integer({
                    minimum: 0,
                    format: 'int64',
                    description: 'The restored table must have at least this many rows.',
                  }),
                },
                { additionalProperties: false },
              ),
              { maxItems: 16 },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Restore rehearsals: on a schedule, the newest backup is fetched into a throwaway pod, checked against its manifest (pg_verifybackup), recovered to its consistent point, and checked with pg_amcheck (every table and B-tree index of every database) and the row counts named here. The outcome is status.backup.lastVerification; a failure is Degraded (VerificationFailed) with an Event.',
        },
      ),
    ),
    retentionDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RETENTION_DAYS,
        description:
          'Any moment of the last retentionDays days can be restored: base backups and WAL older than the newest backup that covers the start of that window are deleted by the controller. The newest backup is never deleted. Absent: 7, or the profile’s minRetentionDays when that is more; below the profile’s minimum: refused (RetentionBelowMinimum).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Base backups (pg_basebackup, run as Jobs) on a schedule and continuous WAL archiving from the primary, to S3. Point-in-time recovery to any moment of the retention window.',
  },
);

/**
 * `spec.bootstrap.recovery`: the new cluster starts from a base backup of another one (the source
 * may be deleted; its bucket is what counts) and replays its archived WAL up to `targetTime`.
 */
export const RecoverySpec = Type.Object(
  {
    source: Type.Object(
      {
        destination: Type.Optional({
          ...BackupDestination,
          description:
            'Where the source’s backups are — only where this cluster’s kubernetes ProviderProfile says allowWorkloadDestinations (BackupDestinationNotAllowed), with an endpoint it names (BackupEndpointNotAllowed). Absent: the profile’s destination, in the folder <its prefix>/<this namespace>/<source name>.',
        }),
        name: Type.Optional(
          Type.String({
            maxLength: 48,
            pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$',
            description:
              'The source PostgresCluster’s name (default: this cluster’s name): its backups are read from the folder of that name in this cluster’s own namespace — another namespace’s backups cannot be named. A source folder that is this cluster’s own backup folder is refused (RecoverySourceIsBackupDestination): a restored cluster backs up into its own folder, never its source’s.',
          }),
        ),
        systemIdentifier: Type.Optional(
          Type.String({
            maxLength: 20,
            pattern: '^[0-9]+$',
            description:
              'Which database system below the prefix (default: the one with the newest backup that fits).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    backupId: Type.Optional(
      Type.String({
        maxLength: 16,
        pattern: '^[0-9]{8}T[0-9]{6}Z$',
        description:
          'The base backup to start from (default: the newest one completed before targetTime, or the newest).',
      }),
    ),
    targetTime: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Replay archived WAL up to this moment (transactions committed after it are not restored); default: all of the archived WAL.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Bootstrap from a backup (point-in-time recovery) instead of initdb. The restored instance checks the backup against its manifest, replays WAL, then is promoted on a new timeline.',
  },
);

/** `status.restore`: what a cluster bootstrapped from a backup was restored from (decided once). */
export const RestoreStatus = Type.Object({
  source: Type.String({ description: 's3://bucket/prefix/<system id>/ of the source.' }),
  systemIdentifier: Type.String(),
  backupId: Type.String(),
  backupCompletedAt: Type.String({ format: 'date-time' }),
  targetTime: Type.Optional(Type.String({ format: 'date-time' })),
  completedAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the restored instance was promoted.' }),
  ),
});

/** One base backup, as recorded in its backup.json next to base.tar.gz and backup_manifest. */
export const BackupRecord = Type.Object({
  id: Type.String({
    description: 'The backup’s id: when it was scheduled, e.g. 20261203T030000Z.',
  }),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.String({
    format: 'date-time',
    description: 'When it was consistent: the earliest moment it can restore to.',
  }),
  sizeBytes: Type.Integer({ minimum: 0, format: 'int64', description: 'base.tar.gz’s size.' }),
  startLsn: Type.String(),
  stopLsn: Type.String(),
  timeline: Type.Integer({ minimum: 1 }),
  systemIdentifier: Type.String(),
  serverVersion: Type.Integer({ description: 'server_version_num of the server backed up.' }),
});

/** `status.backup`. */
export const BackupStatus = Type.Object({
  destination: Type.Optional(
    Type.String({
      description: 'Where this cluster’s backups are: s3://bucket/prefix/<system id>/.',
    }),
  ),
  lastScheduleTime: Type.Optional(
    Type.String({ format: 'date-time', description: 'The newest backup started (its due time).' }),
  ),
  lastSuccessful: Type.Optional(BackupRecord),
  lastFailed: Type.Optional(
    Type.Object({
      id: Type.String(),
      at: Type.String({ format: 'date-time' }),
      job: Type.String(),
      message: Type.String(),
    }),
  ),
  lastVerificationScheduleTime: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'The newest rehearsal started (its due time).',
    }),
  ),
  lastVerification: Type.Optional(
    Type.Object({
      at: Type.String({ format: 'date-time', description: 'When it finished.' }),
      backupId: Type.String({ description: 'The backup restored.' }),
      job: Type.String(),
      result: StringEnum(['Passed', 'Failed'] as const),
      durationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
      recoveryPoint: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'The moment the restored copy reached (the backup’s consistent point).',
        }),
      ),
      checks: Type.Optional(
        Type.Array(Type.String(), {
          description:
            'What was checked, e.g. "pg_amcheck: 12 relations", "public.orders: 1200 rows ≥ 1".',
        }),
      ),
      message: Type.String(),
    }),
  ),
  firstRecoverabilityPoint: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'The earliest moment a restore can reach: the oldest backup kept, when consistent.',
    }),
  ),
  count: Type.Optional(Type.Integer({ minimum: 0, description: 'Base backups kept.' })),
  walArchiving: Type.Optional(
    Type.Object(
      {
        failing: Type.Boolean({
          description:
            'The newest attempt to archive a WAL segment failed (no success since): the primary keeps every segment until it is archived, so its volume fills.',
        }),
        readySegments: Type.Integer({
          minimum: 0,
          description: 'Segments waiting to be archived.',
        }),
        lastArchivedAt: Type.Optional(Type.String({ format: 'date-time' })),
        lastFailedAt: Type.Optional(Type.String({ format: 'date-time' })),
        lastFailedWal: Type.Optional(Type.String({ description: 'The segment that failed.' })),
      },
      { description: 'The primary’s WAL archiving into the backup destination, as last seen.' },
    ),
  ),
});

export type BackupSpec = Static<typeof BackupSpec>;
export type BackupDestination = Static<typeof BackupDestination>;
export type BackupRecord = Static<typeof BackupRecord>;
export type BackupStatus = Static<typeof BackupStatus>;
export type RecoverySpec = Static<typeof RecoverySpec>;
export type RestoreStatus = Static<typeof RestoreStatus>;
