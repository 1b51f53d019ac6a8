/**
 * SCRAM-SHA-256 password verifiers in PostgreSQL's stored form (`pg_authid.rolpassword`):
 *
 *     SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>
 *
 * RFC 5802 / RFC 7677: SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, iterations, 32);
 * ClientKey = HMAC(SaltedPassword, "Client Key"); StoredKey = SHA-256(ClientKey);
 * ServerKey = HMAC(SaltedPassword, "Server Key"). Given as `PASSWORD '<verifier>'`, PostgreSQL
 * stores the verifier as it is, so a password set this way never reaches the server in plain text
 * (nor its statement log). Only node:crypto.
 *
 * PostgreSQL runs the password through SASLprep (RFC 4013) first, which leaves an ASCII password
 * unchanged. The passwords Steward generates are ASCII, and no SASLprep is implemented here, so a
 * non-ASCII password (or one with a NUL, which no C string holds) is refused with a TypeError
 * rather than given a verifier PostgreSQL might compute differently.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export interface ScramVerifierOptions {
  /** Default: 16 random bytes. */
  salt?: Buffer;
  /** PBKDF2 rounds. Default 4096, as PostgreSQL's `scram_iterations` default. */
  iterations?: number;
}

const defaultIterations = 4096;
const defaultSaltBytes = 16;
/** Far above anything PostgreSQL generates; bounds the CPU a hostile verifier can cost us. */
const maxIterations = 10_000_000;
const base64 = '[A-Za-z0-9+/]+={0,2}';
const verifierPattern = new RegExp(
  `^SCRAM-SHA-256\\$([0-9]{1,9}):(${base64})\\$(${base64}):(${base64})$`,
);

/** PostgreSQL's stored SCRAM-SHA-256 verifier of `password`. */
export function scramVerifier(password: string, options: ScramVerifierOptions = {}): string {
  checkPassword(password);
  const iterations = options.iterations ?? defaultIterations;
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > maxIterations) {
    throw new RangeError(`SCRAM iterations must be an integer in 1..${maxIterations}`);
  }
  const salt = options.salt ?? randomBytes(defaultSaltBytes);
  if (salt.length === 0) throw new RangeError('a SCRAM salt must not be empty');
  const { storedKey, serverKey } = scramKeys(password, salt, iterations);
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Whether `verifier` is a SCRAM-SHA-256 verifier of `password`: recomputed with the verifier's own
 * salt and iterations, compared in constant time. False for anything else (an md5 hash, a plain
 * text password, null, a malformed verifier) and for a password `scramVerifier` refuses.
 */
export function verifierMatches(verifier: string | null | undefined, password: string): boolean {
  if (typeof verifier !== 'string') return false;
  const match = verifierPattern.exec(verifier);
  if (!match) return false;
  const iterations = Number(match[1]);
  if (iterations < 1 || iterations > maxIterations) return false;
  const salt = Buffer.from(match[2]!, 'base64');
  const storedKey = Buffer.from(match[3]!, 'base64');
  const serverKey = Buffer.from(match[4]!, 'base64');
  if (salt.length === 0 || storedKey.length !== 32 || serverKey.length !== 32) return false;
  try {
    checkPassword(password);
  } catch {
    return false;
  }
  const computed = scramKeys(password, salt, iterations);
  // both compared, always: which half differs reveals nothing either
  const storedMatches = timingSafeEqual(computed.storedKey, storedKey);
  const serverMatches = timingSafeEqual(computed.serverKey, serverKey);
  return storedMatches && serverMatches;
}

function scramKeys(
  password: string,
  salt: Buffer,
  iterations: number,
): { storedKey: Buffer; serverKey: Buffer } {
  const saltedPassword = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', saltedPassword).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', saltedPassword).update('Server Key').digest();
  return { storedKey, serverKey };
}

function checkPassword(password: string): void {
  if (typeof password !== 'string') throw new TypeError('a password must be a string');
  // eslint-disable-next-line no-control-regex -- exactly the characters SASLprep leaves alone
  if (!/^[\x01-\x7f]*$/.test(password)) {
    throw new TypeError(
      'a SCRAM password must be ASCII without NUL (PostgreSQL would SASLprep anything else)',
    );
  }
}
