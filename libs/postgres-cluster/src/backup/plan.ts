import { type BackupRecord } from '@steward/postgres-cluster-api';
import { Cron } from 'croner';
import { parseLsn } from '../pg/lsn.js';
import { segmentNumberOf } from './layout.js';

/** A cron expression as croner reads it (5 fields, UTC), or why it cannot be. */
export function parseSchedule(schedule: string): Cron | { error: string } {
  try {
    return new Cron(schedule.trim(), { timezone: 'UTC', paused: true, mode: '5-part' });
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The most missed due times looked through before the newest is taken (about a week of minutes). */
const MAX_MISSED = 10_080;

/**
 * When the next base backup is due, from the schedule and the newest one started:
 * - `due`: the newest due time in (`since`, `now`] — one backup for any number missed (a
 *   controller that was down does not catch up with a burst); undefined when none is due.
 * - `next`: the first due time after `now` (when to look again).
 */
export function dueBackup(
  cron: Cron,
  since: Date,
  now: Date,
): { due?: Date; next: Date | undefined } {
  let due: Date | undefined;
  let at: Date | null = cron.nextRun(since);
  for (let i = 0; at && at.getTime() <= now.getTime() && i < MAX_MISSED; i++) {
    due = at;
    at = cron.nextRun(at);
  }
  if (at && at.getTime() <= now.getTime()) {
    // More missed than MAX_MISSED: the newest is the last one before now.
    due = cron.previousRuns(1, now)[0] ?? due;
    at = cron.nextRun(now);
  }
  return { ...(due ? { due } : {}), next: at ?? undefined };
}

/**
 * What retention keeps (`backups`, oldest first) for any moment of the last `retentionDays` to be
 * restorable: every backup completed inside the window, the newest one completed before it
 * (restoring to the window's start replays WAL from it), and always the newest backup. The
 * others expire, with the WAL older than the oldest backup kept (history files always stay).
 */
export function retention(
  backups: BackupRecord[],
  retentionDays: number,
  now: Date,
): { keep: BackupRecord[]; expire: BackupRecord[] } {
  const sorted = [...backups].sort((a, b) => a.completedAt.localeCompare(b.completedAt));
  const windowStart = now.getTime() - retentionDays * 86_400_000;
  let firstKept = sorted.findIndex((b) => Date.parse(b.completedAt) >= windowStart);
  if (firstKept === -1) firstKept = sorted.length - 1;
  else if (firstKept > 0) firstKept -= 1;
  return { keep: sorted.slice(firstKept), expire: sorted.slice(0, Math.max(firstKept, 0)) };
}

/** The WAL files (names in the archive) older than every kept backup's start: they can go. */
export function expiredWal(files: string[], keep: BackupRecord[]): string[] {
  if (!keep.length) return [];
  const oldest = keep.reduce(
    (min, b) => {
      const segment = parseLsn(b.startLsn) >> 24n;
      return segment < min ? segment : min;
    },
    parseLsn(keep[0]!.startLsn) >> 24n,
  );
  return files.filter((f) => {
    const n = segmentNumberOf(f);
    return n !== undefined && n < oldest;
  });
}
