import { randomBytes } from 'node:crypto';

/** The URL-safe base64 alphabet (RFC 4648 §5): 64 symbols, 6 bits of entropy each. */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A password from the operating system's CSPRNG, `length` characters (default 32, i.e. 192 bits)
 * of `A–Z a–z 0–9 - _`: safe in URLs, connection strings and config files without quoting. Every
 * symbol is equally likely (a byte's low 6 bits; 256 is a multiple of 64, so no bias). Throws a
 * `RangeError` for a length that is not a positive integer. Never log what it returns.
 */
export function generatePassword(length = 32): string {
  if (!Number.isInteger(length) || length < 1) {
    throw new RangeError(`steward/workload: a password length must be a positive integer`);
  }
  const bytes = randomBytes(length);
  let password = '';
  for (const byte of bytes) password += alphabet[byte & 63];
  return password;
}
