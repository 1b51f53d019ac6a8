import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { aggregateByNamespace } from '@steward/telemetry';
import { describe, expect, it } from 'vitest';
import { backupOverdue, postgresClusterGauges } from './metrics.js';

const now = Date.parse('2026-12-05T12:00:00Z');

function cluster(
  name: string,
  spec: Partial<PostgresCluster['spec']> = {},
  status: PostgresCluster['status'] = {},
  namespace = 'shop',
): PostgresCluster {
  return {
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name, namespace, creationTimestamp: '2026-12-01T00:00:00Z' },
    spec: { version: '15', replicas: 3, ...spec } as PostgresCluster['spec'],
    status,
  };
}

/** Each namespace's gauges, by metric name. */
function gauges(clusters: PostgresCluster[]): Map<string, Record<string, number>> {
  const rows = aggregateByNamespace(
    clusters,
    postgresClusterGauges,
    (c) => c.metadata.namespace!,
    now,
  );
  return new Map(
    [...rows].map(([ns, row]) => [
      ns,
      Object.fromEntries(postgresClusterGauges.map((g, i) => [g.name, row[i]!])),
    ]),
  );
}

const backup = (startedAt: string, completedAt = startedAt) => ({
  id: 'b',
  startedAt,
  completedAt,
  sizeBytes: 1,
  startLsn: '0/1',
  stopLsn: '0/2',
  timeline: 1,
  systemIdentifier: '1',
  serverVersion: 150000,
});

describe('backupOverdue: the newest due time an hour past is later than the newest successful backup', () => {
  it.each([
    ['no spec.backup', {}, {}, false],
    [
      'daily at 03:00, backed up at 03:00 today',
      { backup: { schedule: '0 3 * * *' } },
      { backup: { lastSuccessful: backup('2026-12-05T03:00:05Z') } },
      false,
    ],
    [
      'daily at 03:00, newest backup yesterday',
      { backup: { schedule: '0 3 * * *' } },
      { backup: { lastSuccessful: backup('2026-12-04T03:00:05Z') } },
      true,
    ],
    [
      'hourly, the 11:00 backup still within its hour of grace',
      { backup: { schedule: '0 * * * *' } },
      { backup: { lastSuccessful: backup('2026-12-05T10:00:02Z') } },
      false,
    ],
    [
      'hourly, the 10:00 backup missing',
      { backup: { schedule: '0 * * * *' } },
      { backup: { lastSuccessful: backup('2026-12-05T09:00:02Z') } },
      true,
    ],
    ['never backed up, created four days ago (default schedule)', { backup: {} }, {}, true],
    [
      'a schedule that does not parse (refused with a condition elsewhere)',
      { backup: { schedule: '99 * * * *' } },
      {},
      false,
    ],
  ] as const)('%s → %s', (_what, spec, status, overdue) => {
    expect(
      backupOverdue(
        cluster('c', spec as PostgresCluster['spec'], status as PostgresCluster['status']),
        now,
      ),
    ).toBe(overdue);
  });
});

describe('backupOverdue as time passes (each schedule’s due time is remembered until the next)', () => {
  it('turns overdue an hour after a missed due time, and not before', () => {
    const c = cluster(
      'c',
      { backup: { schedule: '0 * * * *' } } as Partial<PostgresCluster['spec']>,
      { backup: { lastSuccessful: backup('2026-12-05T10:00:02Z') } },
    );
    const at = (time: string) => backupOverdue(c, Date.parse(`2026-12-05T${time}Z`));
    expect(
      ['11:30:00', '11:59:59', '12:00:01', '12:30:00', '11:10:00', '13:05:00'].map(at),
    ).toEqual([false, false, true, true, false, true]);
  });
});

