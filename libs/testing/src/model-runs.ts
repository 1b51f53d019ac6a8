/**
 * Model runs: fast-check's `commands`/`modelRun` over a simulated world, for the state machines that
 * guard data (STYLE.md habit 12). The seed is random, so every test run explores new sequences;
 * the environment steers a run:
 *
 * - `MODEL_RUNS`: how many sequences (default: the test's own count);
 * - `MODEL_SEED` and `MODEL_PATH`: replay the failure fast-check reported, at once (the reported
 *   sequence is the shrunk one already); with `MODEL_SHRINK=1` it is shrunk again.
 *
 * A failing sequence is reported as fast-check reports a counterexample: the seed, the path and the
 * commands by their `toString()` — which is why every command is named after what it does.
 */
import fc from 'fast-check';

/** A command the model always accepts (the world decides what it means in every state). */
export type ModelCommand<World extends object> = fc.Command<object, World>;

/**
 * A command named `name` that runs `run` on the world, then `after` with the world and what `run`
 * answered (where a model checks its invariants after every command, or logs the step).
 */
export function modelCommand<World extends object>(
  name: string,
  run: (world: World) => string | void,
  after: (world: World, outcome: string | void) => void = () => undefined,
): ModelCommand<World> {
  return {
    check: () => true,
    run: (_, world) => after(world, run(world)),
    toString: () => name,
  };
}

/** `true` once in `weight + 1` draws, `false` otherwise. */
export const sometimes = (weight: number): fc.Arbitrary<boolean> =>
  fc.oneof({ arbitrary: fc.constant(false), weight }, { arbitrary: fc.constant(true), weight: 1 });

/**
 * fast-check's run parameters from the environment (see the file's doc): `runs` sequences with a
 * random seed, or the replay `MODEL_SEED`/`MODEL_PATH` name.
 */
export function modelRunParameters<Ts>(
  runs: number,
  env: NodeJS.ProcessEnv = process.env,
): fc.Parameters<Ts> {
  return {
    numRuns: Number(env['MODEL_RUNS'] ?? runs),
    ...(env['MODEL_SEED']
      ? {
          seed: Number(env['MODEL_SEED']),
          path: env['MODEL_PATH'],
          endOnFailure: !env['MODEL_SHRINK'],
        }
      : {}),
  };
}

export interface ModelRunsOptions<Config, World extends object> {
  /** The worlds' configurations, drawn once per sequence. */
  configs: fc.Arbitrary<Config>;
  /** The commands a sequence is drawn from (list one several times to draw it more often). */
  commands: fc.Arbitrary<ModelCommand<World>>[];
  /** The world a sequence starts from; it checks its invariants itself and throws on a breach. */
  world: (config: Config) => World;
  /** How many sequences a test run tries, unless `MODEL_RUNS` says otherwise. */
  runs: number;
  /** The longest sequence. Default 60. */
  maxCommands?: number;
}

/**
 * Runs random sequences of `commands` against fresh worlds and throws fast-check's report of the
 * first sequence that breaks an invariant (shrunk, unless a replay says not to).
 */
export function assertModelRuns<Config, World extends object>(
  options: ModelRunsOptions<Config, World>,
): void {
  fc.assert(
    fc.property(
      options.configs,
      fc.commands(options.commands, { maxCommands: options.maxCommands ?? 60, size: 'max' }),
      (config, commands) => {
        fc.modelRun(() => ({ model: {}, real: options.world(config) }), commands);
      },
    ),
    modelRunParameters(options.runs),
  );
}
