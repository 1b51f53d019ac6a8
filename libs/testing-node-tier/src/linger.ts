import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A supervisor's last loop: looks every second whether anyone still holds its tier (`held`); once
 * nobody has for `lingerMs`, calls `idle` (which stops the tier) and resolves. Resolves at once
 * when `stopping()` turns true (a signal is stopping the tier already).
 */
export async function lingerWhileHeld(options: {
  held: () => boolean | Promise<boolean>;
  stopping: () => boolean;
  lingerMs: number;
  idle: () => Promise<void>;
}): Promise<void> {
  let idleSince: number | undefined;
  for (;;) {
    await sleep(1_000);
    if (options.stopping()) return;
    if (await options.held()) {
      idleSince = undefined;
      continue;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince >= options.lingerMs) {
      await options.idle();
      return;
    }
  }
}

/** The variable that sets how long a tier stays up with nobody holding it (milliseconds). */
export const LingerEnv = 'STEWARD_NODE_TIER_LINGER_MS';

/**
 * How long a tier a suite starts stays up once nobody holds it: `STEWARD_NODE_TIER_LINGER_MS`
 * when set (`npm test` sets minutes, so that suites queued one after another in other projects
 * find it up rather than start it again, and stops the tiers itself at the end), else 20 s.
 */
export function defaultLingerMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[LingerEnv];
  if (text === undefined || text === '') return 20_000;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0)
    throw new RangeError(`${LingerEnv} must be a whole number of milliseconds, not ${text}`);
  return ms;
}
