import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CloudSqlError } from './errors.js';
import { ServiceAccounts } from './service-accounts.js';

const email = 'steward@steward-test.iam.gserviceaccount.com';
const now = Date.UTC(2026, 0, 1);

/** A self-signed JWT as google-auth-library makes one from a key file. */
function jwt(privateKey: string, claims: Record<string, unknown>, alg = 'RS256'): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${enc({ alg, typ: 'JWT' })}.${enc(claims)}`;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
}
const claims = (exp = now / 1000 + 3600) => ({ iss: email, sub: email, exp, iat: exp - 3600 });

function status(call: () => void): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof CloudSqlError) return `${error.code} ${error.status}`;
    throw error;
  }
}

describe('ServiceAccounts', () => {
  it('accepts a JWT signed with a created key, for the project of its email', () => {
    const accounts = new ServiceAccounts();
    const key = accounts.createKey(email);
    expect(key).toMatchObject({ type: 'service_account', client_email: email });
    expect(key.project_id).toBe('steward-test');
    const token = jwt(key.private_key, claims());
    expect(status(() => accounts.authorize(`Bearer ${token}`, 'steward-test', now))).toBe(
      undefined,
    );
  });

  it.each([
    ['no Authorization header', () => undefined],
    ['a non-bearer scheme', (t: string) => `Basic ${t}`],
    ['a token that is not a JWT', () => 'Bearer not-a-jwt'],
  ])('answers 401 UNAUTHENTICATED for %s', (_case, header) => {
    const accounts = new ServiceAccounts();
    const key = accounts.createKey(email);
    const token = jwt(key.private_key, claims());
    expect(status(() => accounts.authorize(header(token), 'steward-test', now))).toBe(
      '401 UNAUTHENTICATED',
    );
  });

  it('answers 401 for a key it never issued, a deleted key and an expired token', () => {
    const accounts = new ServiceAccounts();
    const key = accounts.createKey(email);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const unknown = jwt(stranger, claims());
    expect(status(() => accounts.authorize(`Bearer ${unknown}`, 'steward-test', now))).toBe(
      '401 UNAUTHENTICATED',
    );
    const expired = jwt(key.private_key, claims(now / 1000 - 1));
    expect(status(() => accounts.authorize(`Bearer ${expired}`, 'steward-test', now))).toBe(
      '401 UNAUTHENTICATED',
    );
    const valid = jwt(key.private_key, claims());
    expect(accounts.deleteKey(key.private_key_id)).toBe(true);
    expect(status(() => accounts.authorize(`Bearer ${valid}`, 'steward-test', now))).toBe(
      '401 UNAUTHENTICATED',
    );
  });

  it('answers 403 PERMISSION_DENIED for a project the account may not use', () => {
    const accounts = new ServiceAccounts();
    const key = accounts.createKey(email, { projects: ['other-project'] });
    const token = jwt(key.private_key, claims());
    expect(status(() => accounts.authorize(`Bearer ${token}`, 'steward-test', now))).toBe(
      '403 PERMISSION_DENIED',
    );
    expect(status(() => accounts.authorize(`Bearer ${token}`, 'other-project', now))).toBe(
      undefined,
    );
  });
});
