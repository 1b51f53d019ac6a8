import { describe, expect, it } from 'vitest';
import { newDelayingQueue } from './delaying-queue.js';
import { namespaceOf } from './fair-line.js';
import { FakeClock } from './fake-clock.js';
import { noopMetricsProvider, type WorkqueueMetricsProvider } from './metrics.js';
import { newWorkQueue, Priorities, type WorkQueue } from './queue.js';
import { rateLimiterFunc } from './rate-limiters.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

const { low, normal, high } = Priorities;

/** Takes every waiting item, in order, marking each done. */
function takeAll(queue: WorkQueue): string[] {
  const taken: string[] = [];
  for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
    taken.push(item);
    queue.done(item);
  }
  return taken;
}

/** Adds `[key, priority?]` pairs in order. */
function addAll(queue: WorkQueue, adds: readonly (string | [string, number])[]): void {
  for (const add of adds) {
    if (typeof add === 'string') queue.add(add);
    else queue.add(add[0], { priority: add[1] });
  }
}

const fair = () => newWorkQueue({ fairness: 'fair' });

describe('namespaceOf', () => {
  it.each([
    ['ns/name', 'ns'],
    ['ns/a/b', 'ns'],
    ['cluster-scoped', ''],
    ['/odd', ''],
  ])('%s belongs to %j', (key, tenant) => {
    expect(namespaceOf(key)).toBe(tenant);
  });
});

describe('fair queue: turns between namespaces', () => {
  it.each([
    {
      name: 'namespaces with waiting items take one turn each',
      adds: ['a/1', 'a/2', 'a/3', 'a/4', 'b/1', 'c/1', 'b/2'],
      order: ['a/1', 'b/1', 'c/1', 'a/2', 'b/2', 'a/3', 'a/4'],
    },
    {
      name: 'within a namespace, first added first out; a repeated add keeps its place',
      adds: ['a/3', 'a/1', 'a/2', 'a/3', 'a/1'],
      order: ['a/3', 'a/1', 'a/2'],
    },
    {
      name: 'cluster-scoped keys share one turn of their own',
      adds: ['x', 'y', 'ns/a', 'ns/b', 'z'],
      order: ['x', 'ns/a', 'y', 'ns/b', 'z'],
    },
  ])('$name', ({ adds, order }) => {
    const queue = fair();
    addAll(queue, adds);
    expect(takeAll(queue)).toEqual(order);
  });

  it('a bulk of 2,000 in one namespace delays another namespace’s item by one item', () => {
    const queue = fair();
    for (let i = 0; i < 2000; i++) queue.add(`bulk/obj-${i}`);
    expect(queue.tryGet()).toBe('bulk/obj-0');
    queue.add('tenant/failover');
    expect(queue.tryGet()).toBe('bulk/obj-1');
    expect(queue.tryGet()).toBe('tenant/failover');
  });

  it('a namespace that gets work joins at the back of the turn order', () => {
    const queue = fair();
    addAll(queue, ['a/1', 'a/2', 'b/1', 'b/2']);
    expect(queue.tryGet()).toBe('a/1'); // turn order now b, a
    queue.add('c/1'); // b, a, c
    expect(takeAll(queue)).toEqual(['b/1', 'a/2', 'c/1', 'b/2']);
  });

  it('an item added again while processing goes to the back of its namespace', () => {
    const queue = fair();
    addAll(queue, ['a/1', 'a/2', 'b/1']);
    expect(queue.tryGet()).toBe('a/1');
    queue.add('a/1');
    queue.done('a/1');
    expect(takeAll(queue)).toEqual(['b/1', 'a/2', 'a/1']);
  });

  it('groups by tenantOf when given', () => {
    const queue = newWorkQueue({ fairness: 'fair', tenantOf: (key) => key.slice(-1) });
    addAll(queue, ['ns/a-1', 'other/b-1', 'ns/c-2']);
    expect(takeAll(queue)).toEqual(['ns/a-1', 'ns/c-2', 'other/b-1']);
  });

  it('serves waiting get() calls in call order, whatever the namespace', async () => {
    const queue = fair();
    const first = queue.get();
    const second = queue.get();
    queue.add('b/1', { priority: low });
    queue.add('a/1', { priority: high });
    await expect(first).resolves.toEqual({ item: 'b/1', shutdown: false });
    await expect(second).resolves.toEqual({ item: 'a/1', shutdown: false });
  });
});

