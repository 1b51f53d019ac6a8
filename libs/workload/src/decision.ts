import { type ObjectWithStatus, type StatusWriter } from '@steward/controller';

/** A decision taken over a status that has changed since: the reconcile is retried. */
export class StaleDecisionError extends Error {
  override readonly name = 'StaleDecisionError';
}

export interface Decision<T extends ObjectWithStatus> {
  /**
   * Why the status the decision was taken over is no longer the one the API server holds
   * (another reconcile decided meanwhile), or undefined when it still is.
   */
  stale: (latest: T) => string | undefined;
  /** The status fields that record the decision. */
  fields: (latest: T) => Record<string, unknown>;
}

/**
 * "Decide, then act": records a decision in status before anything carries it out, so that a
 * controller that restarts resumes it instead of choosing again. The write is conditional on the
 * status the decision was taken over: if `stale` finds the API server's copy changed (the cache
 * had not shown another reconcile's decision yet), nothing is written and `StaleDecisionError` is
 * thrown — the reconcile starts over and decides on what is now recorded.
 */
export async function recordDecision<T extends ObjectWithStatus>(
  status: StatusWriter<T>,
  decision: Decision<T>,
): Promise<void> {
  await status.write((latest) => {
    const why = decision.stale(latest);
    if (why !== undefined) throw new StaleDecisionError(why);
    return { fields: decision.fields(latest) };
  });
}

/**
 * What a controller last recorded per object, as marks that only grow (counters, the phase of the
 * record in progress), so that a reconcile never acts on a status older than its own last decision:
 * an informer cache may still show the status before the controller's write, and a plan run over
 * it would undo the decision (fence the new primary, re-instruct the old one) with actions that no
 * conditional write guards. Per controller process; lost on a restart, when the first read is fresh.
 */
export class DecisionMarks {
  private readonly marks = new Map<string, readonly number[]>();

  /** Remembers the marks of a decision just recorded for `uid`. */
  remember(uid: string, marks: readonly number[]): void {
    const known = this.marks.get(uid);
    if (!known || compareMarks(marks, known) > 0) this.marks.set(uid, marks);
  }

  /**
   * Throws `StaleDecisionError` when `marks` (read from the object this reconcile was given) are
   * older than the last decision remembered for `uid`: the reconcile is retried once the cache
   * caught up.
   */
  check(uid: string, marks: readonly number[], key: string): void {
    const known = this.marks.get(uid);
    if (known && compareMarks(marks, known) < 0)
      throw new StaleDecisionError(
        `the status of ${key} read (${marks.join('/')}) is older than the decision this controller recorded (${known.join('/')}): waiting for the cache`,
      );
  }

  forget(uid: string): void {
    this.marks.delete(uid);
  }
}

const failoverPhases = ['Promoting', 'Repointing', 'Completed'];

/**
 * The marks of a failover record (pure), which only grow: the failover count, then its record's
 * phase (Promoting → Repointing → Completed). A kind with more records appends theirs.
 */
export function failoverMarksOf(
  status: { failoverCount?: number; failover?: { phase: string } } | undefined,
): number[] {
  return [status?.failoverCount ?? 0, failoverPhases.indexOf(status?.failover?.phase ?? '') + 1];
}

/** Lexicographic order of two mark tuples (a missing mark counts as 0). */
export function compareMarks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * Why the status a decision was taken over is no longer the API server's — another reconcile
 * decided meanwhile: another primary, or records further on (`marksOf`, the kind's
 * `DecisionMarks`) — or undefined (pure).
 */
export function decisionStale<S extends { primary?: string }>(
  basis: S | undefined,
  latest: S | undefined,
  key: string,
  marksOf: (status: S | undefined) => number[],
): string | undefined {
  const same =
    latest?.primary === basis?.primary && compareMarks(marksOf(basis), marksOf(latest)) === 0;
  return same
    ? undefined
    : `status of ${key} changed since it was read (primary ${basis?.primary ?? '-'} → ${latest?.primary ?? '-'}): deciding again`;
}
