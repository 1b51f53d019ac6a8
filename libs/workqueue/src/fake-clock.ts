import { type Clock, type Timer } from './clock.js';

interface FakeTimer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * A {@link Clock} that moves only when a test says so. `advance(ms)` runs every timer that falls
 * due in the window, in order of due time (then of creation), setting `now()` to each timer's due
 * time while it runs; timers created by those callbacks run too if they fall due in the window.
 * Callbacks run synchronously inside `advance`; promises they resolve settle afterwards, so a test
 * `await`s what it wants to observe.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): Timer {
    const timer: FakeTimer = {
      at: this.current + (delayMs > 0 ? delayMs : 0),
      seq: this.seq++,
      callback,
    };
    this.timers.push(timer);
    return {
      cancel: () => {
        this.timers = this.timers.filter((t) => t !== timer);
      },
    };
  }

  /** Moves time forward by `ms` (≥ 0), running the timers that fall due on the way. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('FakeClock.advance needs a non-negative duration');
    this.advanceTo(this.current + ms);
  }

  /** Moves time forward to `timeMs`, running the timers that fall due on the way. */
  advanceTo(timeMs: number): void {
    if (timeMs < this.current) throw new RangeError('FakeClock cannot move backwards');
    for (;;) {
      const next = this.nextTimer();
      if (next === undefined || next.at > timeMs) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = timeMs;
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextTimerAt(): number | undefined {
    return this.nextTimer()?.at;
  }

  private nextTimer(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