describe('the PostgresCluster gauges, per namespace', () => {
  it('sum failovers, keep the worst loss bound and lag, count clusters in trouble', () => {
    const failover = (risk: 'None' | 'Bounded' | 'Unknown', bytesPossiblyLost?: number) => ({
      phase: 'Completed' as const,
      from: 'c-0',
      to: 'c-1',
      reason: 'PrimaryUnreachable',
      startedAt: '2026-12-05T11:00:00Z',
      promotedLsn: '0/3000000',
      dataLossRisk: risk,
      ...(bytesPossiblyLost !== undefined ? { bytesPossiblyLost } : {}),
      message: 'm',
    });
    const stats = gauges([
      cluster('a', {}, { failoverCount: 2, failover: failover('Bounded', 4096) }),
      cluster('b', {}, { failoverCount: 1, failover: failover('Unknown') }),
      cluster('c', { failover: { maxLagBytes: 1000 } } as Partial<PostgresCluster['spec']>, {
        failover: { ...failover('None'), phase: 'Promoting' },
        failoverCount: 0,
        instances: [
          { name: 'c-0', role: 'primary', ready: true },
          { name: 'c-1', role: 'standby', ready: true, lagBytes: 5000 },
          { name: 'c-2', role: 'standby', ready: true, lagBytes: 2000 },
        ],
        conditions: [
          {
            type: 'Degraded',
            status: 'True',
            reason: 'FailoverRefusedLagExceedsBound',
            message: 'm',
            lastTransitionTime: '2026-12-05T11:00:00Z',
          },
        ],
      }),
      cluster(
        'd',
        { backup: { schedule: '0 3 * * *' } },
        {
          backup: {
            lastSuccessful: backup('2026-12-04T03:00:00Z', '2026-12-04T03:10:00Z'),
            lastFailed: { id: 'x', at: '2026-12-05T03:01:00Z', job: 'j', message: 'm' },
            lastVerification: {
              at: '2026-12-05T05:00:00Z',
              backupId: 'b',
              job: 'v',
              result: 'Failed',
              message: 'm',
            },
            walArchiving: { failing: true, readySegments: 12 },
          },
        },
      ),
      cluster(
        'f',
        { backup: { schedule: '0 3 * * *' } },
        {
          backup: {
            lastSuccessful: backup('2026-12-05T03:00:00Z', '2026-12-05T03:10:00Z'),
            walArchiving: { failing: false, readySegments: 1 },
          },
        },
      ),
      cluster('e', {}, { failoverCount: 7 }, 'ops'),
    ]);
    expect(stats.get('shop')).toEqual({
      steward_failovers: 3,
      steward_failovers_in_progress: 1,
      steward_failover_possible_loss_bytes: 4096,
      steward_failover_loss_unknown: 1,
      steward_postgres_replication_max_lag_bytes: 5000,
      steward_postgres_failover_at_risk: 1,
      steward_postgres_failover_refused: 1,
      steward_postgres_backups_overdue: 1,
      steward_postgres_backup_longest_since_success_seconds:
        (now - Date.parse('2026-12-04T03:10:00Z')) / 1000,
      steward_postgres_backups_failing: 1,
      steward_postgres_restore_rehearsals_failed: 1,
      steward_postgres_wal_archiving_failing: 1,
      steward_postgres_wal_archive_ready_segments: 12,
    });
    expect(stats.get('ops')).toMatchObject({
      steward_failovers: 7,
      steward_failovers_in_progress: 0,
      steward_failover_possible_loss_bytes: 0,
      steward_postgres_backups_overdue: 0,
    });
  });

  it('does not call a cluster at risk while one standby is within the bound, or with failover off', () => {
    const lagging = (spec: Partial<PostgresCluster['spec']>) =>
      cluster('x', spec, {
        instances: [
          { name: 'x-0', role: 'primary', ready: true },
          { name: 'x-1', role: 'standby', ready: true, lagBytes: 50 * 1024 * 1024 },
          { name: 'x-2', role: 'standby', ready: true, lagBytes: 10 },
        ],
      });
    expect(gauges([lagging({})]).get('shop')?.steward_postgres_failover_at_risk).toBe(0);
    const allBehind = cluster(
      'y',
      {},
      {
        instances: [
          { name: 'y-0', role: 'primary', ready: true },
          { name: 'y-1', role: 'standby', ready: true, lagBytes: 17 * 1024 * 1024 },
        ],
      },
    );
    expect(gauges([allBehind]).get('shop')?.steward_postgres_failover_at_risk).toBe(1);
    const off = cluster(
      'z',
      { failover: { enabled: false } } as Partial<PostgresCluster['spec']>,
      allBehind.status,
    );
    expect(gauges([off]).get('shop')?.steward_postgres_failover_at_risk).toBe(0);
  });
});
