import { type Clock, realClock, type Timer } from './clock.js';
import {
  newQueueMetrics,
  noopMetricsProvider,
  type QueueMetrics,
  type WorkqueueMetricsProvider,
} from './metrics.js';
import { FairLine, namespaceOf } from './fair-line.js';
import { RingBuffer } from './ring-buffer.js';
import { FifoLine, type WaitingLine } from './waiting-line.js';

/** What {@link WorkQueue.get} resolves to: an item to process, or the order to stop. */
export type GetResult = { item: string; shutdown: false } | { shutdown: true };

/**
 * Named priorities. Any finite number is a priority (higher is handed out first); these are the
 * ones the controller runtime uses: `low` for the informer's initial list and resyncs (the value
 * of controller-runtime's `LowPriority`), `normal` for a plain add, `high` for work that must not
 * wait behind bulk (an owned child's change, a deletion, a failover).
 */
export const Priorities = { low: -100, normal: 0, high: 100 } as const;

/** How an item is added. */
export interface AddOptions {
  /**
   * Higher is handed out first by a fair queue; a FIFO queue ignores it. Default
   * `Priorities.normal` (0); NaN and ±Infinity count as 0. An add of an item that is already
   * waiting raises it to this priority if that is higher, never lowers it.
   */
  priority?: number;
}

/**
 * How a queue orders its waiting items:
 * - `'fifo'`: client-go's order — first added, first out; priorities are ignored.
 * - `'fair'`: the highest priority first; within a priority, the tenants (by default the namespace
 *   of a `namespace/name` key, see `tenantOf`) with waiting items take turns, one item each
 *   (round-robin); within a tenant, first added first out.
 */
export type Fairness = 'fifo' | 'fair';

/**
 * A fair, stingy work queue of string keys (client-go's `workqueue.Interface`).
 *
 * - Stingy: an item added any number of times before it is handed out is handed out once.
 * - Exclusive: an item handed out is not handed out again until `done(item)`.
 * - Not lossy: an item added while it is being processed is handed out once more after `done`.
 * - Fair: in a FIFO queue (the default), items are handed out in the order they were first added
 *   (an add of an item already waiting keeps its place); in a `'fair'` queue, by priority, then
 *   turn by turn between tenants (namespaces), then in that order within a tenant. Waiting `get()`
 *   callers are served in the order they called.
 */
export interface WorkQueue {
  /**
   * Marks `item` as needing processing. Ignored while it already waits (except that a fair queue
   * raises its priority to `options.priority` if that is higher), and after shut-down. If it is
   * being processed, it is queued again when `done(item)` is called, at the highest priority
   * requested meanwhile. Idempotent until the item is handed out.
   */
  add(item: string, options?: AddOptions): void;
  /** Number of items waiting to be handed out (not counting those being processed). */
  len(): number;
  /**
   * Hands out the next waiting item (the oldest, in a FIFO queue), waiting for one while the queue is empty. The caller owns
   * the item until it calls `done(item)`. Resolves `{ shutdown: true }` once the queue is shut down
   * and empty: the caller's worker loop should then end. Items still waiting when `shutDown` is
   * called are handed out first.
   */
  get(): Promise<GetResult>;
  /**
   * The synchronous fast path of `get`: the next waiting item (now owned by the caller, who must
   * call `done`), or `undefined` if none waits. Never waits and allocates nothing.
   */
  tryGet(): string | undefined;
  /**
   * The priority `item` was handed out with, while it is being processed (between `get`/`tryGet`
   * and `done`); `undefined` otherwise. Always 0 in a FIFO queue. A worker passes it on when it
   * adds the item back (a retry of urgent work stays urgent).
   */
  processingPriority(item: string): number | undefined;
  /**
   * Ends the processing of `item`, handed out by `get`/`tryGet`. If it was added again meanwhile,
   * it goes to the back of the queue (of its tenant, at its priority, in a fair queue). A call for
   * an item not being processed is ignored.
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
  /** How waiting items are ordered; `'fifo'` (client-go's order) by default. */
  fairness?: Fairness;
  /**
   * For a `'fair'` queue: the tenant an item belongs to, whose items take one turn together. By
   * default the namespace of a `namespace/name` key; every key without a slash (cluster-scoped)
   * belongs to one tenant `''`. Must be pure: called once each time an item joins the line.
   */
  tenantOf?: (item: string) => string;
}

