import { ExternalAnnotations as A } from './annotations.js';

/**
 * What the external-create ledger says about the create call of one object:
 * - `none`: no create was ever attempted;
 * - `pending`: a create was about to be made and its outcome was never recorded — the process may
 *   have crashed before, during or after the call, so the resource may or may not exist;
 * - `succeeded` / `failed`: the outcome of the latest attempt is known.
 */
export type LedgerState = 'none' | 'pending' | 'succeeded' | 'failed';

/** Reads the ledger from annotations. An outcome counts only if it is not older than the pending mark. */
export function ledgerState(annotations: Record<string, string> | undefined): LedgerState {
  const pending = annotations?.[A.createPending];
  const succeeded = annotations?.[A.createSucceeded];
  const failed = annotations?.[A.createFailed];
  if (!pending) return succeeded ? 'succeeded' : failed ? 'failed' : 'none';
  const newestOutcome = [succeeded, failed]
    .filter((t): t is string => Boolean(t))
    .sort()
    .at(-1);
  if (!newestOutcome || newestOutcome < pending) return 'pending';
  return newestOutcome === succeeded ? 'succeeded' : 'failed';
}

/** What to do when the provider does not (yet) show the resource, given the ledger. */
export type MissingResourceDecision =
  | { action: 'create' }
  /** A create may have happened under a name we cannot look up again: a second call could duplicate it. */
  | { action: 'stop-unknown-outcome' };

/**
 * The rule that keeps a crash from ever duplicating an external resource. With deterministic names
 * a repeated create is safe: the provider refuses a second resource of the same name. Without them,
 * a pending mark with no outcome means the first call may have created something we cannot find,
 * so we stop and ask the user.
 */
export function decideMissing(
  state: LedgerState,
  deterministicNames: boolean,
): MissingResourceDecision {
  if (state === 'pending' && !deterministicNames) return { action: 'stop-unknown-outcome' };
  return { action: 'create' };
}

/** RFC 3339 with milliseconds: sortable as text, so outcomes can be compared with the pending mark. */
export function ledgerTime(date: Date = new Date()): string {
  return date.toISOString();
}
