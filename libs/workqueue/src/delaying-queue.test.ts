import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS } from './clock.js';
import { newDelayingQueue } from './delaying-queue.js';
import { FakeClock } from './fake-clock.js';
import { newWorkQueue, type WorkQueue } from './queue.js';

function setup() {
  const clock = new FakeClock();
  const queue = newDelayingQueue({ clock });
  return { clock, queue };
}

function takeAll(queue: WorkQueue): string[] {
  const taken: string[] = [];
  for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
    taken.push(item);
    queue.done(item);
  }
  return taken;
}

describe('DelayingQueue.addAfter', () => {
  it.each([0, -5, Number.NaN])('adds at once when the delay is %s', (delay) => {
    const { clock, queue } = setup();
    queue.addAfter('a', delay);
    expect(queue.len()).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('adds the item when its delay has passed, not before', () => {
    const { clock, queue } = setup();
    queue.addAfter('a', 50);
    expect(queue.len()).toBe(0);
    clock.advance(49);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(takeAll(queue)).toEqual(['a']);
  });

  it('releases items in order of ready time, whatever the order of the calls', () => {
    const { clock, queue } = setup();
    const schedule: [string, number][] = [
      ['c', 30],
      ['a', 10],
      ['e', 50],
      ['b', 20],
      ['d', 40],
    ];
    for (const [item, delay] of schedule) queue.addAfter(item, delay);
    const released: string[] = [];
    for (let t = 0; t < 5; t++) {
      clock.advance(10);
      released.push(...takeAll(queue));
    }
    expect(released).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('releases items with the same ready time in the order they were scheduled', () => {
    const { clock, queue } = setup();
    for (const item of ['x', 'y', 'z']) queue.addAfter(item, 100);
    clock.advance(100);
    expect(takeAll(queue)).toEqual(['x', 'y', 'z']);
  });

  it.each([
    { first: 100, second: 10, readyAt: 10 },
    { first: 10, second: 100, readyAt: 10 },
    { first: 50, second: 50, readyAt: 50 },
  ])(
    'keeps the earlier ready time when an item is scheduled twice ($first ms, then $second ms)',
    ({ first, second, readyAt }) => {
      const { clock, queue } = setup();
      queue.addAfter('a', first);
      queue.addAfter('a', second);
      clock.advance(readyAt - 1);
      expect(queue.len()).toBe(0);
      clock.advance(1);
      expect(takeAll(queue)).toEqual(['a']);
      clock.advance(1000);
      expect(queue.len()).toBe(0); // released once, not twice
    },
  );

  it('keeps the earlier time even when the second call is made later in time', () => {
    const { clock, queue } = setup();
    queue.addAfter('a', 100); // ready at 100
    clock.advance(50);
    queue.addAfter('a', 80); // would be ready at 130
    clock.advance(50);
    expect(takeAll(queue)).toEqual(['a']);
  });

  it('dedups an item that becomes ready while it already waits in the queue', () => {
    const { clock, queue } = setup();
    queue.add('a');
    queue.addAfter('a', 10);
    clock.advance(10);
    expect(takeAll(queue)).toEqual(['a']);
  });

  it('wakes a worker waiting in get when the item becomes ready', async () => {
    const { clock, queue } = setup();
    let woken: unknown;
    const next = queue.get().then((result) => (woken = result));
    queue.addAfter('a', 1000);
    clock.advance(999);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(woken).toBeUndefined();
    clock.advance(1);
    await next;
    expect(woken).toEqual({ item: 'a', shutdown: false });
  });

  it('waits out delays longer than a Node timer can hold', () => {
    const { clock, queue } = setup();
    const thirtyDays = 30 * 24 * 3600 * 1000;
    expect(thirtyDays).toBeGreaterThan(MAX_TIMER_DELAY_MS);
    queue.addAfter('a', thirtyDays);
    clock.advance(MAX_TIMER_DELAY_MS);
    expect(queue.len()).toBe(0);
    clock.advanceTo(thirtyDays);
    expect(takeAll(queue)).toEqual(['a']);
  });

  it('keeps a single timer, armed for the earliest item', () => {
    const { clock, queue } = setup();
    queue.addAfter('late', 500);
    queue.addAfter('early', 100);
    queue.addAfter('middle', 300);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(100);
  });

  it('decorates the queue it is given', () => {
    const inner = newWorkQueue();
    const clock = new FakeClock();
    const queue = newDelayingQueue({ clock, queue: inner });
    queue.addAfter('a', 5);
    clock.advance(5);
    expect(inner.tryGet()).toBe('a');
  });
});

describe('DelayingQueue shut-down', () => {
  it.each([
    ['shutDown', (q: ReturnType<typeof setup>['queue']) => q.shutDown()],
    ['shutDownWithDrain', (q: ReturnType<typeof setup>['queue']) => void q.shutDownWithDrain()],
  ])('%s cancels the timers and drops scheduled items', (_name, stop) => {
    const { clock, queue } = setup();
    queue.addAfter('a', 10);
    queue.addAfter('b', 20);
    stop(queue);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(100);
    expect(queue.len()).toBe(0);
  });

  it('ignores addAfter once shutting down', () => {
    const { clock, queue } = setup();
    queue.shutDown();
    queue.addAfter('a', 10);
    queue.addAfter('b', 0);
    expect(clock.pendingTimers()).toBe(0);
    expect(queue.len()).toBe(0);
  });

  it('stops releasing items when the decorated queue is shut down directly', () => {
    const inner = newWorkQueue();
    const clock = new FakeClock();
    const queue = newDelayingQueue({ clock, queue: inner });
    queue.addAfter('a', 10);
    queue.addAfter('b', 20);
    inner.shutDown();
    clock.advance(10);
    expect(clock.pendingTimers()).toBe(0);
    expect(queue.len()).toBe(0);
  });
});
