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
