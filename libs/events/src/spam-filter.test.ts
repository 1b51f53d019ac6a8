import { describe, expect, it } from 'vitest';
import { SpamFilter } from './spam-filter.js';

function allowed(filter: SpamFilter, key: string, times: number, now: number): number {
  let count = 0;
  for (let i = 0; i < times; i++) if (filter.allow(key, now)) count++;
  return count;
}

describe('SpamFilter', () => {
  it('allows a burst of 25 per object, then one more every 5 minutes', () => {
    const filter = new SpamFilter();
    expect(allowed(filter, 'a', 40, 0)).toBe(25);
    expect(allowed(filter, 'a', 5, 299_999)).toBe(0);
    expect(allowed(filter, 'a', 5, 300_000)).toBe(1);
    expect(allowed(filter, 'a', 5, 900_000)).toBe(2);
  });

  it('keeps separate buckets per object', () => {
    const filter = new SpamFilter({ burst: 2 });
    expect(allowed(filter, 'a', 5, 0)).toBe(2);
    expect(allowed(filter, 'b', 5, 0)).toBe(2);
  });

  it('never refills beyond the burst', () => {
    const filter = new SpamFilter({ burst: 3, refillIntervalMs: 10 });
    expect(allowed(filter, 'a', 3, 0)).toBe(3);
    expect(allowed(filter, 'a', 10, 1_000_000)).toBe(3);
  });

  it('forgets the least recently seen object beyond maxObjects', () => {
    const filter = new SpamFilter({ burst: 1, maxObjects: 2 });
    expect(allowed(filter, 'a', 1, 0)).toBe(1);
    expect(allowed(filter, 'b', 1, 0)).toBe(1);
    expect(allowed(filter, 'c', 1, 0)).toBe(1);
    expect(allowed(filter, 'a', 1, 0)).toBe(1);
    expect(allowed(filter, 'c', 1, 0)).toBe(0);
  });
});
