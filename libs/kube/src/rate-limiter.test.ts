import { describe, expect, it } from 'vitest';
import { FakeClock } from '../tests/support/fake-clock.js';
import {
  currentRequestPriority,
  TokenBucketRateLimiter,
  withRequestPriority,
} from './rate-limiter.js';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Starts `acquire`s and records, for each, the fake time it was let through (or its error). */
function start(
  clock: FakeClock,
  limiter: TokenBucketRateLimiter,
  requests: { label: string; priority?: number; signal?: AbortSignal }[],
) {
  const through: { label: string; at: number }[] = [];
  const failed: { label: string; error: unknown }[] = [];
  const all = requests.map(({ label, priority, signal }) => {
    const go = () =>
      limiter.acquire(signal).then(
        () => void through.push({ label, at: clock.now() }),
        (error: unknown) => void failed.push({ label, error }),
      );
    return priority === undefined ? go() : withRequestPriority(priority, go);
  });
  return { through, failed, all: Promise.all(all) };
}

/** Moves the clock in `step` ms steps until `until`, letting the limiter run between steps. */
async function run(clock: FakeClock, until: number, step = 10): Promise<void> {
  await settle();
  while (clock.now() < until) {
    clock.advance(step);
    await settle();
  }
}

describe('TokenBucketRateLimiter', () => {
  it('lets a burst through at once, then spaces requests 1/qps apart', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock });
    const r = start(
      clock,
      limiter,
      Array.from({ length: 6 }, (_, i) => ({ label: `r${i}` })),
    );
    await run(clock, 300);
    await r.all;
    expect(r.through.map((t) => t.at)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('refills at qps while idle, never beyond burst', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 5, burst: 4, clock });
    for (let i = 0; i < 4; i++) await limiter.acquire();
    clock.advance(400); // two tokens back
    await limiter.acquire();
    await limiter.acquire();
    expect(limiter.waiting).toBe(0);
    const third = start(clock, limiter, [{ label: 'third' }]);
    expect(limiter.waiting).toBe(1);
    await run(clock, 600);
    await third.all;
    expect(third.through).toEqual([{ label: 'third', at: 600 }]);

    clock.advance(60_000); // an idle minute refills to burst, not to 300
    const t0 = clock.now();
    const r = start(
      clock,
      limiter,
      Array.from({ length: 5 }, (_, i) => ({ label: `r${i}` })),
    );
    await run(clock, t0 + 200);
    await r.all;
    expect(r.through.map((t) => t.at - t0)).toEqual([0, 0, 0, 0, 200]);
  });

  it('holds demand to qps after the burst: n requests finish (n - burst) / qps seconds in', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 20, burst: 30, clock });
    const r = start(
      clock,
      limiter,
      Array.from({ length: 230 }, (_, i) => ({ label: `r${i}` })),
    );
    await run(clock, 10_000, 50);
    await r.all;
    expect(r.through[29]!.at).toBe(0);
    expect(r.through[30]!.at).toBe(50);
    expect(r.through.at(-1)!.at).toBe(10_000);
  });

  it('gives a freed token to the highest waiting priority, then in arrival order', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 1, clock });
    await limiter.acquire(); // the bucket is empty: everyone below waits
    const r = start(clock, limiter, [
      { label: 'bulk-1', priority: -100 },
      { label: 'normal-1' },
      { label: 'bulk-2', priority: -100 },
      { label: 'urgent-1', priority: 100 },
      { label: 'normal-2', priority: 0 },
      { label: 'urgent-2', priority: 100 },
    ]);
    expect(limiter.waiting).toBe(6);
    await run(clock, 600);
    await r.all;
    expect(r.through).toEqual([
      { label: 'urgent-1', at: 100 },
      { label: 'urgent-2', at: 200 },
      { label: 'normal-1', at: 300 },
      { label: 'normal-2', at: 400 },
      { label: 'bulk-1', at: 500 },
      { label: 'bulk-2', at: 600 },
    ]);
  });

  it('an urgent request that arrives while a backlog waits goes at the next token', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 20, burst: 1, clock });
    await limiter.acquire();
    const backlog = start(
      clock,
      limiter,
      Array.from({ length: 40 }, (_, i) => ({ label: `bulk-${i}` })),
    );
    await run(clock, 120); // bulk-0 … bulk-1 through (at 50, 100)
    const urgent = start(clock, limiter, [{ label: 'failover', priority: 100 }]);
    await run(clock, 150);
    await urgent.all;
    expect(urgent.through).toEqual([{ label: 'failover', at: 150 }]);
    expect(backlog.through.map((t) => t.label)).toEqual(['bulk-0', 'bulk-1']);
    await run(clock, 2100, 50);
    await backlog.all;
    expect(backlog.through).toHaveLength(40);
  });

  it('an aborted waiter leaves the line and takes no token', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
    await limiter.acquire();
    const controller = new AbortController();
    const reason = new Error('stop');
    const r = start(clock, limiter, [
      { label: 'aborted', signal: controller.signal },
      { label: 'next' },
    ]);
    controller.abort(reason);
    await settle();
    expect(r.failed).toEqual([{ label: 'aborted', error: reason }]);
    expect(limiter.waiting).toBe(1);
    // The token the aborted caller would have had goes to the next in line.
    await run(clock, 1000, 100);
    await r.all;
    expect(r.through).toEqual([{ label: 'next', at: 1000 }]);
    await expect(limiter.acquire(AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('never waits with qps Infinity', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter({ qps: Infinity, burst: 1, clock });
    await Promise.all(Array.from({ length: 100 }, () => limiter.acquire()));
    expect(clock.sleeps).toEqual([]);
  });

  it('withRequestPriority holds across awaits and nests; 0 outside', async () => {
    expect(currentRequestPriority()).toBe(0);
    await withRequestPriority(100, async () => {
      await settle();
      expect(currentRequestPriority()).toBe(100);
      await withRequestPriority(-100, async () => {
        await settle();
        expect(currentRequestPriority()).toBe(-100);
      });
      expect(currentRequestPriority()).toBe(100);
    });
    expect(currentRequestPriority()).toBe(0);
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
