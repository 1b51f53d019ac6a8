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
