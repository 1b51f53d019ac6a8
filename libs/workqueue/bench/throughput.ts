/**
 * Work-queue throughput: add → get → done cycles per second over one key space of 10,000 keys.
 * Not a test; prints figures only. Run from the repository root:
 *
 *   npx tsx libs/workqueue/bench/throughput.ts
 *
 * Scenarios:
 * - interleaved: add(key) then tryGet() and done() for each key in turn (queue depth ≤ 1);
 * - backlog: add all 10,000 keys, then tryGet()/done() until empty (queue depth up to 10,000);
 * - backlog, async get: the same, taking items with `await get()` (one Promise per item);
 * - backlog, rate-limiting queue with metrics: the stack a controller uses, with a metrics
 *   provider whose instruments do nothing (so the bookkeeping is measured, not an exporter);
 * - the same scenarios on a fair queue (`fairness: 'fair'`; the keys span 97 namespaces), and a
 *   backlog added at three priorities.
 */
import {
  newRateLimitingQueue,
  newWorkQueue,
  type WorkQueue,
  type WorkqueueMetricsProvider,
} from '../src/index.js';

const KEY_SPACE = 10_000;
const MEASURE_MS = 1500;
const keys = Array.from({ length: KEY_SPACE }, (_, i) => `namespace-${i % 97}/object-${i}`);

function interleaved(queue: WorkQueue): number {
  for (let i = 0; i < KEY_SPACE; i++) {
    queue.add(keys[i] as string);
    const item = queue.tryGet() as string;
    queue.done(item);
  }
  return KEY_SPACE;
}

function backlogPriorities(queue: WorkQueue): number {
  for (let i = 0; i < KEY_SPACE; i++) queue.add(keys[i] as string, { priority: (i % 3) - 1 });
  let cycles = 0;
  for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
    queue.done(item);
    cycles++;
  }
  return cycles;
}

function backlog(queue: WorkQueue): number {
  for (let i = 0; i < KEY_SPACE; i++) queue.add(keys[i] as string);
  let cycles = 0;
  for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
    queue.done(item);
    cycles++;
  }
  return cycles;
}

async function backlogAsync(queue: WorkQueue): Promise<number> {
  for (let i = 0; i < KEY_SPACE; i++) queue.add(keys[i] as string);
  let cycles = 0;
  while (queue.len() > 0) {
    const result = await queue.get();
    if (result.shutdown) break;
    queue.done(result.item);
    cycles++;
  }
  return cycles;
}

const inert = { inc() {}, dec() {}, observe() {}, set() {} };
const inertProvider: WorkqueueMetricsProvider = {
  newDepthMetric: () => inert,
  newAddsMetric: () => inert,
  newLatencyMetric: () => inert,
  newWorkDurationMetric: () => inert,
  newUnfinishedWorkSecondsMetric: () => inert,
  newLongestRunningProcessorSecondsMetric: () => inert,
  newRetriesMetric: () => inert,
};

async function measure(
  label: string,
  queue: WorkQueue,
  round: (q: WorkQueue) => number | Promise<number>,
): Promise<number> {
  // Warm-up: let the JIT settle on the hot paths.
  for (let i = 0; i < 20; i++) await round(queue);
  let cycles = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MEASURE_MS) {
    cycles += await round(queue);
    elapsed = performance.now() - start;
  }
  const perSecond = Math.round((cycles / elapsed) * 1000);
  process.stdout.write(`${label.padEnd(52)} ${perSecond.toLocaleString('en-US')} cycles/s\n`);
  queue.shutDown();
  return perSecond;
}

process.stdout.write(
  `workqueue throughput — Node ${process.version} (${process.platform}/${process.arch}), ` +
    `${KEY_SPACE.toLocaleString('en-US')} keys, ${MEASURE_MS} ms per scenario\n`,
);
await measure('interleaved add/tryGet/done', newWorkQueue(), interleaved);
await measure('backlog add×10k, tryGet/done×10k', newWorkQueue(), backlog);
await measure('backlog add×10k, await get/done×10k', newWorkQueue(), backlogAsync);
await measure(
  'backlog, rate-limiting queue + metrics bookkeeping',
  newRateLimitingQueue(undefined, { name: 'bench', metricsProvider: inertProvider }),
  backlog,
);
const fair = { fairness: 'fair' } as const;
await measure('fair: interleaved add/tryGet/done', newWorkQueue(fair), interleaved);
await measure('fair: backlog add×10k, tryGet/done×10k', newWorkQueue(fair), backlog);
await measure('fair: backlog at 3 priorities', newWorkQueue(fair), backlogPriorities);
await measure(
  'fair: backlog, rate-limiting queue + metrics',
  newRateLimitingQueue(undefined, { name: 'bench', metricsProvider: inertProvider, ...fair }),
  backlog,
);
