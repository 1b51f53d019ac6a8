import { type BackupRecord } from '@steward/postgres-cluster-api';
import { Cron } from 'croner';
import { parseLsn } from '../pg/lsn.js';
import { backupIdTime, backupJobName, segmentNumberOf } from './layout.js';

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

/** What the backup schedule sees this reconcile. */
export interface BackupJobFacts {
  /** The cluster's name (Job names derive from it and the due time). */
  cluster: string;
  /** When the cluster was created (the schedule's start when nothing ran yet). */
  createdAt: Date;
  /** The database system (a major upgrade makes another, whose first backup is due at once). */
  systemIdentifier: string;
  /** The schedule, or why it is not one. */
  cron: Cron | { error: string };
  /** The base backup Jobs of the cluster, by name (any system). */
  jobs: { name: string; finished: boolean; systemIdentifier?: string; backupId?: string }[];
  /** Open PostgresBackups, oldest first. */
  requests: { name: string; due: Date }[];
  /** status.backup.lastScheduleTime. */
  lastScheduleTime?: string;
  /** The bucket holds at least one backup of this system. */
  anyBackup: boolean;
  /** The primary serves and its address is known: a Job may start. */
  primaryReady: boolean;
  now: Date;
}

/** The Job to create now, if any, and when to look again for the schedule's sake. */
export interface BackupJobPlan {
  create?: { due: Date; reason: string; requestedBy?: string };
  requeueAfterMs?: number;
}

/**
 * The base backup Job to start (pure): one at a time (while one runs, none starts; look again in
 * 5 s); an open PostgresBackup first (its Job is named from its due time, so it is made once); then
 * the schedule — the first backup of a database system as soon as the primary serves, then the
 * newest due time since the last one (`dueBackup`: a missed run is taken once, not caught up).
 * Jobs from before the system-identifier label count as this system's.
 */
export function planBackupJob(facts: BackupJobFacts): BackupJobPlan {
  if (facts.jobs.some((j) => !j.finished)) return { requeueAfterMs: 5000 };
  if (!facts.primaryReady) return {};
  const names = new Set(facts.jobs.map((j) => j.name));
  const requested = facts.requests.find((r) => !names.has(backupJobName(facts.cluster, r.due)));
  if (requested)
    return {
      create: {
        due: requested.due,
        reason: `PostgresBackup ${requested.name}`,
        requestedBy: requested.name,
      },
      requeueAfterMs: 5000,
    };
  if ('error' in facts.cron) return {};
  const newestJob = facts.jobs
    .filter((j) => (j.systemIdentifier ?? facts.systemIdentifier) === facts.systemIdentifier)
    .at(-1);
  const last = Math.max(
    facts.lastScheduleTime ? Date.parse(facts.lastScheduleTime) : 0,
    newestJob?.backupId ? backupIdTime(newestJob.backupId).getTime() : 0,
  );
  if (!last && !facts.anyBackup)
    return {
      create: { due: new Date(Math.floor(facts.now.getTime() / 1000) * 1000), reason: 'Initial' },
      requeueAfterMs: 5000,
    };
  const next = dueBackup(facts.cron, last ? new Date(last) : facts.createdAt, facts.now);
  if (next.due) return { create: { due: next.due, reason: 'Scheduled' }, requeueAfterMs: 5000 };
  return next.next
    ? { requeueAfterMs: Math.max(1000, next.next.getTime() - facts.now.getTime()) }
    : {};
}
