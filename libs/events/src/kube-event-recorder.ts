import { hostname } from 'node:os';
import {
  Events,
  isAlreadyExists,
  isConnectionError,
  isNotFound,
  isServerError,
  isTooManyRequests,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { EventRecordingError, type DropCause } from './errors.js';
import { eventName } from './event-name.js';
import { type EventRecorder, type EventType, type RecordedEvent } from './event-recorder.js';
import { formatMicroTime } from './micro-time.js';
import { truncate, truncateNote } from './note.js';
import { objectKey, referenceTo, type Regarding } from './object-reference.js';
import { SeriesCache, type EventSeries } from './series-cache.js';
import { SpamFilter, type SpamFilterOptions } from './spam-filter.js';
import { WriteQueue } from './write-queue.js';

/** What the recorder needs of a `KubeClient`: create an Event, merge-patch its series. */
export type EventSink = Pick<KubeClient, 'create' | 'mergePatch'>;

export interface KubeEventRecorderOptions {
  /**
   * The controller's name, written as `reportingController`: a qualified name such as
   * `steward.dev/postgres-cluster-controller`.
   */
  reportingController: string;
  /** This process's identity, written as `reportingInstance` (≤ 128 characters). Default: the host name — the pod name in a pod. */
  reportingInstance?: string;
  /** The `action` of calls that give none (the API requires one). Default `Reconcile`. */
  defaultAction?: string;
  /** Hears about every write that failed for good. Exceptions it throws are ignored. */
  onError?: (error: EventRecordingError) => void;
  /** Hears about every Event not written at all, and why. Exceptions it throws are ignored. */
  onDrop?: (event: RecordedEvent, cause: DropCause) => void;
  /** Writes that may wait at once (creates, series updates and retries). Default 1000. */
  maxQueueLength?: number;
  /** A repeat this long after the previous one starts a new Event. Default 360 000 (6 min, client-go's). */
  seriesWindowMs?: number;
  /** A series count is written at most this often per Event (and on `flush`). Default 10 000. */
  seriesUpdateIntervalMs?: number;
  /** Open series remembered at once; the least recently observed is forgotten first. Default 4096. */
  maxSeries?: number;
  /** The per-object token bucket for new Events. */
  spamFilter?: SpamFilterOptions;
  /** Retries of a write that failed transiently (connection, 5xx, 429). Default 3. */
  maxRetries?: number;
  /** Delay before the first retry, doubled for each next one. Default 1000. */
  retryDelayMs?: number;
  /** Wall-clock time in epoch ms, for `eventTime` and the windows. Default `Date.now`. */
  now?: () => number;
}

interface Write {
  kind: 'create' | 'update';
  series: EventSeries;
  attempt: number;
}

const qualifiedName =
  /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Writes `events.k8s.io/v1` Events through a `KubeClient`, with client-go's aggregation and spam
 * filter; see the package doc for the contract. Own one per controller process: call `shutdown()`
 * on exit so the last counts are written.
 */
export class KubeEventRecorder implements EventRecorder {
  private readonly reportingController: string;
  private readonly reportingInstance: string;
  private readonly defaultAction: string;
  private readonly onError: KubeEventRecorderOptions['onError'];
  private readonly onDrop: KubeEventRecorderOptions['onDrop'];
  private readonly seriesUpdateIntervalMs: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;
  private readonly now: () => number;
  private readonly cache: SeriesCache;
  private readonly spam: SpamFilter;
  private readonly queue: WriteQueue<Write>;
  /** Series with a timer for a later update (possibly no longer in the cache). */
  private readonly scheduled = new Set<EventSeries>();
  private flushing = 0;
  private closed = false;

  /** Throws a `TypeError` for a `reportingController` that is not a qualified name. */
  constructor(
    private readonly sink: EventSink,
    options: KubeEventRecorderOptions,
  ) {
    if (!qualifiedName.test(options.reportingController)) {
      throw new TypeError(
        `steward/events: reportingController must be a qualified name such as "steward.dev/my-controller", got "${options.reportingController}"`,
      );
    }
    this.reportingController = options.reportingController;
    this.reportingInstance = truncate(options.reportingInstance || hostname() || 'unknown', 128);
    this.defaultAction = options.defaultAction ?? 'Reconcile';
    this.onError = options.onError;
    this.onDrop = options.onDrop;
    this.seriesUpdateIntervalMs = Math.max(0, options.seriesUpdateIntervalMs ?? 10_000);
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 1000);
    this.now = options.now ?? Date.now;
    this.cache = new SeriesCache(
      Math.max(0, options.seriesWindowMs ?? 360_000),
      Math.max(1, options.maxSeries ?? 4096),
    );
    this.spam = new SpamFilter(options.spamFilter);
    this.queue = new WriteQueue(Math.max(1, options.maxQueueLength ?? 1000), (write) =>
      this.execute(write),
    );
  }

  event(
    regarding: Regarding,
    type: EventType,
    reason: string,
    message: string,
    action?: string,
  ): void {
    try {
      this.observe(regarding, type, reason, message, action);
    } catch (error) {
      // Recording must never fail the caller; a bug here is reported like a failed write.
      try {
        const event = { regarding: referenceTo(regarding), type, reason, message };
        this.report(new EventRecordingError('create', '', '', event, { cause: error }));
      } catch {
        // Not even the report could be built (e.g. `regarding` is not an object): stay silent.
      }
    }
  }

  /**
   * Writes every pending series count now (not waiting for the update interval), retries waiting
   * writes at once, and resolves when the queue is empty. Never rejects; failures go to `onError`.
   */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      for (const series of [...this.scheduled]) {
        clearTimeout(series.timer);
        series.timer = undefined;
        this.scheduled.delete(series);
        this.enqueueUpdate(series);
      }
      this.queue.expedite();
      await this.queue.idle();
    } finally {
      this.flushing--;
    }
  }

  /** Stops accepting Events (later ones are dropped as `ShutDown`), then `flush()`es. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  private observe(
    regarding: Regarding,
    type: EventType,
    reason: string,
    message: string,
    action: string | undefined,
  ): void {
    const recorded: RecordedEvent = {
      regarding: referenceTo(regarding),
      type,
      reason: truncate(reason, 128),
      message: truncateNote(message),
      action: truncate(action || this.defaultAction, 128),
    };
    if (this.closed) {
      this.drop(recorded, 'ShutDown');
      return;
    }
    const now = this.now();
    const object = objectKey(recorded.regarding);
    const key = JSON.stringify([object, type, recorded.reason, recorded.message, recorded.action]);
    const open = this.cache.get(key, now);
    if (open) {
      open.count++;
      open.lastObservedAt = now;
      if (open.state === 'created') this.scheduleUpdate(open);
      return;
    }
    if (!this.spam.allow(object, now)) {
      this.drop(recorded, 'SpamFiltered');
      return;
    }
    const series: EventSeries = {
      key,
      recorded,
      namespace: recorded.regarding.namespace || 'default',
      firstObservedAt: now,
      name: eventName(recorded.regarding.name),
      count: 1,
      lastObservedAt: now,
      state: 'pending',
      writtenCount: 0,
      lastWriteAt: now,
      queued: false,
      timer: undefined,
    };
    if (!this.queue.push({ kind: 'create', series, attempt: 0 })) {
      this.drop(recorded, 'QueueFull');
      return;
    }
    this.cache.set(series);
  }

  /** Queues a series update now, or at `lastWriteAt + seriesUpdateIntervalMs` (now while flushing). */
  private scheduleUpdate(series: EventSeries): void {
    if (series.queued || series.timer) return;
    const delay = this.flushing ? 0 : series.lastWriteAt + this.seriesUpdateIntervalMs - this.now();
    if (delay <= 0) {
      this.enqueueUpdate(series);
      return;
    }
    series.timer = setTimeout(() => {
      series.timer = undefined;
      this.scheduled.delete(series);
      this.enqueueUpdate(series);
    }, delay);
    series.timer.unref();
    this.scheduled.add(series);
  }

  private enqueueUpdate(series: EventSeries): void {
    if (series.queued || series.state !== 'created' || series.count <= series.writtenCount) return;
    series.queued = true;
    if (!this.queue.push({ kind: 'update', series, attempt: 0 })) {
      series.queued = false;
      this.drop(series.recorded, 'QueueFull');
    }
  }

  private async execute(write: Write): Promise<void> {
    if (write.kind === 'create') await this.create(write);
    else await this.update(write);
  }

  private async create(write: Write): Promise<void> {
    const { series } = write;
    const count = series.count;
    try {
      await this.sink.create(Events, this.eventBody(series, count));
    } catch (error) {
      // A retried create that finds its own name taken had succeeded the first time.
      if (!(write.attempt > 0 && isAlreadyExists(error))) {
        this.fail(write, error);
        return;
      }
    }
    series.state = 'created';
    series.writtenCount = count;
    series.lastWriteAt = this.now();
    if (series.count > count) this.scheduleUpdate(series);
  }

  private async update(write: Write): Promise<void> {
    const { series } = write;
    series.queued = false;
    if (series.state !== 'created' || series.count <= series.writtenCount) return;
    const count = series.count;
    try {
      await this.sink.mergePatch(Events, series.name, series.namespace, {
        series: { count, lastObservedTime: formatMicroTime(series.lastObservedAt) },
      });
    } catch (error) {
      if (isNotFound(error)) {
        // The Event expired (the API server's event TTL) or was deleted: start it again, with
        // the count so far, under a new name.
        series.state = 'pending';
        series.name = eventName(series.recorded.regarding.name);
        if (!this.queue.push({ kind: 'create', series, attempt: 0 })) {
          this.cache.delete(series);
          this.drop(series.recorded, 'QueueFull');
        }
        return;
      }
      this.fail(write, error);
      return;
    }
    series.writtenCount = count;
    series.lastWriteAt = this.now();
    if (series.count > count) this.scheduleUpdate(series);
  }

  /** Retries a transient failure later; otherwise gives up and reports it. */
  private fail(write: Write, error: unknown): void {
    const { series } = write;
    if (write.attempt < this.maxRetries && isTransient(error)) {
      const retry = { ...write, attempt: write.attempt + 1 };
      const delay = this.flushing ? 0 : this.retryDelayMs * 2 ** write.attempt;
      if (write.kind === 'update') series.queued = true;
      if (delay === 0 ? this.queue.push(retry) : this.queue.pushAfter(retry, delay)) return;
      series.queued = false;
    }
    // A series whose Event was never created is forgotten, so a repeat tries a fresh create.
    if (write.kind === 'create') this.cache.delete(series);
    this.report(
      new EventRecordingError(write.kind, series.namespace, series.name, series.recorded, {
        cause: error,
      }),
    );
  }

  private eventBody(series: EventSeries, count: number): KubeObject & Record<string, unknown> {
    const { recorded } = series;
    const body: KubeObject & Record<string, unknown> = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: series.name, namespace: series.namespace },
      eventTime: formatMicroTime(series.firstObservedAt),
      reportingController: this.reportingController,
      reportingInstance: this.reportingInstance,
      action: recorded.action,
      reason: recorded.reason,
      regarding: recorded.regarding,
      note: recorded.message,
      type: recorded.type,
    };
    if (count > 1) {
      body.series = { count, lastObservedTime: formatMicroTime(series.lastObservedAt) };
    }
    return body;
  }

  private drop(event: RecordedEvent, cause: DropCause): void {
    try {
      this.onDrop?.(event, cause);
    } catch {
      // A hook must never break recording.
    }
  }

  private report(error: EventRecordingError): void {
    try {
      this.onError?.(error);
    } catch {
      // A hook must never break recording.
    }
  }
}

function isTransient(error: unknown): boolean {
  return isConnectionError(error) || isServerError(error) || isTooManyRequests(error);
}
