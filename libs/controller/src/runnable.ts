/**
 * Something with a lifetime that the manager owns (controller-runtime's `Runnable` +
 * `LeaderElectionRunnable`): an admin-client cache, an Event recorder, telemetry's flush.
 */
export interface Runnable {
  /** For logs. */
  readonly name: string;
  /**
   * `true` (default): runs only while this process leads — started at the beginning of each term,
   * before the controllers, and stopped at its end, after they have drained. `false`: runs on every
   * replica, from `manager.start()` (before the informers) to the end of shutdown (after them).
   */
  readonly needsLeaderElection?: boolean;
  /**
   * Called when it should start; resolve once it is ready (e.g. nothing to do for a lazy cache).
   * `signal` aborts when it should stop early. A rejection fails `manager.start()`.
   */
  start?(signal: AbortSignal): Promise<void> | void;
  /**
   * Called once per `start`, in the reverse order of `manager.add` (what was added first — what
   * others depend on — stops last). Must not throw for the manager's sake: a failure is logged and
   * the next runnable is stopped all the same.
   */
  stop?(): Promise<void> | void;
}

/** A `Runnable` that only needs stopping (e.g. a flush), on every replica. */
export function onShutdown(name: string, stop: () => Promise<void> | void): Runnable {
  return { name, needsLeaderElection: false, stop };
}
