import { StringEnum } from '@steward/crd';
import Type, { type Static } from 'typebox';

/** `spec.upgrade.maxBackupAge` when absent. */
export const DEFAULT_MAX_BACKUP_AGE = '24h';

/** `spec.upgrade`: what a major version upgrade waits for. */
export const UpgradeSpec = Type.Object(
  {
    approvedVersion: Type.Optional(
      Type.String({
        maxLength: 2,
        pattern: '^[1-9][0-9]?$',
        description:
          'The major the controller may upgrade to. A spec.version above the one the cluster runs does nothing until approvedVersion names it (Upgrading=False, WaitingForApproval): the upgrade stops writes for as long as the dump and restore take.',
      }),
    ),
    maxBackupAge: Type.Optional(
      Type.String({
        maxLength: 8,
        pattern: '^[1-9][0-9]*(m|h)$',
        default: DEFAULT_MAX_BACKUP_AGE,
        description:
          'The upgrade starts only when a restore rehearsal (spec.backup.verify) passed on a backup completed less than this long ago (e.g. 24h, 90m): the way back, should the new version disappoint after the switch.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What `status.upgrade.phase` can say. */
export const UpgradePhases = [
  'StoppingWrites',
  'Provisioning',
  'Restoring',
  'Switching',
  'Completing',
  'Completed',
  'RollingBack',
  'RolledBack',
] as const;
export type UpgradePhase = (typeof UpgradePhases)[number];

/** One step of an upgrade as it ended. */
export const UpgradeStep = Type.Object({
  name: Type.String({
    description: 'StopWrites, Provision, Restore, Check, Switch, Complete, RollBack.',
  }),
  outcome: StringEnum(['Succeeded', 'Failed'] as const),
  at: Type.String({ format: 'date-time' }),
  message: Type.String(),
});

/** `status.upgrade`: the newest major upgrade, its phase recorded before each step is taken. */
export const UpgradeStatus = Type.Object({
  phase: StringEnum(UpgradePhases, {
    description:
      'StoppingWrites (the read-write Service emptied, every database’s connection limit set to 0 so that only the superuser connects, the primary turned read-only, every other client session ended), Provisioning (the new-version instance initialised), Restoring (a Job dumps every database from the old primary into it and compares every table’s row count), Switching (the point of no return: the new instance is primary and the Services follow it), Completing (its standbys cloned; the old instances go once all are ready), Completed; before Switching any failure gives RollingBack → RolledBack (the old version serves, writes again).',
  }),
  from: Type.String({ description: 'The major the cluster ran.' }),
  to: Type.String({ description: 'The major it is upgraded to.' }),
  fromSet: Type.String({ description: 'The StatefulSet of the old instances.' }),
  toSet: Type.String({ description: 'The StatefulSet of the new ones (<name>-v<major>).' }),
  fromImage: Type.String(),
  toImage: Type.String(),
  fromReplicas: Type.Integer({ minimum: 1 }),
  method: Type.String({
    description:
      'DumpRestore: pg_dumpall’s globals and pg_dump of each database from the old primary, restored with the new version’s tools (the images carry one major each, so pg_upgrade, which needs both, cannot run).',
  }),
  generation: Type.Integer({
    description:
      'The metadata.generation that started it: a rolled-back upgrade is tried again only for a newer one.',
  }),
  primary: Type.String({
    description: 'The old primary (a failover during the upgrade rolls it back).',
  }),
  startedAt: Type.String({ format: 'date-time' }),
  writesStoppedAt: Type.Optional(Type.String({ format: 'date-time' })),
  writesResumedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When the primary accepted writes again (the new one, or the old after a roll-back).',
    }),
  ),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  job: Type.Optional(Type.String({ description: 'The dump-and-restore Job.' })),
  heldDatabases: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        connectionLimit: Type.Integer({ minimum: -1 }),
      }),
      {
        maxItems: 10000,
        description:
          'The old primary’s databases and their CONNECTION LIMIT (-1: none) before writes stopped, recorded before the hold sets every limit to 0 (only the superuser, the controller’s own role, then connects): what a roll-back, and the new instance after the restore (the dump carries the 0 along), restore.',
      },
    ),
  ),
  verifiedBackup: Type.Optional(
    Type.String({ description: 'The rehearsed backup the upgrade started with.' }),
  ),
  steps: Type.Array(UpgradeStep),
  message: Type.String(),
});

export type UpgradeSpec = Static<typeof UpgradeSpec>;
export type UpgradeStatus = Static<typeof UpgradeStatus>;
export type UpgradeStep = Static<typeof UpgradeStep>;
