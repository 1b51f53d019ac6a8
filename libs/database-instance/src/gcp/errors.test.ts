import { TerminalError } from '@steward/controller';
import { describe, expect, it } from 'vitest';
import { callCloudSql, CloudSqlCallError, errorDetail, GrpcCode, grpcCode } from './errors.js';

/**
 * What google-auth-library's gaxios throws for an HTTP error answer to the Cloud SQL client (the
 * fields we read): the client asks for a streamed response, so `response.data` is undefined and
 * the body is the message.
 */
function gaxiosError(status: number, body: unknown): Error {
  return Object.assign(new Error(typeof body === 'string' ? body : JSON.stringify(body)), {
    code: status,
    status,
    response: { status, data: undefined },
  });
}

/** The same with a parsed body in `response.data` (a non-streamed request). */
function gaxiosErrorWithData(status: number, data: unknown): Error {
  return Object.assign(new Error(`Request failed with status code ${status}`), {
    code: status,
    status,
    response: { status, data },
  });
}

const body = (code: number, status: string | undefined, message: string, reason?: string) => ({
  error: {
    code,
    message,
    ...(status ? { status } : {}),
    ...(reason ? { errors: [{ message, domain: 'global', reason }] } : {}),
  },
});

describe('grpcCode', () => {
  it('takes GoogleError codes as they are', () => {
    expect(grpcCode(Object.assign(new Error('x'), { code: 5 }))).toBe(GrpcCode.NotFound);
  });

  it('reads the canonical status of a GaxiosError body, not its HTTP status', () => {
    expect(grpcCode(gaxiosError(404, body(404, 'NOT_FOUND', 'gone')))).toBe(GrpcCode.NotFound);
    expect(grpcCode(gaxiosError(409, body(409, 'ALREADY_EXISTS', 'taken')))).toBe(
      GrpcCode.AlreadyExists,
    );
    expect(grpcCode(gaxiosError(401, body(401, 'UNAUTHENTICATED', 'who')))).toBe(
      GrpcCode.Unauthenticated,
    );
    expect(grpcCode(gaxiosError(400, JSON.stringify(body(400, 'INVALID_ARGUMENT', 'bad'))))).toBe(
      GrpcCode.InvalidArgument,
    );
  });

  it('reads a parsed body in response.data too', () => {
    expect(grpcCode(gaxiosErrorWithData(409, body(409, 'ALREADY_EXISTS', 'taken')))).toBe(
      GrpcCode.AlreadyExists,
    );
    expect(errorDetail(gaxiosErrorWithData(404, body(404, 'NOT_FOUND', 'gone')))).toBe('gone');
  });

  it('falls back to the legacy reason, then to the HTTP status', () => {
    expect(grpcCode(gaxiosError(409, body(409, undefined, 'x', 'instanceAlreadyExists')))).toBe(
      GrpcCode.AlreadyExists,
    );
    expect(grpcCode(gaxiosError(409, body(409, undefined, 'x', 'operationInProgress')))).toBe(
      GrpcCode.Aborted,
    );
    expect(grpcCode(gaxiosError(503, 'Service Unavailable'))).toBe(GrpcCode.Unavailable);
    expect(grpcCode(gaxiosError(429, undefined))).toBe(GrpcCode.ResourceExhausted);
    expect(grpcCode(gaxiosError(418, undefined))).toBe(2);
  });

  it('gives network errors no code', () => {
    expect(grpcCode(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBeUndefined();
  });
});

describe('callCloudSql', () => {
  it("maps a GaxiosError INVALID_ARGUMENT to a terminal InvalidParameter with the server's message", async () => {
    const error = await callCloudSql('instances.insert', () =>
      Promise.reject(gaxiosError(400, body(400, 'INVALID_ARGUMENT', 'Invalid tier'))),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: 'InvalidParameter' });
    expect((error as Error).message).toBe('Cloud SQL instances.insert refused: Invalid tier');
  });

  it('maps a GaxiosError 404 to a CloudSqlCallError with NOT_FOUND', async () => {
    const error = await callCloudSql('instances.get', () =>
      Promise.reject(
        gaxiosError(404, body(404, 'NOT_FOUND', 'The Cloud SQL instance does not exist.')),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudSqlCallError);
    expect(error).toMatchObject({ code: GrpcCode.NotFound, method: 'instances.get' });
    expect(errorDetail((error as Error).cause)).toBe('The Cloud SQL instance does not exist.');
  });

  it('maps UNAUTHENTICATED to a terminal Forbidden', async () => {
    const error = await callCloudSql('instances.list', () =>
      Promise.reject(gaxiosError(401, body(401, 'UNAUTHENTICATED', 'Invalid JWT'))),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'Forbidden' });
  });
});
