/**
 * Time, as the work queue sees it: a monotonic millisecond reading and one-shot timers. Injected so
 * that tests drive time with a {@link FakeClock} and never sleep.
 */
export interface Clock {
  /**
   * Milliseconds on a monotonic scale with an arbitrary origin. Only differences are meaningful.
   * Called on every queue operation that records a time; must be cheap and side-effect free.
   */
  now(): number;
  /**
   * Calls `callback` once, no earlier than `delayMs` milliseconds from now (a delay of 0 or less
   * means "as soon as possible", never synchronously inside this call). The returned timer's
   * `cancel` is idempotent and a no-op once the timer fired.
   */
  setTimer(callback: () => void, delayMs: number): Timer;
}

/** A pending one-shot timer from {@link Clock.setTimer}. */
export interface Timer {
  /** Prevents the callback from running. Idempotent. */
  cancel(): void;
  /**
   * Lets the process exit while this timer is pending (Node's `unref`). Optional: a fake clock has
   * no process to keep alive. The queues use it only for background metric updates.
   */
  unref?(): void;
}

/**
 * The longest delay Node's `setTimeout` honours (2^31 − 1 ms, about 24.8 days); a longer one fires
 * at once. Callers that may wait longer re-arm when the clamped timer fires.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** The process clock: `performance.now()` and Node timers. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(callback, delayMs) {
    const delay = delayMs > 0 ? Math.min(delayMs, MAX_TIMER_DELAY_MS) : 0;
    const handle = setTimeout(callback, delay);
    return {
      cancel: () => clearTimeout(handle),
      unref: () => {
        handle.unref();
      },
    };
  },
};
