// What the postgres-cluster-controller chart has besides the common dashboard and values schema: the
// kubernetes ProviderProfiles its process manages, its dashboard's rows on failovers, replication
// and backups (from the gauges the controller computes from the clusters' status:
// libs/postgres-cluster/src/metrics.ts), the alerts on them, and the values only it has (the fast
// poll of PostgreSQL instances while something moves, the default profile).
import { type ControllerAdditions } from '../controller-chart.js';
import { failoverRow, objectsOfJob } from '../dashboard.js';
import { stat, timeseries, type RowSpec } from '../grafana.js';
import { legend, maxBy, Metric, series, sum } from '../promql.js';
import { failoverAlerts, postgresAlerts } from '../alerts.js';

const byNamespace = ['namespace'];
const own = objectsOfJob;

const replicationAndBackups: RowSpec = {
  title: 'Replication and backups',
  panels: [
    timeseries({
      title: 'Replication lag',
      description: `${Metric.postgresReplicationMaxLagBytes}: the largest lag of any standby (WAL the primary has and it has not received). ${Metric.postgresFailoverAtRisk}: clusters whose every standby lags more than spec.failover.maxLagBytes — a failover now would be refused.`,
      unit: 'bytes',
      queries: [
        {
          expr: maxBy(byNamespace, series(Metric.postgresReplicationMaxLagBytes, own)),
          legend: `${legend(byNamespace)} largest standby lag`,
        },
      ],
    }),
    stat({
      title: 'Failover at risk or refused',
      description: `Clusters whose every standby lags beyond spec.failover.maxLagBytes (${Metric.postgresFailoverAtRisk}), and clusters left without a primary because the failover was refused (${Metric.postgresFailoverRefused}, Degraded FailoverRefusedLagExceedsBound).`,
      unit: 'none',
      instant: true,
      thresholds: [{ color: 'orange', value: 1 }],
      query: {
        expr: `${sum(series(Metric.postgresFailoverAtRisk, own))} + ${sum(series(Metric.postgresFailoverRefused, own))}`,
      },
    }),
    timeseries({
      title: 'Time since the newest backup',
      description: `${Metric.postgresBackupLongestSinceSuccessSeconds}: of the clusters with spec.backup, the one longest without a successful base backup (since its creation when it has none).`,
      unit: 's',
      queries: [
        {
          expr: maxBy(byNamespace, series(Metric.postgresBackupLongestSinceSuccessSeconds, own)),
          legend: `${legend(byNamespace)} since the newest backup`,
        },
      ],
    }),
    timeseries({
      title: 'Backups and rehearsals in trouble',
      description: `Clusters whose scheduled base backup is more than an hour late (${Metric.postgresBackupsOverdue}), whose newest backup attempt failed (${Metric.postgresBackupsFailing}), whose newest restore rehearsal failed (${Metric.postgresRestoreRehearsalsFailed}).`,
      unit: 'short',
      queries: [
        {
          expr: sum(series(Metric.postgresBackupsOverdue, own), byNamespace),
          legend: `${legend(byNamespace)} overdue`,
        },
        {
          expr: sum(series(Metric.postgresBackupsFailing, own), byNamespace),
          legend: `${legend(byNamespace)} failing`,
        },
        {
          expr: sum(series(Metric.postgresRestoreRehearsalsFailed, own), byNamespace),
          legend: `${legend(byNamespace)} rehearsal failed`,
        },
      ],
    }),
  ],
};

export const additions: ControllerAdditions = {
  providers: ['kubernetes'],
  dashboard: {
    tags: ['postgres', 'postgresql'],
    rows: [failoverRow({ kind: 'PostgresCluster', lossUnit: 'WAL bytes' }), replicationAndBackups],
  },
  alerts: [...failoverAlerts, ...postgresAlerts],
  values: {
    properties: {
      busyPollIntervalSeconds: {
        description:
          'STEWARD_BUSY_POLL_INTERVAL_SECONDS: how often a PostgresCluster whose instances are moving is looked at.',
        type: 'integer',
        minimum: 1,
        maximum: 3600,
      },
      defaultProviderProfile: {
        description:
          'STEWARD_DEFAULT_PROVIDER_PROFILE: the kubernetes ProviderProfile of PostgresClusters that name none; empty: none.',
        type: 'string',
        maxLength: 253,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$',
      },
    },
    required: ['busyPollIntervalSeconds', 'defaultProviderProfile'],
  },
};
