// The PostgresCluster controller's own gauges (besides the runtime's health metrics), computed from
// the clusters' status at each collection and reported per namespace — never per cluster: the
// runbooks say how to find the cluster (`kubectl get pgc -n <namespace>`, its printer columns and
// conditions). Registered on the controller with the builder's `gauges(...)`.
import { findCondition } from '@steward/conditions';
import { type NamespaceGauge } from '@steward/telemetry';
import { failoverGauges } from '@steward/workload';
import { DEFAULT_MAX_LAG_BYTES, type PostgresCluster } from '@steward/postgres-cluster-api';
import { parseSchedule } from './backup/plan.js';
import { PlanReasons } from './plan/plan.js';

/** How long after its due time a scheduled base backup may still be running before it is overdue. */
export const BACKUP_GRACE_MS = 60 * 60 * 1000;

const DEFAULT_SCHEDULE = '0 3 * * *';

/**
 * The newest due time of a schedule at or before a moment, remembered per schedule until the
 * following due time: working it out (croner's `previousRuns`) costs far more than a scrape may
 * spend per cluster, and every cluster of a schedule shares it. Bounded: a schedule rarely
 * changes, and there are few distinct ones.
 */
const slots = new Map<string, { due: number | undefined; until: number } | null>();
function newestDue(schedule: string, at: number): number | undefined {
  let slot = slots.get(schedule);
  if (slot === null) return undefined; // does not parse
  if (!slot || at >= slot.until || (slot.due !== undefined && at < slot.due)) {
    if (slots.size >= 256) slots.clear();
    const cron = parseSchedule(schedule);
    if ('error' in cron) {
      slots.set(schedule, null);
      return undefined;
    }
    const due = cron.previousRuns(1, new Date(at))[0]?.getTime();
    const until = cron.nextRun(new Date(due ?? at))?.getTime() ?? Number.POSITIVE_INFINITY;
    slots.set(schedule, (slot = { due, until }));
  }
  return slot.due;
}

const ms = (text: string | undefined): number | undefined => {
  const t = text ? Date.parse(text) : NaN;
  return Number.isFinite(t) ? t : undefined;
};

/**
 * Whether a cluster's scheduled backups are behind at `now`: the newest due time at least
 * {@link BACKUP_GRACE_MS} old is later than the start of its newest successful backup (or, with
 * none yet, than the cluster's creation). Clusters without `spec.backup`, and whose schedule does
 * not parse (refused elsewhere, with a condition), are never overdue.
 */
export function backupOverdue(cluster: PostgresCluster, now: number): boolean {
  if (!cluster.spec.backup) return false;
  const due = newestDue(cluster.spec.backup.schedule ?? DEFAULT_SCHEDULE, now - BACKUP_GRACE_MS);
  if (due === undefined) return false;
  const reference =
    ms(cluster.status?.backup?.lastSuccessful?.startedAt) ?? ms(cluster.metadata.creationTimestamp);
  return reference !== undefined && due > reference;
}

/** The smallest lag of the cluster's standbys, in bytes; undefined without a standby that reports one. */
function bestStandbyLag(cluster: PostgresCluster): number | undefined {
  const lags = (cluster.status?.instances ?? [])
    .filter((i) => i.role === 'standby' && i.lagBytes !== undefined)
    .map((i) => i.lagBytes!);
  return lags.length ? Math.min(...lags) : undefined;
}

/**
 * The gauges, per namespace (`kind="PostgresCluster"`):
 *
 * - the failover gauges every workload kind reports (`failoverGauges`): `steward_failovers`,
 *   `…_in_progress`, `steward_failover_possible_loss_bytes` (the newest failovers' bytesPossiblyLost; 0
 *   when dataLossRisk is None), `steward_failover_loss_unknown`
 * - `steward_postgres_replication_max_lag_bytes` — the largest lag of any standby
 * - `steward_postgres_failover_at_risk` — clusters with failover on whose every standby lags more
 *   than `spec.failover.maxLagBytes`: losing the primary now would be refused
 * - `steward_postgres_failover_refused` — clusters without a primary because the failover was
 *   refused (Degraded `FailoverRefusedLagExceedsBound`)
 * - `steward_postgres_backups_overdue` — clusters whose scheduled backup is more than an hour late
 * - `steward_postgres_backup_longest_since_success_seconds` — age of the newest successful backup
 *   of the cluster longest without one (since creation when none yet), among clusters with backups
 * - `steward_postgres_backups_failing` — clusters whose newest backup attempt failed
 * - `steward_postgres_restore_rehearsals_failed` — clusters whose newest restore rehearsal failed
 * - `steward_postgres_wal_archiving_failing` — clusters whose primary cannot archive its WAL
 *   (status.backup.walArchiving.failing): its volume fills until it can
 * - `steward_postgres_wal_archive_ready_segments` — the most WAL segments waiting to be archived on
 *   any primary
 */
