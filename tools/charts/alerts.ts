// The alerting rules every controller chart ships (charts/<chart>/alerts/<chart>.rules.yaml, a
// plain Prometheus rule file; the chart renders it as a PrometheusRule when
// prometheusRule.enabled): the operator failures that need a person — an object not Ready, one
// failing over and over, a spec change not picked up, finalizers stuck, errors, latency, backlog,
// API throttling, nobody leading. Every rule selects `job="steward/<chart>"`: the job the
// OpenTelemetry Collector's Prometheus exporter gives the controller's metrics (service.namespace
// "steward" / service.name <chart>), and the one the chart's ServiceMonitor sets. Each alert's
// runbook is docs/runbooks/<alert>.md, linked from its runbook_url.

/** Where the runbooks are read (the repository the charts' `home` names). */
export const RUNBOOK_BASE = 'https://github.com/steward-dev/steward/blob/main/docs/runbooks';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: 'warning' | 'critical' };
  annotations: { summary: string; description: string; runbook_url: string };
}

export interface RuleFile {
  groups: { name: string; rules: AlertRule[] }[];
}

/** The job label of a chart's controller metrics. */
export const jobOf = (chart: string) => `steward/${chart}`;

export interface AlertSpec {
  alert: string;
  severity: AlertRule['labels']['severity'];
  /** The expression, given the chart's job matcher (`job="steward/<chart>"`). */
  expr: (job: string) => string;
  for?: string;
  summary: string;
  description: string;
}

/** Per kind and namespace: the health gauges' grouping. */
const byObject = 'job, kind, namespace';

