import { describe, expect, it } from 'vitest';
import { CredentialsCheckSchedule } from './check-schedule.js';
import { type CredentialsCheckResult } from './credentials-check.js';

const ok: CredentialsCheckResult = { ok: true, message: 'fine' };
const invalid: CredentialsCheckResult = {
  ok: false,
  reason: 'CredentialsInvalid',
  message: 'refused',
};
const unreachable: CredentialsCheckResult = {
  ok: false,
  reason: 'ProviderUnreachable',
  message: 'no answer',
  transient: true,
};
const obj = (generation = 1, uid = 'u1') => ({ metadata: { uid, generation } });

describe('CredentialsCheckSchedule', () => {
  it('has nothing fresh for a profile never checked: check it', () => {
    const s = new CredentialsCheckSchedule(1_000);
    expect(s.fresh('p', obj(), 0)).toBeUndefined();
  });

  it.each([
    ['verified', ok],
    ['refused', invalid],
  ])('reuses a %s result within the interval and lets it expire after', (_case, result) => {
    const s = new CredentialsCheckSchedule(1_000);
    s.record('p', obj(), result, 10_000);
    expect(s.fresh('p', obj(), 10_000)).toBe(result);
    expect(s.fresh('p', obj(), 10_999)).toBe(result);
    expect(s.dueIn('p', obj(), 10_400)).toBe(600);
    expect(s.fresh('p', obj(), 11_000)).toBeUndefined();
    expect(s.dueIn('p', obj(), 12_000)).toBe(1);
  });

  it('never remembers a transient failure: the retry checks again', () => {
    const s = new CredentialsCheckSchedule(1_000);
    s.record('p', obj(), ok, 0);
    s.record('p', obj(), unreachable, 100);
    expect(s.fresh('p', obj(), 100)).toBeUndefined();
    expect(s.size).toBe(0);
  });

  it('checks again after a spec change (new generation) or for a new object of the same name', () => {
    const s = new CredentialsCheckSchedule(1_000);
    s.record('p', obj(1, 'u1'), ok, 0);
    expect(s.fresh('p', obj(2, 'u1'), 1)).toBeUndefined();
    expect(s.fresh('p', obj(1, 'u2'), 1)).toBeUndefined();
    expect(s.dueIn('p', obj(2, 'u1'), 1)).toBe(1_000);
  });

  it('forgets a profile', () => {
    const s = new CredentialsCheckSchedule(1_000);
    s.record('p', obj(), ok, 0);
    s.forget('p');
    expect(s.fresh('p', obj(), 0)).toBeUndefined();
  });

  it('refuses a non-positive interval', () => {
    expect(() => new CredentialsCheckSchedule(0)).toThrow(RangeError);
  });
});
