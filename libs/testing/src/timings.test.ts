import { describe, expect, it } from 'vitest';
import { Timings } from './timings.js';

describe('Timings', () => {
  it('reports the median and the range of a measure’s runs', () => {
    const timings = new Timings();
    for (const seconds of [2.04, 1.5, 9.96]) timings.add('create → Ready', seconds);
    expect(timings.add('failover', 3.25)).toBe(3.25);
    expect(timings.figure('create → Ready')).toBe('2.0 s (1.5–10.0)');
    expect(timings.figure('failover')).toBe('3.3 s (3.3–3.3)');
    expect(() => timings.figure('never measured')).toThrow('no timings of never measured');
  });
});
