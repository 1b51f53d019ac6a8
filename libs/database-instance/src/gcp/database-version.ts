import { protos } from '@google-cloud/sql';
import { type Engine } from '@steward/database-instance-api';

const SqlDatabaseVersion = protos.google.cloud.sql.v1.SqlDatabaseVersion;

/** Versions the client library still names but Cloud SQL no longer creates. */
const retired = new Set(['MYSQL_5_1', 'MYSQL_5_5', 'MYSQL_8_0_29']);

/**
 * The Cloud SQL `databaseVersion` for `spec.engine` + `spec.version`, or undefined when Cloud SQL
 * has no such version:
 *
 * | engine   | spec.version         | databaseVersion                                  |
 * |----------|----------------------|--------------------------------------------------|
 * | postgres | `9.6`                | `POSTGRES_9_6`                                   |
 * | postgres | `N`, `N.x`, `N.x.y`  | `POSTGRES_N` (N ≥ 10; Cloud SQL picks the minor) |
 * | mysql    | `5.6`, `5.7`         | `MYSQL_5_6`, `MYSQL_5_7`                         |
 * | mysql    | `8.0`, `8.4`, `9.7`  | `MYSQL_8_0`, `MYSQL_8_4`, `MYSQL_9_7`            |
 * | mysql    | `8.0.N`              | `MYSQL_8_0_N` (a pinned minor Cloud SQL offers)  |
 *
 * The result must be a value of the client library's `SqlDatabaseVersion` enum (a name it does not
 * know is dropped before it is sent) and not a retired one. A bare MySQL major (`8`) is refused:
 * it could mean 8.0 or 8.4.
 */
export function cloudSqlDatabaseVersion(engine: Engine, version: string): string | undefined {
  const parts = version.split('.');
  if (parts.some((p) => !/^\d+$/.test(p))) return undefined;
  const [major, minor, patch] = parts.map(Number) as [number, number?, number?];
  let name: string | undefined;
  if (engine === 'postgres') {
    if (major === 9) name = minor === 6 ? 'POSTGRES_9_6' : undefined;
    else if (major >= 10) name = `POSTGRES_${major}`;
  } else if (minor !== undefined) {
    name = patch === undefined ? `MYSQL_${major}_${minor}` : `MYSQL_${major}_${minor}_${patch}`;
  }
  if (!name || retired.has(name)) return undefined;
  return Object.prototype.hasOwnProperty.call(SqlDatabaseVersion, name) ? name : undefined;
}

/** The port clients connect to for `engine`. */
export function enginePort(engine: Engine): number {
  return engine === 'postgres' ? 5432 : 3306;
}
