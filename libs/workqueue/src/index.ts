/**
 * @steward/workqueue — client-go's `util/workqueue` for TypeScript, over string keys such as
 * `"namespace/name"`.
 *
 * Three interfaces stack by extension and their implementations decorate one another:
 * {@link WorkQueue} ← {@link DelayingQueue} (`addAfter`) ← {@link RateLimitingQueue}
 * (`addRateLimited`, `forget`, `numRequeues`), where `addRateLimited(item)` is exactly
 * `addAfter(item, rateLimiter.when(item))`.
 *
 * The contract, tested in this package:
 * - **Stingy**: an item added any number of times before it is handed out is handed out once.
 * - **Exclusive**: an item being processed (handed out, not yet `done`) is never handed out again,
 *   so two workers never hold the same key.
 * - **Not lossy**: an item added while it is being processed is handed out exactly once more, after
 *   `done`.
 * - **Fair**: items leave in the order they were first added — a repeated add keeps the item's place
 *   and never overtakes older items — and waiting `get()` calls are served in call order.
 * - **Delays**: `addAfter(item, ms)` adds at the ready time (ms ≤ 0: now); an item scheduled twice
 *   keeps the earlier time; scheduled items leave in ready-time order.
 * - **Shut-down**: `shutDown()` ignores later adds, drops scheduled items, and makes `get()` report
 *   `{ shutdown: true }` once the items already waiting are handed out; `shutDownWithDrain()`
 *   additionally resolves when every item handed out is `done`.
 *
 * Rate limiters ({@link RateLimiter}) are a separate interface composed with {@link maxOf};
 * {@link defaultControllerRateLimiter} is per-item exponential backoff 5 ms → 1000 s combined with
 * a 10 qps / burst 100 token bucket. Time comes from an injectable {@link Clock} ({@link FakeClock}
 * in tests). Metrics go to a structural {@link WorkqueueMetricsProvider} at the points client-go
 * records them; an unnamed queue records none.
 *
 * Everything here is synchronous except waiting in `get()` and `shutDownWithDrain()`;
 * `tryGet()` is the allocation-free way to take an item that is already waiting.
 */
export { type Clock, realClock, type Timer } from './clock.js';
export {
  type DelayingQueue,
  type DelayingQueueOptions,
  newDelayingQueue,
} from './delaying-queue.js';
export { FakeClock } from './fake-clock.js';
export {
  type CounterLike,
  type GaugeLike,
  type HistogramLike,
  noopMetricsProvider,
  type SettableGaugeLike,
  type WorkqueueMetricsProvider,
} from './metrics.js';
export { type GetResult, newWorkQueue, type QueueOptions, type WorkQueue } from './queue.js';
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOf,
  noopRateLimiter,
  type RateLimiter,
  rateLimiterFunc,
} from './rate-limiters.js';
export {
  newRateLimitingQueue,
  type RateLimitingQueue,
  type RateLimitingQueueOptions,
} from './rate-limiting-queue.js';
