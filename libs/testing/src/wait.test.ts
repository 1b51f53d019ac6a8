import { describe, expect, it } from 'vitest';
import { eventually } from './wait.js';

describe('eventually', () => {
  it('returns the first value the probe yields that is not undefined or false', async () => {
    let calls = 0;
    const value = await eventually(() => (++calls >= 3 ? `ready after ${calls}` : false), {
      intervalMs: 1,
    });
    expect(value).toBe('ready after 3');
  });

  it('keeps trying while the probe throws', async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        if (++calls < 2) throw new Error('not yet');
        return calls;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(2);
  });

  it('times out naming what it waited for, with the last failure as the cause', async () => {
    const failure = await eventually(
      () => {
        throw new Error('still broken');
      },
      { timeoutMs: 20, intervalMs: 5, description: 'the widget' },
    ).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/waiting for the widget/);
    expect(((failure as Error).cause as Error).message).toBe('still broken');
  });
});
