import {
  ConditionsSchema,
  DeletionPolicyField,
  defineKind,
  immutable,
  StringEnum,
  withValidations,
} from '@steward/crd';
import Type from 'typebox';

/** What `status.phase` of a PostgresBackup can say. */
export const PostgresBackupPhases = ['Pending', 'Running', 'Completed', 'Failed'] as const;
export type PostgresBackupPhase = (typeof PostgresBackupPhases)[number];

/**
 * The longest PostgresBackup name: the backup Job and its pod carry it as the label
 * `postgres.steward.dev/requested-by`, a 63-character label value.
 */
export const MAX_BACKUP_NAME_LENGTH = 63;

export const PostgresBackupSpec = Type.Object({
  cluster: withValidations(
    Type.Object({
      name: Type.String({
        minLength: 1,
        maxLength: 48,
        pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$',
        description: 'The PostgresCluster (in this namespace) to back up. It needs spec.backup.',
      }),
    }),
    [immutable('spec.cluster is immutable: a PostgresBackup is one backup of one cluster')],
  ),
  deletionPolicy: Type.Optional(
    DeletionPolicyField(
      'Retain: deleting the PostgresBackup leaves the backup in the bucket, where the cluster’s retention expires it like any other. Delete: its objects are deleted from the bucket — unless it is the cluster’s newest backup, which is never deleted (an Event says so).',
    ),
  ),
});

export const PostgresBackupStatus = Type.Object({
  phase: Type.Optional(
    StringEnum(PostgresBackupPhases, {
      description:
        'Pending (waiting for the cluster’s primary, or for a backup already running), Running (its Job runs), Completed (backup.json is in the bucket), Failed (create another PostgresBackup to try again).',
    }),
  ),
  backupId: Type.Optional(
    Type.String({
      description:
        'The backup’s id in the cluster’s catalogue: the PostgresBackup’s creation time, e.g. 20261203T101500Z.',
    }),
  ),
  job: Type.Optional(Type.String({ description: 'The Job that takes it.' })),
  destination: Type.Optional(
    Type.String({ description: 'Where it is: s3://bucket/prefix/<system id>/base/<id>/.' }),
  ),
  startedAt: Type.Optional(Type.String({ format: 'date-time' })),
  completedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'When it was consistent: the earliest moment it can restore to.',
    }),
  ),
  sizeBytes: Type.Optional(
    Type.Integer({ minimum: 0, format: 'int64', description: 'base.tar.gz’s size.' }),
  ),
  startLsn: Type.Optional(Type.String()),
  stopLsn: Type.Optional(Type.String()),
  timeline: Type.Optional(Type.Integer({ minimum: 1 })),
  systemIdentifier: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ description: 'Why it failed, or what it waits for.' })),
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * One base backup of a PostgresCluster, taken now ("back up before the migration"): the same Job
 * as a scheduled backup, into the cluster's destination, and part of its catalogue afterwards.
 */
export const PostgresBackup = defineKind({
  group: 'postgres.steward.dev',
  version: 'v1alpha1',
  kind: 'PostgresBackup',
  plural: 'postgresbackups',
  shortNames: ['pgb'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    'An on-demand base backup of a PostgresCluster with spec.backup: taken by a Job as soon as the primary serves and no other backup of the cluster runs, recorded with its WAL range once backup.json is in the bucket.',
  spec: PostgresBackupSpec,
  status: PostgresBackupStatus,
  validations: [
    {
      rule: `self.metadata.name.size() <= ${MAX_BACKUP_NAME_LENGTH}`,
      message: `metadata.name must be at most ${MAX_BACKUP_NAME_LENGTH} characters: the backup Job carries it as a label value`,
    },
  ],
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.cluster.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Backup', type: 'string', jsonPath: '.status.backupId' },
    { name: 'Completed', type: 'date', jsonPath: '.status.completedAt' },
    { name: 'Size', type: 'integer', jsonPath: '.status.sizeBytes', priority: 1 },
    { name: 'Job', type: 'string', jsonPath: '.status.job', priority: 1 },
  ],
});

export type PostgresBackup = typeof PostgresBackup.$object;
export type PostgresBackupSpec = PostgresBackup['spec'];
export type PostgresBackupStatus = NonNullable<PostgresBackup['status']>;