/** The alerts, in the order of the rule file; every name has docs/runbooks/<name>.md. */
export const ALERTS: readonly AlertSpec[] = [
  {
    alert: 'StewardObjectNotReady',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_objects_longest_not_ready_seconds{${job}}) > 300`,
    summary:
      'A {{ $labels.kind }} in namespace {{ $labels.namespace }} has not been Ready for 5 minutes.',
    description:
      'The {{ $labels.kind }} not Ready the longest in {{ $labels.namespace }} has been so for {{ $value | humanizeDuration }}; its Ready condition says why.',
  },
  {
    alert: 'StewardObjectReconcileFailing',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_objects_max_consecutive_failures{${job}}) >= 10`,
    summary:
      'A {{ $labels.kind }} in namespace {{ $labels.namespace }} failed 10 reconciles in a row.',
    description:
      'One {{ $labels.kind }} in {{ $labels.namespace }} has failed {{ $value }} reconciles in a row (retried with backoff); the controller logs and Warning Events name the error.',
  },
  {
    alert: 'StewardSpecChangeNotObserved',
    severity: 'warning',
    expr: (job) =>
      `max by (${byObject}) (steward_objects_longest_generation_unobserved_seconds{${job}}) > 600`,
    summary:
      'A change to a {{ $labels.kind }} in namespace {{ $labels.namespace }} has not been observed for 10 minutes.',
    description:
      'The oldest spec change (metadata.generation newer than status.observedGeneration) of a {{ $labels.kind }} in {{ $labels.namespace }} has waited {{ $value | humanizeDuration }}; GitOps tools read it as still in progress.',
  },
  {
    alert: 'StewardObjectStuckTerminating',
    severity: 'warning',
    expr: (job) =>
      `max by (${byObject}) (steward_objects_longest_terminating_seconds{${job}}) > 1800`,
    summary:
      'A {{ $labels.kind }} in namespace {{ $labels.namespace }} has been Terminating for 30 minutes.',
    description:
      'A {{ $labels.kind }} in {{ $labels.namespace }} was deleted {{ $value | humanizeDuration }} ago and a finalizer still holds it.',
  },
  {
    alert: 'StewardReconcileErrorRate',
    severity: 'warning',
    expr: (job) =>
      `sum by (job, controller) (rate(controller_runtime_reconcile_errors_total{${job}}[5m])) / sum by (job, controller) (rate(controller_runtime_reconcile_total{${job}}[5m])) > 0.1`,
    for: '10m',
    summary: "More than 10% of the {{ $labels.controller }} controller's reconciles fail.",
    description:
      '{{ $value | humanizePercentage }} of the {{ $labels.controller }} reconciles of {{ $labels.job }} returned an error over the last 5 minutes, for 10 minutes.',
  },
  {
    alert: 'StewardReconcileSlow',
    severity: 'warning',
    expr: (job) =>
      `histogram_quantile(0.95, sum by (job, controller, le) (rate(controller_runtime_reconcile_time_seconds_bucket{${job}}[5m]))) > 10`,
    for: '15m',
    summary: "The {{ $labels.controller }} controller's p95 reconcile takes more than 10 seconds.",
    description:
      'The 95th percentile of {{ $labels.controller }} reconcile durations of {{ $labels.job }} has been {{ $value | humanizeDuration }} for 15 minutes.',
  },
  {
    alert: 'StewardWorkqueueBacklog',
    severity: 'warning',
    expr: (job) =>
      `(max by (job, controller) (workqueue_depth{${job}}) > 100) or (histogram_quantile(0.95, sum by (job, controller, le) (rate(workqueue_queue_duration_seconds_bucket{${job}}[5m]))) > 60)`,
    for: '10m',
    summary: 'The {{ $labels.controller }} work queue is backed up.',
    description:
      'For 10 minutes the {{ $labels.controller }} queue of {{ $labels.job }} has held more than 100 keys or kept the 95th percentile of keys waiting more than a minute (now {{ $value }}).',
  },
  {
    alert: 'StewardApiServerThrottling',
    severity: 'warning',
    expr: (job) => `sum by (job) (rate(rest_client_requests_total{${job}, code="429"}[5m])) > 0`,
    for: '5m',
    summary: 'The Kubernetes API server throttles {{ $labels.job }} (HTTP 429).',
    description:
      '{{ $labels.job }} has received 429 Too Many Requests for 5 minutes ({{ $value | printf "%.2f" }} a second): API Priority and Fairness is rejecting its requests, and reconciles slow down.',
  },
  {
    alert: 'StewardNoLeader',
    severity: 'critical',
    expr: (job) =>
      `(max by (job) (leader_election_master_status{${job}}) < 1) or (max by (job) (max_over_time(leader_election_master_status{${job}}[1h])) unless max by (job) (leader_election_master_status{${job}}))`,
    for: '5m',
    summary: 'No {{ $labels.job }} replica leads: nothing is reconciled.',
    description:
      'For 5 minutes no replica of {{ $labels.job }} has held its leader Lease (or every replica stopped reporting within the last hour): changes to its resources are not acted on.',
  },
];

/**
 * The failovers of a workload kind (a chart adds them: CacheCluster, PostgresCluster), on the
 * failover gauges its controller computes from the objects' status.
 */
export const failoverAlerts: readonly AlertSpec[] = [
  {
    alert: 'StewardFailover',
    severity: 'warning',
    // A gauge (failovers recorded by the objects present): delta, not increase — a deleted
    // object takes its count with it, which must not read as a reset.
    expr: (job) => `max by (${byObject}) (delta(steward_failovers{${job}}[15m])) > 0`,
    summary: 'A {{ $labels.kind }} in namespace {{ $labels.namespace }} failed over.',
    description:
      'About {{ $value | printf "%.0f" }} failover(s) of {{ $labels.kind }}s in {{ $labels.namespace }} in the last 15 minutes: a primary was lost and a replica promoted. status.failover says what it may have lost.',
  },
  {
    alert: 'StewardFailoverStuck',
    severity: 'critical',
    expr: (job) => `max by (${byObject}) (steward_failovers_in_progress{${job}}) > 0`,
    for: '10m',
    summary:
      'A failover of a {{ $labels.kind }} in namespace {{ $labels.namespace }} has not completed in 10 minutes.',
    description:
      '{{ $value }} {{ $labels.kind }}(s) in {{ $labels.namespace }} have had a failover in progress (status.failover.phase not Completed) for 10 minutes: writes may be down.',
  },
];