export const postgresClusterGauges: readonly NamespaceGauge<PostgresCluster>[] = [
  ...failoverGauges((c: PostgresCluster) => c.status),
  {
    name: 'steward_postgres_replication_max_lag_bytes',
    description:
      'The largest replication lag of any standby (WAL bytes the primary has and it has not received), per namespace.',
    unit: 'By',
    aggregate: 'max',
    value: (c) =>
      Math.max(
        0,
        ...(c.status?.instances ?? []).map((i) => (i.role === 'standby' ? (i.lagBytes ?? 0) : 0)),
      ),
  },
  {
    name: 'steward_postgres_failover_at_risk',
    description:
      'Clusters with failover enabled whose every standby lags more than spec.failover.maxLagBytes (a failover now would be refused), per namespace.',
    aggregate: 'sum',
    value: (c) => {
      if (c.spec.failover?.enabled === false || (c.spec.replicas ?? 1) < 2) return 0;
      const lag = bestStandbyLag(c);
      return lag !== undefined && lag > (c.spec.failover?.maxLagBytes ?? DEFAULT_MAX_LAG_BYTES)
        ? 1
        : 0;
    },
  },
  {
    name: 'steward_postgres_failover_refused',
    description:
      'Clusters left without a primary because promoting a standby would lose more than spec.failover.maxLagBytes (Degraded FailoverRefusedLagExceedsBound), per namespace.',
    aggregate: 'sum',
    value: (c) => {
      const degraded = findCondition(c.status?.conditions, 'Degraded');
      return degraded?.status === 'True' &&
        degraded.reason === PlanReasons.FailoverRefusedLagExceedsBound
        ? 1
        : 0;
    },
  },
  {
    name: 'steward_postgres_backups_overdue',
    description:
      'Clusters whose scheduled base backup has not succeeded within an hour of its due time, per namespace.',
    aggregate: 'sum',
    value: (c, now) => (backupOverdue(c, now) ? 1 : 0),
  },
  {
    name: 'steward_postgres_backup_longest_since_success_seconds',
    description:
      'Seconds since the newest successful base backup of the cluster longest without one (since its creation when it has none), among the clusters with spec.backup, per namespace.',
    unit: 's',
    aggregate: 'max',
    value: (c, now) => {
      if (!c.spec.backup) return undefined;
      const since =
        ms(c.status?.backup?.lastSuccessful?.completedAt) ?? ms(c.metadata.creationTimestamp);
      return since === undefined ? undefined : Math.max(0, now - since) / 1000;
    },
  },
  {
    name: 'steward_postgres_backups_failing',
    description:
      'Clusters whose newest base backup attempt failed (no success since), per namespace.',
    aggregate: 'sum',
    value: (c) => {
      const failed = ms(c.status?.backup?.lastFailed?.at);
      if (failed === undefined) return 0;
      const succeeded = ms(c.status?.backup?.lastSuccessful?.completedAt);
      return succeeded === undefined || failed > succeeded ? 1 : 0;
    },
  },
  {
    name: 'steward_postgres_restore_rehearsals_failed',
    description:
      'Clusters whose newest restore rehearsal (spec.backup.verify) failed, per namespace.',
    aggregate: 'sum',
    value: (c) => (c.status?.backup?.lastVerification?.result === 'Failed' ? 1 : 0),
  },
  {
    name: 'steward_postgres_wal_archiving_failing',
    description:
      'Clusters whose primary cannot archive its WAL into the backup destination (the newest attempt failed, none succeeded since): its volume fills until it can, per namespace.',
    aggregate: 'sum',
    value: (c) => (c.status?.backup?.walArchiving?.failing ? 1 : 0),
  },
  {
    name: 'steward_postgres_wal_archive_ready_segments',
    description:
      'The most WAL segments waiting to be archived on any primary (each stays on its volume until archived), per namespace.',
    aggregate: 'max',
    value: (c) => c.status?.backup?.walArchiving?.readySegments,
  },
];
