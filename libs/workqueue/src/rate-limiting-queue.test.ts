import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';
import { type DelayingQueue, newDelayingQueue } from './delaying-queue.js';
import { type RateLimiter, rateLimiterFunc } from './rate-limiters.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

describe('RateLimitingQueue', () => {
  it('addRateLimited waits exactly what the rate limiter says', () => {
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(
      rateLimiterFunc((item) => (item === 'slow' ? 300 : 100)),
      { clock },
    );
    queue.addRateLimited('slow');
    queue.addRateLimited('fast');
    clock.advance(99);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.tryGet()).toBe('fast');
    clock.advance(199);
    expect(queue.tryGet()).toBeUndefined();
    clock.advance(1);
    expect(queue.tryGet()).toBe('slow');
  });

  it('addRateLimited is addAfter(item, when(item)) on the decorated delaying queue', () => {
    const calls: string[] = [];
    const delaying = newDelayingQueue({ clock: new FakeClock() });
    // Every method but addAfter is the real one.
    const spy = Object.create(delaying, {
      addAfter: { value: (item: string, ms: number) => void calls.push(`${item}+${ms}`) },
    }) as DelayingQueue;
    const queue = newRateLimitingQueue(
      rateLimiterFunc(() => 42),
      { delayingQueue: spy },
    );
    queue.addRateLimited('ns/a');
    expect(calls).toEqual(['ns/a+42']);
  });

  it('with the default limiter, retries back off 5 ms, 10 ms, 20 ms until forgotten', () => {
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(undefined, { clock });
    const readyAfter: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const start = clock.now();
      queue.addRateLimited('ns/a');
      while (queue.len() === 0) clock.advance(1);
      readyAfter.push(clock.now() - start);
      queue.done(queue.tryGet() as string);
    }
    expect(readyAfter).toEqual([5, 10, 20]);
    expect(queue.numRequeues('ns/a')).toBe(3);
    queue.forget('ns/a');
    expect(queue.numRequeues('ns/a')).toBe(0);
  });

  it('forget and numRequeues go to the rate limiter', () => {
    const calls: string[] = [];
    const limiter: RateLimiter = {
      when: () => 0,
      forget: (item) => void calls.push(`forget ${item}`),
      numRequeues: (item) => (item === 'a' ? 4 : 0),
    };
    const queue = newRateLimitingQueue(limiter, { clock: new FakeClock() });
    queue.forget('a');
    expect(calls).toEqual(['forget a']);
    expect(queue.numRequeues('a')).toBe(4);
  });

  it('addRateLimited is ignored after shut-down', () => {
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(
      rateLimiterFunc(() => 10),
      { clock },
    );
    queue.shutDown();
    queue.addRateLimited('a');
    clock.advance(100);
    expect(queue.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});
