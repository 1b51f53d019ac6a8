/**
 * What a workload controller knows about one object when it decides its next step (plain data):
 * the in-cluster counterpart of @steward/external's `ManagedFacts`. The kind's own phases
 * (children, instances, roles, backups…) are all inside `converge`; this decides whether they may
 * run at all, and what a deletion does.
 */
export interface WorkloadFacts {
  /** `steward.dev/paused: "true"`. */
  paused: boolean;
  /** `metadata.deletionTimestamp` is set. */
  deleting: boolean;
  /** The object carries the kind's cleanup finalizer. */
  hasFinalizer: boolean;
  /**
   * The kind's admission (its profile, the profile's namespace binding, guardrails, the spec's
   * cross-field rules): `allowed`, or `refused` — only the user or the platform team can fix what
   * it found.
   */
  admission: 'allowed' | 'refused';
  deletionPolicy: 'Retain' | 'Delete';
  /** The profile's guardrails allow `deletionPolicy` (`allowedDeletionPolicies`). */
  deletionPolicyAllowed: boolean;
  /**
   * The kind's step before a `Delete` deletion (PostgresCluster: a final backup): `none` — the
   * kind has none, the spec skips it, or there is nothing to save; `due` — not started; `running`;
   * `succeeded`; `failed` — its attempts are spent.
   */
  preDelete: 'none' | 'due' | 'running' | 'succeeded' | 'failed';
}

/** Why a deletion waits for a person. */
export type DeletionHold =
  /** `deletionPolicy: Delete`, which the profile's guardrails do not allow. */
  | 'deletion-policy-not-allowed'
  /** The step before deleting (a final backup) failed on every attempt. */
  | 'pre-delete-failed';

/** The one thing to do next. */
export type WorkloadAction =
  /** Being deleted without the finalizer: not this controller's to act on. */
  | { type: 'nothing' }
  /** Paused: say so in a condition; change nothing — no child, pod, server or backup action. */
  | { type: 'report-paused' }
  /** Admission refused: say why (Ready=False, Stalled); nothing is created, nothing is added. */
  | { type: 'refuse' }
  /** Add the cleanup finalizer (and come back): nothing is created before it is on. */
  | { type: 'add-finalizer' }
  /** Run the kind's phases. */
  | { type: 'converge' }
  /** Deleting: hold the finalizer and say why; nothing is deleted. */
  | { type: 'hold-deletion'; reason: DeletionHold }
  /** Deleting with `Delete`: start the kind's pre-delete step, or wait for the one running. */
  | { type: 'pre-delete'; start: boolean }
  /**
   * Deleting with `Retain`: detach what holds data (volumes, generated Secrets) so the garbage
   * collector leaves it, say where it stays, and remove the finalizer.
   */
  | { type: 'retain' }
  /**
   * Deleting with `Delete`: delete the volumes this object's own StatefulSet created, then remove
   * the finalizer (the children go with the object).
   */
  | { type: 'delete' };

/**
 * The workload reconciler's decision (pure): from the facts of one object to one action. The order
 * is the same for every in-cluster kind and mirrors `planManaged`: pause first (even during a
 * deletion: a person repairing by hand must not race the controller), then the deletion (before
 * admission: an object whose profile has since gone must still be deletable), then admission,
 * then the finalizer, then the kind's own phases. A crash between two steps leaves facts from
 * which this never deletes data under Retain, never deletes before the pre-delete step has
 * succeeded, and never creates anything before the finalizer that will clean it up is on.
 */
export function planWorkload(f: WorkloadFacts): WorkloadAction {
  if (f.paused) return { type: 'report-paused' };
  if (f.deleting) return planWorkloadDeletion(f);
  if (f.admission === 'refused') return { type: 'refuse' };
  if (!f.hasFinalizer) return { type: 'add-finalizer' };
  return { type: 'converge' };
}

function planWorkloadDeletion(f: WorkloadFacts): WorkloadAction {
  if (!f.hasFinalizer) return { type: 'nothing' };
  // Retain deletes nothing: no guardrail and no pre-delete step stands in its way.
  if (f.deletionPolicy === 'Retain') return { type: 'retain' };
  if (!f.deletionPolicyAllowed)
    return { type: 'hold-deletion', reason: 'deletion-policy-not-allowed' };
  switch (f.preDelete) {
    case 'due':
      return { type: 'pre-delete', start: true };
    case 'running':
      return { type: 'pre-delete', start: false };
    case 'failed':
      return { type: 'hold-deletion', reason: 'pre-delete-failed' };
    case 'none':
    case 'succeeded':
      return { type: 'delete' };
  }
}
