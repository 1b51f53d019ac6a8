import {
  Priorities,
  type ObjectWithStatus,
  type Result,
  type StatusWriter,
} from '@steward/controller';
import { type ConditionUpdate } from '@steward/conditions';

/** What a workload kind's status function states: the phase, the conditions, the fields. */
export interface WorkloadStatusChange<Phase extends string = string> {
  phase: Phase;
  conditions: Omit<ConditionUpdate, 'observedGeneration'>[];
  fields: Record<string, unknown>;
}

/** A cause with a reason from the registry and a message a user can act on. */
export interface StatedProblem {
  reason: string;
  message: string;
}

/** What every workload kind's status function is told beside its own observations. */
export interface WorkloadStatusProblems {
  /** Something the controller could not do this time (e.g. a PVC that cannot grow). */
  problems: StatedProblem[];
  /** Why pods or volumes do not come up (`workloadFailures`): Ready=False names them. */
  failures?: StatedProblem[];
  /** Spec changes that cannot take effect: Ready=False (not converged) names them. */
  refusals?: StatedProblem[];
}

/**
 * The one status write of a reconcile, stated over the newest copy the writer has (recomputed over
 * the API server's on a conflict): the phase it replaces is then not that of a stale cache, which a
 * reconcile right after the previous one's write may still see. Returns that phase and the change.
 */
export async function stateStatus<T extends ObjectWithStatus, C extends WorkloadStatusChange>(
  status: StatusWriter<T>,
  statusOf: (latest: T) => C,
): Promise<{ before: string | undefined; change: C }> {
  const phaseOf = (obj: T) => (obj.status as { phase?: string } | undefined)?.phase;
  let before = phaseOf(status.object);
  let change = statusOf(status.object);
  await status.write((latest) => {
    before = phaseOf(latest);
    change = statusOf(latest);
    return { conditions: change.conditions, fields: change.fields };
  });
  return { before, change };
}

/**
 * `stateStatus`, then the Event of a phase change into or out of `Scaling` (`scalingEvent`) with
 * `scalingMessage`. Returns the change stated.
 */
export async function stateWorkloadStatus<
  T extends ObjectWithStatus,
  C extends WorkloadStatusChange,
>(
  status: StatusWriter<T>,
  statusOf: (latest: T) => C,
  scalingMessage: string,
  emit: (reason: string, message: string) => void,
): Promise<C> {
  const { before, change } = await stateStatus(status, statusOf);
  const scaled = scalingEvent(before, change.phase, scalingMessage);
  if (scaled) emit(scaled.reason, scaled.message);
  return change;
}

/** The Event of a phase change into or out of `Scaling` (pure), or undefined. */
export function scalingEvent(
  before: string | undefined,
  after: string,
  message: string,
): { reason: 'Scaling' | 'Scaled'; message: string } | undefined {
  if (!before || before === after || (after !== 'Scaling' && before !== 'Scaling'))
    return undefined;
  return { reason: after === 'Scaling' ? 'Scaling' : 'Scaled', message };
}

/** Phases whose next steps go ahead of bulk work: the write pause lasts until they are done. */
const urgentPhases = new Set(['FailingOver', 'SwitchingOver']);

/**
 * When to look again (pure): the plan's own time, else the poll (settled: Ready and nothing
 * failed) or the busy poll — or sooner, if another phase asked for sooner. A failover's or
 * switchover's next steps go ahead of bulk work (a flood of new objects in any namespace).
 */
export function nextLook(
  phase: string,
  planned: number | undefined,
  settled: boolean,
  sooner: (number | undefined)[],
  poll: { pollMs: number; busyMs: number },
): Result {
  const base = planned ?? (settled ? poll.pollMs : poll.busyMs);
  const requeueAfter = Math.min(base, ...sooner.map((a) => a ?? base));
  return { requeueAfter, ...(urgentPhases.has(phase) ? { priority: Priorities.high } : {}) };
}