describe('fair queue: priorities', () => {
  it.each([
    {
      name: 'higher priorities first, across namespaces',
      adds: [['a/1', low], 'a/2', ['b/1', high], 'b/2', ['c/1', high]] as const,
      order: ['b/1', 'c/1', 'a/2', 'b/2', 'a/1'],
    },
    {
      name: 'any finite number is a priority; NaN and Infinity count as normal',
      adds: [
        ['a/1', -1],
        ['a/2', Number.NaN],
        ['a/3', 7.5],
        ['a/4', Infinity],
      ] as const,
      order: ['a/3', 'a/2', 'a/4', 'a/1'],
    },
    {
      name: 'an add with a higher priority raises a waiting item',
      adds: [['a/1', low], ['a/2', low], 'b/1', ['a/2', high]] as const,
      order: ['a/2', 'b/1', 'a/1'],
    },
    {
      name: 'an add with a lower priority never lowers it',
      adds: [['a/1', high], 'b/1', ['a/1', low], 'a/1'] as const,
      order: ['a/1', 'b/1'],
    },
    {
      name: 'a raised item keeps its age: it goes ahead of younger items of its namespace',
      adds: [['a/1', low], 'a/2', 'a/3', 'a/1'] as const,
      order: ['a/1', 'a/2', 'a/3'],
    },
    {
      name: 'a plain add raises a low item to normal',
      adds: [['a/1', low], 'b/1', ['b/2', low], 'b/2'] as const,
      order: ['b/1', 'b/2', 'a/1'],
    },
  ])('$name', ({ adds, order }) => {
    const queue = fair();
    addAll(queue, adds as unknown as (string | [string, number])[]);
    expect(takeAll(queue)).toEqual(order);
  });

  it('namespaces take turns within one priority while the others wait', () => {
    const queue = fair();
    for (let i = 1; i <= 3; i++) queue.add(`bulk/${i}`, { priority: high });
    queue.add('other/1', { priority: high });
    queue.add('other/2');
    expect(takeAll(queue)).toEqual(['bulk/1', 'other/1', 'bulk/2', 'bulk/3', 'other/2']);
  });

  it('an item added while processing comes back at the highest priority asked for', () => {
    const queue = fair();
    addAll(queue, ['a/1', 'b/1']);
    expect(queue.tryGet()).toBe('a/1');
    queue.add('a/1', { priority: low });
    queue.add('a/1', { priority: high });
    queue.add('a/1');
    queue.done('a/1');
    expect(queue.tryGet()).toBe('a/1');
    expect(queue.processingPriority('a/1')).toBe(high);
  });

  it('an item added at low priority while processing comes back at low priority', () => {
    const queue = fair();
    addAll(queue, ['a/1', 'b/1']);
    expect(queue.tryGet()).toBe('a/1');
    queue.add('a/1', { priority: low });
    queue.done('a/1');
    expect(takeAll(queue)).toEqual(['b/1', 'a/1']);
  });

  it('processingPriority is the priority an item was handed out with, until done', () => {
    const queue = fair();
    queue.add('a/1', { priority: low });
    queue.add('a/1', { priority: high });
    expect(queue.processingPriority('a/1')).toBeUndefined(); // waiting, not processing
    expect(queue.tryGet()).toBe('a/1');
    expect(queue.processingPriority('a/1')).toBe(high);
    queue.done('a/1');
    expect(queue.processingPriority('a/1')).toBeUndefined();
  });

  it('stays stingy: a raised item is counted once', () => {
    const queue = fair();
    queue.add('a/1', { priority: low });
    queue.add('a/1', { priority: normal });
    queue.add('a/1', { priority: high });
    expect(queue.len()).toBe(1);
    expect(takeAll(queue)).toEqual(['a/1']);
  });

  it('ignores adds and raises after shut-down but still hands out what waits', () => {
    const queue = fair();
    addAll(queue, ['a/1', 'b/1']);
    queue.shutDown();
    queue.add('b/1', { priority: high });
    queue.add('c/1', { priority: high });
    expect(takeAll(queue)).toEqual(['a/1', 'b/1']);
  });
});

