import type { JsonObject } from './json.js';

export type OperationStatus = 'PENDING' | 'RUNNING' | 'DONE';

/** How a failed operation reports itself in `Operation.error.errors[]`. */
export interface OperationFailure {
  /** Cloud SQL's error code string, e.g. `INTERNAL_ERROR`, `QUOTA_EXCEEDED`. */
  code: string;
  message: string;
}

export interface OperationInit {
  name: string;
  project: string;
  /** The instance the operation acts on. */
  targetId: string;
  /** `CREATE`, `UPDATE`, `DELETE`, `BACKUP_VOLUME`. */
  operationType: string;
  insertTime: number;
  /** When it leaves PENDING. */
  startAt: number;
  /** When it is DONE. */
  doneAt: number;
  /** Set when the operation will end in failure; reported once it is DONE. */
  failure?: OperationFailure;
  backupContext?: JsonObject;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A Cloud SQL operation: PENDING until `startAt`, RUNNING until `doneAt`, then DONE. */
export class Operation {
  constructor(readonly init: OperationInit) {}

  get name() {
    return this.init.name;
  }

  status(now: number): OperationStatus {
    if (now < this.init.startAt) return 'PENDING';
    return now < this.init.doneAt ? 'RUNNING' : 'DONE';
  }

  /** The `Operation` resource (enum names), with links under `baseUrl`. */
  resource(now: number, baseUrl: string): JsonObject {
    const { name, project, targetId, operationType, insertTime, startAt, doneAt } = this.init;
    const status = this.status(now);
    const op: JsonObject = {
      kind: 'sql#operation',
      targetLink: `${baseUrl}/v1/projects/${project}/instances/${targetId}`,
      status,
      user: 'steward-test@steward.dev',
      insertTime: iso(insertTime),
      operationType,
      name,
      targetId,
      selfLink: `${baseUrl}/v1/projects/${project}/operations/${name}`,
      targetProject: project,
    };
    if (status !== 'PENDING') op['startTime'] = iso(startAt);
    if (status === 'DONE') op['endTime'] = iso(doneAt);
    if (status === 'DONE' && this.init.failure) {
      op['error'] = {
        kind: 'sql#operationErrors',
        errors: [{ kind: 'sql#operationError', ...this.init.failure }],
      };
    }
    if (this.init.backupContext) op['backupContext'] = this.init.backupContext;
    return op;
  }
}
