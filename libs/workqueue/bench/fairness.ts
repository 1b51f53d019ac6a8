/**
 * Fairness between namespaces: how long other namespaces' keys wait while one namespace has a
 * bulk backlog, FIFO (client-go) vs fair queue, side by side in one run. Not a test; prints figures
 * only. Run from the repository root:
 *
 *   npx tsx libs/workqueue/bench/fairness.ts
 *
 * Scenario (in-process, no API server): at t = 0, 5,000 keys of namespace `a` are added at once (a
 * GitOps sync); from t = 0, every second, 5 new keys are added in each of namespaces `b`, `c`, `d`
 * and `e` (20 a second, for 10 s). N workers take keys and reconcile each for a simulated 2–8 ms
 * (mean 5 ms, a fixed pseudo-random sequence, the same for every queue). Rows:
 * - fifo: client-go's queue;
 * - fair: the fair queue, every add at normal priority;
 * - fair, bulk low: the same, with `a`'s keys at low priority, as a controller adds an initial list.
 * Plus one high-priority key in `b` at t = 0.5 s (an owned pod changed: a failover).
 *
 * Time is simulated (a discrete-event loop over the queue's real add/tryGet/done), so the figures
 * are exactly those of the queue's order, free of the noise of a shared machine; what the queue
 * itself costs in CPU is measured by `throughput.ts`.
 */
import { newWorkQueue, Priorities, type QueueOptions, type WorkQueue } from '../src/index.js';

const BULK = 5000;
const OTHERS = ['b', 'c', 'd', 'e'];
const PER_SECOND = 5;
const SECONDS = 10;
const URGENT_AT_MS = 500;

interface Row {
  queue: string;
  workers: number;
  waits: number[];
  urgentWait: number;
  bulkDrainedAt: number;
}

/** A fixed sequence of reconcile costs, 2–8 ms (xorshift; the same sequence for every row). */
function costs(): () => number {
  let x = 0x2545f491;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return 2 + ((x >>> 0) % 7);
  };
}

function simulate(
  label: string,
  options: QueueOptions,
  workers: number,
  bulkPriority: number,
): Row {
  const queue: WorkQueue = newWorkQueue(options);
  const cost = costs();
  const addedAt = new Map<string, number>();
  const waits: number[] = [];
  let urgentWait = NaN;
  let bulkLeft = BULK;
  let bulkDrainedAt = NaN;
  /** Reconciles in flight: when each ends, soonest first. */
  const busy: { until: number; key: string }[] = [];
  let now = 0;

  const add = (key: string, priority: number) => {
    addedAt.set(key, now);
    queue.add(key, { priority });
  };
  const dispatch = () => {
    while (busy.length < workers) {
      const key = queue.tryGet();
      if (key === undefined) return;
      const wait = now - (addedAt.get(key) as number);
      if (key.startsWith('a/')) {
        if (--bulkLeft === 0) bulkDrainedAt = now;
      } else if (key === 'b/failover') urgentWait = wait;
      else waits.push(wait);
      busy.push({ until: now + cost(), key });
      busy.sort((x, y) => x.until - y.until);
    }
  };

  for (let i = 0; i < BULK; i++) add(`a/obj-${i}`, bulkPriority);
  let nextArrival = 0;
  let second = 0;
  let urgentAdded = false;
  for (;;) {
    const nextDone = busy[0]?.until ?? Infinity;
    const nextUrgent = urgentAdded ? Infinity : URGENT_AT_MS;
    const next = Math.min(nextDone, second < SECONDS ? nextArrival : Infinity, nextUrgent);
    if (next === Infinity) break;
    now = next;
    while (busy[0] !== undefined && busy[0].until <= now) queue.done(busy.shift()!.key);
    if (second < SECONDS && nextArrival <= now) {
      for (const ns of OTHERS)
        for (let i = 0; i < PER_SECOND; i++) add(`${ns}/obj-${second}-${i}`, Priorities.normal);
      second++;
      nextArrival = second * 1000;
    }
    if (!urgentAdded && URGENT_AT_MS <= now) {
      add('b/failover', Priorities.high);
      urgentAdded = true;
    }
    dispatch();
  }
  queue.shutDown();
  return { queue: label, workers, waits, urgentWait, bulkDrainedAt };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const ms = (v: number) => `${Math.round(v).toLocaleString('en-US')} ms`;

process.stdout.write(
  `fairness — Node ${process.version}: ${BULK.toLocaleString('en-US')} keys of namespace a at ` +
    `t=0; ${PER_SECOND}/s in each of ${OTHERS.join(', ')} for ${SECONDS} s; reconcile 2–8 ms ` +
    `(simulated time); one high-priority key in b at ${URGENT_AT_MS} ms\n\n`,
);
const header = ['queue', 'workers', 'b–e wait p50', 'p99', 'max', 'high key in b', 'a drained at'];
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => ' --- |').join('')}\n`);
for (const workers of [1, 4]) {
  for (const row of [
    simulate('fifo', { fairness: 'fifo' }, workers, Priorities.normal),
    simulate('fair', { fairness: 'fair' }, workers, Priorities.normal),
    simulate('fair, bulk low', { fairness: 'fair' }, workers, Priorities.low),
  ]) {
    const sorted = [...row.waits].sort((x, y) => x - y);
    const cells = [
      row.queue,
      String(row.workers),
      ms(percentile(sorted, 50)),
      ms(percentile(sorted, 99)),
      ms(sorted[sorted.length - 1] as number),
      ms(row.urgentWait),
      ms(row.bulkDrainedAt),
    ];
    process.stdout.write(`| ${cells.join(' | ')} |\n`);
  }
}
