import { describe, expect, it } from 'vitest';
import { defaultLingerMs, LingerEnv } from './linger.js';

describe('defaultLingerMs', () => {
  it('is 20 s unless STEWARD_NODE_TIER_LINGER_MS says otherwise', () => {
    expect(defaultLingerMs({})).toBe(20_000);
    expect(defaultLingerMs({ [LingerEnv]: '' })).toBe(20_000);
    expect(defaultLingerMs({ [LingerEnv]: '600000' })).toBe(600_000);
    expect(defaultLingerMs({ [LingerEnv]: '0' })).toBe(0);
  });

  it('refuses what is not a whole number of milliseconds, naming the variable', () => {
    for (const bad of ['10m', '-1', '1.5'])
      expect(() => defaultLingerMs({ [LingerEnv]: bad })).toThrow(
        `STEWARD_NODE_TIER_LINGER_MS must be a whole number of milliseconds, not ${bad}`,
      );
  });
});