const SHUTDOWN: GetResult = Object.freeze({ shutdown: true });

/** Creates a {@link WorkQueue}: client-go's FIFO, or a fair one with `fairness: 'fair'`. */
export function newWorkQueue(options: QueueOptions = {}): WorkQueue {
  return new Queue(options);
}

/** A priority as queues use it: a finite number, `Priorities.normal` when absent. Internal. */
export function priorityOf(options: AddOptions | undefined): number {
  const priority = options?.priority;
  return priority !== undefined && Number.isFinite(priority) ? priority : Priorities.normal;
}

class Queue implements WorkQueue {
  /** Order of hand-out. Every element is in `dirty` and not in `processing`; no duplicates. */
  private readonly line: WaitingLine;
  /** Items that need processing (waiting, or added again while being processed). */
  private readonly dirty = new Set<string>();
  /** Items handed out and not yet done, with the priority each was handed out with. */
  private readonly processing = new Map<string, number>();
  /**
   * For a prioritized line: the highest priority requested for each item added again while being
   * processed (exactly the items in both `dirty` and `processing`).
   */
  private readonly requeuePriority = new Map<string, number>();
  /** Pending `get` calls, oldest first. Non-empty only while `line` is empty. */
  private readonly waiters = new RingBuffer<(result: GetResult) => void>();
  /** Pending `shutDownWithDrain` calls; released when `processing` empties or by `shutDown`. */
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private readonly metrics: QueueMetrics;
  private readonly metricsTimer: Timer | undefined;

  constructor(options: QueueOptions) {
    this.line =
      options.fairness === 'fair' ? new FairLine(options.tenantOf ?? namespaceOf) : new FifoLine();
    this.metrics = newQueueMetrics(
      options.name ?? '',
      options.metricsProvider ?? noopMetricsProvider,
      options.clock ?? realClock,
    );
    this.metricsTimer = this.metrics.startUnfinishedWorkUpdates(() => this.isShuttingDown);
  }

  add(item: string, options?: AddOptions): void {
    if (this.isShuttingDown) return;
    const prioritized = this.line.prioritized;
    const priority = prioritized ? priorityOf(options) : Priorities.normal;
    if (this.dirty.has(item)) {
      if (!prioritized) return;
      if (!this.processing.has(item)) this.line.raise(item, priority);
      else if (priority > (this.requeuePriority.get(item) as number))
        this.requeuePriority.set(item, priority);
      return;
    }
    this.metrics.add(item);
    this.dirty.add(item);
    if (this.processing.has(item)) {
      if (prioritized) this.requeuePriority.set(item, priority);
      return;
    }
    this.enqueue(item, priority);
  }

  len(): number {
    return this.line.length;
  }

  get(): Promise<GetResult> {
    // A Promise is unavoidable here; `tryGet` is the allocation-free path.
    if (this.line.length > 0) return Promise.resolve({ item: this.next(), shutdown: false });
    if (this.isShuttingDown) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  tryGet(): string | undefined {
    if (this.line.length === 0) return undefined;
    return this.next();
  }

  processingPriority(item: string): number | undefined {
    return this.processing.get(item);
  }

  done(item: string): void {
    // Guard (client-go has none): a stray `done` for an item that is waiting would otherwise queue
    // it twice and break exclusivity.
    if (!this.processing.has(item)) return;
    this.metrics.done(item);
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      const priority = this.requeuePriority.get(item) ?? Priorities.normal;
      this.requeuePriority.delete(item);
      this.enqueue(item, priority);
    }
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

  /** Puts a dirty, not-processing item in line, or straight into the oldest waiter's hands. */
  private enqueue(item: string, priority: number): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) this.line.push(item, priority);
    else waiter({ item: this.handOut(item, priority), shutdown: false });
  }

  /** Takes the next item out of a non-empty line and hands it out. */
  private next(): string {
    const item = this.line.shift() as string;
    return this.handOut(item, this.line.shiftedPriority);
  }

  private handOut(item: string, priority: number): string {
    this.metrics.get(item);
    this.processing.set(item, priority);
    this.dirty.delete(item);
    return item;
  }

  private shutdown(): void {
    if (this.isShuttingDown) return;
    this.isShuttingDown = true;
    this.metricsTimer?.cancel();
    // Waiters exist only while the line is empty, so each of them is told to stop.
    this.waiters.drain((resolve) => resolve(SHUTDOWN));
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
