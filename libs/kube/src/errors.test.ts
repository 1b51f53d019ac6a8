import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ApiError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  errorFromResponse,
  errorFromStatus,
  ForbiddenError,
  GoneError,
  InvalidError,
  isAlreadyExists,
  isApiError,
  isConflict,
  isConnectionError,
  isGone,
  isInvalid,
  isNotFound,
  isTooManyRequests,
  NotFoundError,
  ServerError,
  TooManyRequestsError,
  UnauthorizedError,
} from './errors.js';
import { type Status } from './status.js';

function status(code: number, reason: string, message: string, extra: Partial<Status> = {}) {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
    message,
    ...extra,
  });
}

describe('errorFromResponse maps the server’s Status to a typed error', () => {
  it.each([
    [400, 'BadRequest', 'unable to parse requirement', BadRequestError],
    [401, 'Unauthorized', 'Unauthorized', UnauthorizedError],
    [
      403,
      'Forbidden',
      'configmaps is forbidden: User "nobody" cannot list resource "configmaps"',
      ForbiddenError,
    ],
    [404, 'NotFound', 'configmaps "missing" not found', NotFoundError],
    [409, 'AlreadyExists', 'configmaps "a" already exists', AlreadyExistsError],
    [409, 'Conflict', 'the object has been modified; please apply your changes', ConflictError],
    [409, 'Conflict', 'Apply failed with 1 conflict: conflict with "a": .data.k', ConflictError],
    [410, 'Expired', 'The provided continue parameter is too old', GoneError],
    [410, 'Gone', 'gone', GoneError],
    [422, 'Invalid', 'Gadget "g" is invalid: spec.size: Invalid value: 11', InvalidError],
    [429, 'TooManyRequests', 'Too many requests, please try again later.', TooManyRequestsError],
    [500, 'InternalError', 'Internal error occurred', ServerError],
    [
      503,
      'ServiceUnavailable',
      'the server is currently unable to handle the request',
      ServerError,
    ],
    [504, 'Timeout', 'Timeout: request did not complete within requested timeout', ServerError],
    [405, 'MethodNotAllowed', 'the server does not allow this method', ApiError],
  ])('%d %s → %s', (code, reason, message, type) => {
    const error = errorFromResponse(code, status(code, reason, message), {
      method: 'GET',
      path: '/api/v1/configmaps',
    });
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.constructor).toBe(type);
    expect(error.name).toBe(type.name);
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(message);
    expect(error.method).toBe('GET');
    expect(error.path).toBe('/api/v1/configmaps');
    expect(error.status?.kind).toBe('Status');
  });

  it('InvalidError carries the field causes', () => {
    const causes = [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 11', field: 'spec.size' },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "pink"',
        field: 'spec.color',
      },
    ];
    const error = errorFromResponse(
      422,
      status(422, 'Invalid', 'Gadget "g" is invalid', {
        details: { name: 'g', group: 'kube.steward.dev', kind: 'Gadget', causes },
      }),
    );
    expect(isInvalid(error) && error.causes).toEqual(causes);
    expect(error.details?.kind).toBe('Gadget');
  });

  it('InvalidError without details has no causes', () => {
    const error = errorFromResponse(422, status(422, 'Invalid', 'rejected'));
    expect(isInvalid(error) && error.causes).toEqual([]);
  });

  it('TooManyRequestsError takes Retry-After from the header, else from the Status details', () => {
    const fromHeader = errorFromResponse(429, status(429, 'TooManyRequests', 'slow down'), {
      retryAfterSeconds: 3,
    });
    expect(isTooManyRequests(fromHeader) && fromHeader.retryAfterSeconds).toBe(3);
    const fromDetails = errorFromResponse(
      429,
      status(429, 'TooManyRequests', 'slow down', { details: { retryAfterSeconds: 7 } }),
    );
    expect(isTooManyRequests(fromDetails) && fromDetails.retryAfterSeconds).toBe(7);
    const neither = errorFromResponse(429, status(429, 'TooManyRequests', 'slow down'));
    expect(isTooManyRequests(neither) && neither.retryAfterSeconds).toBeUndefined();
  });

  it('a body that is not a Status becomes the message, with the reason of the code', () => {
    const error = errorFromResponse(404, '404 page not found\n');
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.reason).toBe('NotFound');
    expect(error.message).toBe('404 page not found');
    const empty = errorFromResponse(502, '');
    expect(empty).toBeInstanceOf(ServerError);
    expect(empty.message).toBe('502 Unknown');
  });

  it('the HTTP code wins over a Status code that disagrees', () => {
    expect(errorFromResponse(404, status(500, 'NotFound', 'x')).code).toBe(404);
  });
});

describe('errorFromStatus (watch ERROR events)', () => {
  it('a 410 Expired Status is a GoneError', () => {
    const error = errorFromStatus({
      kind: 'Status',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (206)',
    });
    expect(isGone(error)).toBe(true);
    expect(error.message).toBe('too old resource version: 1 (206)');
  });

  it('reason Expired is a GoneError whatever the code', () => {
    expect(errorFromStatus({ kind: 'Status', reason: 'Expired' })).toBeInstanceOf(GoneError);
  });

  it('a Status without a code is a server error', () => {
    const error = errorFromStatus({ kind: 'Status', message: 'boom' });
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe(500);
    expect(error.reason).toBe('InternalError');
  });
});

describe('guards', () => {
  it('recognise exactly their own kind', () => {
    const notFound = errorFromResponse(404, status(404, 'NotFound', 'x'));
    const exists = errorFromResponse(409, status(409, 'AlreadyExists', 'x'));
    const conflict = errorFromResponse(409, status(409, 'Conflict', 'x'));
    expect([isNotFound(notFound), isNotFound(conflict), isNotFound(new Error('x'))]).toEqual([
      true,
      false,
      false,
    ]);
    expect([isAlreadyExists(exists), isConflict(exists)]).toEqual([true, false]);
    expect([isConflict(conflict), isAlreadyExists(conflict)]).toEqual([true, false]);
    expect([isApiError(conflict), isApiError(undefined), isApiError('x')]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('ConnectionError keeps its cause and is not an ApiError', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new ConnectionError({ method: 'GET', path: '/api' }, { cause });
    expect(error.cause).toBe(cause);
    expect(isConnectionError(error)).toBe(true);
    expect(isApiError(error)).toBe(false);
    expect(error.message).toBe('steward/kube: connection to the API server failed: GET /api');
  });
});
