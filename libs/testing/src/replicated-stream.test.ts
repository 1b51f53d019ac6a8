import { describe, expect, it } from 'vitest';
import {
  commonPrefix,
  copyStream,
  isPrefix,
  received,
  startEpoch,
  truncated,
  type ReplicatedStream,
} from './replicated-stream.js';

/** Epoch 1 up to 100, then epoch 2 (a promotion at 100) up to 250. */
const promoted = (): ReplicatedStream<number> => ({
  epoch: 2,
  end: 250,
  history: [{ epoch: 1, end: 100 }],
});

describe('a replicated stream in a model', () => {
  it('holds the same bytes as another up to where their epochs part', () => {
    const follower = { epoch: 1, end: 180, history: [] }; // kept writing epoch 1 past 100
    expect(commonPrefix(follower, promoted())).toBe(100);
    expect(isPrefix(follower, promoted())).toBe(false);
    expect(isPrefix(truncated(promoted(), 90), promoted())).toBe(true);
    expect(commonPrefix(copyStream(promoted()), promoted())).toBe(250);
  });

  it('cuts a stream back to a point, in the epoch written there', () => {
    expect(truncated(promoted(), 60)).toEqual({ epoch: 1, end: 60, history: [] });
    expect(truncated(promoted(), 120)).toEqual({
      epoch: 2,
      end: 120,
      history: [{ epoch: 1, end: 100 }],
    });
  });

  it('has a follower receive up to a point, resync when it diverged, and never go back', () => {
    const behind = truncated(promoted(), 50);
    expect(received(behind, promoted(), 200)).toEqual(truncated(promoted(), 200));
    expect(received(behind, promoted())).toEqual(promoted());
    const ahead = truncated(promoted(), 220);
    expect(received(ahead, promoted(), 200)).toBe(ahead);
    const diverged = { epoch: 1, end: 180, history: [] };
    expect(received(diverged, promoted(), 120)).toEqual(promoted());
  });

  it('works on bigint positions (LSNs) alike', () => {
    const wal: ReplicatedStream<bigint> = { epoch: 1, end: 100n, history: [] };
    const standby = copyStream(wal);
    startEpoch(wal, 2);
    wal.end += 50n;
    standby.end += 30n; // the old timeline went on where the standby was
    expect(wal.history).toEqual([{ epoch: 1, end: 100n }]);
    expect(commonPrefix(standby, wal)).toBe(100n);
    expect(received(truncated(wal, 40n), wal, 120n)).toEqual(truncated(wal, 120n));
  });
});
