/**
 * The four outcomes of a reconcile, named as controller-runtime labels them in
 * `controller_runtime_reconcile_total{result}` and as Steward records them in `reconcile.result`.
 */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** The part of a reconciler's return value that decides its {@link ReconcileResult}. */
export interface ReconcileOutcome {
  /** Reconcile again after this delay; any positive value means `requeue_after`. */
  readonly requeueAfter?: number;
  /** Reconcile again, rate limited; means `requeue` unless `requeueAfter` is positive. */
  readonly requeue?: boolean;
}

/**
 * Classifies a reconcile that returned (a thrown error is always `error`): a positive `requeueAfter`
 * wins over `requeue`, as in controller-runtime; anything else, including no value, is `success`.
 */
export function reconcileResultOf(outcome: ReconcileOutcome | void | undefined): ReconcileResult {
  if (!outcome) return 'success';
  if (typeof outcome.requeueAfter === 'number' && outcome.requeueAfter > 0) return 'requeue_after';
  if (outcome.requeue === true) return 'requeue';
  return 'success';
}
