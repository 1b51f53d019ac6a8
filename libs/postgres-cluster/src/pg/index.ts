/**
 * The PostgreSQL admin layer of the PostgresCluster controller: observe a server (primary or
 * standby, WAL positions, timeline, replication), promote a standby, `ALTER SYSTEM`, and the
 * bootstrap of the application's role and database. Only the PostgreSQL protocol; no Kubernetes.
 *
 * - `pgAdmin(options)`: one pooled connection per endpoint, bounded connect and query timeouts;
 *   `observe` never throws (an unreachable or refusing server is `reachable: false` with the
 *   reason), the others throw `PgAdminError` (or a TypeError for invalid input).
 * - `parseLsn`/`formatLsn`/`lsnDiff`/`maxLsn` (pure): WAL positions as bigints.
 * - `scramVerifier`/`verifierMatches` (pure): SCRAM-SHA-256 verifiers as PostgreSQL stores them.
 * - `alterSystemStatement`, `quoteIdentifier`, `quoteLiteral` (pure): the SQL text of statements
 *   that take no bind parameters.
 */
export {
  pgAdmin,
  PgAdminError,
  ReplicationRole,
  RewindFunctions,
  type BootstrapSpec,
  type DatabaseLimit,
  type PgAdmin,
  type PgAdminOptions,
  type PgFailureKind,
} from './admin.js';
export { formatLsn, lsnDiff, maxLsn, parseLsn } from './lsn.js';
export {
  observationFromRows,
  settingFromRow,
  type PgSetting,
  type PgEndpoint,
  type PgObservation,
  type ReachablePgObservation,
  type ReplicationPeer,
  type UnreachablePgObservation,
  type WalArchiver,
  type WalReceiver,
} from './observation.js';
export { quoteIdentifier, quoteLiteral } from './quote.js';
export { scramVerifier, verifierMatches, type ScramVerifierOptions } from './scram.js';
export { alterSystemStatement, listQuotedSettings } from './settings.js';
