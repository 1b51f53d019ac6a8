import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { CloudSqlError } from './errors.js';

/**
 * A service-account key file as Google issues it (`gcloud iam service-accounts keys create`): what
 * a ProviderProfile's credentials Secret holds, and what `@google-cloud/sql` takes as
 * `credentials`.
 */
export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
}

export interface ServiceAccountKeyOptions {
  /** The projects the account may use; default: the project of its email (`…@<project>.iam…`). */
  projects?: readonly string[];
}

interface RegisteredKey {
  id: string;
  clientEmail: string;
  publicKey: KeyObject;
  projects: ReadonlySet<string>;
}

/** What the real API answers a request without valid credentials (HTTP 401). */
export const unauthenticated = () =>
  new CloudSqlError({
    code: 401,
    status: 'UNAUTHENTICATED',
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    reason: 'authError',
  });

/** What the real API answers an authenticated caller without access to the project (HTTP 403). */
export const notAuthorized = () =>
  new CloudSqlError({
    code: 403,
    status: 'PERMISSION_DENIED',
    message: 'The client is not authorized to make this request.',
    reason: 'notAuthorized',
  });

/**
 * The service accounts the local API knows, and the check of each request's credentials. The real
 * client, given a service-account key as `credentials`, signs a self-signed JWT (RS256,
 * `iss` = `sub` = the account's email, `exp`) and sends it as `Authorization: Bearer …`; this
 * verifies that JWT against the public keys of the keys created here and not deleted since.
 */
export class ServiceAccounts {
  private readonly keys = new Map<string, RegisteredKey>();

  /** Creates a key for `clientEmail` and returns its key file (with the private key). */
  createKey(clientEmail: string, options: ServiceAccountKeyOptions = {}): ServiceAccountKeyFile {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const id = randomBytes(20).toString('hex');
    const emailProject = /@([^.]+)\.iam\.gserviceaccount\.com$/.exec(clientEmail)?.[1];
    const projects = options.projects ?? (emailProject ? [emailProject] : []);
    this.keys.set(id, { id, clientEmail, publicKey, projects: new Set(projects) });
    return {
      type: 'service_account',
      project_id: projects[0] ?? emailProject ?? '',
      private_key_id: id,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: clientEmail,
      client_id: BigInt(`0x${id.slice(0, 15)}`).toString(),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'https://oauth2.googleapis.com/token',
    };
  }

  /** Deletes a key: requests signed with it are unauthenticated from now on. */
  deleteKey(privateKeyId: string): boolean {
    return this.keys.delete(privateKeyId);
  }

  /**
   * Throws the API's 401 unless `authorization` is a bearer JWT signed by a known key and not
   * expired at `nowMs`, and its 403 when that key's account may not use `project`.
   */
  authorize(authorization: string | undefined, project: string | undefined, nowMs: number): void {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw unauthenticated();
    const key = this.verify(token, nowMs);
    if (!key) throw unauthenticated();
    if (project !== undefined && !key.projects.has(project)) throw notAuthorized();
  }

  private verify(token: string, nowMs: number): RegisteredKey | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [header, payload, signature] = parts as [string, string, string];
    let claims: { iss?: unknown; exp?: unknown };
    let alg: unknown;
    try {
      alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown })
        .alg;
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return undefined;
    }
    if (alg !== 'RS256' || typeof claims.iss !== 'string') return undefined;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < nowMs) return undefined;
    const signed = Buffer.from(`${header}.${payload}`);
    const sig = Buffer.from(signature, 'base64url');
    for (const key of this.keys.values()) {
      if (key.clientEmail !== claims.iss) continue;
      if (verify('RSA-SHA256', signed, key.publicKey, sig)) return key;
    }
    return undefined;
  }
}
