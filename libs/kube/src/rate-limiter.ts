import { AsyncLocalStorage } from 'node:async_hooks';
import { systemWaitClock, type WaitClock } from './clock.js';

/** Decides when the next request may go. Called once before every HTTP attempt that is not a watch. */
export interface RequestRateLimiter {
  /** Resolves when a request may be sent; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
}

export interface TokenBucketOptions {
  /** Sustained requests per second; must be > 0. `Infinity` disables limiting. */
  qps: number;
  /** Requests that may go at once after a quiet period; must be ≥ 1. */
  burst: number;
  clock?: WaitClock;
}

const requestPriority = new AsyncLocalStorage<number>();
/** A token refilled by a sleep of exactly its due time may fall short by a rounding error. */
const EPSILON = 1e-9;

/**
 * Runs `work` with its requests at `priority` (higher first; requests outside any are 0): while
 * a rate limiter holds requests back, it lets the highest waiting priority go first. A controller
 * runs each reconcile at the priority its key was handed out with, so the few requests of an
 * urgent reconcile (a failover) are not queued behind a bulk sync's in the client's token bucket.
 */
export function withRequestPriority<T>(priority: number, work: () => T): T {
  return requestPriority.run(priority, work);
}

/** The priority `withRequestPriority` set for the current call chain; 0 outside any. */
export function currentRequestPriority(): number {
  return requestPriority.getStore() ?? 0;
}

interface Waiter {
  priority: number;
  resolve: () => void;
}

/**
 * client-go's `flowcontrol.NewTokenBucketRateLimiter` — a bucket of `burst` tokens refilled at
 * `qps` per second, each request taking one — with one difference in whom a token goes to when
 * requests wait: the highest `currentRequestPriority()` first, then arrival order (client-go:
 * arrival order only). The rate is the same either way; a waiter that is aborted leaves the line
 * and takes no token.
 */
export class TokenBucketRateLimiter implements RequestRateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: WaitClock;
  private tokens: number;
  private last: number;
  /** Highest priority first, arrival order within a priority. */
  private readonly line: Waiter[] = [];
  private timer = false;

  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0)) throw new RangeError('steward/kube: qps must be greater than 0');
    if (!(options.burst >= 1)) throw new RangeError('steward/kube: burst must be at least 1');
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? systemWaitClock;
    this.tokens = options.burst;
    this.last = this.clock.now();
  }

  /** Requests waiting for a token. */
  get waiting(): number {
    return this.line.length;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.qps === Infinity) return Promise.resolve();
    this.refill();
    if (this.line.length === 0 && this.tokens >= 1 - EPSILON) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        priority: currentRequestPriority(),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // After every waiter of the same or a higher priority.
      let at = this.line.length;
      while (at > 0 && this.line[at - 1]!.priority < waiter.priority) at--;
      this.line.splice(at, 0, waiter);
      this.pump();
    });
  }

  /** Hands out the tokens there are, then sleeps until the next one is due while anyone waits. */
  private pump(): void {
    if (this.timer) return;
    this.refill();
    while (this.line.length > 0 && this.tokens >= 1 - EPSILON) {
      this.tokens -= 1;
      this.line.shift()!.resolve();
    }
    if (this.line.length === 0) return;
    this.timer = true;
    const dueMs = ((1 - this.tokens) * 1000) / this.qps;
    void this.clock.sleep(dueMs).then(() => {
      this.timer = false;
      this.pump();
    });
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
