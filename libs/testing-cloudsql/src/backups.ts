import { randomUUID } from 'node:crypto';
import { clone, type JsonObject } from './json.js';

/**
 * Backups of an instance. On-demand backup runs (`backupRuns.insert`) belong to the instance and go
 * when it is deleted; a final backup (`instances.delete` with `enableFinalBackup`) is a standalone
 * `Backup` of type FINAL that outlives it, listed by the Backups API.
 */

/** A BackupRun resource; its status follows the BACKUP_VOLUME operation that takes it. */
export interface BackupRunRecord {
  project: string;
  instance: string;
  id: string;
  resource: JsonObject;
}

export function newBackupRun(
  project: string,
  instance: JsonObject,
  id: string,
  description: string | undefined,
  baseUrl: string,
  now: number,
): BackupRunRecord {
  const name = String(instance['name']);
  const resource: JsonObject = {
    kind: 'sql#backupRun',
    status: 'ENQUEUED',
    enqueuedTime: new Date(now).toISOString(),
    id,
    type: 'ON_DEMAND',
    instance: name,
    selfLink: `${baseUrl}/v1/projects/${project}/instances/${name}/backupRuns/${id}`,
    location: String(instance['region']),
    backupKind: 'SNAPSHOT',
  };
  if (instance['databaseVersion']) resource['databaseVersion'] = instance['databaseVersion'];
  if (description) resource['description'] = description;
  return { project, instance: name, id, resource };
}

export interface BackupRecord {
  project: string;
  /** `projects/{project}/backups/{id}`. */
  name: string;
  resource: JsonObject;
}

export interface FinalBackupRequest {
  ttlDays?: number;
  expiryTime?: string;
  description?: string;
}

/** The FINAL backup taken when an instance is deleted with `enableFinalBackup=true`. */
export function newFinalBackup(
  project: string,
  instance: JsonObject,
  request: FinalBackupRequest,
  baseUrl: string,
  startedAt: number,
  now: number,
): BackupRecord {
  const name = `projects/${project}/backups/${randomUUID()}`;
  const expiry =
    request.expiryTime ??
    new Date(now + (request.ttlDays ?? 30) * 24 * 60 * 60 * 1000).toISOString();
  const resource: JsonObject = {
    name,
    kind: 'sql#backup',
    selfLink: `${baseUrl}/v1/${name}`,
    type: 'FINAL',
    instance: String(instance['name']),
    location: String(instance['region']),
    backupInterval: {
      startTime: new Date(startedAt).toISOString(),
      endTime: new Date(now).toISOString(),
    },
    state: 'SUCCESSFUL',
    backupKind: 'SNAPSHOT',
    expiryTime: expiry,
    instanceDeletionTime: new Date(now).toISOString(),
    instanceSettings: clone(instance),
  };
  if (instance['databaseVersion']) resource['databaseVersion'] = instance['databaseVersion'];
  if (request.description) resource['description'] = request.description;
  return { project, name, resource };
}
