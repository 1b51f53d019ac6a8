/**
 * The caller's `cleanup` failed: the finalizer is still on the object, so the object stays until a
 * later reconcile's cleanup succeeds. Retryable — the controller retries with backoff and reports
 * the `cause`, the error `cleanup` threw (a `TerminalError` among them: unwrap `cause` to honour
 * it).
 */
export class CleanupError extends Error {
  override readonly name = 'CleanupError';

  constructor(
    readonly finalizer: string,
    /** `namespace/name` (or `name`) of the object being deleted. */
    readonly object: string,
    options: { cause: unknown },
  ) {
    super(
      `finalizer cleanup failed: ${finalizer} on ${object}: ${describe(options.cause)}`,
      options,
    );
  }
}

/**
 * The finalizers changed between the read and our patch, so the patch's `test` failed and the API
 * server wrote nothing. Retryable: the change has queued another reconcile, which sees the new
 * list. The server's rejection (an `InvalidError`, HTTP 422) is the `cause`.
 */
export class FinalizerConflictError extends Error {
  override readonly name = 'FinalizerConflictError';

  constructor(
    readonly finalizer: string,
    readonly object: string,
    /** What the patch was doing. */
    readonly operation: 'add' | 'remove',
    options: { cause: unknown },
  ) {
    super(
      `finalizers changed concurrently: could not ${operation} ${finalizer} on ${object}; retry with a fresh read`,
      options,
    );
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
