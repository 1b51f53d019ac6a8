import { type WaitClock } from '../../src/clock.js';

interface Sleeper {
  at: number;
  resolve: () => void;
}

/**
 * A `WaitClock` that moves only when told. `advance(ms)` wakes the sleepers that fall due, in order.
 * With `autoAdvance`, every `sleep` moves time forward at once and resolves: a test then sees what
 * was waited for in `sleeps` without waiting.
 */
export class FakeClock implements WaitClock {
  readonly sleeps: number[] = [];
  private current = 0;
  private sleepers: Sleeper[] = [];

  constructor(private readonly options: { autoAdvance?: boolean } = {}) {}

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.options.autoAdvance) {
      this.current += ms;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.current + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  /** Moves time forward, waking every sleeper whose time has come. */
  advance(ms: number): void {
    this.current += ms;
    const due = this.sleepers.filter((s) => s.at <= this.current).sort((a, b) => a.at - b.at);
    this.sleepers = this.sleepers.filter((s) => s.at > this.current);
    for (const sleeper of due) sleeper.resolve();
  }

  get pendingSleepers(): number {
    return this.sleepers.length;
  }
}
