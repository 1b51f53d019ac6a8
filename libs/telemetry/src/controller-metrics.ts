import { type Meter } from '@opentelemetry/api';
import { RECONCILE_TIME_BUCKETS } from './buckets.js';
import { type ReconcileResult } from './reconcile-result.js';

const RESULTS: readonly ReconcileResult[] = ['error', 'requeue_after', 'requeue', 'success'];

/**
 * controller-runtime's per-controller metrics (`pkg/internal/controller/metrics`), labelled
 * `controller` with the controller's name. All methods are cheap and synchronous; call them from the
 * worker loop.
 */
export interface ControllerMetrics {
  /**
   * Called once when a controller starts, before its workers run: publishes every counter series at
   * 0 (so `rate()` sees the first reconcile) and sets the worker gauges, as controller-runtime does.
   */
  controllerStarted(controller: string, maxConcurrentReconciles: number): void;
  /**
   * Called after every reconcile with its result and wall-clock duration. `error` also counts in
   * `controller_runtime_reconcile_errors_total`; `terminal` (the user must change something, no
   * retry) additionally counts in `controller_runtime_terminal_reconcile_errors_total`.
   */
  reconcileFinished(
    controller: string,
    result: ReconcileResult,
    seconds: number,
    options?: { terminal?: boolean },
  ): void;
  /** Called whenever the number of workers busy reconciling changes. */
  setActiveWorkers(controller: string, workers: number): void;
  /** Called when the configured maximum of concurrent reconciles is set or changed. */
  setMaxConcurrent(controller: string, max: number): void;
}

/** Records {@link ControllerMetrics} on `meter` (use the one from `createTelemetry`). */
export function controllerMetrics(meter: Meter): ControllerMetrics {
  const total = meter.createCounter('controller_runtime_reconcile_total', {
    description: 'Total number of reconciliations per controller',
  });
  const errors = meter.createCounter('controller_runtime_reconcile_errors_total', {
    description: 'Total number of reconciliation errors per controller',
  });
  const terminalErrors = meter.createCounter('controller_runtime_terminal_reconcile_errors_total', {
    description: 'Total number of terminal reconciliation errors per controller',
  });
  const time = meter.createHistogram('controller_runtime_reconcile_time_seconds', {
    description: 'Length of time per reconciliation per controller',
    unit: 's',
    advice: { explicitBucketBoundaries: [...RECONCILE_TIME_BUCKETS] },
  });
  const maxConcurrent = meter.createGauge('controller_runtime_max_concurrent_reconciles', {
    description: 'Maximum number of concurrent reconciles per controller',
  });
  const activeWorkers = meter.createGauge('controller_runtime_active_workers', {
    description: 'Number of currently used workers per controller',
  });

  return {
    controllerStarted(controller, maxConcurrentReconciles) {
      for (const result of RESULTS) total.add(0, { controller, result });
      errors.add(0, { controller });
      terminalErrors.add(0, { controller });
      maxConcurrent.record(maxConcurrentReconciles, { controller });
      activeWorkers.record(0, { controller });
    },
    reconcileFinished(controller, result, seconds, options) {
      if (result === 'error') {
        if (options?.terminal) terminalErrors.add(1, { controller });
        errors.add(1, { controller });
      }
      total.add(1, { controller, result });
      time.record(seconds, { controller });
    },
    setActiveWorkers(controller, workers) {
      activeWorkers.record(workers, { controller });
    },
    setMaxConcurrent(controller, max) {
      maxConcurrent.record(max, { controller });
    },
  };
}

/** {@link ControllerMetrics} that records nothing, for tests and for running without telemetry. */
export const noopControllerMetrics: ControllerMetrics = {
  controllerStarted: () => undefined,
  reconcileFinished: () => undefined,
  setActiveWorkers: () => undefined,
  setMaxConcurrent: () => undefined,
};
