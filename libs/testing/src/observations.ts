import { eventually } from './wait.js';

/** What an admin layer answers when it looks at a server: what it saw, or why it could not. */
export type Observation = { reachable: true } | { reachable: false; error: string };

/** An admin layer, as far as looking goes. */
export interface Observer<Target, O extends Observation> {
  observe(target: Target): Promise<O>;
}

/**
 * An admin layer's observations as its tests take them, every error text kept in `errors` — so
 * that a test can check that none carries a password.
 */
export interface Observations<Target, O extends Observation> {
  /** The errors of every unreachable observation and every `failure`, in order. */
  readonly errors: string[];
  /** An observation of `target` (by the suite's admin, or `using` another). */
  observe(target: Target, using?: Observer<Target, O>): Promise<O>;
  /** The observation of the server `name`, which must be reachable. */
  reachable(name: string): Promise<Extract<O, { reachable: true }>>;
  /** Waits (a minute by default) until `target` is observed unreachable; answers that. */
  unreachable(
    target: Target,
    description: string,
    timeoutMs?: number,
  ): Promise<Extract<O, { reachable: false }>>;
  /** The error `call` fails with (undefined when it does not), its message kept. */
  failure(call: Promise<unknown>): Promise<unknown>;
}

/**
 * Observations by `admin()` (read when observing: a suite makes its admin in `beforeAll`) of the
 * targets `endpoint` names.
 */
export function observations<Target, O extends Observation>(
  admin: () => Observer<Target, O>,
  endpoint: (name: string) => Target,
): Observations<Target, O> {
  const errors: string[] = [];
  const observe = async (target: Target, using = admin()): Promise<O> => {
    const observation = await using.observe(target);
    if (!observation.reachable) errors.push(observation.error);
    return observation;
  };
  return {
    errors,
    observe,
    reachable: async (name) => {
      const observation = await observe(endpoint(name));
      if (!observation.reachable) throw new Error(`${name} unreachable: ${observation.error}`);
      return observation as Extract<O, { reachable: true }>;
    },
    unreachable: (target, description, timeoutMs = 60_000) =>
      eventually(
        async () => {
          const o = await observe(target);
          return !o.reachable && (o as Extract<O, { reachable: false }>);
        },
        { timeoutMs, description },
      ),
    failure: (call) =>
      call.then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof Error) errors.push(error.message);
          return error;
        },
      ),
  };
}
