/**
 * Turns a JSON schema produced by TypeBox into a structural schema the API server accepts as a
 * CRD's `openAPIV3Schema`, and rejects what it would refuse, with the path of the offending node.
 * - `const` becomes a one-value `enum`; an `anyOf` of string `const`s becomes a string `enum`;
 * - `additionalProperties: false` is dropped (unknown fields are pruned by the server anyway);
 * - `$id`, `$schema`, `title`-less TypeBox internals and `default: undefined` are removed;
 * - every node must say its `type` (or carry `x-kubernetes-int-or-string` /
 *   `x-kubernetes-preserve-unknown-fields`).
 */
export function toStructural(schema: unknown, path = ''): Record<string, unknown> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new TypeError(`steward/crd: schema at ${path || '<root>'} is not an object`);
  }
  const input = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === '$id' || key === '$schema' || value === undefined) continue;
    if (key === 'additionalProperties' && value === false) continue;
    out[key] = value;
  }
  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
    out.type ??=
      typeof input.const === 'number'
        ? Number.isInteger(input.const)
          ? 'integer'
          : 'number'
        : typeof input.const;
  }
  if (
    Array.isArray(out.anyOf) &&
    (out.anyOf as Record<string, unknown>[]).every((s) => typeof s.const === 'string')
  ) {
    out.type = 'string';
    out.enum = (out.anyOf as Record<string, unknown>[]).map((s) => s.const);
    delete out.anyOf;
  }
  if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties as Record<string, unknown>).map(([name, child]) => [
        name,
        toStructural(child, `${path}.${name}`),
      ]),
    );
  }
  if (out.items) out.items = toStructural(out.items, `${path}[]`);
  if (out.additionalProperties && typeof out.additionalProperties === 'object') {
    out.additionalProperties = toStructural(out.additionalProperties, `${path}.*`);
  }
  if (out.properties && out.additionalProperties) {
    throw new TypeError(
      `steward/crd: schema at ${path || '<root>'} has both properties and additionalProperties`,
    );
  }
  if (
    !out.type &&
    !out['x-kubernetes-int-or-string'] &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    throw new TypeError(
      `steward/crd: schema at ${path || '<root>'} has no type; CRD schemas must be structural`,
    );
  }
  return out;
}
