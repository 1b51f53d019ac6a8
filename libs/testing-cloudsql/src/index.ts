/**
 * @steward/testing-cloudsql — a local Cloud SQL Admin API v1 for tests, spoken to by the real
 * `@google-cloud/sql` client (no emulator exists). See server.ts for what it serves and routes.ts
 * for the REST paths.
 *
 * Tests and tools only (Nx tag `type:testing`); built on @steward/testing.
 */
export {
  startCloudSqlApi,
  type CloudSqlApi,
  type CloudSqlApiOptions,
  type CloudSqlClientOptions,
  type CloudSqlRequestRecord,
} from './server.js';
export type {
  CloudSqlFault,
  CloudSqlMethod,
  CloudSqlOperationFault,
  CloudSqlOperationMethod,
} from './faults.js';
export type { ServiceAccountKeyFile, ServiceAccountKeyOptions } from './service-accounts.js';
export type {
  CloudSqlBackupSnapshot,
  CloudSqlInstanceSnapshot,
  CloudSqlOperationSnapshot,
} from './snapshots.js';
