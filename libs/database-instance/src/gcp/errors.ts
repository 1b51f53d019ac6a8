import { TerminalError } from '@steward/controller';

/**
 * The gRPC status codes the `@google-cloud/sql` client puts on its `GoogleError.code` — also over
 * the REST transport, where gax maps the HTTP answer onto them (409 instanceAlreadyExists → 6,
 * 409 operationInProgress → 10, 404 → 5, 400 → 3, 429 → 8, 503 → 14). With service-account
 * credentials the REST transport sends through google-auth-library's gaxios, which throws its own
 * `GaxiosError` (`code` = the HTTP status) before gax sees the answer: {@link grpcCode} reads the
 * canonical status of the JSON error body there, so both shapes map alike. The v1 methods are
 * configured non-idempotent: the client never retries, so every retry is the reconciler's backoff.
 */
export const GrpcCode = {
  InvalidArgument: 3,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  Unavailable: 14,
  Unauthenticated: 16,
} as const;

/** A failed Cloud SQL call that may succeed later (or that the caller handles by its code). */
export class CloudSqlCallError extends Error {
  override readonly name = 'CloudSqlCallError';

  constructor(
    /** The API method, e.g. `instances.insert`. */
    readonly method: string,
    /** The gRPC code, when the client gave one. */
    readonly code: number | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** google.rpc.Code by its canonical name, as the JSON error body's `error.status` spells it. */
const CanonicalCodes: Readonly<Record<string, number>> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

/** The HTTP → gRPC mapping of google.rpc.Code, for an error body without a canonical status. */
const HttpCodes: Readonly<Record<number, number>> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  409: 10,
  412: 9,
  429: 8,
  499: 1,
  500: 13,
  501: 12,
  503: 14,
  504: 4,
};

/** The JSON error body of an HTTP error answer (`{ error: { code, message, status } }`). */
interface HttpErrorBody {
  error?: { code?: unknown; message?: unknown; status?: unknown; errors?: unknown };
}

/** The legacy `errors[].reason` values that name a code on their own. */
const ReasonCodes: Readonly<Record<string, number>> = {
  instanceAlreadyExists: 6,
  operationInProgress: 10,
};

function reasonCode(body: HttpErrorBody | undefined): number | undefined {
  const errors = body?.error?.errors;
  if (!Array.isArray(errors)) return undefined;
  for (const e of errors as { reason?: unknown }[]) {
    if (typeof e?.reason === 'string' && ReasonCodes[e.reason] !== undefined)
      return ReasonCodes[e.reason];
  }
  return undefined;
}

/** The HTTP answer of a `GaxiosError`, when `error` is one. */
function httpAnswer(
  error: unknown,
): { status: number; body: HttpErrorBody | undefined } | undefined {
  const response = (error as { response?: { status?: unknown; data?: unknown } } | undefined)
    ?.response;
  if (typeof response?.status !== 'number') return undefined;
  // The REST transport asks gaxios for a streamed response, so on an error answer `data` is
  // undefined and the body is the error's message: read it from there.
  let data: unknown = response.data ?? (error instanceof Error ? error.message : undefined);
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      data = undefined;
    }
  }
  return {
    status: response.status,
    body: data && typeof data === 'object' ? (data as HttpErrorBody) : undefined,
  };
}

/**
 * The numeric gRPC code of a client error, if it has one: `GoogleError.code`, or for a
 * `GaxiosError` the canonical status of its error body (else its HTTP status mapped as
 * google.rpc.Code does). Network errors (string codes such as `ECONNREFUSED`) have none.
 */
export function grpcCode(error: unknown): number | undefined {
  const answer = httpAnswer(error);
  if (answer) {
    const status = answer.body?.error?.status;
    return (
      (typeof status === 'string' ? CanonicalCodes[status] : undefined) ??
      reasonCode(answer.body) ??
      HttpCodes[answer.status] ??
      2
    );
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The server's message of a client error: the error body's message, else the error's. */
export function errorDetail(error: unknown): string {
  const message = httpAnswer(error)?.body?.error?.message;
  if (typeof message === 'string') return message;
  return error instanceof Error ? error.message : String(error);
}

/** True when `error` is a `CloudSqlCallError` with this code. */
export function hasCode(error: unknown, code: number): boolean {
  return error instanceof CloudSqlCallError && error.code === code;
}

/**
 * Runs one Cloud SQL call and maps its failure by numeric code — the one place that does:
 * - 3 INVALID_ARGUMENT → `TerminalError('InvalidParameter', <server message>)`: the request itself
 *   is wrong, only a spec change helps (no retry);
 * - 7 PERMISSION_DENIED, 16 UNAUTHENTICATED → `TerminalError('Forbidden', …)`: the profile's
 *   credentials must change;
 * - anything else (5 NOT_FOUND, 6 ALREADY_EXISTS, 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION,
 *   10 ABORTED "operation in progress", 14 UNAVAILABLE, …) → `CloudSqlCallError` with the code:
 *   callers handle 5 and 6 where they mean something; the rest propagate and are retried with
 *   backoff.
 */
export async function callCloudSql<R>(method: string, call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (error) {
    const code = grpcCode(error);
    const detail = errorDetail(error);
    if (code === GrpcCode.InvalidArgument) {
      throw new TerminalError('InvalidParameter', `Cloud SQL ${method} refused: ${detail}`, {
        cause: error,
      });
    }
    if (code === GrpcCode.PermissionDenied || code === GrpcCode.Unauthenticated) {
      throw new TerminalError(
        'Forbidden',
        `Cloud SQL ${method} was not allowed with the ProviderProfile's credentials: ${detail}`,
        { cause: error },
      );
    }
    throw new CloudSqlCallError(
      method,
      code,
      `Cloud SQL ${method} failed${code === undefined ? '' : ` (code ${code})`}: ${detail}`,
      { cause: error },
    );
  }
}
