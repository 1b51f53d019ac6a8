import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';
import {
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

function whens(limiter: RateLimiter, item: string, n: number): number[] {
  return Array.from({ length: n }, () => limiter.when(item));
}

/** A limiter that records what it is asked and answers from a table. */
function scripted(delays: Record<string, number>, requeues = 0) {
  const calls: string[] = [];
  const limiter: RateLimiter = {
    when: (item) => (calls.push(`when ${item}`), delays[item] ?? 0),
    forget: (item) => void calls.push(`forget ${item}`),
    numRequeues: () => requeues,
  };
  return { limiter, calls };
}

describe('itemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per failure and caps at 1000 s', () => {
    const limiter = itemExponentialFailureRateLimiter();
    const expected = [
      5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840,
      327680, 655360, 1_000_000, 1_000_000, 1_000_000,
    ];
    expect(whens(limiter, 'ns/a', expected.length)).toEqual(expected);
    expect(limiter.numRequeues('ns/a')).toBe(expected.length);
  });

  it('stays at the cap however many failures there are', () => {
    const limiter = itemExponentialFailureRateLimiter();
    const delays = whens(limiter, 'a', 2000);
    expect(delays.at(-1)).toBe(1_000_000);
  });

  it('keeps one history per item', () => {
    const limiter = itemExponentialFailureRateLimiter(1, 1000);
    expect(whens(limiter, 'a', 3)).toEqual([1, 2, 4]);
    expect(whens(limiter, 'b', 2)).toEqual([1, 2]);
    expect(limiter.numRequeues('a')).toBe(3);
    expect(limiter.numRequeues('b')).toBe(2);
  });

  it('starts over after forget', () => {
    const limiter = itemExponentialFailureRateLimiter();
    whens(limiter, 'a', 5);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(whens(limiter, 'a', 3)).toEqual([5, 10, 20]);
  });

  it.each([
    { base: 1, max: 1000, expected: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000] },
    { base: 100, max: 250, expected: [100, 200, 250, 250] },
    { base: 0, max: 1000, expected: [0, 0, 0] },
  ])('follows base $base ms, max $max ms', ({ base, max, expected }) => {
    expect(whens(itemExponentialFailureRateLimiter(base, max), 'x', expected.length)).toEqual(
      expected,
    );
  });

  it('returns min(base · 2^(n−1), max) for the n-th failure (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 80 }),
        (base, max, n) => {
          const delays = whens(itemExponentialFailureRateLimiter(base, max), 'k', n);
          delays.forEach((delay, i) => expect(delay).toBe(Math.min(base * 2 ** i, max)));
        },
      ),
    );
  });
});

describe('itemFastSlowRateLimiter', () => {
  it('waits the fast delay for the first attempts, then the slow one, until forgotten', () => {
    const limiter = itemFastSlowRateLimiter(5, 10_000, 3);
    expect(whens(limiter, 'a', 5)).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(limiter.numRequeues('a')).toBe(5);
    expect(whens(limiter, 'b', 1)).toEqual([5]);
    limiter.forget('a');
    expect(whens(limiter, 'a', 1)).toEqual([5]);
  });
});

describe('bucketRateLimiter', () => {
  it('lets the first 100 through at once, then spaces requests 100 ms apart at 10 qps', () => {
    const limiter = bucketRateLimiter(10, 100, new FakeClock());
    const delays = Array.from({ length: 105 }, (_, i) => limiter.when(`item-${i}`));
    expect(delays.slice(0, 100)).toEqual(Array(100).fill(0));
    expect(delays.slice(100)).toEqual([100, 200, 300, 400, 500]);
  });

  it('refills at qps tokens per second, up to the burst', () => {
    const clock = new FakeClock();
    const limiter = bucketRateLimiter(10, 100, clock);
    whens(limiter, 'x', 100);
    clock.advance(1000); // 10 tokens back
    expect(whens(limiter, 'x', 11)).toEqual([...Array(10).fill(0), 100]);
    clock.advance(3_600_000); // an hour: the bucket holds at most `burst`
    const delays = whens(limiter, 'x', 101);
    expect(delays.filter((d) => d === 0)).toHaveLength(100);
    expect(delays[100]).toBe(100);
  });

  it('measures the delay from the time of the call', () => {
    const clock = new FakeClock();
    const limiter = bucketRateLimiter(2, 1, clock);
    expect(limiter.when('x')).toBe(0);
    expect(limiter.when('x')).toBe(500); // reserved the token due at 500 ms
    clock.advance(200);
    expect(limiter.when('x')).toBe(800); // next token due at 1000 ms
  });

  it('keeps no per-item history', () => {
    const limiter = bucketRateLimiter(10, 100, new FakeClock());
    whens(limiter, 'a', 150);
    expect(limiter.numRequeues('a')).toBe(0);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(5100); // forget does not give tokens back
  });

  it('never waits at an infinite rate', () => {
    expect(whens(bucketRateLimiter(Infinity, 1), 'a', 1000).every((d) => d === 0)).toBe(true);
  });

  it.each([
    { qps: 0, burst: 1 },
    { qps: -1, burst: 1 },
    { qps: Number.NaN, burst: 1 },
    { qps: 10, burst: 0 },
    { qps: 10, burst: 1.5 },
  ])('rejects qps $qps with burst $burst', ({ qps, burst }) => {
    expect(() => bucketRateLimiter(qps, burst)).toThrow(RangeError);
  });

  it('never grants more than burst + qps · T tokens within any window of T (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 120 }),
        (qps, burst, gaps) => {
          const clock = new FakeClock();
          const limiter = bucketRateLimiter(qps, burst, clock);
          const actAt: number[] = [];
          for (const gap of gaps) {
            clock.advance(gap);
            const delay = limiter.when('k');
            expect(delay).toBeGreaterThanOrEqual(0);
            actAt.push(clock.now() + delay);
          }
          // Reservations are granted in order…
          for (let i = 1; i < actAt.length; i++) {
            expect(actAt[i]!).toBeGreaterThanOrEqual(actAt[i - 1]! - 1e-6);
          }
          // …and no window holds more than the bucket can give.
          for (let i = 0; i < actAt.length; i++) {
            for (let j = i; j < actAt.length; j++) {
              const window = actAt[j]! - actAt[i]!;
              expect(j - i + 1).toBeLessThanOrEqual(burst + (window * qps) / 1000 + 1e-6);
            }
          }
        },
      ),
    );
  });
});

