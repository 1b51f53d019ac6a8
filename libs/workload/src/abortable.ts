/**
 * `promise`, or a rejection with `aborted()` as soon as `signal` aborts (the promise's own outcome
 * is still handled, so it never becomes an unhandled rejection). The listener is removed once the
 * promise settles. `signal` must not be aborted already: check it before starting the work.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  aborted: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A server admin (a domain's client of its servers) used after `close()`. */
export class AdminClosedError extends Error {
  constructor(server: string) {
    super(`the ${server} admin is closed`);
  }
}

/** An observation its signal cut short (the reconcile was cancelled). */
export class ObservationAbortedError extends Error {
  constructor() {
    super('observation aborted');
  }
}

/**
 * What every server admin says alike of a failure that is not its protocol's (pure): used after
 * close, or cut short — else undefined, and the admin names the failure itself.
 */
export function adminFailure(
  error: unknown,
): { kind: 'closed' | 'timeout'; reason: string } | undefined {
  if (error instanceof AdminClosedError) return { kind: 'closed', reason: error.message };
  if (error instanceof ObservationAbortedError) return { kind: 'timeout', reason: error.message };
  return undefined;
}

/** `text` with every secret in `secrets` replaced by `***` (empty ones ignored). */
export function scrubbed(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
