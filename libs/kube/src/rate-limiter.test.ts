import { describe, expect, it } from 'vitest';
import { FakeClock } from '../tests/support/fake-clock.js';
import { TokenBucketRateLimiter } from './rate-limiter.js';

describe('TokenBucketRateLimiter', () => {
  it('lets a burst through at once, then spaces requests 1/qps apart', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock });
    const waits = Array.from({ length: 6 }, () => limiter.reserve());
    expect(waits.map((w) => Math.round(w))).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('refills at qps while idle, never beyond burst', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 5, burst: 4, clock });
    for (let i = 0; i < 4; i++) expect(limiter.reserve()).toBe(0);
    clock.advance(400); // two tokens back
    expect(limiter.reserve()).toBe(0);
    expect(limiter.reserve()).toBe(0);
    expect(Math.round(limiter.reserve())).toBe(200);

    clock.advance(60_000); // an idle minute refills to burst, not to 300
    const waits = Array.from({ length: 5 }, () => limiter.reserve());
    expect(waits.map((w) => Math.round(w))).toEqual([0, 0, 0, 0, 200]);
  });

  it('holds demand to qps after the burst: n requests finish (n - burst) / qps seconds in', () => {
    const limiter = new TokenBucketRateLimiter({ qps: 20, burst: 30, clock: new FakeClock() });
    const waits = Array.from({ length: 230 }, () => limiter.reserve());
    expect(waits[29]).toBe(0);
    expect(waits[229]).toBeCloseTo(10_000, 6);
  });

  it('acquire sleeps on the clock for the reserved time, in arrival order', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 2, burst: 1, clock });
    const done: number[] = [];
    await limiter.acquire();
    const second = limiter.acquire().then(() => done.push(2));
    const third = limiter.acquire().then(() => done.push(3));
    expect(clock.sleeps).toEqual([500, 1000]);
    clock.advance(499);
    await Promise.resolve();
    expect(done).toEqual([]);
    clock.advance(1);
    await second;
    expect(done).toEqual([2]);
    clock.advance(500);
    await third;
    expect(done).toEqual([2, 3]);
  });

  it('an aborted acquire rejects with the reason and gives its token back', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    // The bucket is where it would be had the aborted caller never asked.
    expect(Math.round(limiter.reserve())).toBe(1000);
    await expect(limiter.acquire(AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('never waits with qps Infinity', () => {
    const limiter = new TokenBucketRateLimiter({ qps: Infinity, burst: 1, clock: new FakeClock() });
    expect(Array.from({ length: 100 }, () => limiter.reserve()).every((w) => w === 0)).toBe(true);
  });

  it.each([
    [{ qps: 0, burst: 1 }, 'qps'],
    [{ qps: -1, burst: 1 }, 'qps'],
    [{ qps: Number.NaN, burst: 1 }, 'qps'],
    [{ qps: 1, burst: 0 }, 'burst'],
  ])('rejects %o', (options, what) => {
    expect(() => new TokenBucketRateLimiter(options)).toThrow(RangeError);
    expect(() => new TokenBucketRateLimiter(options)).toThrow(what);
  });
});
