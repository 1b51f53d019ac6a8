import { type Clock, type Timer } from './clock.js';

/** A gauge that moves by one (`workqueue_depth`). */
export interface GaugeLike {
  inc(): void;
  dec(): void;
}

/** A monotonic counter (`workqueue_adds_total`, `workqueue_retries_total`). */
export interface CounterLike {
  inc(): void;
}

/** A distribution of observations, in seconds (`workqueue_queue_duration_seconds`, …). */
export interface HistogramLike {
  observe(value: number): void;
}

/** A gauge set to an absolute value (`workqueue_unfinished_work_seconds`, …). */
export interface SettableGaugeLike {
  set(value: number): void;
}

/**
 * Where a queue's metrics go: client-go's `MetricsProvider`. Each method is called once per named
 * queue, when the queue is created, with the queue's name (the `name` label); the returned
 * instruments are then updated from the queue's operations and must not throw. The shapes are
 * plain structural types so a telemetry library can implement them without importing this one.
 */
export interface WorkqueueMetricsProvider {
  /** Items waiting to be handed out: +1 per accepted add, −1 per hand-out. */
  newDepthMetric(name: string): GaugeLike;
  /** Accepted adds (an add of an item already waiting is not counted). */
  newAddsMetric(name: string): CounterLike;
  /** Seconds an item waited between its first accepted add and its hand-out. */
  newLatencyMetric(name: string): HistogramLike;
  /** Seconds between an item's hand-out and its `done`. */
  newWorkDurationMetric(name: string): HistogramLike;
  /** Sum of the ages of the items being processed, set every 500 ms (catches stuck workers). */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeLike;
  /** Age of the longest-running item being processed, set every 500 ms. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeLike;
  /** Delayed adds (`addAfter`, hence every `addRateLimited`) accepted by a delaying queue. */
  newRetriesMetric(name: string): CounterLike;
}

const noopInstrument: GaugeLike & CounterLike & HistogramLike & SettableGaugeLike = {
  inc() {},
  dec() {},
  observe() {},
  set() {},
};

/** Records nothing. The default; queues given it skip all metric bookkeeping. */
export const noopMetricsProvider: WorkqueueMetricsProvider = {
  newDepthMetric: () => noopInstrument,
  newAddsMetric: () => noopInstrument,
  newLatencyMetric: () => noopInstrument,
  newWorkDurationMetric: () => noopInstrument,
  newUnfinishedWorkSecondsMetric: () => noopInstrument,
  newLongestRunningProcessorSecondsMetric: () => noopInstrument,
  newRetriesMetric: () => noopInstrument,
};

/** How often the unfinished-work gauges are refreshed (client-go's default). */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/**
 * The queue's side of the metrics (client-go's `queueMetrics`): called at the exact points where
 * client-go calls it. Internal.
 */
export interface QueueMetrics {
  /** An item became dirty (accepted add). */
  add(item: string): void;
  /** An item was handed out. */
  get(item: string): void;
  /** An item handed out was marked done. */
  done(item: string): void;
  /** Refreshes the unfinished-work gauges; returns a timer to stop, or undefined if none runs. */
  startUnfinishedWorkUpdates(isShuttingDown: () => boolean): Timer | undefined;
}

const noQueueMetrics: QueueMetrics = {
  add() {},
  get() {},
  done() {},
  startUnfinishedWorkUpdates: () => undefined,
};

class DefaultQueueMetrics implements QueueMetrics {
  private readonly depth: GaugeLike;
  private readonly adds: CounterLike;
  private readonly latency: HistogramLike;
  private readonly workDuration: HistogramLike;
  private readonly unfinishedWorkSeconds: SettableGaugeLike;
  private readonly longestRunningProcessor: SettableGaugeLike;
  private readonly addTimes = new Map<string, number>();
  private readonly processingStartTimes = new Map<string, number>();

  constructor(
    name: string,
    provider: WorkqueueMetricsProvider,
    private readonly clock: Clock,
  ) {
    this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  add(item: string): void {
    this.adds.inc();
    this.depth.inc();
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
  }

  get(item: string): void {
    const now = this.clock.now();
    this.depth.dec();
    this.processingStartTimes.set(item, now);
    const addedAt = this.addTimes.get(item);
    if (addedAt !== undefined) {
      this.latency.observe((now - addedAt) / 1000);
      this.addTimes.delete(item);
    }
  }

  done(item: string): void {
    const startedAt = this.processingStartTimes.get(item);
    if (startedAt !== undefined) {
      this.workDuration.observe((this.clock.now() - startedAt) / 1000);
      this.processingStartTimes.delete(item);
    }
  }

  startUnfinishedWorkUpdates(isShuttingDown: () => boolean): Timer | undefined {
    // One re-armed timer rather than an interval, so a fake clock can drive it; unref'd so that
    // metrics alone never keep a process alive. Stops itself once the queue shuts down.
    let timer: Timer | undefined;
    const tick = (): void => {
      if (isShuttingDown()) return;
      this.updateUnfinishedWork();
      arm();
    };
    const arm = (): void => {
      timer = this.clock.setTimer(tick, UNFINISHED_WORK_UPDATE_PERIOD_MS);
      timer.unref?.();
    };
    arm();
    return { cancel: () => timer?.cancel() };
  }

  private updateUnfinishedWork(): void {
    const now = this.clock.now();
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.processingStartTimes.values()) {
      const age = (now - startedAt) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }
}

/** Metrics for a queue: none unless the queue is named and the provider is not the no-op. */
export function newQueueMetrics(
  name: string,
  provider: WorkqueueMetricsProvider,
  clock: Clock,
): QueueMetrics {
  if (name === '' || provider === noopMetricsProvider) return noQueueMetrics;
  return new DefaultQueueMetrics(name, provider, clock);
}

/** The retries counter of a delaying queue: a no-op unless the queue is named. */
export function newRetriesMetric(name: string, provider: WorkqueueMetricsProvider): CounterLike {
  if (name === '' || provider === noopMetricsProvider) return noopInstrument;
  return provider.newRetriesMetric(name);
}
