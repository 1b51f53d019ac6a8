/**
 * A replicated stream in a model (a Redis replication stream, PostgreSQL's WAL), compared by
 * content: the writer epoch it is on (a replication id, a timeline) and how far it runs (an offset,
 * an LSN), after the earlier epochs it went through. Two servers hold the same bytes up to a point
 * exactly when their epochs agree up to it, so "what a standby lacks" and "can it follow" are
 * questions about epochs and ends alone.
 *
 * Positions are numbers or bigints (one kind per model); the functions never mix them.
 */
export type StreamPosition = number | bigint;

export interface ReplicatedStream<P extends StreamPosition> {
  /** The epoch written now. */
  epoch: number;
  /** Where the stream ends. */
  end: P;
  /** Earlier epochs, oldest first: each ran up to its `end`. */
  history: { epoch: number; end: P }[];
}

/** A copy sharing nothing with `s` (a full resync, a base backup). */
export const copyStream = <P extends StreamPosition>(
  s: ReplicatedStream<P>,
): ReplicatedStream<P> => ({
  epoch: s.epoch,
  end: s.end,
  history: s.history.map((h) => ({ ...h })),
});

/** The epoch the byte at `x` was written in. */
export function epochAt<P extends StreamPosition>(s: ReplicatedStream<P>, x: P): number {
  for (const h of s.history) if (x < h.end) return h.epoch;
  return s.epoch;
}

/** How far `a` and `b` hold the same stream. */
export function commonPrefix<P extends StreamPosition>(
  a: ReplicatedStream<P>,
  b: ReplicatedStream<P>,
): P {
  const end = a.end < b.end ? a.end : b.end;
  const start = (typeof end === 'bigint' ? 0n : 0) as P;
  const points = [start, ...a.history.map((h) => h.end), ...b.history.map((h) => h.end)]
    .filter((p) => p < end)
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const p of points) if (epochAt(a, p) !== epochAt(b, p)) return p;
  return end;
}

/** `s` is a prefix of `p`: a server holding `s` can follow one holding `p` without a resync. */
export const isPrefix = <P extends StreamPosition>(
  s: ReplicatedStream<P>,
  p: ReplicatedStream<P>,
) => s.end <= p.end && commonPrefix(s, p) === s.end;

/** `s` cut back to `end` (a follower that received part of its upstream's stream). */
export function truncated<P extends StreamPosition>(
  s: ReplicatedStream<P>,
  end: P,
): ReplicatedStream<P> {
  const cut = s.history.find((h) => h.end > end);
  return {
    epoch: cut ? cut.epoch : s.epoch,
    end,
    history: s.history.filter((h) => h.end <= end).map((h) => ({ ...h })),
  };
}

/**
 * What a follower holding `s` holds after receiving from `upstream` up to `upTo` (default: all of
 * it): a copy of the upstream's stream — a full resync — when `s` is no prefix of it; else `s`
 * extended to `upTo` (never cut back).
 */
export function received<P extends StreamPosition>(
  s: ReplicatedStream<P>,
  upstream: ReplicatedStream<P>,
  upTo: P = upstream.end,
): ReplicatedStream<P> {
  if (!isPrefix(s, upstream)) return copyStream(upstream);
  const end = upTo < upstream.end ? upTo : upstream.end;
  return end > s.end ? truncated(upstream, end) : s;
}

/** `s` goes on in a new epoch from where it ends (a promotion). */
export function startEpoch<P extends StreamPosition>(s: ReplicatedStream<P>, epoch: number): void {
  s.history.push({ epoch: s.epoch, end: s.end });
  s.epoch = epoch;
}
