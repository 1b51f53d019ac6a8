import type { JsonObject } from './json.js';

/** Canonical status names Google APIs put next to each HTTP code in their JSON error bodies. */
const statusForHttpCode: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export interface CloudSqlErrorInit {
  /** HTTP status code. */
  code: number;
  message: string;
  /** Canonical status name; derived from `code` when omitted. */
  status?: string;
  /** The legacy `errors[].reason`, e.g. `instanceDoesNotExist`. */
  reason?: string;
  /** Sent as a Retry-After header (429/503). */
  retryAfterSeconds?: number;
}

/**
 * An error response with the body Google's JSON APIs send:
 * `{ error: { code, message, status, errors: [{ message, domain, reason }] } }`.
 */
export class CloudSqlError extends Error {
  readonly code: number;
  readonly status: string;
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: CloudSqlErrorInit) {
    super(init.message);
    this.name = 'CloudSqlError';
    this.code = init.code;
    this.status = init.status ?? statusForHttpCode[init.code] ?? 'UNKNOWN';
    this.reason = init.reason ?? defaultReason(init.code);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  body(): JsonObject {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        errors: [{ message: this.message, domain: 'global', reason: this.reason }],
      },
    };
  }
}

function defaultReason(code: number): string {
  switch (code) {
    case 400:
      return 'invalid';
    case 404:
      return 'notFound';
    case 409:
      return 'conflict';
    case 429:
      return 'rateLimitExceeded';
    case 503:
      return 'backendError';
    default:
      return 'backendError';
  }
}

// The messages and reasons below are the ones the real API is publicly reported to send, where
// known; the others follow its "Invalid request: …" style.

export const instanceNotFound = () =>
  new CloudSqlError({
    code: 404,
    message: 'The Cloud SQL instance does not exist.',
    reason: 'instanceDoesNotExist',
  });

export const instanceAlreadyExists = () =>
  new CloudSqlError({
    code: 409,
    status: 'ALREADY_EXISTS',
    message:
      "The Cloud SQL instance already exists. When you delete an instance, you can't reuse the " +
      'name of the deleted instance until one week from the deletion date.',
    reason: 'instanceAlreadyExists',
  });

export const operationInProgress = () =>
  new CloudSqlError({
    code: 409,
    message: 'Operation failed because another operation was already in progress.',
    reason: 'operationInProgress',
  });

export const instanceNotRunning = () =>
  new CloudSqlError({
    code: 400,
    status: 'FAILED_PRECONDITION',
    message: 'Invalid request: Invalid request since instance is not running.',
    reason: 'invalid',
  });

export const operationNotFound = () =>
  new CloudSqlError({
    code: 404,
    message: 'The Cloud SQL operation does not exist.',
    reason: 'operationDoesNotExist',
  });

export const backupRunNotFound = () =>
  new CloudSqlError({
    code: 404,
    message: 'The Cloud SQL backup run does not exist.',
    reason: 'backupRunDoesNotExist',
  });

export const backupNotFound = () =>
  new CloudSqlError({ code: 404, message: 'The backup does not exist.', reason: 'notFound' });

export const invalidRequest = (detail: string) =>
  new CloudSqlError({ code: 400, message: `Invalid request: ${detail}`, reason: 'invalid' });

/** What Google's front end answers for JSON it cannot map onto the request message. */
export const invalidPayload = (message: string) =>
  new CloudSqlError({ code: 400, message, reason: 'invalid' });

export const unimplemented = (what: string) =>
  new CloudSqlError({
    code: 501,
    message: `steward Cloud SQL test API: ${what} is not implemented`,
    reason: 'notImplemented',
  });
