/**
 * Quoting for the statements that take no bind parameters (`ALTER SYSTEM`, `CREATE ROLE ...
 * PASSWORD`, `CREATE DATABASE`): names are validated before they are quoted, values become string
 * literals. Everything else the admin layer sends uses bind parameters.
 */

/** A role or database name: lower case, at most 63 bytes (NAMEDATALEN − 1). */
const identifierPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `"name"` for a role or database name matching /^[a-z_][a-z0-9_]{0,62}$/ (TypeError otherwise).
 * Always quoted, so reserved words (`user`, `table`) are names too.
 */
export function quoteIdentifier(name: string, what = 'identifier'): string {
  if (typeof name !== 'string' || !identifierPattern.test(name)) {
    throw new TypeError(
      `not a valid ${what}: ${JSON.stringify(name)} (want /^[a-z_][a-z0-9_]{0,62}$/)`,
    );
  }
  return `"${name}"`;
}

/**
 * `value` as a string literal: single quotes doubled; a value with a backslash is written as an
 * escape string (`E'...'`, backslashes doubled too), so it reads the same whatever
 * `standard_conforming_strings` says. A NUL (which PostgreSQL text cannot hold) is a TypeError.
 */
export function quoteLiteral(value: string): string {
  if (typeof value !== 'string') throw new TypeError('a literal must be a string');
  if (value.includes('\0')) throw new TypeError('a PostgreSQL literal cannot contain NUL');
  const quoted = value.replaceAll("'", "''");
  return value.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}
