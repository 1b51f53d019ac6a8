import { quantitiesEqual } from './quantity.js';

/**
 * Whether the live object already carries everything `desired` says — the comparison that decides
 * whether an applied child needs another apply. The server adds defaults, status and metadata of
 * its own, so equality would never hold; a subset does:
 *
 * - objects: every key of `desired` is in `live` with a subset value (extra live keys are fine);
 * - arrays: `live` has at least as many elements, and desired element i is a subset of live
 *   element i (index by index: the server keeps the order an apply sent). Without the schema it
 *   cannot tell a keyed list (containers, env, ports) from an atomic one, so it misses elements
 *   another manager appended, and a keyed element another manager added or renamed *before*
 *   ours (server-side apply keeps it, ours follows it) reads as drift on every sync;
 * - strings that both parse as resource quantities compare by value (`1000m` equals `1`, `1Gi`
 *   equals `1073741824`), and so does a desired number against a live quantity string (the
 *   server stores `cpu: 2` as `"2"`);
 * - everything else: strict equality.
 *
 * One deliberate leniency: a desired value that is "zero" — `null`, `false`, `0`, `""`, `[]`, `{}`,
 * or an object of zero values — matches an absent live field. The API server drops zero values of
 * `omitempty` fields (`labels: {}`, `data: {}`, `hostNetwork: false`), so without this an apply
 * configuration that spells one out would be re-applied on every sync, forever.
 */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (desired === undefined) return true;
  if (live === undefined || live === null) return isZero(desired);
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length < desired.length) return false;
    return desired.every((element, i) => isSubset(element, live[i]));
  }
  if (isPlainObject(desired)) {
    if (!isPlainObject(live)) return false;
    return Object.entries(desired).every(([key, value]) => isSubset(value, live[key]));
  }
  if (typeof desired === 'string' && typeof live === 'string') {
    return desired === live || quantitiesEqual(desired, live);
  }
  if (typeof desired === 'number' && typeof live === 'string' && Number.isFinite(desired)) {
    return quantitiesEqual(String(desired), live);
  }
  return desired === live;
}

/** The values Go's `omitempty` leaves out of the JSON the server answers with. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.values(value).every(isZero);
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
