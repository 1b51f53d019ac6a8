import { ConditionTypes, findCondition } from '@steward/conditions';
import { type StatusWriter } from './status-writer.js';

/** Condition type stating that the controller stopped retrying until the user changes something. */
export const StalledCondition = ConditionTypes.Stalled;

/**
 * Records a terminal failure on the object: `Stalled=True` with the error's reason and message,
 * which the status rules turn into `Ready=False` (and `Synced=False` for kinds with `Synced`) at
 * the object's generation. So from status alone a user — and kstatus, which says `Failed` — tells
 * a failure they must fix from one the controller is retrying (`Ready=False` without `Stalled`).
 * Written through the reconcile's status writer (its conflict rule: one fresh read and a second
 * try, so the record is not lost — a terminal failure is not retried, and nothing else would write
 * it). Resolves whether it wrote.
 */
export function recordTerminalFailure(
  status: StatusWriter,
  reason: string,
  message: string,
): Promise<boolean> {
  return status.write({
    conditions: [
      { type: ConditionTypes.Ready, status: 'False', reason, message },
      { type: ConditionTypes.Stalled, status: 'True', reason, message },
    ],
  });
}

/** Removes a `Stalled` condition left by an earlier terminal failure, once a reconcile succeeds. */
export async function clearStalled(status: StatusWriter): Promise<boolean> {
  if (!findCondition(status.object.status?.conditions, ConditionTypes.Stalled)) return false;
  return status.write({ removeConditions: [ConditionTypes.Stalled] });
}
