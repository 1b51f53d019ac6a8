import { WorkloadReasons } from './reasons.js';
import { type WorkloadStatusProblems } from './status-cycle.js';

/** A condition as a workload kind's status function states it (the writer stamps the rest). */
export interface StatedCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface Problem {
  reason: string;
  message: string;
}

export interface ConditionsInput {
  /** Every instance desired is ready in its role: the workload serves as asked. */
  ready: boolean;
  /** The phase's reason and message (Available, Provisioning, Scaling, FailingOver, …). */
  reason: string;
  message: string;
  /** The controller is moving the workload. */
  progressing: boolean;
  /** Under way and worth saying, though nothing else moves (e.g. volumes growing). */
  notes?: Problem[];
  /** What is wrong with what exists. */
  degradations: Problem[];
  /**
   * Why pods or volumes do not come up (`workloadFailures`): while not ready, `Ready=False` names
   * the first — never "initialising" for a pod that cannot be scheduled — and all are Degraded.
   */
  failures?: Problem[];
  /**
   * Spec changes that cannot take effect (a parameter the server refuses, a volume asked to
   * shrink): the object is not converged, so `Ready=False` names the first — whatever the
   * instances' health — and all are Degraded (kstatus reads InProgress, never Current).
   */
  refusals?: Problem[];
  /** `Degraded=False`'s message. */
  healthyMessage: string;
}

const joined = (ps: Problem[]) => ps.map((p) => p.message).join('; ');

/**
 * `Ready`, `Progressing` and `Degraded` of a workload (pure), the same rules for every kind:
 * `Ready=True` only when it serves as asked (kstatus reads Current only then); `Progressing=True`
 * while it moves or notes say something is under way (reason `Converged` otherwise); `Degraded=True`
 * with the first degradation's reason and every message.
 */
export function workloadConditions(input: ConditionsInput): StatedCondition[] {
  const refusals = input.refusals ?? [];
  const ready = input.ready && refusals.length === 0;
  const failures = input.ready ? [] : (input.failures ?? []);
  const notes = input.notes ?? [];
  const degradations = [...refusals, ...failures, ...input.degradations];
  const blocking = refusals.length ? refusals : failures;
  const [reason, message] = blocking.length
    ? [blocking[0]!.reason, joined(blocking)]
    : [input.reason, input.message];
  return [
    { type: 'Ready', status: ready ? 'True' : 'False', reason, message },
    input.progressing || notes.length
      ? {
          type: 'Progressing',
          status: 'True',
          reason: input.progressing ? input.reason : notes[0]!.reason,
          message: [input.progressing ? input.message : '', ...notes.map((n) => n.message)]
            .filter(Boolean)
            .join('; '),
        }
      : { type: 'Progressing', status: 'False', reason: 'Converged', message: 'nothing to change' },
    degradations.length
      ? {
          type: 'Degraded',
          status: 'True',
          reason: degradations[0]!.reason,
          message: joined(degradations),
        }
      : { type: 'Degraded', status: 'False', reason: 'Healthy', message: input.healthyMessage },
  ];
}

/** The phase a status function states, with `Ready`'s reason and message while not converged. */
export interface PhaseStatement<Phase extends string = string> {
  phase: Phase;
  reason: string;
  message: string;
  /** The controller is moving the workload (`Progressing=True`). */
  progressing: boolean;
}

/** A phase, its reason and message (pure); under way unless `progressing` says not. */
export function stated<Phase extends string>(
  phase: Phase,
  reason: string,
  message: string,
  progressing = true,
): PhaseStatement<Phase> {
  return { phase, reason, message, progressing };
}

/** Converged: every one of `replicas` ready (`noun`: pods, instances) and which is primary. */
export function availableStatement(
  replicas: number,
  noun: string,
  primary: string | undefined,
): PhaseStatement<'Ready'> {
  const message = `${replicas} of ${replicas} ${noun} ready; primary ${primary ?? ''}`.trim();
  return stated('Ready', WorkloadReasons.Available, message, false);
}

/** A member desired is gone (deleted, evicted) while the count desired did not change. */
export function missingStatement(
  existing: number,
  replicas: number,
  noun: string,
): PhaseStatement<'Degraded'> {
  return stated(
    'Degraded',
    WorkloadReasons.InstancesMissing,
    `${existing} of ${replicas} ${noun} exist; the StatefulSet re-creates the missing ones`,
  );
}

/**
 * A scale is under way (pure): the count desired differs from the one last stated, or the phase
 * last stated was Scaling (a scale is over only once the workload is Ready).
 */
export function scaling(
  status: { phase?: string; replicas?: number } | undefined,
  replicas: number,
): boolean {
  return (
    (status?.replicas !== undefined && status.replicas !== replicas) || status?.phase === 'Scaling'
  );
}

/**
 * The conditions of a status function's phase statement (pure): `degradations` it found, then the
 * problems it was told of (`WorkloadStatusProblems`), its notes, and `Degraded=False`'s message.
 */
export function conditionsOf(
  ready: boolean,
  statement: PhaseStatement,
  told: WorkloadStatusProblems & { notes?: Problem[] },
  degradations: Problem[],
  healthyMessage: string,
): StatedCondition[] {
  return workloadConditions({
    ready,
    reason: statement.reason,
    message: statement.message,
    progressing: statement.progressing,
    ...(told.notes ? { notes: told.notes } : {}),
    degradations: [...degradations, ...told.problems],
    failures: told.failures ?? [],
    refusals: told.refusals ?? [],
    healthyMessage,
  });
}
