import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('stands still until advanced', () => {
    const clock = new FakeClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
  });

  it('runs due timers in order of due time, then creation, at their due time', () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimer(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimer(() => fired.push(`c@${clock.now()}`), 20);
    clock.setTimer(() => fired.push(`late@${clock.now()}`), 31);
    clock.advance(30);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('runs timers created by callbacks when they fall due inside the same advance', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      clock.setTimer(tick, 10);
    };
    clock.setTimer(tick, 10);
    clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
  });

  it('never runs a cancelled timer', () => {
    const clock = new FakeClock();
    let fired = false;
    const timer = clock.setTimer(() => (fired = true), 5);
    timer.cancel();
    timer.cancel();
    clock.advance(10);
    expect(fired).toBe(false);
  });

  it('treats a non-positive delay as due now, but runs it only when advanced', () => {
    const clock = new FakeClock();
    let fired = 0;
    clock.setTimer(() => fired++, 0);
    clock.setTimer(() => fired++, -10);
    expect(fired).toBe(0);
    clock.advance(0);
    expect(fired).toBe(2);
  });

  it.each([-1, Number.NaN])('refuses to advance by %s', (ms) => {
    expect(() => new FakeClock().advance(ms)).toThrow(RangeError);
  });
});
