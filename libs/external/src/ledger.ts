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

/** A create the provider refused, as the ledger remembers it (`steward.dev/external-create-refused`). */
export interface CreateRefusal {
  generation: number;
  reason: string;
  message: string;
}

/** The annotation value recording `refusal`. */
export function formatRefusal(refusal: CreateRefusal): string {
  return JSON.stringify(refusal);
}

/**
 * The refusal recorded for the object's current `generation`, if the ledger's latest outcome is
 * that refusal; undefined otherwise (no refusal, another generation, a later attempt, or a value
 * that does not parse — then the create may be tried again, which is safe: a refused create made
 * nothing).
 */
export function refusalAt(
  annotations: Record<string, string> | undefined,
  generation: number | undefined,
): CreateRefusal | undefined {
  const value = annotations?.[A.createRefused];
  if (!value || ledgerState(annotations) !== 'failed') return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<CreateRefusal>;
    if (
      typeof parsed.generation !== 'number' ||
      typeof parsed.reason !== 'string' ||
      typeof parsed.message !== 'string' ||
      parsed.generation !== generation
    )
      return undefined;
    return { generation: parsed.generation, reason: parsed.reason, message: parsed.message };
  } catch {
    return undefined;
  }
}