describe('maxOf', () => {
  it('answers the longest delay, asking every limiter', () => {
    const a = scripted({ x: 10 });
    const b = scripted({ x: 30 });
    const c = scripted({ x: 20 });
    expect(maxOf(a.limiter, b.limiter, c.limiter).when('x')).toBe(30);
    for (const s of [a, b, c]) expect(s.calls).toEqual(['when x']);
  });

  it('forgets in every limiter and reports the largest requeue count', () => {
    const a = scripted({}, 2);
    const b = scripted({}, 7);
    const limiter = maxOf(a.limiter, b.limiter);
    limiter.forget('x');
    expect(a.calls).toEqual(['forget x']);
    expect(b.calls).toEqual(['forget x']);
    expect(limiter.numRequeues('x')).toBe(7);
  });

  it('never waits when it combines nothing', () => {
    expect(maxOf().when('x')).toBe(0);
    expect(maxOf().numRequeues('x')).toBe(0);
  });

  it('equals the maximum of its parts on any failure sequence (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', '-a', '-b'), { maxLength: 60 }),
        (ops) => {
          const parts = () => [
            itemExponentialFailureRateLimiter(3, 500),
            itemFastSlowRateLimiter(7, 90, 4),
          ];
          const separate = parts();
          const combined = maxOf(...parts());
          for (const op of ops) {
            if (op.startsWith('-')) {
              const item = op.slice(1);
              combined.forget(item);
              separate.forEach((l) => l.forget(item));
            } else {
              const expected = Math.max(...separate.map((l) => l.when(op)));
              expect(combined.when(op)).toBe(expected);
              expect(combined.numRequeues(op)).toBe(
                Math.max(...separate.map((l) => l.numRequeues(op))),
              );
            }
          }
        },
      ),
    );
  });
});

describe('defaultControllerRateLimiter', () => {
  it('backs off per item from 5 ms while the bucket has tokens', () => {
    const limiter = defaultControllerRateLimiter(new FakeClock());
    expect(whens(limiter, 'a', 4)).toEqual([5, 10, 20, 40]);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('lets the 10 qps bucket dominate once a burst of 100 is spent', () => {
    const limiter = defaultControllerRateLimiter(new FakeClock());
    const delays = Array.from({ length: 102 }, (_, i) => limiter.when(`item-${i}`));
    expect(delays.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200]);
  });
});

describe('rateLimiterFunc and noopRateLimiter', () => {
  it('adapts a function, with no history', () => {
    const limiter = rateLimiterFunc((item) => item.length);
    expect(limiter.when('abc')).toBe(3);
    limiter.forget('abc');
    expect(limiter.numRequeues('abc')).toBe(0);
  });

  it('never waits', () => {
    expect(whens(noopRateLimiter, 'a', 3)).toEqual([0, 0, 0]);
  });
});

describe('perTenant and fairControllerRateLimiter', () => {
  it('keeps one limiter per namespace: one namespace’s failures never delay another’s retries', () => {
    const limiter = fairControllerRateLimiter(new FakeClock());
    // Namespace a spends its bucket's burst of 100 and more.
    const a = Array.from({ length: 102 }, (_, i) => limiter.when(`a/item-${i}`));
    expect(a.slice(100)).toEqual([100, 200]);
    // b still has its whole burst: only its own per-item backoff.
    expect(Array.from({ length: 3 }, (_, i) => limiter.when(`b/item-${i}`))).toEqual([5, 5, 5]);
    expect(whens(limiter, 'b/item-0', 2)).toEqual([10, 20]);
    expect(limiter.numRequeues('b/item-0')).toBe(3);
    limiter.forget('b/item-0');
    expect(limiter.numRequeues('b/item-0')).toBe(0);
    expect(limiter.numRequeues('a/item-0')).toBe(1);
  });

  it('takes a tenant function, and answers for a tenant it has not seen', () => {
    const made: string[] = [];
    const limiter = perTenant(
      () => {
        made.push('limiter');
        return itemExponentialFailureRateLimiter(1, 100);
      },
      (item) => item.split(':')[0]!,
    );
    expect(limiter.numRequeues('x:1')).toBe(0);
    limiter.forget('x:1');
    expect(made).toEqual([]);
    expect(whens(limiter, 'x:1', 3)).toEqual([1, 2, 4]);
    expect(whens(limiter, 'y:1', 1)).toEqual([1]);
    expect(made).toHaveLength(2);
  });
});
