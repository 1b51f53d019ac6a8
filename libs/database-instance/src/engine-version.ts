import { TerminalError } from '@steward/controller';
import { type Engine } from '@steward/database-instance-api';

/**
 * The major version of an engine version as the user or a provider spells it: PostgreSQL
 * `16.4` → `16` (`9.6.x` → `9.6`), MySQL `8.0.35` → `8.0`; Cloud SQL's `POSTGRES_16` → `16`,
 * `MYSQL_8_0_35` → `8.0`. Undefined when it cannot tell.
 */
export function majorVersion(engine: Engine, version: string): string | undefined {
  const text = version
    .trim()
    .replace(/^(POSTGRES|MYSQL)_/i, '')
    .replace(/_/g, '.');
  const parts = text.split('.');
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) return undefined;
  const [major, minor] = parts as [string, string?];
  if (engine === 'postgres') return Number(major) >= 10 ? major : minor && `${major}.${minor}`;
  return minor === undefined ? undefined : `${major}.${minor}`;
}

/**
 * Refuses a `spec.version` whose major version differs from the running instance's: neither
 * provider changes an engine's major version in place (it is a planned upgrade with a snapshot
 * first), and a changed field is never silently ignored — `NotSupported` (a change the provider cannot make in place), naming the field, the
 * versions and the provider. Minor versions are the provider's (RDS and Cloud SQL apply minor
 * upgrades themselves), so `16` and `16.4` against a running `16.6` both pass.
 */
export function checkVersionUnchanged(
  provider: 'aws' | 'gcp',
  engine: Engine,
  specVersion: string,
  actualVersion: string | undefined,
): void {
  if (!actualVersion) return;
  const wanted = majorVersion(engine, specVersion);
  const running = majorVersion(engine, actualVersion);
  if (!wanted || !running || wanted === running) return;
  throw new TerminalError(
    'NotSupported',
    `spec.version ${specVersion} asks for ${engine} ${wanted} but the instance runs ${running} (${actualVersion}): the ${provider} provider does not change an engine's major version in place; set spec.version back to ${running} (or upgrade at the provider after a snapshot, then set it)`,
  );
}

/** True when {@link checkVersionUnchanged} would refuse. */
export function versionChanged(
  engine: Engine,
  specVersion: string,
  actualVersion: string | undefined,
): boolean {
  try {
    checkVersionUnchanged('aws', engine, specVersion, actualVersion);
    return false;
  } catch {
    return true;
  }
}
