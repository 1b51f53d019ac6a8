/**
 * The reasons of a CacheCluster's `Ready` condition: CamelCase constants a user can search for.
 * - `Accepted` (`Ready=True`): the spec is valid.
 * - `UnknownParameter` (`Ready=False`, `Stalled=True`): `spec.parameters` has a key the
 *   controller does not know; remove or rename it.
 */
export const CacheClusterReasons = {
  Accepted: 'Accepted',
  UnknownParameter: 'UnknownParameter',
} as const;
