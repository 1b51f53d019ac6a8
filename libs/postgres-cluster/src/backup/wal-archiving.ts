import { type BackupStatus } from '@steward/postgres-cluster-api';
import { type WalArchiver } from '../pg/observation.js';

export type WalArchivingStatus = NonNullable<BackupStatus['walArchiving']>;

/** The reason of a primary whose WAL archiving fails. */
export const WalArchivingFailing = 'WalArchivingFailing';

/**
 * What the primary's WAL archiver says (pure): `status.backup.walArchiving`, and the problem when
 * its newest attempt failed with no success since — said as soon as it is seen, because every
 * segment not archived stays on the primary's volume until it is (the volume fills, and then the
 * primary stops), and the restore point stops moving.
 */
export function walArchivingOf(archiver: WalArchiver): {
  status: WalArchivingStatus;
  problem?: { reason: string; message: string };
} {
  const failedAt = archiver.lastFailedAt ? Date.parse(archiver.lastFailedAt) : undefined;
  const archivedAt = archiver.lastArchivedAt ? Date.parse(archiver.lastArchivedAt) : undefined;
  const failing =
    archiver.failedCount > 0 &&
    failedAt !== undefined &&
    (archivedAt === undefined || failedAt > archivedAt);
  const status: WalArchivingStatus = {
    failing,
    readySegments: archiver.readySegments,
    ...(archiver.lastArchivedAt ? { lastArchivedAt: archiver.lastArchivedAt } : {}),
    ...(archiver.lastFailedAt ? { lastFailedAt: archiver.lastFailedAt } : {}),
    ...(archiver.lastFailedWal ? { lastFailedWal: archiver.lastFailedWal } : {}),
  };
  if (!failing) return { status };
  return {
    status,
    problem: {
      reason: WalArchivingFailing,
      message: `WAL archiving fails (segment ${archiver.lastFailedWal ?? '?'} at ${archiver.lastFailedAt}; ${archiver.lastArchivedAt ? `the last success at ${archiver.lastArchivedAt}` : 'never archived'}; ${archiver.readySegments} segment(s) waiting): the primary keeps them on its volume until they are archived — check the backup destination and its credentials Secret (kubectl logs of the primary name the error)`,
    },
  };
}
