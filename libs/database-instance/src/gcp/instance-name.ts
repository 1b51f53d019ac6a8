import { createHash } from 'node:crypto';

/**
 * Cloud SQL instance IDs: lowercase letters, digits and hyphens, starting with a letter and not
 * ending with a hyphen; the project ID, a colon and the instance ID together must fit in 98
 * characters. Project IDs are at most 30 characters, so 63 keeps every project within the limit
 * (30 + 1 + 63 = 94) and lets the name double as a label value.
 */
export const CLOUD_SQL_INSTANCE_NAME_MAX = 63;

/** The shape the Cloud SQL Admin API accepts for an instance ID (before the length rule). */
export const CLOUD_SQL_INSTANCE_NAME_PATTERN = /^[a-z]([a-z0-9-]*[a-z0-9])?$/;

const HASH_LENGTH = 10;

/**
 * The Cloud SQL instance name of the DatabaseInstance `namespace/name`: a readable slug of
 * `<namespace>-<name>` followed by `-<hash>`, where hash is the first 10 hex digits of
 * sha256(`namespace/name`).
 *
 * The hash is always there, not only when the slug was truncated or characters replaced: the plain
 * join is itself ambiguous (`a-b`/`c` and `a`/`b-c` both give `a-b-c`), and Kubernetes names can
 * contain dots and be far longer than 63 characters. Two objects get the same instance name only
 * if 40 bits of sha256 collide. A pure function of (namespace, name): the same object always maps
 * to the same instance, which is what makes a repeated insert after a crash harmless.
 */
export function cloudSqlInstanceName(namespace: string, name: string): string {
  const hash = createHash('sha256')
    .update(`${namespace}/${name}`)
    .digest('hex')
    .slice(0, HASH_LENGTH);
  let slug = `${namespace}-${name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `db-${slug}`.replace(/-{2,}/g, '-');
  slug = slug.slice(0, CLOUD_SQL_INSTANCE_NAME_MAX - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${slug}-${hash}`;
}
