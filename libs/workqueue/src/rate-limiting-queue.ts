import { type DelayingQueue, newDelayingQueue } from './delaying-queue.js';
import { type AddOptions, type GetResult, type QueueOptions } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/**
 * A {@link DelayingQueue} that asks a {@link RateLimiter} how long to wait before an item comes
 * back (client-go's `RateLimitingInterface`).
 */
export interface RateLimitingQueue extends DelayingQueue {
  /**
   * Exactly `addAfter(item, rateLimiter.when(item), options)`: one more failure of `item`; it comes
   * back at `options.priority`.
   */
  addRateLimited(item: string, options?: AddOptions): void;
  /**
   * Tells the rate limiter that `item` succeeded: its failure history is cleared. Does not remove
   * it from the queue. Call it when processing ends without a retry.
   */
  forget(item: string): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: string): number;
}

/** Options of {@link newRateLimitingQueue}. */
export interface RateLimitingQueueOptions extends QueueOptions {
  /** The delaying queue to decorate; by default a new one with the same options. */
  delayingQueue?: DelayingQueue;
}

/** Creates a {@link RateLimitingQueue}; the rate limiter defaults to the controller default. */
export function newRateLimitingQueue(
  rateLimiter: RateLimiter = defaultControllerRateLimiter(),
  options: RateLimitingQueueOptions = {},
): RateLimitingQueue {
  return new RateLimitingQueueImpl(options.delayingQueue ?? newDelayingQueue(options), rateLimiter);
}

class RateLimitingQueueImpl implements RateLimitingQueue {
  constructor(
    private readonly queue: DelayingQueue,
    private readonly rateLimiter: RateLimiter,
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
    this.queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    return this.queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.queue.shuttingDown();
  }

  addAfter(item: string, delayMs: number, options?: AddOptions): void {
    this.queue.addAfter(item, delayMs, options);
  }

  addRateLimited(item: string, options?: AddOptions): void {
    this.queue.addAfter(item, this.rateLimiter.when(item), options);
  }

  forget(item: string): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: string): number {
    return this.rateLimiter.numRequeues(item);
  }
}
