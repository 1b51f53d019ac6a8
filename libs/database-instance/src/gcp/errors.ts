import { TerminalError } from '@steward/controller';

/**
 * The gRPC status codes the `@google-cloud/sql` client puts on its `GoogleError.code` — also over
 * the REST transport, where gax maps the HTTP answer onto them (409 instanceAlreadyExists → 6,
 * 409 operationInProgress → 10, 404 → 5, 400 → 3, 429 → 8, 503 → 14). The v1 methods are configured
 * non-idempotent: the client never retries, so every retry is the reconciler's backoff.
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

/** The numeric gRPC code of a client error, if it has one. */
export function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
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
    const detail = error instanceof Error ? error.message : String(error);
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
