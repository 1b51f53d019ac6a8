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
