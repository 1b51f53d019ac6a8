import { randomUUID } from 'node:crypto';
import {
  newBackupRun,
  newFinalBackup,
  type BackupRecord,
  type BackupRunRecord,
  type FinalBackupRequest,
} from './backups.js';
import {
  backupNotFound,
  backupRunNotFound,
  CloudSqlError,
  instanceAlreadyExists,
  instanceNotFound,
  instanceNotRunning,
  operationInProgress,
  operationNotFound,
} from './errors.js';
import {
  acceptedInput,
  applySettings,
  checkImmutable,
  defaultSettings,
  markRunnable,
  newEtag,
  newInstanceResource,
  replacedInSettingsPatch,
  type InstanceRecord,
} from './instance.js';
import { clone, isObject, mergePatch, type JsonObject } from './json.js';
import { Operation, type OperationFailure } from './operation.js';
import { Timeline } from './timeline.js';
import {
  validateDatabaseVersion,
  validateInstanceName,
  validateSettings,
  validateSettingsChange,
  type TierRules,
} from './validation.js';

export interface CloudSqlStateOptions extends TierRules {
  /** How long each operation stays PENDING, and then RUNNING. */
  operationStepMs: number;
  /** How long a new instance stays PENDING_CREATE; its CREATE operation is DONE when it is RUNNABLE. */
  createMs: number;
  /** Allow inserting the name of a deleted instance (the real API refuses it for a week). */
  reuseDeletedNames: boolean;
  /** Whether `name` is a database version the API offers for new instances. */
  knownDatabaseVersion: (name: string) => boolean;
  baseUrl: () => string;
  now?: () => number;
}

/** Called once a request has passed validation: the failure its operation should end with, if any. */
export type PlannedFailure = () => OperationFailure | undefined;

const key = (project: string, name: string) => `${project}/${name}`;

/**
 * The Cloud SQL state machine: instances (PENDING_CREATE → RUNNABLE | FAILED, PENDING_DELETE →
 * gone), their operations (PENDING → RUNNING → DONE, with `error` when failed), on-demand backup
 * runs, and final backups. One operation at a time per instance; another mutating call meanwhile
 * gets 409 operationInProgress, as on the real service.
 */
export class CloudSqlState {
  readonly timeline: Timeline;
  private readonly instanceRecords = new Map<string, InstanceRecord>();
  private readonly operationRecords: Operation[] = [];
  private readonly operationsByName = new Map<string, Operation>();
  private readonly backupRunRecords = new Map<string, BackupRunRecord>();
  private readonly backupRecords = new Map<string, BackupRecord>();
  private readonly deletedNames = new Set<string>();
  private ordinal = 0;
  private lastBackupRunId = 0;

  constructor(private readonly options: CloudSqlStateOptions) {
    this.timeline = new Timeline(options.now);
  }

  now() {
    return this.timeline.now();
  }

  /** Applies every transition that is due. */
  advance() {
    this.timeline.advance();
  }

  // ── instances ────────────────────────────────────────────────────────────────────────────────

  insertInstance(project: string, body: JsonObject, plannedFailure: PlannedFailure): Operation {
    const input = acceptedInput(body);
    const name = validateInstanceName(input['name'], project);
    const version = validateDatabaseVersion(
      input['databaseVersion'],
      this.options.knownDatabaseVersion,
    );
    const now = this.now();
    const resource = newInstanceResource(input, project, this.options.baseUrl(), now);
    validateSettings(resource['settings'] as JsonObject, version, this.options);
    if (this.instanceRecords.has(key(project, name)) || this.deletedNames.has(key(project, name))) {
      throw instanceAlreadyExists();
    }
    const record: InstanceRecord = { project, name, resource, ordinal: ++this.ordinal };
    this.instanceRecords.set(key(project, name), record);
    const failure = plannedFailure();
    return this.startOperation(record, 'CREATE', this.options.createMs, failure, {
      onDone: () => {
        if (failure) {
          record.resource['state'] = 'FAILED';
          record.resource['etag'] = newEtag();
        } else {
          markRunnable(record);
        }
      },
    });
  }

  getInstance(project: string, name: string): JsonObject {
    return this.instance(project, name).resource;
  }

