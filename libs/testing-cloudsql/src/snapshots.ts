import type { BackupRecord, BackupRunRecord } from './backups.js';
import type { InstanceRecord } from './instance.js';
import { clone, isObject, toNumber, type JsonObject } from './json.js';
import type { Operation } from './operation.js';

/** An instance as a test sees it through `CloudSqlApi.instances()`. */
export interface CloudSqlInstanceSnapshot {
  project: string;
  name: string;
  /** `PENDING_CREATE`, `RUNNABLE`, `FAILED`, `PENDING_DELETE`. */
  state: string;
  databaseVersion: string;
  region: string;
  tier: string;
  edition: string;
  dataDiskSizeGb: number;
  availabilityType: string;
  backupEnabled: boolean;
  userLabels: Record<string, string>;
  connectionName?: string;
  ipAddresses: { type: string; ipAddress: string }[];
  /** The name of the operation in flight on it, if any. */
  operationInProgress?: string;
  /** The whole resource as the API returns it (enum names; int64 values as strings). */
  resource: JsonObject;
}

export interface CloudSqlOperationSnapshot {
  name: string;
  project: string;
  targetId: string;
  operationType: string;
  status: string;
  error?: { code: string; message: string };
}

export interface CloudSqlBackupSnapshot {
  project: string;
  instance: string;
  /** `ON_DEMAND` (a backup run, deleted with its instance) or `FINAL` (outlives it). */
  type: string;
  /** Backup run status or Backup state, e.g. `SUCCESSFUL`. */
  status: string;
  /** The backup run id, or the Backup's `projects/{project}/backups/{id}` name. */
  id: string;
  description?: string;
  resource: JsonObject;
}

const str = (value: unknown, fallback = '') => (typeof value === 'string' ? value : fallback);

export function instanceSnapshot(record: InstanceRecord): CloudSqlInstanceSnapshot {
  const resource = clone(record.resource);
  const settings = isObject(resource['settings']) ? resource['settings'] : {};
  const backup = isObject(settings['backupConfiguration']) ? settings['backupConfiguration'] : {};
  const labels = isObject(settings['userLabels']) ? settings['userLabels'] : {};
  const addresses = Array.isArray(resource['ipAddresses']) ? resource['ipAddresses'] : [];
  const snapshot: CloudSqlInstanceSnapshot = {
    project: record.project,
    name: record.name,
    state: str(resource['state']),
    databaseVersion: str(resource['databaseVersion']),
    region: str(resource['region']),
    tier: str(settings['tier']),
    edition: str(settings['edition']),
    dataDiskSizeGb: toNumber(settings['dataDiskSizeGb']) ?? 0,
    availabilityType: str(settings['availabilityType']),
    backupEnabled: backup['enabled'] === true,
    userLabels: Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, str(v)])),
    ipAddresses: addresses.filter(isObject).map((a) => ({
      type: str(a['type']),
      ipAddress: str(a['ipAddress']),
    })),
    resource,
  };
  if (typeof resource['connectionName'] === 'string') {
    snapshot.connectionName = resource['connectionName'];
  }
  if (record.busy) snapshot.operationInProgress = record.busy.name;
  return snapshot;
}

export function operationSnapshot(op: Operation, now: number): CloudSqlOperationSnapshot {
  const snapshot: CloudSqlOperationSnapshot = {
    name: op.name,
    project: op.init.project,
    targetId: op.init.targetId,
    operationType: op.init.operationType,
    status: op.status(now),
  };
  if (snapshot.status === 'DONE' && op.init.failure) snapshot.error = { ...op.init.failure };
  return snapshot;
}

export function backupRunSnapshot(run: BackupRunRecord): CloudSqlBackupSnapshot {
  const snapshot: CloudSqlBackupSnapshot = {
    project: run.project,
    instance: run.instance,
    type: str(run.resource['type']),
    status: str(run.resource['status']),
    id: run.id,
    resource: clone(run.resource),
  };
  if (typeof run.resource['description'] === 'string') {
    snapshot.description = run.resource['description'];
  }
  return snapshot;
}

export function backupSnapshot(backup: BackupRecord): CloudSqlBackupSnapshot {
  const snapshot: CloudSqlBackupSnapshot = {
    project: backup.project,
    instance: str(backup.resource['instance']),
    type: str(backup.resource['type']),
    status: str(backup.resource['state']),
    id: backup.name,
    resource: clone(backup.resource),
  };
  if (typeof backup.resource['description'] === 'string') {
    snapshot.description = backup.resource['description'];
  }
  return snapshot;
}
