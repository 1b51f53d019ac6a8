import { describe, expect, it } from 'vitest';
import { boundedAll } from './bounded-all.js';

describe('boundedAll', () => {
  it('calls every index once, never more than `concurrency` at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await boundedAll(25, 4, async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(i);
      inFlight--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('rejects with a failure, and does nothing for a count of 0', async () => {
    await expect(
      boundedAll(3, 2, async (i) => {
        if (i === 1) throw new Error('no');
      }),
    ).rejects.toThrow('no');
    let called = false;
    await boundedAll(0, 2, async () => void (called = true));
    expect(called).toBe(false);
  });
});
