import {
  DiagLogLevel,
  type Meter,
  type Tracer,
  diag,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import {
  CompositePropagator,
  loggingErrorHandler,
  setGlobalErrorHandler,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  type MetricReader,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { acquireContextManager } from './context-manager.js';
import { diagLogger } from './diag-logger.js';
import { type Logger, type LoggerOptions, createLogger } from './logger.js';
import { type MetricsHandler, prometheusMetricsHandler } from './metrics-handler.js';
import { otlpEndpoints } from './otlp-endpoints.js';
import { type ResourceOptions, stewardResource } from './resource.js';

/** The instrumentation scope of Steward's tracer and meter. */
export const INSTRUMENTATION_SCOPE = 'steward';

/** Options of {@link createTelemetry}. */
export interface TelemetryOptions extends ResourceOptions {
  /**
   * Base URL of an OTLP/HTTP receiver (e.g. `http://otel-collector:4318`); spans and metrics are
   * pushed to `/v1/traces` and `/v1/metrics` under it. Unset: the standard `OTEL_EXPORTER_OTLP_*`
   * variables decide; neither: nothing is pushed and metrics are only scraped.
   */
  readonly otlpEndpoint?: string;
  /** How often metrics are pushed over OTLP; default `OTEL_METRIC_EXPORT_INTERVAL` or 60 s. */
  readonly metricExportIntervalMillis?: number;
  /** Extra span processors, run before the OTLP one (tests use an in-memory exporter). */
  readonly spanProcessors?: readonly SpanProcessor[];
  /** Which spans are recorded; default parent-based always-on, or `OTEL_TRACES_SAMPLER`. */
  readonly sampler?: Sampler;
  /** Options of the logger. */
  readonly log?: LoggerOptions;
  /**
   * Also install the providers, W3C propagators and a diagnostics logger as the OTel globals, for
   * code that reaches for `trace.getTracer()`. Default `true`; the first instance to register wins
   * and unregisters them at shutdown.
   */
  readonly registerGlobal?: boolean;
}

/**
 * A process's telemetry, owned by whoever created it (the app's `main.ts`) and released by
 * {@link Telemetry.shutdown}.
 */
export interface Telemetry {
  readonly meterProvider: MeterProvider;
  readonly tracerProvider: BasicTracerProvider;
  /** The tracer to pass to `withReconcileSpan` / `withChildSpan`. */
  readonly tracer: Tracer;
  /** The meter to pass to the metric recorders; use this one meter for all of them. */
  readonly meter: Meter;
  readonly logger: Logger;
  /** Serves the Prometheus scrape; the manager mounts it on `/metrics` of its own server. */
  readonly metricsHandler: MetricsHandler;
  /**
   * Flushes pending spans and metrics to their exporters, then releases everything: providers,
   * exporters, the context manager and any globals this instance registered. Takes at most about
   * the OTLP timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`, default 10 s) when a receiver is unreachable.
   * Idempotent; never rejects — failures are logged. Afterwards `metricsHandler` answers 503.
   */
  shutdown(): Promise<void>;
}

/**
 * Creates tracing, metrics and logging for one controller process: a tracer provider whose active
 * span follows `await`s (AsyncLocalStorage), a meter provider read by Prometheus scrapes through
 * `metricsHandler` (no server of its own), OTLP/HTTP export of both when configured, and a pino
 * logger that stamps lines with the active trace and span ids.
 */
export function createTelemetry(options: TelemetryOptions): Telemetry {
  const logger = createLogger(options.log);
  const resource = stewardResource(options);
  const endpoints = otlpEndpoints(options.otlpEndpoint, process.env);

  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  if (endpoints.metrics) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: endpoints.metrics }),
        exportIntervalMillis: options.metricExportIntervalMillis ?? metricExportInterval(),
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });

  const spanProcessors = [...(options.spanProcessors ?? [])];
  if (endpoints.traces) {
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoints.traces })));
  }
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors,
    ...(options.sampler ? { sampler: options.sampler } : {}),
  });

  const releaseContext = acquireContextManager();
  const releaseGlobals =
    options.registerGlobal === false
      ? () => undefined
      : registerGlobals(tracerProvider, meterProvider, logger);

  const metricsHandler = prometheusMetricsHandler(prometheus, (errors) =>
    logger.warn({ errors }, 'telemetry: metric collection reported errors'),
  );

  let shutdown: Promise<void> | undefined;
  return {
    meterProvider,
    tracerProvider,
    tracer: tracerProvider.getTracer(INSTRUMENTATION_SCOPE),
    meter: meterProvider.getMeter(INSTRUMENTATION_SCOPE),
    logger,
    metricsHandler,
    shutdown: () =>
      (shutdown ??= (async () => {
        const results = await Promise.allSettled([
          tracerProvider.shutdown(),
          meterProvider.shutdown(),
        ]);
        releaseGlobals();
        releaseContext();
        for (const result of results) {
          if (result.status === 'rejected') {
            logger.warn({ err: result.reason }, 'telemetry: shutdown failed');
          }
        }
        logger.flush();
      })()),
  };
}

function metricExportInterval(): number {
  const fromEnv = Number(process.env['OTEL_METRIC_EXPORT_INTERVAL']);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 60_000;
}

/**
 * Registers what is still free among the OTel globals (tracer provider, and with it diagnostics,
 * the SDK's error handler and propagators; meter provider); returns the release of exactly those.
 */
function registerGlobals(
  tracerProvider: BasicTracerProvider,
  meterProvider: MeterProvider,
  logger: Logger,
): () => void {
  const releases: (() => void)[] = [];
  if (trace.setGlobalTracerProvider(tracerProvider)) {
    releases.push(() => trace.disable());
    diag.setLogger(diagLogger(logger), {
      logLevel: DiagLogLevel.WARN,
      suppressOverrideMessage: true,
    });
    releases.push(() => diag.disable());
    // The SDK reports failed exports here; by default they reach diag as a JSON-encoded string.
    setGlobalErrorHandler((err) => logger.error({ err }, 'opentelemetry: export failed'));
    releases.push(() => setGlobalErrorHandler(loggingErrorHandler()));
    const propagator = new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    });
    if (propagation.setGlobalPropagator(propagator)) releases.push(() => propagation.disable());
  }
  if (metrics.setGlobalMeterProvider(meterProvider)) releases.push(() => metrics.disable());
  return () => {
    for (const release of releases.splice(0)) release();
  };
}
