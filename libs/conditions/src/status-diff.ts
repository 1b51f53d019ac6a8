/**
 * Structural equality of two JSON values (objects compared by keys regardless of order, arrays by
 * position; `undefined` members are treated as absent, as they are once serialised). Reconcilers
 * compare the status they computed with the one they read and write only when they differ.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const key of keys) {
    if (!jsonEqual(ao[key], bo[key])) return false;
  }
  return true;
}
