import { describe, expect, it } from 'vitest';
import {
  awsCheckFailure,
  cloudSqlCheckFailure,
  isNetworkError,
  redact,
  secretStrings,
} from './failures.js';

/** An SDK service error as @aws-sdk/client-rds throws it. */
const awsError = (name: string, status: number, message = 'refused') =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

/** A GoogleError as gax throws it for an HTTP error answer. */
const googleError = (code: number, message = 'refused') =>
  Object.assign(new Error(message), { code });

const connectionRefused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

describe('awsCheckFailure', () => {
  it.each([
    ['InvalidClientTokenId', 403],
    ['SignatureDoesNotMatch', 403],
    ['UnrecognizedClientException', 400],
    ['AccessDenied', 403],
    ['AccessDeniedException', 400],
    ['ExpiredToken', 403],
  ])('%s means the credentials are invalid: not transient', (name, status) => {
    expect(awsCheckFailure(awsError(name, status))).toMatchObject({
      reason: 'CredentialsInvalid',
      transient: false,
      detail: `${name}: refused`,
    });
  });

  it.each([
    ['throttling', awsError('Throttling', 400)],
    ['RequestLimitExceeded', awsError('RequestLimitExceeded', 503)],
    ['a 5xx', awsError('ServiceUnavailable', 503)],
    ['an internal error', awsError('InternalFailure', 500)],
    ['a refused connection', connectionRefused()],
    ['a timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
  ])('%s means the provider is unreachable: transient', (_case, error) => {
    expect(awsCheckFailure(error)).toMatchObject({
      reason: 'ProviderUnreachable',
      transient: true,
    });
  });

  it('anything else is a transient CredentialsCheckFailed', () => {
    expect(awsCheckFailure(awsError('SomethingNew', 400))).toMatchObject({
      reason: 'CredentialsCheckFailed',
      transient: true,
    });
  });
});

describe('cloudSqlCheckFailure', () => {
  it.each([
    [16, 'UNAUTHENTICATED'],
    [7, 'PERMISSION_DENIED'],
  ])('code %i (%s) means the credentials are invalid: not transient', (code) => {
    expect(cloudSqlCheckFailure(googleError(code))).toMatchObject({
      reason: 'CredentialsInvalid',
      transient: false,
    });
  });

  it('a GaxiosError carrying a 401 JSON body maps by its canonical status', () => {
    const error = Object.assign(new Error('Request failed with status code 401'), {
      code: '401',
      response: {
        status: 401,
        data: {
          error: {
            code: 401,
            message: 'Request had invalid authentication credentials.',
            status: 'UNAUTHENTICATED',
          },
        },
      },
    });
    expect(cloudSqlCheckFailure(error)).toEqual({
      reason: 'CredentialsInvalid',
      transient: false,
      detail: 'Request had invalid authentication credentials.',
    });
  });

  it.each([
    [
      'an unreadable private key',
      Object.assign(new Error('error:1E08010C:DECODER routines::unsupported'), {
        code: 'ERR_OSSL_UNSUPPORTED',
      }),
    ],
    ['a key the token endpoint refuses', new Error('invalid_grant: Invalid JWT Signature.')],
  ])('%s means the credentials are invalid', (_case, error) => {
    expect(cloudSqlCheckFailure(error)).toMatchObject({
      reason: 'CredentialsInvalid',
      transient: false,
    });
  });

  it.each([5, 3])('code %i (the project) is an InvalidProviderProfile: not transient', (code) => {
    expect(cloudSqlCheckFailure(googleError(code))).toMatchObject({
      reason: 'InvalidProviderProfile',
      transient: false,
    });
  });

  it.each([
    ['UNAVAILABLE', googleError(14)],
    ['RESOURCE_EXHAUSTED', googleError(8)],
    ['INTERNAL', googleError(13)],
    ['DEADLINE_EXCEEDED', googleError(4)],
    ['fetch failed', Object.assign(new TypeError('fetch failed'), { cause: connectionRefused() })],
    ['ECONNREFUSED', connectionRefused()],
  ])('%s means the provider is unreachable: transient', (_case, error) => {
    expect(cloudSqlCheckFailure(error)).toMatchObject({
      reason: 'ProviderUnreachable',
      transient: true,
    });
  });

  it('anything else is a transient CredentialsCheckFailed', () => {
    expect(cloudSqlCheckFailure(googleError(12))).toMatchObject({
      reason: 'CredentialsCheckFailed',
      transient: true,
    });
  });
});

describe('isNetworkError', () => {
  it('looks through the cause chain', () => {
    expect(isNetworkError(new Error('outer', { cause: connectionRefused() }))).toBe(true);
    expect(isNetworkError(new Error('plain'))).toBe(false);
  });
});

describe('secretStrings and redact', () => {
  it('blanks out every value of a Secret and every line of a multi-line one', () => {
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    const secrets = secretStrings({
      aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      key: pem,
      short: 'abc',
    });
    expect(
      redact(
        'id AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY line MIIEvQIBADANBgkqhkiG9w0BAQEFAASC abc',
        secrets,
      ),
    ).toBe('id *** secret *** line *** abc');
  });

  it('finds the lines of a PEM key inside service-account JSON (escaped newlines)', () => {
    const json = JSON.stringify({
      client_email: 'a@b.iam.gserviceaccount.com',
      private_key:
        '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n',
    });
    expect(redact('bad MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', secretStrings({ 'sa.json': json }))).toBe(
      'bad ***',
    );
  });
});
