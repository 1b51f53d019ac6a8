import { type CacheClusterSpec } from '@steward/cache-cluster-api';
import { CacheClusterReasons } from './reasons.js';

/** The `spec.parameters` keys the controller knows; any other is refused (`UnknownParameter`). */
export const CacheClusterParameterKeys = ['description', 'owner'] as const;

/** What the controller does with one CacheCluster's spec. */
export type CacheClusterPlan =
  | { action: 'accept'; message: string }
  | { action: 'refuse'; reason: typeof CacheClusterReasons.UnknownParameter; message: string };

/**
 * Whether the controller can accept a CacheCluster, from its spec alone. Pure: no I/O, the same answer
 * for the same spec; a refusal says what to change.
 */
export function planCacheCluster(spec: CacheClusterSpec): CacheClusterPlan {
  const known: readonly string[] = CacheClusterParameterKeys;
  const unknown = Object.keys(spec.parameters ?? {})
    .filter((key) => !known.includes(key))
    .sort();
  if (unknown.length > 0) {
    return {
      action: 'refuse',
      reason: CacheClusterReasons.UnknownParameter,
      message: `spec.parameters has keys the CacheCluster controller does not know: ${unknown.join(', ')} (known: ${known.join(', ')})`,
    };
  }
  return { action: 'accept', message: 'the spec is valid' };
}
