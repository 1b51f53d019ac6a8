/**
 * Thrown by a reconciler when only the user can fix the problem (invalid spec, missing reference,
 * forbidden by a guardrail). The controller does not retry it; it records the failure on the
 * object's `Ready` condition (status False, this `reason`, this `message`) and in an Event. The
 * next change to the object reconciles it again.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';

  constructor(
    /** CamelCase constant, e.g. `InvalidSpec`; becomes the condition's reason. */
    readonly reason: string,
    /** What is wrong and what to do about it; no secrets. */
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