  listInstances(project: string): JsonObject[] {
    return [...this.instanceRecords.values()]
      .filter((r) => r.project === project)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => r.resource);
  }

  /** PATCH: merges `body.settings` into the current settings (`userLabels` is replaced whole). */
  patchInstance(project: string, name: string, body: JsonObject, plannedFailure: PlannedFailure) {
    const record = this.mutableInstance(project, name);
    const input = acceptedInput(body);
    checkImmutable(record.resource, input);
    const current = this.settingsOf(record);
    const requested = isObject(input['settings']) ? clone(input['settings']) : {};
    // A map is never absent in proto3 JSON: the client sends `userLabels: {}` when it means "leave
    // the labels alone", so only a non-empty map replaces them.
    if (isObject(requested['userLabels']) && Object.keys(requested['userLabels']).length === 0) {
      delete requested['userLabels'];
    }
    delete requested['settingsVersion'];
    const next = mergePatch(current, requested, replacedInSettingsPatch);
    return this.changeSettings(record, current, next, plannedFailure);
  }

  /** PUT: replaces the settings; what is not sent returns to its default (disk size is kept). */
  updateInstance(project: string, name: string, body: JsonObject, plannedFailure: PlannedFailure) {
    const record = this.mutableInstance(project, name);
    const input = acceptedInput(body);
    checkImmutable(record.resource, input);
    const current = this.settingsOf(record);
    const requested = isObject(input['settings']) ? clone(input['settings']) : {};
    const version = requested['settingsVersion'];
    if (version !== undefined && String(version) !== String(current['settingsVersion'])) {
      throw new CloudSqlError({
        code: 412,
        message: 'Precondition check failed.',
        reason: 'conditionNotMet',
      });
    }
    delete requested['settingsVersion'];
    const next = mergePatch(
      defaultSettings(String(record.resource['region'])),
      requested,
      replacedInSettingsPatch,
    );
    for (const kept of ['dataDiskSizeGb', 'dataDiskType', 'edition', 'locationPreference']) {
      if (requested[kept] === undefined && current[kept] !== undefined)
        next[kept] = clone(current[kept]);
    }
    return this.changeSettings(record, current, next, plannedFailure);
  }

  deleteInstance(
    project: string,
    name: string,
    finalBackup: FinalBackupRequest | undefined,
    plannedFailure: PlannedFailure,
  ): Operation {
    const record = this.instance(project, name);
    if (record.busy) throw operationInProgress();
    if (this.settingsOf(record)['deletionProtectionEnabled'] === true) {
      throw new CloudSqlError({
        code: 400,
        status: 'FAILED_PRECONDITION',
        message:
          'Invalid request: The instance is protected from deletion. Disable deletion protection (settings.deletionProtectionEnabled) and try again.',
        reason: 'invalid',
      });
    }
    if (finalBackup && record.resource['state'] !== 'RUNNABLE') throw instanceNotRunning();
    const previousState = record.resource['state'];
    record.resource['state'] = 'PENDING_DELETE';
    const failure = plannedFailure();
    const requestedAt = this.now();
    return this.startOperation(record, 'DELETE', 0, failure, {
      onDone: () => {
        if (failure) {
          record.resource['state'] = previousState ?? 'RUNNABLE';
          return;
        }
        this.instanceRecords.delete(key(project, name));
        for (const [k, run] of this.backupRunRecords) {
          if (run.project === project && run.instance === name) this.backupRunRecords.delete(k);
        }
        if (!this.options.reuseDeletedNames) this.deletedNames.add(key(project, name));
        if (finalBackup) {
          const backup = newFinalBackup(
            project,
            record.resource,
            finalBackup,
            this.options.baseUrl(),
            requestedAt,
            this.now(),
          );
          this.backupRecords.set(backup.name, backup);
        }
      },
    });
  }

  // ── backups ──────────────────────────────────────────────────────────────────────────────────

  insertBackupRun(project: string, name: string, body: JsonObject, plannedFailure: PlannedFailure) {
    const record = this.mutableInstance(project, name);
    const id = String((this.lastBackupRunId = Math.max(this.lastBackupRunId + 1, this.now())));
    const description = typeof body['description'] === 'string' ? body['description'] : undefined;
    const run = newBackupRun(
      project,
      record.resource,
      id,
      description,
      this.options.baseUrl(),
      this.now(),
    );
    this.backupRunRecords.set(`${project}/${name}/${id}`, run);
    const failure = plannedFailure();
    return this.startOperation(record, 'BACKUP_VOLUME', 0, failure, {
      backupContext: { kind: 'sql#backupContext', backupId: id },
      onStart: () => {
        run.resource['status'] = 'RUNNING';
        run.resource['startTime'] = new Date(this.now()).toISOString();
      },
      onDone: () => {
        run.resource['status'] = failure ? 'FAILED' : 'SUCCESSFUL';
        run.resource['endTime'] = new Date(this.now()).toISOString();
        if (failure) run.resource['error'] = { kind: 'sql#operationError', ...failure };
      },
    });
  }

  getBackupRun(project: string, name: string, id: string): JsonObject {
    this.instance(project, name);
    const run = this.backupRunRecords.get(`${project}/${name}/${id}`);
    if (!run) throw backupRunNotFound();
    return run.resource;
  }

  /** Newest first. */
  listBackupRuns(project: string, name: string): JsonObject[] {
    this.instance(project, name);
    return [...this.backupRunRecords.values()]
      .filter((r) => r.project === project && r.instance === name)
      .sort((a, b) => Number(b.id) - Number(a.id))
      .map((r) => r.resource);
  }

  getBackup(name: string): JsonObject {
    const backup = this.backupRecords.get(name);
    if (!backup) throw backupNotFound();
    return backup.resource;
  }

  listBackups(project: string): JsonObject[] {
    return [...this.backupRecords.values()]
      .filter((b) => b.project === project)
      .map((b) => b.resource);
  }

  // ── operations ───────────────────────────────────────────────────────────────────────────────

  getOperation(project: string, name: string): Operation {
    const op = this.operationsByName.get(name);
    if (!op || op.init.project !== project) throw operationNotFound();
    return op;
  }

  /** Newest first; only those on `instance` when given. */
  listOperations(project: string, instance: string | undefined): Operation[] {
    return this.operationRecords
      .filter((op) => op.init.project === project && (!instance || op.init.targetId === instance))
      .reverse();
  }

  // ── snapshots ────────────────────────────────────────────────────────────────────────────────

  instanceRecordsSnapshot(): InstanceRecord[] {
    return [...this.instanceRecords.values()];
  }

  operationsSnapshot(): Operation[] {
    return [...this.operationRecords];
  }

  backupsSnapshot(): { runs: BackupRunRecord[]; backups: BackupRecord[] } {
    return { runs: [...this.backupRunRecords.values()], backups: [...this.backupRecords.values()] };
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────────

  private instance(project: string, name: string): InstanceRecord {
    const record = this.instanceRecords.get(key(project, name));
    if (!record) throw instanceNotFound();
    return record;
  }

  /** An instance that can take a new operation now. */
  private mutableInstance(project: string, name: string): InstanceRecord {
    const record = this.instance(project, name);
    if (record.busy) throw operationInProgress();
    if (record.resource['state'] !== 'RUNNABLE') throw instanceNotRunning();
    return record;
  }

  private settingsOf(record: InstanceRecord): JsonObject {
    const settings = record.resource['settings'];
    return isObject(settings) ? settings : {};
  }

  private changeSettings(
    record: InstanceRecord,
    current: JsonObject,
    next: JsonObject,
    plannedFailure: PlannedFailure,
  ): Operation {
    const version = String(record.resource['databaseVersion']);
    validateSettings(next, version, this.options);
    validateSettingsChange(current, next);
    const failure = plannedFailure();
    return this.startOperation(record, 'UPDATE', 0, failure, {
      onDone: () => {
        if (!failure) applySettings(record, next);
      },
    });
  }

  private startOperation(
    record: InstanceRecord,
    operationType: string,
    minimumMs: number,
    failure: OperationFailure | undefined,
    effects: { onStart?: () => void; onDone: () => void; backupContext?: JsonObject },
  ): Operation {
    const now = this.now();
    const step = this.options.operationStepMs;
    const op = new Operation({
      name: randomUUID(),
      project: record.project,
      targetId: record.name,
      operationType,
      insertTime: now,
      startAt: now + step,
      doneAt: now + Math.max(2 * step, minimumMs),
      failure,
      backupContext: effects.backupContext,
    });
    this.operationRecords.push(op);
    this.operationsByName.set(op.name, op);
    record.busy = op;
    if (effects.onStart) this.timeline.schedule(op.init.startAt, effects.onStart);
    this.timeline.schedule(op.init.doneAt, () => {
      if (record.busy === op) record.busy = undefined;
      effects.onDone();
    });
    return op;
  }
}
