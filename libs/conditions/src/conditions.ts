import { formatTime, type Condition, type ConditionUpdate } from './condition.js';

/** The condition of `type`, if present. */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * Returns `conditions` with `update` applied and whether anything changed. Pure: the input is not
 * mutated. `lastTransitionTime` is set to `now` only when the condition is new or its status
 * changes; a new reason, message or observedGeneration with the same status keeps the old time.
 * When nothing differs, the very same array is returned with `changed: false`, so callers can skip
 * the status write (a converged object costs zero API writes).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  now: Date = new Date(),
): { conditions: Condition[]; changed: boolean } {
  const current = conditions ?? [];
  const existing = findCondition(current, update.type);
  if (existing && sameStatement(existing, update)) {
    return { conditions: current as Condition[], changed: false };
  }
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message,
    lastTransitionTime:
      existing && existing.status === update.status ? existing.lastTransitionTime : formatTime(now),
    ...(update.observedGeneration !== undefined
      ? { observedGeneration: update.observedGeneration }
      : {}),
  };
  return {
    conditions: existing
      ? current.map((c) => (c.type === update.type ? next : c))
      : [...current, next],
    changed: true,
  };
}

/** Applies several updates in order; `changed` if any of them changed something. */
export function setConditions(
  conditions: readonly Condition[] | undefined,
  updates: readonly ConditionUpdate[],
  now: Date = new Date(),
): { conditions: Condition[]; changed: boolean } {
  let result = { conditions: (conditions ?? []) as Condition[], changed: false };
  for (const update of updates) {
    const step = setCondition(result.conditions, update, now);
    result = { conditions: step.conditions, changed: result.changed || step.changed };
  }
  return result;
}

/** Returns `conditions` without the condition of `type`. */
export function removeCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): { conditions: Condition[]; changed: boolean } {
  const current = (conditions ?? []) as Condition[];
  if (!findCondition(current, type)) return { conditions: current, changed: false };
  return { conditions: current.filter((c) => c.type !== type), changed: true };
}

function sameStatement(existing: Condition, update: ConditionUpdate): boolean {
  return (
    existing.status === update.status &&
    existing.reason === update.reason &&
    existing.message === update.message &&
    existing.observedGeneration === update.observedGeneration
  );
}
