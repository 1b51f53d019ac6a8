// The PromQL the dashboards query, spelled by a few functions so that every panel selects and
// aggregates the same way. Each returns the expression's text as Grafana stores it.

/** One label matcher, e.g. `namespace=~"$namespace"`. */
export type Matcher = string;

/** `label="value"`. */
export const equals = (label: string, value: string): Matcher => `${label}="${value}"`;

/** `label=~"regex"`. */
export const matches = (label: string, regex: string): Matcher => `${label}=~"${regex}"`;

/** The metric names the dashboards query: controller-runtime's, client-go's and Steward's own. */
export const Metric = {
  reconcileTotal: 'controller_runtime_reconcile_total',
  reconcileErrorsTotal: 'controller_runtime_reconcile_errors_total',
  terminalReconcileErrorsTotal: 'controller_runtime_terminal_reconcile_errors_total',
  reconcileTimeSeconds: 'controller_runtime_reconcile_time_seconds',
  workqueueDepth: 'workqueue_depth',
  workqueueAddsTotal: 'workqueue_adds_total',
  workqueueRetriesTotal: 'workqueue_retries_total',
  workqueueQueueDurationSeconds: 'workqueue_queue_duration_seconds',
  restClientRequestsTotal: 'rest_client_requests_total',
  leaderElectionMasterStatus: 'leader_election_master_status',
  externalRequestsTotal: 'steward_external_requests_total',
  objects: 'steward_objects',
  objectsGenerationUnobserved: 'steward_objects_generation_unobserved',
  objectsTerminating: 'steward_objects_terminating',
  objectsFailing: 'steward_objects_failing',
  objectsLongestNotReadySeconds: 'steward_objects_longest_not_ready_seconds',
  objectsLongestGenerationUnobservedSeconds:
    'steward_objects_longest_generation_unobserved_seconds',
  objectsLongestTerminatingSeconds: 'steward_objects_longest_terminating_seconds',
  objectsLongestSinceSuccessSeconds: 'steward_objects_longest_since_success_seconds',
  objectsMaxConsecutiveFailures: 'steward_objects_max_consecutive_failures',
  failovers: 'steward_failovers',
  failoversInProgress: 'steward_failovers_in_progress',
  failoverPossibleLossBytes: 'steward_failover_possible_loss_bytes',
  failoverLossUnknown: 'steward_failover_loss_unknown',
  postgresReplicationMaxLagBytes: 'steward_postgres_replication_max_lag_bytes',
  postgresFailoverAtRisk: 'steward_postgres_failover_at_risk',
  postgresFailoverRefused: 'steward_postgres_failover_refused',
  postgresBackupsOverdue: 'steward_postgres_backups_overdue',
  postgresBackupLongestSinceSuccessSeconds: 'steward_postgres_backup_longest_since_success_seconds',
  postgresBackupsFailing: 'steward_postgres_backups_failing',
  postgresRestoreRehearsalsFailed: 'steward_postgres_restore_rehearsals_failed',
} as const;

/** `metric{m1, m2}`; the bare name without matchers. */
export function series(metric: string, matchers: readonly Matcher[] = []): string {
  return matchers.length ? `${metric}{${matchers.join(', ')}}` : metric;
}

/** `rate(<selector>[$__rate_interval])`: Grafana's interval that always spans enough scrapes. */
export function rate(selector: string): string {
  return `rate(${selector}[$__rate_interval])`;
}

/** `sum(<expr>)`, or `sum by (labels) (<expr>)`. */
export function sum(expr: string, by: readonly string[] = []): string {
  return by.length ? `sum by (${by.join(', ')}) (${expr})` : `sum(${expr})`;
}

/** `max by (labels) (<expr>)`. */
export function maxBy(by: readonly string[], expr: string): string {
  return `max by (${by.join(', ')}) (${expr})`;
}

/** The `q` quantile of histogram `metric` (its `_bucket` series) over `by`, from its rate. */
export function histogramQuantile(
  q: number,
  metric: string,
  matchers: readonly Matcher[],
  by: readonly string[],
): string {
  return `histogram_quantile(${q}, ${sum(rate(series(`${metric}_bucket`, matchers)), [...by, 'le'])})`;
}

/** Grafana's `label_values(<selector>, label)` variable query. */
export function labelValues(selector: string, label: string): string {
  return `label_values(${selector}, ${label})`;
}

/** `{{a}} {{b}}`: a legend naming each series by its labels. */
export function legend(labels: readonly string[]): string {
  return labels.map((label) => `{{${label}}}`).join(' ');
}
