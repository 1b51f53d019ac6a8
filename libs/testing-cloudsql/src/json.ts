/** JSON values as the Cloud SQL Admin API sends and receives them. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function clone<T extends Json>(value: T): T {
  return structuredClone(value);
}

/**
 * `patch` merged into `base`, as Cloud SQL's PATCH merges a request into the current configuration:
 * objects merge field by field, everything else (scalars, arrays, and the `userLabels` map, which is
 * sent whole) replaces the current value.
 */
export function mergePatch(base: JsonObject, patch: JsonObject, replaceKeys: ReadonlySet<string>) {
  const merged: JsonObject = clone(base);
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    merged[key] =
      isObject(value) && isObject(current) && !replaceKeys.has(key)
        ? mergePatch(current, value, replaceKeys)
        : clone(value);
  }
  return merged;
}

/** A number from a JSON number or an int64 string (proto3 JSON sends int64 as a string). */
export function toNumber(value: Json | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return undefined;
}
