import { type Condition, type ConditionUpdate } from './condition.js';
import { findCondition, removeCondition, setConditions } from './conditions.js';
import { jsonEqual } from './status-diff.js';

/** The condition types whose meaning the runtime enforces (DESIGN.md, "Common API conventions"). */
export const ConditionTypes = {
  /** Is the thing usable. Every kind has it. */
  Ready: 'Ready',
  /** Did the last reconcile manage to apply the spec (external kinds). */
  Synced: 'Synced',
  /** The controller stopped retrying: only the user can fix this. */
  Stalled: 'Stalled',
  /**
   * The controller is still working on (retrying) the current generation: kstatus's
   * "abnormal-true" condition, so a resource that stays usable while its update is retried reads
   * InProgress, not Current.
   */
  Reconciling: 'Reconciling',
} as const;

/** The part of a status every Steward kind shares. */
export interface StatusWithConditions {
  conditions?: Condition[];
  observedGeneration?: number;
  [field: string]: unknown;
}

/** What one reconcile states about an object's status. */
export interface StatusChange {
  /** Conditions to set; each is stamped with the object's generation. */
  conditions?: readonly Omit<ConditionUpdate, 'observedGeneration'>[];
  /** Condition types to remove. */
  removeConditions?: readonly string[];
  /** Top-level status fields to set; `undefined` removes a field. */
  fields?: Readonly<Record<string, unknown>>;
}

/**
 * The status after `change`, and whether it differs from `current` (pure). The rules every writer
 * of status follows, so that kstatus (Flux, Argo CD) reads every kind the same way:
 * - `observedGeneration` — top-level and on every condition — becomes `generation`: a generation
 *   the controller processed (converged, retrying or refused) is observed;
 * - `Stalled` is restated by every write that stands by it; a write that does not set it removes
 *   it (the reconcile writing got past what stalled an earlier one);
 * - `Stalled=True` forces `Ready=False` and, when the kind has a `Synced` condition,
 *   `Synced=False`, both with the stall's reason and message — a refused spec is never "synced" —
 *   and removes `Reconciling` (nothing is being retried);
 * - `lastTransitionTime` moves only when a condition's status does (`setConditions`);
 * - nothing differs → `changed: false`, and the caller writes nothing.
 */
export function nextStatus(
  current: StatusWithConditions | undefined,
  generation: number | undefined,
  change: StatusChange,
  now: Date = new Date(),
): { status: StatusWithConditions; changed: boolean } {
  const before = current ?? {};
  let conditions = setConditions(before.conditions, change.conditions ?? [], now).conditions;
  // A stall is restated by every write that still stands by it: a write without it comes from a
  // reconcile that got past whatever stalled an earlier one.
  if (!(change.conditions ?? []).some((c) => c.type === ConditionTypes.Stalled))
    conditions = removeCondition(conditions, ConditionTypes.Stalled).conditions;
  for (const type of change.removeConditions ?? []) {
    conditions = removeCondition(conditions, type).conditions;
  }
  const stalled = findCondition(conditions, ConditionTypes.Stalled);
  if (stalled?.status === 'True') {
    const refused = { status: 'False', reason: stalled.reason, message: stalled.message } as const;
    const forced: Omit<ConditionUpdate, 'observedGeneration'>[] = [
      { type: ConditionTypes.Ready, ...refused },
    ];
    if (findCondition(conditions, ConditionTypes.Synced))
      forced.push({ type: ConditionTypes.Synced, ...refused });
    conditions = setConditions(conditions, forced, now).conditions;
    conditions = removeCondition(conditions, ConditionTypes.Reconciling).conditions;
  }
  if (generation !== undefined) {
    conditions = conditions.map((c) =>
      c.observedGeneration === generation ? c : { ...c, observedGeneration: generation },
    );
  }
  const status: StatusWithConditions = { ...before };
  for (const [field, value] of Object.entries(change.fields ?? {})) {
    if (value === undefined) delete status[field];
    else status[field] = value;
  }
  if (conditions.length > 0 || before.conditions) status.conditions = conditions;
  if (generation !== undefined) status.observedGeneration = generation;
  return { status, changed: !jsonEqual(status, before) };
}
