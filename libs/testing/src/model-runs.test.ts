import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertModelRuns, modelCommand, modelRunParameters, sometimes } from './model-runs.js';

describe('model runs', () => {
  it('take the run count and the replay from the environment', () => {
    expect(modelRunParameters(500, {})).toEqual({ numRuns: 500 });
    expect(modelRunParameters(500, { MODEL_RUNS: '20' })).toEqual({ numRuns: 20 });
    expect(
      modelRunParameters(500, { MODEL_SEED: '-42', MODEL_PATH: '3:1:0', MODEL_RUNS: '1' }),
    ).toEqual({ numRuns: 1, seed: -42, path: '3:1:0', endOnFailure: true });
    expect(modelRunParameters(500, { MODEL_SEED: '7', MODEL_SHRINK: '1' })).toMatchObject({
      seed: 7,
      endOnFailure: false,
    });
  });

  it('report a sequence that breaks an invariant by its commands’ names', () => {
    const counter = () => ({ n: 0 });
    const bump = fc.integer({ min: 1, max: 3 }).map((by) =>
      modelCommand<{ n: number }>(
        `bump ${by}`,
        (w) => void (w.n += by),
        (w) => {
          if (w.n > 5) throw new Error(`invariant: ${w.n} above 5`);
        },
      ),
    );
    expect(() =>
      assertModelRuns({ configs: fc.constant(null), commands: [bump], world: counter, runs: 200 }),
    ).toThrow(/Counterexample: \[null,bump \d,bump \d/);
    expect(() =>
      assertModelRuns({
        configs: fc.constant(null),
        commands: [bump],
        world: counter,
        runs: 50,
        maxCommands: 1,
      }),
    ).not.toThrow();
  });

  it('draw `sometimes` rarely', () => {
    const draws = fc.sample(sometimes(9), { numRuns: 2000, seed: 1 });
    const share = draws.filter(Boolean).length / draws.length;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.2);
  });
});
