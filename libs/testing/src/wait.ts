import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep trying before giving up. Generous by default: these machines are shared. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Names what is being waited for in the error thrown on timeout. */
  description?: string;
}

/**
 * Calls `probe` until it returns a value other than `undefined`/`false` or stops throwing, and returns
 * that value. On timeout throws an error naming `description` with the last failure as its cause.
 * Tests assert outcomes with it; they never assert on elapsed time.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 60_000, intervalMs = 200, description = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`, {
        cause: lastError,
      });
    }
    await sleep(intervalMs);
  }
}
