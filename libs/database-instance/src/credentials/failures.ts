import { ProviderProfileReasons as R } from '@steward/provider-profile';
import { grpcCode, errorDetail } from '../gcp/errors.js';

/** What a failed provider call says about a profile's credentials. */
export interface CheckFailure {
  /** `CredentialsInvalid`, `InvalidProviderProfile`, `ProviderUnreachable` or `CredentialsCheckFailed`. */
  reason: string;
  /** Retrying later may succeed by itself. */
  transient: boolean;
  /** The provider's words (error code and message), for the condition message. */
  detail: string;
}

/** Error codes of a connection that failed or broke: the provider was not reached. */
const NetworkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** True when `error`, or an error in its `cause` chain, is a failed or broken connection. */
export function isNetworkError(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = error; e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NetworkCodes.has(code)) return true;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError') return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * AWS error codes (the SDK error's `name`) that say the credentials are wrong, expired, or not
 * allowed to call RDS: the platform team must change the Secret or the IAM policy.
 */
const AwsAuthErrors = new Set([
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'UnrecognizedClientException',
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'AuthFailure',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidAccessKeyId',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'InvalidSignatureException',
  'NotAuthorized',
]);

/** AWS error codes of throttling: the provider is there but will not answer now. */
const AwsThrottlingErrors = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'SlowDown',
]);

/**
 * Maps a failed RDS call, by the AWS error code the SDK puts in `name` and the HTTP status in
 * `$metadata`:
 *
 * | error | reason | transient |
 * |---|---|---|
 * | InvalidClientTokenId, SignatureDoesNotMatch, UnrecognizedClientException, AccessDenied(Exception), ExpiredToken, … | CredentialsInvalid | no |
 * | throttling codes, HTTP 5xx, connection failures and timeouts | ProviderUnreachable | yes |
 * | anything else | CredentialsCheckFailed | yes |
 */
export function awsCheckFailure(error: unknown): CheckFailure {
  const name = (error as { name?: unknown } | undefined)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata
    ?.httpStatusCode;
  const detail =
    typeof name === 'string' && name !== 'Error'
      ? `${name}: ${messageOf(error)}`
      : messageOf(error);
  if (typeof name === 'string' && AwsAuthErrors.has(name)) {
    return { reason: R.CredentialsInvalid, transient: false, detail };
  }
  if (
    (typeof name === 'string' && AwsThrottlingErrors.has(name)) ||
    (typeof status === 'number' && status >= 500) ||
    isNetworkError(error)
  ) {
    return { reason: R.ProviderUnreachable, transient: true, detail };
  }
  return { reason: R.CredentialsCheckFailed, transient: true, detail };
}

/** gRPC codes (google.rpc.Code) of Cloud SQL answers that mean "not now". */
const CloudSqlUnavailableCodes = new Set([
  1, // CANCELLED
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED (quota, rate limit)
  10, // ABORTED
  13, // INTERNAL
  14, // UNAVAILABLE
]);

/**
 * google-auth-library's words for a key it could not use: an unparsable private key (OpenSSL's
 * decoder) or a token endpoint refusing the key (`invalid_grant`, `invalid_client`, …).
 */
const GoogleAuthKeyErrors =
  /\b(?:DECODER routines|PEM routines|invalid_grant|invalid_client|unauthorized_client)\b/;

/**
 * Maps a failed Cloud SQL call by its gRPC code (`GoogleError.code`, or the status of a
 * `GaxiosError`'s body — see `grpcCode`):
 *
 * | error | reason | transient |
 * |---|---|---|
 * | 16 UNAUTHENTICATED, 7 PERMISSION_DENIED; a private key OpenSSL cannot read; `invalid_grant` | CredentialsInvalid | no |
 * | 5 NOT_FOUND, 3 INVALID_ARGUMENT (the profile's project) | InvalidProviderProfile | no |
 * | 1, 4, 8, 10, 13, 14; connection failures and timeouts | ProviderUnreachable | yes |
 * | anything else | CredentialsCheckFailed | yes |
 */
export function cloudSqlCheckFailure(error: unknown): CheckFailure {
  const code = grpcCode(error);
  const detail = errorDetail(error);
  if (code === 16 || code === 7) {
    return { reason: R.CredentialsInvalid, transient: false, detail };
  }
  if (code === 5 || code === 3) {
    return { reason: R.InvalidProviderProfile, transient: false, detail };
  }
  if ((code !== undefined && CloudSqlUnavailableCodes.has(code)) || isNetworkError(error)) {
    return { reason: R.ProviderUnreachable, transient: true, detail };
  }
  const stringCode = (error as { code?: unknown } | undefined)?.code;
  if (
    (typeof stringCode === 'string' && stringCode.startsWith('ERR_OSSL')) ||
    GoogleAuthKeyErrors.test(detail)
  ) {
    return { reason: R.CredentialsInvalid, transient: false, detail };
  }
  return { reason: R.CredentialsCheckFailed, transient: true, detail };
}

/** Shorter values are not redacted: they would garble messages and are no real secret. */
const MinSecretLength = 8;

/**
 * The strings to keep out of messages for a Secret's decoded data: every value, and every line of
 * a multi-line value (a PEM key's body), longest first.
 */
export function secretStrings(data: Readonly<Record<string, string>>): string[] {
  const strings = new Set<string>();
  for (const value of Object.values(data)) {
    strings.add(value);
    for (const line of value.split(/\r?\n|\\n/)) strings.add(line.trim());
  }
  return [...strings]
    .filter((s) => s.length >= MinSecretLength)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every one of `secrets` replaced by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}
