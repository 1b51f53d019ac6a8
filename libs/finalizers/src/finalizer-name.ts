const prefix = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const name = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Throws a `TypeError` unless `finalizer` is a domain-qualified name such as
 * `postgres.steward.dev/cleanup` — the form the API server accepts for any finalizer that is not
 * one of its own (`kubernetes`, `orphan`, …) — so a typo fails before any request is sent.
 */
export function assertFinalizerName(finalizer: string): void {
  const slash = finalizer.indexOf('/');
  const valid =
    slash > 0 &&
    slash <= 253 &&
    prefix.test(finalizer.slice(0, slash)) &&
    name.test(finalizer.slice(slash + 1));
  if (!valid) {
    throw new TypeError(
      `steward/finalizers: "${finalizer}" is not a domain-qualified finalizer name such as "example.steward.dev/cleanup"`,
    );
  }
}
