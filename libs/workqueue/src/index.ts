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
 * - **Fair**: in a FIFO queue (the default, `fairness: 'fifo'`, exactly client-go's), items leave in
 *   the order they were first added — a repeated add keeps the item's place and never overtakes
 *   older items — and waiting `get()` calls are served in call order.
 * - **Fair between tenants** (`fairness: 'fair'`, what a controller uses): the tenant of a
 *   `namespace/name` key is its namespace (keys without a slash — cluster-scoped — share the tenant
 *   `''`; `tenantOf` can say otherwise). Every add carries a priority (`add(item, { priority })`,
 *   default `Priorities.normal` = 0; {@link Priorities} names low −100 and high 100). A hand-out
 *   takes the highest priority that has waiting items (strict: lower priorities wait until it is
 *   empty); within it, the tenants with waiting items take turns, one item per turn, a tenant
 *   joining at the back of the turn order; within a tenant, items leave in the order they joined
 *   the line. So while a tenant has items waiting at a priority, any other tenant gets at most one
 *   item of that priority between two of its own: an item at position r among its tenant's items
 *   at its priority (counting older items of its tenant raised into that priority while it waits)
 *   waits for at most r items of each other tenant of that priority, however many those tenants
 *   have — 2,000 waiting in one namespace delay another namespace's item by one item.
 * - **Priorities**: a waiting item added again with a higher priority is raised — it moves to that
 *   priority with its age, ahead of younger items of its tenant there — and is never lowered (nor
 *   counted as an add in the metrics). An item added while it is being processed comes back after
 *   `done` at the highest priority asked for meanwhile. `processingPriority(item)` tells a worker
 *   the priority it was handed the item with, so a retry can keep it. Stingy, exclusive, not lossy
 *   and shut-down hold as above; with one tenant and one priority a fair queue is exactly the FIFO
 *   queue (the FIFO queue ignores priorities and reports 0).
 * - **Delays**: `addAfter(item, ms, { priority })` adds at the ready time (ms ≤ 0: now) with that
 *   priority; an item scheduled twice keeps the earlier time and the higher priority; scheduled
 *   items leave in ready-time order. `addRateLimited(item, { priority })` carries it the same way.
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
export { namespaceOf } from './fair-line.js';
export { FakeClock } from './fake-clock.js';
export {
  type CounterLike,
  type GaugeLike,
  type HistogramLike,
  noopMetricsProvider,
  type SettableGaugeLike,
  type WorkqueueMetricsProvider,
} from './metrics.js';
export {
  type AddOptions,
  type Fairness,
  type GetResult,
  newWorkQueue,
  Priorities,
  type QueueOptions,
  type WorkQueue,
} from './queue.js';
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  fairControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOf,
  noopRateLimiter,
  perTenant,
  type RateLimiter,
  rateLimiterFunc,
} from './rate-limiters.js';
export {
  newRateLimitingQueue,
  type RateLimitingQueue,
  type RateLimitingQueueOptions,
} from './rate-limiting-queue.js';
