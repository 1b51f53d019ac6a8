import { describe, expect, it } from 'vitest';
import {
  exponentialBuckets,
  RECONCILE_TIME_BUCKETS,
  reconcileResultOf,
  WORKQUEUE_DURATION_BUCKETS,
} from './index.js';

describe('bucket boundaries', () => {
  it("are client-go's workqueue buckets, float for float", () => {
    // prometheus.ExponentialBuckets(10e-9, 10, 12) as a Go process computes it.
    expect(WORKQUEUE_DURATION_BUCKETS).toEqual([
      1e-8, 1e-7, 1e-6, 9.999999999999999e-6, 9.999999999999999e-5, 0.001, 0.01, 0.1, 1, 10, 100,
      1000,
    ]);
  });

  it("are controller-runtime's reconcile time buckets", () => {
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    expect(RECONCILE_TIME_BUCKETS[0]).toBe(0.005);
    expect(RECONCILE_TIME_BUCKETS.at(-1)).toBe(60);
    expect([...RECONCILE_TIME_BUCKETS].sort((a, b) => a - b)).toEqual([...RECONCILE_TIME_BUCKETS]);
  });

  it.each([
    [0, 2, 3],
    [1, 0, 3],
    [1, 1, 3],
    [1, 2, 0],
  ])('refuse exponentialBuckets(%d, %d, %d)', (start, factor, count) => {
    expect(() => exponentialBuckets(start, factor, count)).toThrow(RangeError);
  });
});

describe('reconcileResultOf', () => {
  it.each([
    [undefined, 'success'],
    [{}, 'success'],
    [{ requeueAfter: 0 }, 'success'],
    [{ requeue: false }, 'success'],
    [{ requeue: true }, 'requeue'],
    [{ requeueAfter: 1000 }, 'requeue_after'],
    [{ requeueAfter: 1000, requeue: true }, 'requeue_after'],
  ] as const)('classifies %j as %s', (outcome, expected) => {
    expect(reconcileResultOf(outcome)).toBe(expected);
  });
});
