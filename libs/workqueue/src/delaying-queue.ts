import { type Clock, MAX_TIMER_DELAY_MS, realClock, type Timer } from './clock.js';
import { type CounterLike, newRetriesMetric, noopMetricsProvider } from './metrics.js';
import {
  type AddOptions,
  type GetResult,
  newWorkQueue,
  priorityOf,
  type QueueOptions,
  type WorkQueue,
} from './queue.js';
import { WaitingHeap } from './waiting-heap.js';

/**
 * A {@link WorkQueue} that can add an item later (client-go's `DelayingInterface`), so failures are
 * retried without a hot loop.
 */
export interface DelayingQueue extends WorkQueue {
  /**
   * Adds `item` once `delayMs` milliseconds have passed; a delay of 0 or less (or NaN) adds it at
   * once. While an item is scheduled, scheduling it again keeps the earlier ready time. Items leave
   * in order of ready time (equal times: first scheduled first). The priority travels with the
   * item: it is added with `options.priority` when ready — with the highest priority any of its
   * schedules asked for, if it was scheduled again. Ignored after shut-down, which also drops
   * every scheduled item. Counts one retry in the queue's metrics.
   */
  addAfter(item: string, delayMs: number, options?: AddOptions): void;
}

/** Options of {@link newDelayingQueue}. */
export interface DelayingQueueOptions extends QueueOptions {
  /** The queue to decorate; by default a new {@link WorkQueue} with the same options. */
  queue?: WorkQueue;
}

/** Creates a {@link DelayingQueue}. */
export function newDelayingQueue(options: DelayingQueueOptions = {}): DelayingQueue {
  return new DelayingQueueImpl(
    options.queue ?? newWorkQueue(options),
    options.clock ?? realClock,
    newRetriesMetric(options.name ?? '', options.metricsProvider ?? noopMetricsProvider),
  );
}

class DelayingQueueImpl implements DelayingQueue {
  private readonly waiting = new WaitingHeap();
  /** The one timer, armed for the head of `waiting`; fires no later than `timerAt`. */
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private readonly onTimer = (): void => this.addReady();

  constructor(
    private readonly queue: WorkQueue,
    private readonly clock: Clock,
    private readonly retries: CounterLike,
  ) {}

  add(item: string, options?: AddOptions): void {
    this.queue.add(item, options);
  }

  len(): number {
    return this.queue.len();
  }

  get(): Promise<GetResult> {
    return this.queue.get();
  }

  tryGet(): string | undefined {
    return this.queue.tryGet();
  }

  processingPriority(item: string): number | undefined {
    return this.queue.processingPriority(item);
  }

  done(item: string): void {
    this.queue.done(item);
  }

  shutDown(): void {
    this.stopWaiting();
    this.queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    this.stopWaiting();
    return this.queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.queue.shuttingDown();
  }

  addAfter(item: string, delayMs: number, options?: AddOptions): void {
    if (this.queue.shuttingDown()) return;
    this.retries.inc();
    if (!(delayMs > 0)) {
      this.queue.add(item, options);
      return;
    }
    this.waiting.schedule(item, this.clock.now() + delayMs, priorityOf(options));
    this.arm();
  }

  /** Moves every item whose time has come into the queue, then re-arms for the next one. */
  private addReady(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.queue.shuttingDown()) {
      this.stopWaiting();
      return;
    }
    const now = this.clock.now();
    for (let head = this.waiting.peek(); head !== undefined && head.readyAt <= now;) {
      this.waiting.pop();
      this.queue.add(head.item, { priority: head.priority });
      head = this.waiting.peek();
    }
    this.arm();
  }

  private arm(): void {
    const head = this.waiting.peek();
    if (head === undefined || head.readyAt >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = head.readyAt;
    // A clamped timer fires early; `addReady` finds nothing ready yet and re-arms.
    const delay = Math.min(head.readyAt - this.clock.now(), MAX_TIMER_DELAY_MS);
    this.timer = this.clock.setTimer(this.onTimer, delay);
  }

  private stopWaiting(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.waiting.clear();
  }
}
