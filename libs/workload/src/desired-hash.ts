import { createHash } from 'node:crypto';

/**
 * The annotation every applied child carries: the hash of the apply configuration last applied.
 * A desired configuration that changed — a field removed included, which a subset comparison
 * cannot see — has another hash, so the child is applied again (and server-side apply removes
 * what the field manager no longer sends).
 */
export const DesiredHashAnnotation = 'steward.dev/desired-hash';

/**
 * A stable hash of an apply configuration: sha256 of its JSON with object keys sorted at every
 * level (so key order does not matter; array order does), first 16 hex digits. `undefined`
 * members are left out, as JSON leaves them out.
 */
export function desiredHash(configuration: unknown): string {
  return createHash('sha256').update(canonicalJson(configuration)).digest('hex').slice(0, 16);
}

/** JSON with sorted object keys: one text for every key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}