/** The PostgresCluster chart's own alerts: replication, failover refusals, backups, rehearsals. */
export const postgresAlerts: readonly AlertSpec[] = [
  {
    alert: 'StewardPostgresFailoverRefused',
    severity: 'critical',
    expr: (job) => `max by (${byObject}) (steward_postgres_failover_refused{${job}}) > 0`,
    for: '1m',
    summary:
      'A PostgresCluster in namespace {{ $labels.namespace }} has no primary: its failover was refused.',
    description:
      '{{ $value }} PostgresCluster(s) in {{ $labels.namespace }} lost their primary and every standby lagged more than spec.failover.maxLagBytes (Degraded FailoverRefusedLagExceedsBound): no writes until the primary returns or a person decides.',
  },
  {
    alert: 'StewardPostgresFailoverAtRisk',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_postgres_failover_at_risk{${job}}) > 0`,
    for: '15m',
    summary:
      'A PostgresCluster in namespace {{ $labels.namespace }} could not fail over: every standby lags beyond its bound.',
    description:
      'For 15 minutes {{ $value }} PostgresCluster(s) in {{ $labels.namespace }} have had every standby lag more than spec.failover.maxLagBytes: losing the primary now would leave them without one.',
  },
  {
    alert: 'StewardPostgresBackupOverdue',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_postgres_backups_overdue{${job}}) > 0`,
    for: '5m',
    summary: 'A PostgresCluster in namespace {{ $labels.namespace }} missed its scheduled backup.',
    description:
      '{{ $value }} PostgresCluster(s) in {{ $labels.namespace }} have no successful base backup since a due time more than an hour ago (spec.backup.schedule): the restore point is getting old.',
  },
  {
    alert: 'StewardPostgresBackupFailing',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_postgres_backups_failing{${job}}) > 0`,
    summary: 'The newest backup of a PostgresCluster in namespace {{ $labels.namespace }} failed.',
    description:
      'The newest base backup attempt of {{ $value }} PostgresCluster(s) in {{ $labels.namespace }} failed and none has succeeded since; status.backup.lastFailed says why.',
  },
  {
    alert: 'StewardPostgresWalArchivingFailing',
    severity: 'critical',
    expr: (job) => `max by (${byObject}) (steward_postgres_wal_archiving_failing{${job}}) > 0`,
    for: '5m',
    summary:
      'A PostgreSQL primary in namespace {{ $labels.namespace }} cannot archive its WAL: its volume is filling.',
    description:
      'For 5 minutes {{ $value }} PostgresCluster(s) in {{ $labels.namespace }} have failed to archive WAL into their backup destination (status.backup.walArchiving): every segment stays on the primary’s volume until it is archived, and the restore point no longer moves. Fix it before the volume fills and the primary stops.',
  },
  {
    alert: 'StewardPostgresRestoreRehearsalFailed',
    severity: 'warning',
    expr: (job) => `max by (${byObject}) (steward_postgres_restore_rehearsals_failed{${job}}) > 0`,
    summary:
      'A restore rehearsal of a PostgresCluster in namespace {{ $labels.namespace }} failed.',
    description:
      'The newest restore rehearsal of {{ $value }} PostgresCluster(s) in {{ $labels.namespace }} failed (status.backup.lastVerification): the newest backup may not restore.',
  },
];

/** Every alert of a chart: the common ones, then its own (`extra`). */
export const chartAlerts = (extra: readonly AlertSpec[] = []): readonly AlertSpec[] => [
  ...ALERTS,
  ...extra,
];

/** The rule file of one chart, with its own alerts (`extra`) after the common ones. */
export function controllerAlerts(chart: string, extra: readonly AlertSpec[] = []): RuleFile {
  const job = `job="${jobOf(chart)}"`;
  return {
    groups: [
      {
        name: `steward-${chart}`,
        rules: chartAlerts(extra).map((a) => ({
          alert: a.alert,
          expr: a.expr(job),
          ...(a.for ? { for: a.for } : {}),
          labels: { severity: a.severity },
          annotations: {
            summary: a.summary,
            description: a.description,
            runbook_url: `${RUNBOOK_BASE}/${a.alert}.md`,
          },
        })),
      },
    ],
  };
}
