/**
 * `ALTER SYSTEM` statements, and whether postgresql.auto.conf already holds what they would write.
 * `ALTER SYSTEM` takes no bind parameters: names are validated, values quoted as literals.
 *
 * List parameters whose items PostgreSQL quotes as identifiers (its GUC_LIST_QUOTE flag:
 * `shared_preload_libraries`, `search_path`, ...) take their items as separate literals —
 * `ALTER SYSTEM SET shared_preload_libraries = 'a, b'` would name one library called "a, b" —
 * so for those the value is read as a comma-separated list (items may be double-quoted, `""` in
 * one being a quote) and each item is sent on its own.
 */
import { quoteLiteral } from './quote.js';

/** A configuration parameter name as `ALTER SYSTEM` takes it (custom `prefix.name` ones excluded). */
const settingNamePattern = /^[a-z_][a-z0-9_]*$/;

/**
 * The parameters PostgreSQL 15–17 flag GUC_LIST_QUOTE (probed: `ALTER SYSTEM SET x = 'a, b'`
 * writes `'"a, b"'` for exactly these).
 */
export const listQuotedSettings: ReadonlySet<string> = new Set([
  'local_preload_libraries',
  'search_path',
  'session_preload_libraries',
  'shared_preload_libraries',
  'temp_tablespaces',
  'unix_socket_directories',
]);

/** Throws a TypeError unless `name` is a plain lower-case parameter name. */
export function checkSettingName(name: string): string {
  if (typeof name !== 'string' || !settingNamePattern.test(name)) {
    throw new TypeError(`not a PostgreSQL parameter name: ${JSON.stringify(name)}`);
  }
  return name;
}

/**
 * `ALTER SYSTEM SET name = '<value>'`, or `ALTER SYSTEM RESET name` for null. TypeError for a bad
 * name, a value with a newline (PostgreSQL cannot write it to postgresql.auto.conf) or a NUL, and
 * for an empty item of a list parameter (an empty list cannot be written: RESET it instead).
 */
export function alterSystemStatement(name: string, value: string | null): string {
  checkSettingName(name);
  if (value === null) return `ALTER SYSTEM RESET ${name}`;
  if (/[\r\n]/.test(value)) throw new TypeError(`the value of ${name} must not contain a newline`);
  if (!listQuotedSettings.has(name)) return `ALTER SYSTEM SET ${name} = ${quoteLiteral(value)}`;
  const items = listItems(value);
  if (items.length === 0 || items.includes('')) {
    throw new TypeError(`${name} is a list and must not have empty items (reset it with null)`);
  }
  return `ALTER SYSTEM SET ${name} = ${items.map(quoteLiteral).join(', ')}`;
}

/**
 * Whether postgresql.auto.conf already says what `alterSystemStatement(name, desired)` would
 * write: `current` is its value there (as `pg_file_settings` reads it), undefined when absent.
 */
export function settingInPlace(
  name: string,
  desired: string | null,
  current: string | undefined,
): boolean {
  if (desired === null || current === undefined) return desired === null && current === undefined;
  if (!listQuotedSettings.has(name)) return current === desired;
  try {
    const want = listItems(desired);
    const have = listItems(current);
    return want.length === have.length && want.every((item, i) => item === have[i]);
  } catch {
    return false;
  }
}

/**
 * The items of a comma-separated list as PostgreSQL writes list parameters: `a, "b c", "d""e"` →
 * `['a', 'b c', 'd"e']`. Unquoted items are trimmed and taken as written (no case folding).
 * TypeError for an unterminated quote or text after a quoted item.
 */
export function listItems(value: string): string[] {
  const items: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < value.length && /\s/.test(value[i]!)) i++;
  };
  skipSpace();
  if (i === value.length) return items;
  for (;;) {
    skipSpace();
    let item = '';
    if (value[i] === '"') {
      i++;
      for (;;) {
        if (i >= value.length) throw new TypeError(`unterminated quoted item in ${value}`);
        if (value[i] === '"') {
          if (value[i + 1] !== '"') break;
          i++;
        }
        item += value[i];
        i++;
      }
      i++;
      skipSpace();
      if (i < value.length && value[i] !== ',') {
        throw new TypeError(`text after a quoted item in ${value}`);
      }
    } else {
      const end = value.indexOf(',', i);
      item = value.slice(i, end === -1 ? value.length : end).trim();
      i = end === -1 ? value.length : end;
    }
    items.push(item);
    if (i >= value.length) return items;
    i++; // the comma
  }
}
