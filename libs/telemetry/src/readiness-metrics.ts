import { type Meter } from '@opentelemetry/api';
import { TIME_TO_READY_BUCKETS } from './buckets.js';

/**
 * Steward's per-kind readiness metrics: `steward_resource_ready{kind}`, the number of objects of a
 * kind whose `Ready` condition is `True`, and `steward_time_to_ready_seconds{kind}`, how long
 * objects took from creation to their first `Ready=True`.
 */
export interface ReadinessMetrics {
  /** Sets the number of ready objects of `kind`; it is reported until changed. */
  setReady(kind: string, count: number): void;
  /**
   * Reports the number of ready objects of `kind` by calling `count` at every collection (e.g. a
   * count over the informer cache), replacing any value given to `setReady`. `count` must be cheap
   * and must not throw. Returns a function that stops calling `count`; the series then keeps its
   * last value, as OTel keeps a cumulative series for the life of the process.
   */
  observeReady(kind: string, count: () => number): () => void;
  /** Called once per object, when its `Ready` condition first becomes `True`. */
  becameReady(kind: string, secondsSinceCreation: number): void;
}

/** Records {@link ReadinessMetrics} on `meter`. */
export function readinessMetrics(meter: Meter): ReadinessMetrics {
  const ready = new Map<string, number | (() => number)>();
  const gauge = meter.createObservableGauge('steward_resource_ready', {
    description: 'Number of objects whose Ready condition is True, per kind.',
  });
  gauge.addCallback((result) => {
    for (const [kind, value] of ready) {
      result.observe(typeof value === 'function' ? value() : value, { kind });
    }
  });
  const timeToReady = meter.createHistogram('steward_time_to_ready_seconds', {
    description: 'Seconds from creation of an object to its first Ready=True, per kind.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...TIME_TO_READY_BUCKETS] },
  });
  return {
    setReady(kind, count) {
      ready.set(kind, count);
    },
    observeReady(kind, count) {
      ready.set(kind, count);
      return () => {
        if (ready.get(kind) === count) ready.delete(kind);
      };
    },
    becameReady(kind, secondsSinceCreation) {
      timeToReady.record(secondsSinceCreation, { kind });
    },
  };
}

/** {@link ReadinessMetrics} that records nothing. */
export const noopReadinessMetrics: ReadinessMetrics = {
  setReady: () => undefined,
  observeReady: () => () => undefined,
  becameReady: () => undefined,
};
