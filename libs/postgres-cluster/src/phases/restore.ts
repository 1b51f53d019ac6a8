import { type RestoreStatus } from '@steward/postgres-cluster-api';
import { TerminalError } from '@steward/controller';
import { recordDecision } from '@steward/workload';
import { BackupReasons, RecoveryNotPossible } from '../backup/reconcile.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';

/**
 * Whether the backup to restore is to be chosen now (pure): a cluster bootstrapped from a backup
 * chooses once, before any instance exists, and records it (`status.restore`) — a newer backup
 * appearing later never changes it, and a cluster that has a database system never chooses.
 */
export function restoreToChoose(cluster: Cluster): boolean {
  return (
    !!cluster.spec.bootstrap?.recovery &&
    !cluster.status?.restore &&
    !cluster.status?.systemIdentifier
  );
}

/**
 * The restore phase: the backup chosen and recorded before anything restores it (or
 * `RecoveryBackupNotFound`, terminal: the user must change spec.bootstrap.recovery). Returns the
 * restore the cluster is bootstrapped from, if any.
 */
export async function restorePhase(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
): Promise<RestoreStatus | undefined> {
  if (!restoreToChoose(cluster)) return cluster.status?.restore;
  let chosen: RestoreStatus;
  try {
    chosen = await env.backups.chooseRestore(cluster, ctx.signal);
  } catch (error) {
    if (error instanceof RecoveryNotPossible)
      throw new TerminalError(BackupReasons.RecoveryBackupNotFound, error.message, {
        recheckAfter: 5 * 60_000,
      });
    throw error;
  }
  await recordDecision(ctx.status, {
    stale: (latest) =>
      latest.status?.restore
        ? `a restore of ${latest.status.restore.backupId} was chosen meanwhile: deciding again`
        : undefined,
    fields: () => ({ restore: chosen }),
  });
  env.emit(
    cluster,
    'Normal',
    'RestoreChosen',
    `restoring backup ${chosen.backupId} (completed ${chosen.backupCompletedAt}) from ${chosen.source}${chosen.targetTime ? ` up to ${chosen.targetTime}` : ' to the end of its archived WAL'}`,
  );
  return chosen;
}
