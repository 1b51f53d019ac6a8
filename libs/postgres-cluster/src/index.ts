/**
 * @steward/postgres-cluster — the PostgresCluster domain: PostgreSQL run in the cluster on the
 * workload toolkit and the node's pods, observed with `pg`, failed over by a pure plan.
 *
 * - `children/`: what a PostgresCluster runs on, rendered as apply configurations (pure), and the
 *   instance agent every pod runs (instance-script.ts: the pod carries out the controller's
 *   instruction annotation — initdb, primary, standby, rewind, reclone, wait).
 * - `pg/`: the PostgreSQL admin layer (observe, promote, ALTER SYSTEM, bootstrap with SCRAM
 *   verifiers computed here) and LSN arithmetic.
 * - `plan/plan.ts`: who is primary and what each instance is told (pure), failover included —
 *   fence first, the most advanced standby, `maxLagBytes`, `dataLossRisk`.
 * - `status.ts`: the phase and conditions stated from the plan's health (pure).
 * - `metrics.ts`: the controller's own gauges per namespace (failovers, replication lag, failover
 *   at risk or refused, backups overdue or failing, rehearsals failed), computed from the
 *   clusters' status at each collection.
 * - `postgresClusterController(manager, options)`: the controller; finalizer
 *   `postgres.steward.dev/cleanup` honours `spec.deletionPolicy` (Retain: claims and Secrets stay,
 *   detached, an Event says where, backups included; Delete: a final backup first with
 *   spec.backup unless skipFinalBackup, then the claims deleted).
 * - `upgrade/`: major upgrades as a state machine in status.upgrade (approval and a verified
 *   backup first; dump and restore into a new StatefulSet `<name>-v<major>`; rolled back before
 *   the switch; resumed after a restart).
 * - `backup/`: base backup and rehearsal Jobs, WAL archiving, retention, restores, and
 *   `postgresBackupController` (the PostgresBackup kind: one backup now, reported from its Job and
 *   the bucket; the PostgresCluster controller starts its Job, before the schedule's).
 * - `resolve.ts`: what a cluster runs with through its kubernetes ProviderProfile, and where its
 *   backups go (`resolveBackup`). Backups are isolated per namespace: the profile's bucket,
 *   endpoint and credentials Secret name apply, in the folder `<prefix>/<namespace>/<name>` the
 *   controller derives; a recovery source is a cluster name read from the object's own namespace
 *   folder; a destination of the workload's own only where the profile allows it
 *   (BackupDestinationNotAllowed) and an endpoint only one a profile names
 *   (BackupEndpointNotAllowed; no profile: AWS S3 only) — the controller lists and prunes the
 *   bucket itself and never connects elsewhere; a restored cluster archives into its own folder
 *   (RecoverySourceIsBackupDestination refuses a restore from it). Credentials: the workload
 *   namespace's own Secret, provisioned by the platform team, unless the profile says
 *   copyCredentialsToWorkloadNamespaces (`backup/credentials.ts` copies it, never over a Secret
 *   it did not copy).
 */
export {
  postgresClusterController,
  PostgresClusterFinalizer,
  postgresClusterReconciler,
  postgresClusterUsers,
  type PostgresClusterControllerOptions,
} from './controller.js';
export { viewOf } from './phases/instances.js';
export * from './children/index.js';
export {
  postgresBackupController,
  PostgresBackupFinalizer,
  postgresBackupReconciler,
  PostgresBackupReasons,
  type PostgresBackupControllerOptions,
} from './backup/on-demand.js';
export { BuiltInImages } from './images.js';
export { instanceFacts, type Pod } from './pods.js';
export {
  planInstances,
  PlanReasons,
  synchronousStandbyNames,
  type InstanceFacts,
  type InstanceView,
  type Plan,
  type PlanAction,
  type PlanHealth,
  type PlanInput,
  type PlanMemory,
} from './plan/plan.js';
export { DEFAULT_STORAGE, resolvePostgres, type ResolvedPostgres } from './resolve.js';
export { postgresStatus, PostgresReasons } from './status.js';
export { BACKUP_GRACE_MS, backupOverdue, postgresClusterGauges } from './metrics.js';
