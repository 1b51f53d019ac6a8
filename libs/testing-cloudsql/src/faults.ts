import { CloudSqlError } from './errors.js';
import type { OperationFailure } from './operation.js';

/** The API methods this server implements, by their REST names. */
export type CloudSqlMethod =
  | 'instances.insert'
  | 'instances.get'
  | 'instances.list'
  | 'instances.patch'
  | 'instances.update'
  | 'instances.delete'
  | 'operations.get'
  | 'operations.list'
  | 'backupRuns.insert'
  | 'backupRuns.get'
  | 'backupRuns.list'
  | 'backups.get'
  | 'backups.list';

/** The methods that start an operation. */
export type CloudSqlOperationMethod =
  | 'instances.insert'
  | 'instances.patch'
  | 'instances.update'
  | 'instances.delete'
  | 'backupRuns.insert';

/** An error response to inject. */
export interface CloudSqlFault {
  /** HTTP status code, e.g. 400, 429, 503. */
  code: number;
  message?: string;
  /** Canonical status name; derived from `code` when omitted (429 → RESOURCE_EXHAUSTED, …). */
  status?: string;
  /** The legacy `errors[].reason`. */
  reason?: string;
  retryAfterSeconds?: number;
  /** How many consecutive calls fail. Default 1. */
  times?: number;
  /**
   * Carry the request out, then answer with the error anyway — a response lost on the way back, so
   * the caller cannot know its insert happened.
   */
  afterProcessing?: boolean;
}

/** An operation to fail: the call is accepted, the operation ends DONE with `error`. */
export interface CloudSqlOperationFault extends Partial<OperationFailure> {
  times?: number;
}

const defaultMessages: Record<number, string> = {
  400: 'Invalid request: The incoming request contained invalid data.',
  403: 'The client is not authorized to make this request.',
  404: 'The Cloud SQL instance does not exist.',
  409: 'Operation failed because another operation was already in progress.',
  429: "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'sqladmin.googleapis.com'.",
  500: 'Internal error encountered.',
  503: 'The service is currently unavailable.',
};

/** Queues of injected failures, consumed in order per method. */
export class Faults {
  private readonly http = new Map<CloudSqlMethod, CloudSqlFault[]>();
  private readonly operations = new Map<CloudSqlOperationMethod, CloudSqlOperationFault[]>();

  failNext(method: CloudSqlMethod, fault: CloudSqlFault) {
    const queue = this.http.get(method) ?? [];
    for (let i = 0; i < (fault.times ?? 1); i++) queue.push(fault);
    this.http.set(method, queue);
  }

  failNextOperation(method: CloudSqlOperationMethod, fault: CloudSqlOperationFault) {
    const queue = this.operations.get(method) ?? [];
    for (let i = 0; i < (fault.times ?? 1); i++) queue.push(fault);
    this.operations.set(method, queue);
  }

  /** The next injected error for `method`, as the error to answer with. */
  takeHttp(method: CloudSqlMethod): { error: CloudSqlError; afterProcessing: boolean } | undefined {
    const fault = this.http.get(method)?.shift();
    if (!fault) return undefined;
    const error = new CloudSqlError({
      code: fault.code,
      message: fault.message ?? defaultMessages[fault.code] ?? `Injected HTTP ${fault.code}.`,
      status: fault.status,
      reason: fault.reason,
      retryAfterSeconds: fault.retryAfterSeconds,
    });
    return { error, afterProcessing: fault.afterProcessing === true };
  }

  takeOperation(method: CloudSqlOperationMethod): OperationFailure | undefined {
    const fault = this.operations.get(method)?.shift();
    if (!fault) return undefined;
    return {
      code: fault.code ?? 'INTERNAL_ERROR',
      message: fault.message ?? 'An internal error has occurred.',
    };
  }

  clear() {
    this.http.clear();
    this.operations.clear();
  }
}
