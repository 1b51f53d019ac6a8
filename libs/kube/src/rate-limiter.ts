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

/**
 * client-go's `flowcontrol.NewTokenBucketRateLimiter`: a bucket of `burst` tokens refilled at `qps`
 * per second. Each request takes a token; when none is left it waits for its turn. Waiters are
 * served in arrival order because each `acquire` reserves its token at once (the bucket may go
 * negative) and sleeps for exactly as long as the refill of its reservation takes. A waiter that
 * is aborted gives its token back.
 */
export class TokenBucketRateLimiter implements RequestRateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: WaitClock;
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0)) throw new RangeError('steward/kube: qps must be greater than 0');
    if (!(options.burst >= 1)) throw new RangeError('steward/kube: burst must be at least 1');
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? systemWaitClock;
    this.tokens = options.burst;
    this.last = this.clock.now();
  }

  /** Takes a token now and returns how many milliseconds its holder must wait before sending. */
  reserve(): number {
    if (this.qps === Infinity) return 0;
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const waitMs = this.reserve();
    if (waitMs <= 0) return;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (error) {
      this.refill();
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw error;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
