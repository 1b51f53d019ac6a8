/**
 * @steward/telemetry — OpenTelemetry for Steward's controllers: metrics, traces and logs, with the
 * names existing controller-runtime dashboards expect.
 *
 * Contract:
 * - `createTelemetry(options)` returns an owned {@link Telemetry}: tracer and meter providers, one
 *   `tracer`, one `meter`, a pino `logger`, and `metricsHandler(req, res)`, a `node:http` handler
 *   serving the Prometheus text format that the manager mounts on `/metrics` of its own server.
 *   Spans and metrics are also pushed over OTLP/HTTP when `otlpEndpoint` or the standard
 *   `OTEL_EXPORTER_OTLP_*` variables say where. `shutdown()` flushes and releases all of it.
 * - Metric recorders take that `meter`; each writes controller-runtime's / client-go's metric
 *   names, label names, types and buckets exactly (`controller_runtime_reconcile_total{controller,
 *   result}`, `workqueue_depth{controller,name}`, `rest_client_requests_total{code,host,method}`,
 *   …) plus Steward's `steward_*`. Record through one meter only: the scrape has no scope label to
 *   tell two meters' same-named metrics apart. Each recorder interface has a no-op.
 * - `withReconcileSpan` runs a reconcile in a root span `reconcile <kind>` carrying
 *   `k8s.resource.kind/namespace/name`, `controller` and `reconcile.result`; `withChildSpan` nests
 *   API and external calls under it. Both record a thrown error on the span and rethrow it.
 * - Log lines are JSON, carry `trace_id`/`span_id` of the active span, and never contain values
 *   under sensitive keys (passwords, tokens, authorization headers, Secret data).
 */
export {
  createTelemetry,
  INSTRUMENTATION_SCOPE,
  type Telemetry,
  type TelemetryOptions,
} from './telemetry.js';
export { type ResourceOptions } from './resource.js';
export { otlpEndpoints, type OtlpEndpoints } from './otlp-endpoints.js';
export {
  prometheusMetricsHandler,
  PROMETHEUS_TEXT_CONTENT_TYPE,
  type MetricsHandler,
} from './metrics-handler.js';

export {
  exponentialBuckets,
  RECONCILE_TIME_BUCKETS,
  TIME_TO_READY_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
} from './buckets.js';
export {
  reconcileResultOf,
  type ReconcileOutcome,
  type ReconcileResult,
} from './reconcile-result.js';
export {
  controllerMetrics,
  noopControllerMetrics,
  type ControllerMetrics,
} from './controller-metrics.js';
export {
  noopWorkqueueMetricsProvider,
  workqueueMetricsProvider,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type SettableGaugeMetric,
  type WorkqueueMetricsProvider,
} from './workqueue-metrics.js';
export {
  noopRestClientMetrics,
  restClientMetrics,
  type RestClientMetrics,
} from './rest-client-metrics.js';
export {
  leaderElectionMetrics,
  noopLeaderElectionMetrics,
  type LeaderElectionMetrics,
} from './leader-election-metrics.js';
export {
  externalCall,
  externalMetrics,
  noopExternalMetrics,
  type ExternalMetrics,
  type ExternalRequestResult,
} from './external-metrics.js';
export {
  noopReadinessMetrics,
  readinessMetrics,
  type ReadinessMetrics,
} from './readiness-metrics.js';

export {
  aggregateByNamespace,
  namespaceGauges,
  noopNamespaceGauges,
  type NamespaceGauge,
  type NamespaceGauges,
} from './namespace-gauges.js';
export {
  noopObjectHealthMetrics,
  objectHealthGauges,
  objectHealthMetrics,
  type ObjectHealthFacts,
  type ObjectHealthMetrics,
} from './object-health-metrics.js';

export { withReconcileSpan, type ReconcileTarget } from './reconcile-span.js';
export { withChildSpan, type ChildSpanOptions } from './child-span.js';
export { recordSpanError } from './span-error.js';

export {
  controllerLogger,
  createLogger,
  reconcileLogger,
  type Logger,
  type LoggerOptions,
} from './logger.js';
export { REDACTED, REDACTED_KEYS, redactSecrets } from './redaction.js';
