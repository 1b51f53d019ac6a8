export interface TerminalErrorOptions {
  cause?: unknown;
  /**
   * "The user must act; look again in this many ms": for a fix that may happen where no event
   * reaches this controller (a Secret, an IAM policy, a cloud quota). The failure is recorded as
   * terminal all the same (`Stalled=True`, no backoff retries); the runtime reconciles the key
   * once more after this delay. Without it, only the next change to the object reconciles it.
   */
  recheckAfter?: number;
}

/**
 * Thrown by a reconciler when only the user can fix the problem (invalid spec, missing reference,
 * forbidden by a guardrail). The controller does not retry it; it records the failure on the
 * object (`Stalled=True` and `Ready=False` — and `Synced=False` for kinds with `Synced` — with this
 * `reason` and `message`, at the object's generation) and in a Warning Event. The next change to
 * the object reconciles it again, or `recheckAfter` does.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  readonly recheckAfter: number | undefined;

  constructor(
    /** CamelCase constant, e.g. `InvalidSpec`; becomes the condition's reason. */
    readonly reason: string,
    /** What is wrong and what to do about it; no secrets. */
    message: string,
    options: TerminalErrorOptions = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.recheckAfter = options.recheckAfter;
  }
}

export function isTerminalError(error: unknown): error is TerminalError {
  return error instanceof TerminalError;
}

/**
 * The `TerminalError` that `error` is or wraps through its `cause` chain (e.g. a finalizer's
 * `CleanupError` around a cleanup that found the user must act), if any.
 */
export function terminalCause(error: unknown): TerminalError | undefined {
  const seen = new Set<unknown>();
  for (let e = error; e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (e instanceof TerminalError) return e;
    seen.add(e);
  }
  return undefined;
}
