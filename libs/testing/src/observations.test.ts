import { describe, expect, it } from 'vitest';
import { observations, type Observation } from './observations.js';

type Seen = { reachable: true; role: string } | { reachable: false; error: string };

describe('observations', () => {
  it('keeps every unreachable observation’s error and every failure’s message', async () => {
    const down = new Set(['b']);
    const admin = {
      observe: async (host: string): Promise<Seen> =>
        down.has(host)
          ? { reachable: false, error: `${host}: ECONNREFUSED` }
          : { reachable: true, role: 'primary' },
    };
    const seen = observations(
      () => admin,
      (name: string) => name,
    );
    expect(await seen.reachable('a')).toEqual({ reachable: true, role: 'primary' });
    await expect(seen.reachable('b')).rejects.toThrow('b unreachable: b: ECONNREFUSED');
    expect(await seen.unreachable('b', 'b down')).toEqual({
      reachable: false,
      error: 'b: ECONNREFUSED',
    });
    const other = { observe: async (): Promise<Seen> => ({ reachable: false, error: 'other' }) };
    expect((await seen.observe('a', other)).reachable).toBe(false);
    expect(await seen.failure(Promise.reject(new Error('auth failed')))).toBeInstanceOf(Error);
    expect(await seen.failure(Promise.resolve(1))).toBeUndefined();
    expect(seen.errors).toEqual(['b: ECONNREFUSED', 'b: ECONNREFUSED', 'other', 'auth failed']);
  });

  it('waits for a server to be seen unreachable', async () => {
    let calls = 0;
    const admin = {
      observe: async (): Promise<Observation> =>
        ++calls < 3 ? { reachable: true } : { reachable: false, error: 'gone' },
    };
    const seen = observations(
      () => admin,
      () => 'x',
    );
    expect(await seen.unreachable('x', 'x gone', 5_000)).toEqual({
      reachable: false,
      error: 'gone',
    });
    expect(calls).toBe(3);
  });
});
