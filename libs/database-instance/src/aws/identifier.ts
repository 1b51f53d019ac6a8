import { createHash } from 'node:crypto';

/** RDS's limit for `DBInstanceIdentifier`. */
export const MAX_RDS_IDENTIFIER_LENGTH = 63;
const HASH_LENGTH = 8;

/**
 * The RDS instance identifier of the object `namespace/name`: a pure function, so a create retried
 * after a crash targets the same identifier and RDS refuses a duplicate.
 *
 * Valid for RDS (1–63 of `[a-z0-9-]`, starts with a letter, no `--`, no trailing `-`) and readable
 * (`shop-orders-1a2b3c4d`). The 8-hex-digit hash of `namespace/name` is always appended: without it
 * `a` + `b-c` and `a-b` + `c` would both read `a-b-c`, as would `a` + `b.c` once the dot is
 * replaced, and two long names would share a truncated prefix.
 */
export function rdsIdentifier(namespace: string, name: string): string {
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex');
  let base = `${namespace}-${name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+/, '');
  if (!/^[a-z]/.test(base)) base = `db-${base}`;
  base = base.slice(0, MAX_RDS_IDENTIFIER_LENGTH - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${base}-${hash.slice(0, HASH_LENGTH)}`;
}

/** Whether `id` is a valid RDS DB instance identifier. */
export function isValidRdsIdentifier(id: string): boolean {
  return (
    id.length >= 1 &&
    id.length <= MAX_RDS_IDENTIFIER_LENGTH &&
    /^[a-z][a-z0-9-]*$/.test(id) &&
    !id.includes('--') &&
    !id.endsWith('-')
  );
}
