import { type Meter } from '@opentelemetry/api';
import { WORKQUEUE_DURATION_BUCKETS } from './buckets.js';

/** A gauge the queue moves by one: its depth. */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A monotonic count: adds, retries. */
export interface CounterMetric {
  inc(): void;
}

/** A distribution of durations in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/** A gauge the queue sets outright, in seconds. */
export interface SettableGaugeMetric {
  set(value: number): void;
}

/**
 * client-go's `workqueue.MetricsProvider`, in the shape `@steward/workqueue` declares it (matched
 * structurally; this lib does not import the workqueue). The queue calls each factory once, when it
 * is created, with its name, and then updates the returned metric as items move.
 */
export interface WorkqueueMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
}

/**
 * A {@link WorkqueueMetricsProvider} recording controller-runtime's `workqueue_*` metrics, labelled
 * `name` (the queue's name) and `controller`. controller-runtime names each queue after its
 * controller, so the two labels usually carry the same value. Several providers on one meter share
 * the same instruments.
 */
export function workqueueMetricsProvider(
  meter: Meter,
  controller: string,
): WorkqueueMetricsProvider {
  const depth = meter.createUpDownCounter('workqueue_depth', {
    description: 'Current depth of workqueue',
  });
  const adds = meter.createCounter('workqueue_adds_total', {
    description: 'Total number of adds handled by workqueue',
  });
  const latency = meter.createHistogram('workqueue_queue_duration_seconds', {
    description: 'How long in seconds an item stays in workqueue before being requested',
    unit: 's',
    advice: { explicitBucketBoundaries: [...WORKQUEUE_DURATION_BUCKETS] },
  });
  const workDuration = meter.createHistogram('workqueue_work_duration_seconds', {
    description: 'How long in seconds processing an item from workqueue takes.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...WORKQUEUE_DURATION_BUCKETS] },
  });
  const unfinished = meter.createGauge('workqueue_unfinished_work_seconds', {
    description:
      "How many seconds of work has been done that is in progress and hasn't been observed by " +
      'work_duration. Large values indicate stuck threads. One can deduce the number of stuck ' +
      'threads by observing the rate at which this increases.',
    unit: 's',
  });
  const longestRunning = meter.createGauge('workqueue_longest_running_processor_seconds', {
    description: 'How many seconds has the longest running processor for workqueue been running.',
    unit: 's',
  });
  const retries = meter.createCounter('workqueue_retries_total', {
    description: 'Total number of retries handled by workqueue',
  });

  // Like a Go client's `WithLabelValues`, creating a queue's metric publishes its series at 0;
  // histograms are the exception, as OTel has no way to create a series without a measurement.
  const labels = (name: string) => ({ controller, name });
  return {
    newDepthMetric(name) {
      const attributes = labels(name);
      depth.add(0, attributes);
      return { inc: () => depth.add(1, attributes), dec: () => depth.add(-1, attributes) };
    },
    newAddsMetric(name) {
      const attributes = labels(name);
      adds.add(0, attributes);
      return { inc: () => adds.add(1, attributes) };
    },
    newLatencyMetric(name) {
      const attributes = labels(name);
      return { observe: (seconds) => latency.record(seconds, attributes) };
    },
    newWorkDurationMetric(name) {
      const attributes = labels(name);
      return { observe: (seconds) => workDuration.record(seconds, attributes) };
    },
    newUnfinishedWorkSecondsMetric(name) {
      const attributes = labels(name);
      unfinished.record(0, attributes);
      return { set: (value) => unfinished.record(value, attributes) };
    },
    newLongestRunningProcessorSecondsMetric(name) {
      const attributes = labels(name);
      longestRunning.record(0, attributes);
      return { set: (value) => longestRunning.record(value, attributes) };
    },
    newRetriesMetric(name) {
      const attributes = labels(name);
      retries.add(0, attributes);
      return { inc: () => retries.add(1, attributes) };
    },
  };
}

const noop = () => undefined;

/** A {@link WorkqueueMetricsProvider} whose metrics record nothing. */
export const noopWorkqueueMetricsProvider: WorkqueueMetricsProvider = {
  newDepthMetric: () => ({ inc: noop, dec: noop }),
  newAddsMetric: () => ({ inc: noop }),
  newLatencyMetric: () => ({ observe: noop }),
  newWorkDurationMetric: () => ({ observe: noop }),
  newUnfinishedWorkSecondsMetric: () => ({ set: noop }),
  newLongestRunningProcessorSecondsMetric: () => ({ set: noop }),
  newRetriesMetric: () => ({ inc: noop }),
};
