import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('doubles from 800 ms to a 30 s cap without jitter, and starts over after reset', () => {
    const b = new Backoff(800, 30_000, 0);
    expect(Array.from({ length: 8 }, () => b.next())).toEqual([
      800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000,
    ]);
    b.reset();
    expect(b.next()).toBe(800);
  });

  it('stretches each delay by up to the jitter factor, never past the cap', () => {
    const high = new Backoff(800, 30_000, 1.0, () => 0.999);
    expect(high.next()).toBeCloseTo(1599.2);
    const low = new Backoff(800, 30_000, 1.0, () => 0);
    expect(low.next()).toBe(800);
    const capped = new Backoff(20_000, 30_000, 1.0, () => 0.9);
    expect(capped.next()).toBe(30_000);
  });
});
