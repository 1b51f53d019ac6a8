import { type Clock, realClock, type Timer } from './clock.js';
import {
  newQueueMetrics,
  noopMetricsProvider,
  type QueueMetrics,
  type WorkqueueMetricsProvider,
} from './metrics.js';
import { RingBuffer } from './ring-buffer.js';

/** What {@link WorkQueue.get} resolves to: an item to process, or the order to stop. */
export type GetResult = { item: string; shutdown: false } | { shutdown: true };

/**
 * A fair, stingy work queue of string keys (client-go's `workqueue.Interface`).
 *
 * - Stingy: an item added any number of times before it is handed out is handed out once.
 * - Exclusive: an item handed out is not handed out again until `done(item)`.
 * - Not lossy: an item added while it is being processed is handed out once more after `done`.
 * - Fair: items are handed out in the order they were first added (an add of an item already
 *   waiting keeps its place), and waiting `get()` callers are served in the order they called.
 */
export interface WorkQueue {
  /**
   * Marks `item` as needing processing. Ignored while it already waits, and after shut-down.
   * If it is being processed, it is queued again when `done(item)` is called. Idempotent until
   * the item is handed out.
   */
  add(item: string): void;
  /** Number of items waiting to be handed out (not counting those being processed). */
  len(): number;
  /**
   * Hands out the oldest waiting item, waiting for one while the queue is empty. The caller owns
   * the item until it calls `done(item)`. Resolves `{ shutdown: true }` once the queue is shut down
   * and empty: the caller's worker loop should then end. Items still waiting when `shutDown` is
   * called are handed out first.
   */
  get(): Promise<GetResult>;
  /**
   * The synchronous fast path of `get`: the oldest waiting item (now owned by the caller, who must
   * call `done`), or `undefined` if none waits. Never waits and allocates nothing.
   */
  tryGet(): string | undefined;
  /**
   * Ends the processing of `item`, handed out by `get`/`tryGet`. If it was added again meanwhile,
   * it goes to the back of the queue. A call for an item not being processed is ignored.
   */
  done(item: string): void;
  /**
   * Stops accepting items and resolves every waiting `get` with `{ shutdown: true }`; items
   * already waiting are still handed out. Cancels a pending `shutDownWithDrain` wait. Idempotent.
   */
  shutDown(): void;
  /**
   * Like `shutDown`, then resolves once no item is being processed (every item handed out is
   * `done`). Workers must keep calling `get` and `done` until told to stop, or this never resolves;
   * a later `shutDown()` resolves it at once.
   */
  shutDownWithDrain(): Promise<void>;
  /** Whether `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean;
}

/** Options shared by every queue constructor. */
export interface QueueOptions {
  /** The `name` label of the queue's metrics. An unnamed queue records no metrics. */
  name?: string;
  /** Time source for metrics and delays; the real clock by default. */
  clock?: Clock;
  /** Where metrics go; nothing is recorded by default. */
  metricsProvider?: WorkqueueMetricsProvider;
}

const SHUTDOWN: GetResult = Object.freeze({ shutdown: true });

/** Creates a {@link WorkQueue}. */
export function newWorkQueue(options: QueueOptions = {}): WorkQueue {
  return new Queue(options);
}

class Queue implements WorkQueue {
  /** Order of hand-out. Every element is in `dirty` and not in `processing`; no duplicates. */
  private readonly queue = new RingBuffer<string>(64);
  /** Items that need processing (waiting, or added again while being processed). */
  private readonly dirty = new Set<string>();
  /** Items handed out and not yet done. May also be in `dirty`. */
  private readonly processing = new Set<string>();
  /** Pending `get` calls, oldest first. Non-empty only while `queue` is empty. */
  private readonly waiters = new RingBuffer<(result: GetResult) => void>();
  /** Pending `shutDownWithDrain` calls; released when `processing` empties or by `shutDown`. */
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private readonly metrics: QueueMetrics;
  private readonly metricsTimer: Timer | undefined;

  constructor(options: QueueOptions) {
    this.metrics = newQueueMetrics(
      options.name ?? '',
      options.metricsProvider ?? noopMetricsProvider,
      options.clock ?? realClock,
    );
    this.metricsTimer = this.metrics.startUnfinishedWorkUpdates(() => this.isShuttingDown);
  }

  add(item: string): void {
    if (this.isShuttingDown || this.dirty.has(item)) return;
    this.metrics.add(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  len(): number {
    return this.queue.length;
  }

  get(): Promise<GetResult> {
    // A Promise is unavoidable here; `tryGet` is the allocation-free path.
    if (this.queue.length > 0) {
      return Promise.resolve({ item: this.handOut(this.queue.shift() as string), shutdown: false });
    }
    if (this.isShuttingDown) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  tryGet(): string | undefined {
    if (this.queue.length === 0) return undefined;
    return this.handOut(this.queue.shift() as string);
  }

  done(item: string): void {
    // Guard (client-go has none): a stray `done` for an item that is waiting would otherwise queue
    // it twice and break exclusivity.
    if (!this.processing.has(item)) return;
    this.metrics.done(item);
    this.processing.delete(item);
    if (this.dirty.has(item)) this.enqueue(item);
    if (this.processing.size === 0 && this.drainWaiters.length > 0) this.releaseDrainWaiters();
  }

  shutDown(): void {
    this.shutdown();
    this.releaseDrainWaiters();
  }

  shutDownWithDrain(): Promise<void> {
    this.shutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  /** Puts a dirty, not-processing item at the back, or straight into the oldest waiter's hands. */
  private enqueue(item: string): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) this.queue.push(item);
    else waiter({ item: this.handOut(item), shutdown: false });
  }

  private handOut(item: string): string {
    this.metrics.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  private shutdown(): void {
    if (this.isShuttingDown) return;
    this.isShuttingDown = true;
    this.metricsTimer?.cancel();
    // Waiters exist only while the queue is empty, so each of them is told to stop.
    this.waiters.drain((resolve) => resolve(SHUTDOWN));
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
