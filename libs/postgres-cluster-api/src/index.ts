/**
 * @steward/postgres-cluster-api — the `PostgresCluster` kind (`postgres.steward.dev/v1alpha1`,
 * namespaced, short name `pgc`): one source of truth for its TypeScript types and its CRD
 * (generated into charts/postgres-cluster-controller/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - `metadata.name` is a DNS label of at most MAX_NAME_LENGTH (48) characters starting with a
 *   letter (it names the StatefulSet, whose pods' revision label must fit 63, and the Services).
 * - `version` (a major, e.g. 15 or 17) never goes down; `storage.size` only grows (the message
 *   names both sizes); `storage.storageClassName` and `bootstrap` are immutable, also once added.
 * - `parameters` may not name RefusedParameters (OperatorOwnedParameters, and the settings that
 *   run commands, include files, load code from paths or name files; the message names the key
 *   and why); `shared_preload_libraries` names libraries, not paths; keys are setting names,
 *   values single-line.
 * - `replication.mode: sync` needs at least 2 replicas; `replication.sync` (`number`, default 1;
 *   `durability` required | preferred) only with mode sync, `number` ≤ replicas − 1; requests ≤
 *   limits; every cpu, memory and storage quantity is above 0, and memory and storage are whole
 *   numbers of bytes.
 * - `bootstrap.database` and `bootstrap.owner` are identifiers of at most 63 characters, not
 *   ReservedDatabases / ReservedRoles and not `pg_…`.
 * - `scheduling` (one schema with the other in-cluster kind: `@steward/crd`'s `SchedulingSpec`):
 *   `spread.nodes` / `spread.zones` — `Preferred` (default: a preferred pod anti-affinity on
 *   kubernetes.io/hostname, a ScheduleAnyway maxSkew-1 spread over topology.kubernetes.io/zone)
 *   or `Required` (never two instances on a node; DoNotSchedule over at least two zones);
 *   `nodeSelector` and `tolerations` as given; `affinity` (its parts added as given; a
 *   `podAntiAffinity` replaces the node spread) and `topologySpreadConstraints` (replace the zone
 *   spread), a term without `labelSelector` selecting the cluster's own instances. Label keys and
 *   values, operators and their values, weights, taint effects and `tolerationSeconds` are
 *   checked, and a `Required` spread beside the override that would replace it is refused.
 * - Defaults: `replicas: 1`, `replication.mode: async`, `failover.enabled: true`,
 *   `failover.after: 10s`, `failover.maxLagBytes: 16 MiB`, `bootstrap: app/app`,
 *   `deletionPolicy: Retain`, `rollout.primary: Switchover`,
 *   `scheduling.spread: { nodes: Preferred, zones: Preferred }`; with `backup`: `schedule: 0 3 * * *`,
 *   `retentionDays: 7`.
 * - `backup.schedule` and `backup.verify.schedule` are cron expressions the controller's parser
 *   takes (five fields, each within its range, ranges going up); `backup.destination` is an S3
 *   bucket name (not an IP address), an optional prefix and endpoint URL
 *   (`http(s)://host[:port][/path]`, no user, password or query), and a credentials Secret; `bootstrap.recovery` (immutable with the rest of
 *   bootstrap) names a source destination and optionally a backup id and a target time.
 *
 * What only the controller can know (the image catalogue, a profile's size classes and
 * guardrails — among them `requireSpread`, reason `SpreadRequired` — settings PostgreSQL does not
 * accept) is a condition with a reason (@steward/postgres-cluster); an instance the spread holds
 * back is `Unschedulable`.
 *
 * Status: `phase`, `primary`, `instances` (role, readiness, LSNs and lag of each),
 * `replicas`, `readyReplicas`, `version`, `image`, `systemIdentifier`, `timeline`, `endpoints`, `failover`
 * (the newest failover with both LSNs, the lag and `dataLossRisk`), `failoverCount`,
 * `lastFailover`, `switchover` (the newest planned switchover, asked for with the
 * `postgres.steward.dev/switchover-to` annotation, by a scale-down that would remove the
 * primary, or by a rolling update that reached the primary; when writes stopped and resumed),
 * `switchoverCount`, `primaryLastSeen` (the primary's position as last recorded, what a restarted
 * controller's lag bound starts from), `synchronous` (the quorum asked for and in effect),
 * `backup` (the newest successful and failed base backups, the earliest recoverable moment, how many are kept), `restore` (the backup a recovered cluster
 * started from, decided once), conditions `Ready`, `Progressing`, `Degraded` (+ `Stalled` for a spec the
 * controller refuses), `observedGeneration`.
 *
 * Major upgrades: a `version` above `status.version` waits for `upgrade.approvedVersion` and a
 * rehearsal that passed on a backup younger than `upgrade.maxBackupAge` (default 24h), then runs
 * as recorded in `status.upgrade` (phase, steps, when writes stopped and resumed); condition
 * `Upgrading`; `status.instanceSet` names the StatefulSet that serves (`<name>-v<major>` after one).
 *
 * The `PostgresBackup` kind (short name `pgb`): one on-demand base backup of a PostgresCluster
 * with `spec.backup` (`spec.cluster.name`, immutable; `deletionPolicy`, default Retain). Status:
 * `phase` Pending → Running → Completed | Failed, the backup's id, Job, WAL range and size.
 */
export {
  DataLossRisks,
  DEFAULT_MAX_LAG_BYTES,
  FailoverRecord,
  InstanceRoles,
  InstanceStatus,
  MAX_NAME_LENGTH,
  MAX_PARAMETER_VALUE_LENGTH,
  MAX_PARAMETERS,
  MAX_REPLICAS,
  OperatorOwnedParameters,
  POSTGRES_PORT,
  PostgresCluster,
  PostgresClusterSpec,
  PostgresClusterStatus,
  PostgresPhases,
  PrimaryLastSeen,
  RefusedParameters,
  ReplicationModes,
  ReservedDatabases,
  ReservedRoles,
  SwitchoverAnnotation,
  SwitchoverRecord,
  SyncDurabilities,
  SynchronousStatus,
  type DataLossRisk,
  type InstanceRole,
  type PostgresPhase,
  type ReplicationMode,
  type SyncDurability,
} from './postgres-cluster.js';
export {
  BackupDestination,
  BackupRecord,
  BackupSpec,
  BackupStatus,
  DEFAULT_RETENTION_DAYS,
  DefaultCredentialKeys,
  MAX_RETENTION_DAYS,
  RecoverySpec,
  RestoreStatus,
} from './backup.js';
export {
  MAX_BACKUP_NAME_LENGTH,
  PostgresBackup,
  PostgresBackupPhases,
  PostgresBackupSpec,
  PostgresBackupStatus,
  type PostgresBackupPhase,
} from './postgres-backup.js';
export {
  DEFAULT_MAX_BACKUP_AGE,
  UpgradePhases,
  UpgradeSpec,
  UpgradeStatus,
  UpgradeStep,
  type UpgradePhase,
} from './upgrade.js';
