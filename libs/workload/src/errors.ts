import { type ChildrenSync } from './desired-child.js';

/** One desired child whose write failed. */
export interface ChildFailure {
  kind: string;
  name: string;
  error: unknown;
}

/**
 * Some desired children could not be written (an invalid object, RBAC, the server unavailable).
 * The others were synced; nothing was deleted in this sync. `result` is what the sync achieved,
 * `failures` every failed child, `cause` the first failure's error (retry with backoff — unless
 * it is an `InvalidError`, which repeats until the domain's plan changes).
 */
export class ChildrenSyncError extends Error {
  override name = 'ChildrenSyncError';

  constructor(
    readonly failures: ChildFailure[],
    readonly result: ChildrenSync,
  ) {
    const first = failures[0]!;
    super(
      `steward/workload: ${failures.length} child(ren) could not be written, first ${first.kind} ${first.name}: ${
        first.error instanceof Error ? first.error.message : String(first.error)
      }`,
      { cause: first.error },
    );
  }
}