describe('FIFO queue (client-go)', () => {
  it('ignores priorities and reports 0 for every item', () => {
    const queue = newWorkQueue({ fairness: 'fifo' });
    addAll(queue, [['a/1', low], 'b/1', ['c/1', high], ['a/1', high]]);
    expect(queue.tryGet()).toBe('a/1');
    expect(queue.processingPriority('a/1')).toBe(0);
    queue.done('a/1');
    expect(takeAll(queue)).toEqual(['b/1', 'c/1']);
  });
});

describe('fair queue: priorities through delays', () => {
  it('addAfter adds with its priority when the time comes', () => {
    const clock = new FakeClock();
    const queue = newDelayingQueue({ clock, fairness: 'fair' });
    queue.add('a/1');
    queue.addAfter('b/1', 10, { priority: high });
    queue.addAfter('c/1', 10, { priority: low });
    clock.advance(10);
    expect(takeAll(queue)).toEqual(['b/1', 'a/1', 'c/1']);
  });

  it('an item scheduled twice keeps the earlier time and the higher priority', () => {
    const clock = new FakeClock();
    const queue = newDelayingQueue({ clock, fairness: 'fair' });
    queue.addAfter('b/1', 50, { priority: high });
    queue.addAfter('b/1', 10, { priority: low });
    queue.add('a/1');
    clock.advance(10);
    expect(queue.tryGet()).toBe('b/1');
    expect(queue.processingPriority('b/1')).toBe(high);
    queue.done('b/1');
    clock.advance(100);
    expect(takeAll(queue)).toEqual(['a/1']); // released once
  });

  it('addAfter with no delay adds at once with its priority', () => {
    const queue = newDelayingQueue({ clock: new FakeClock(), fairness: 'fair' });
    queue.add('a/1');
    queue.addAfter('b/1', 0, { priority: high });
    expect(takeAll(queue)).toEqual(['b/1', 'a/1']);
  });

  it('addRateLimited brings the item back with its priority after the backoff', () => {
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(
      rateLimiterFunc(() => 20),
      { clock, fairness: 'fair' },
    );
    queue.add('a/1', { priority: low });
    queue.add('a/2', { priority: low });
    expect(queue.tryGet()).toBe('a/1');
    const priority = queue.processingPriority('a/1');
    queue.addRateLimited('a/1', { priority: high });
    queue.done('a/1');
    expect(priority).toBe(low);
    clock.advance(20);
    expect(takeAll(queue)).toEqual(['a/1', 'a/2']);
  });
});

describe('fair queue metrics', () => {
  it('count a raise as no add: depth and adds move exactly as in client-go', () => {
    const calls: string[] = [];
    const instrument = (metric: string) => ({
      inc: () => calls.push(`${metric} inc`),
      dec: () => calls.push(`${metric} dec`),
      observe: () => calls.push(`${metric} observe`),
      set: () => {},
    });
    const provider: WorkqueueMetricsProvider = {
      ...noopMetricsProvider,
      newDepthMetric: () => instrument('depth'),
      newAddsMetric: () => instrument('adds'),
      newLatencyMetric: () => instrument('latency'),
      newWorkDurationMetric: () => instrument('work'),
    };
    const queue = newWorkQueue({
      name: 'q',
      metricsProvider: provider,
      clock: new FakeClock(),
      fairness: 'fair',
    });
    queue.add('a/1', { priority: low });
    queue.add('a/1', { priority: high });
    expect(takeAll(queue)).toEqual(['a/1']);
    queue.shutDown();
    expect(calls).toEqual([
      'adds inc',
      'depth inc',
      'depth dec',
      'latency observe',
      'work observe',
    ]);
  });
});
