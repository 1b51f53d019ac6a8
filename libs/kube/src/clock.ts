import { setTimeout as delay } from 'node:timers/promises';

/** Time as the rate limiter and retry waits see it; tests inject a fake one. */
export interface WaitClock {
  /** Milliseconds on a monotonic-enough scale; only differences are used. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemWaitClock: WaitClock = {
  now: () => performance.now(),
  sleep: async (ms, signal) => {
    if (signal?.aborted) throw signal.reason;
    try {
      await delay(ms, undefined, { signal });
    } catch (error) {
      throw signal?.aborted ? signal.reason : error;
    }
  },
};
