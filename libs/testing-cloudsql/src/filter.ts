import { invalidRequest } from './errors.js';
import { isObject, type Json, type JsonObject } from './json.js';

/**
 * The subset of the list `filter` syntax this server understands (instances.list and backups.list):
 * space-separated terms, all of which must hold (an explicit `AND` between them is accepted), each
 * `path:value`, `path=value` or `path!=value`, optionally negated with `-` or `NOT`. `path` is a
 * dotted path into the resource's JSON as the API returns it with enum names, e.g. `name`, `state`,
 * `databaseVersion`, `settings.tier`, `settings.userLabels.<key>`. `value` may be double-quoted; a
 * trailing `*` matches a prefix, and `path:*` matches any present value. `OR` and parentheses are
 * refused with 400.
 */
export type ResourcePredicate = (resource: JsonObject) => boolean;

const term = /\s*(?:(-|NOT\s+))?([A-Za-z_][\w.-]*)\s*(!=|=|:)\s*("(?:[^"\\]|\\.)*"|[^\s()"]+)\s*/y;

export function parseFilter(filter: string | null | undefined): ResourcePredicate {
  const text = (filter ?? '').trim();
  if (text === '') return () => true;
  const predicates: ResourcePredicate[] = [];
  let position = 0;
  while (position < text.length) {
    const rest = text.slice(position);
    const conjunction = /^\s*AND\s+/.exec(rest);
    if (conjunction) {
      position += conjunction[0].length;
      continue;
    }
    term.lastIndex = position;
    const match = term.exec(text);
    if (!match || /^\s*(OR\b|\()/.test(rest)) {
      throw invalidRequest(`Unsupported filter expression (${text}).`);
    }
    position = term.lastIndex;
    const [, negation, path = '', operator, rawValue = ''] = match;
    const value = rawValue.startsWith('"') ? (JSON.parse(rawValue) as string) : rawValue;
    const matches = (resource: JsonObject) =>
      valuesAt(resource, path.split('.')).some((v) => like(v, value));
    const negate = Boolean(negation) !== (operator === '!=');
    predicates.push(negate ? (r) => !matches(r) : matches);
  }
  return (resource) => predicates.every((p) => p(resource));
}

function valuesAt(value: Json | undefined, path: string[]): Json[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v) => valuesAt(v, path));
  if (path.length === 0) return [value];
  const [head, ...tail] = path;
  return isObject(value) && head !== undefined ? valuesAt(value[head], tail) : [];
}

function like(actual: Json, expected: string): boolean {
  if (actual === null || typeof actual === 'object') return expected === '*';
  const text = String(actual);
  if (expected === '*') return true;
  if (expected.endsWith('*')) return text.startsWith(expected.slice(0, -1));
  return text === expected;
}
