import { type Clock, realClock } from './clock.js';
import { namespaceOf } from './fair-line.js';

/**
 * How long an item should wait before it is retried (client-go's `RateLimiter`). Called by the
 * rate-limiting queue; a limiter keeps per-item or global state and is not shared across queues
 * unless that is the intent (a bucket shared by two queues limits both together).
 */
export interface RateLimiter {
  /**
   * Records one more failure of `item` (or one more request, for a global limiter) and returns the
   * delay in milliseconds (≥ 0) before it should be processed again. Not idempotent.
   */
  when(item: string): number;
  /** Clears `item`'s failure history. Idempotent. */
  forget(item: string): void;
  /** Failures recorded for `item` since it was last forgotten (0 for a limiter that keeps none). */
  numRequeues(item: string): number;
}

/** A limiter that always answers `when(item)`, keeps no history, and counts nothing. */
export function rateLimiterFunc(when: (item: string) => number): RateLimiter {
  return { when, forget() {}, numRequeues: () => 0 };
}

/** Never waits. */
export const noopRateLimiter: RateLimiter = rateLimiterFunc(() => 0);

/**
 * Per-item exponential backoff: the n-th failure since `forget` waits `baseMs · 2^(n−1)`, capped at
 * `maxMs`. With the defaults: 5 ms, 10 ms, 20 ms, … up to 1000 s.
 */
export function itemExponentialFailureRateLimiter(baseMs = 5, maxMs = 1_000_000): RateLimiter {
  requireNonNegative('baseMs', baseMs);
  requireNonNegative('maxMs', maxMs);
  const failures = new Map<string, number>();
  return {
    when(item) {
      const exponent = failures.get(item) ?? 0;
      failures.set(item, exponent + 1);
      if (baseMs === 0) return 0;
      const backoff = baseMs * 2 ** exponent; // Infinity past 2^1023: capped below.
      return backoff > maxMs ? maxMs : backoff;
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues: (item) => failures.get(item) ?? 0,
  };
}

/**
 * Per-item: the first `maxFastAttempts` failures since `forget` wait `fastDelayMs`, later ones
 * `slowDelayMs`.
 */
export function itemFastSlowRateLimiter(
  fastDelayMs: number,
  slowDelayMs: number,
  maxFastAttempts: number,
): RateLimiter {
  requireNonNegative('fastDelayMs', fastDelayMs);
  requireNonNegative('slowDelayMs', slowDelayMs);
  requireNonNegative('maxFastAttempts', maxFastAttempts);
  const failures = new Map<string, number>();
  return {
    when(item) {
      const attempts = (failures.get(item) ?? 0) + 1;
      failures.set(item, attempts);
      return attempts <= maxFastAttempts ? fastDelayMs : slowDelayMs;
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues: (item) => failures.get(item) ?? 0,
  };
}

/**
 * An overall token bucket, shared by all items, with the reservation semantics of
 * golang.org/x/time/rate's `Limiter.Reserve().Delay()`: the bucket starts full with `burst`
 * tokens and refills at `qps` tokens per second; each `when` takes a token now or reserves the next
 * one to come and returns the wait until it exists. So with the defaults the first 100 calls get 0
 * and, at a standstill, the following ones 100 ms, 200 ms, 300 ms, …. `qps = Infinity` never waits.
 * Keeps no per-item history.
 */
export function bucketRateLimiter(qps = 10, burst = 100, clock: Clock = realClock): RateLimiter {
  if (!(qps > 0)) throw new RangeError(INVALID_QPS);
  if (qps === Infinity) return noopRateLimiter;
  if (!Number.isInteger(burst) || burst < 1) throw new RangeError(INVALID_BURST);
  let tokens = burst;
  let last = clock.now();
  return rateLimiterFunc(() => {
    const now = clock.now();
    const elapsed = now > last ? now - last : 0;
    tokens = Math.min(burst, tokens + (elapsed * qps) / 1000) - 1;
    last = now;
    return tokens < 0 ? (-tokens * 1000) / qps : 0;
  });
}

/**
 * The longest delay of `limiters` (every one of them records the failure). `forget` forgets in
 * all; `numRequeues` is the largest count.
 */
export function maxOf(...limiters: RateLimiter[]): RateLimiter {
  return {
    when(item) {
      let longest = 0;
      for (const limiter of limiters) longest = Math.max(longest, limiter.when(item));
      return longest;
    },
    forget(item) {
      for (const limiter of limiters) limiter.forget(item);
    },
    numRequeues(item) {
      let most = 0;
      for (const limiter of limiters) most = Math.max(most, limiter.numRequeues(item));
      return most;
    },
  };
}

/**
 * client-go's `DefaultControllerRateLimiter`: the longer of per-item exponential backoff
 * (5 ms → 1000 s) and an overall token bucket of 10 qps with a burst of 100.
 */
export function defaultControllerRateLimiter(clock: Clock = realClock): RateLimiter {
  return maxOf(itemExponentialFailureRateLimiter(5, 1_000_000), bucketRateLimiter(10, 100, clock));
}

/**
 * One limiter per tenant (`tenantOf(item)`, by default the item's namespace), each made by
 * `make` the first time its tenant is seen: what one tenant's items record never delays
 * another's. Tenants are kept for the life of the limiter (namespaces: few).
 */
export function perTenant(
  make: () => RateLimiter,
  tenantOf: (item: string) => string = namespaceOf,
): RateLimiter {
  const limiters = new Map<string, RateLimiter>();
  const limiterOf = (item: string): RateLimiter => {
    const tenant = tenantOf(item);
    let limiter = limiters.get(tenant);
    if (!limiter) limiters.set(tenant, (limiter = make()));
    return limiter;
  };
  return {
    when: (item) => limiterOf(item).when(item),
    forget: (item) => limiters.get(tenantOf(item))?.forget(item),
    numRequeues: (item) => limiters.get(tenantOf(item))?.numRequeues(item) ?? 0,
  };
}

/**
 * `defaultControllerRateLimiter` with its token bucket per namespace (`perTenant`): the longer of
 * per-item exponential backoff (5 ms → 1000 s) and 10 qps with a burst of 100 for the retries of
 * each namespace, so a namespace whose objects all fail cannot delay another namespace's retries.
 * The fair queue's default.
 */
export function fairControllerRateLimiter(clock: Clock = realClock): RateLimiter {
  return maxOf(
    itemExponentialFailureRateLimiter(5, 1_000_000),
    perTenant(() => bucketRateLimiter(10, 100, clock)),
  );
}

const INVALID_QPS = 'rate limiter qps must be a positive number';
const INVALID_BURST = 'rate limiter burst must be an integer of at least 1';
const INVALID_DURATION = 'rate limiter parameter must be a non-negative number: ';

function requireNonNegative(name: string, value: number): void {
  if (!(value >= 0)) throw new RangeError(INVALID_DURATION + name);
}
