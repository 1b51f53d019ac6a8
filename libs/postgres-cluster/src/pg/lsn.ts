/**
 * PostgreSQL write-ahead-log positions (`pg_lsn`) as bigints. PostgreSQL prints an LSN as two
 * upper-case hexadecimal halves without leading zeros, `16/B374D848`: the high and the low 32 bits
 * of a 64-bit byte position in the WAL. As bigints they compare, subtract (lag in bytes) and sort.
 */

const lsnPattern = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;
const maxValue = (1n << 64n) - 1n;

/** `'16/B374D848'` → `(0x16n << 32n) | 0xB374D848n`. Throws a TypeError naming anything else. */
export function parseLsn(text: string): bigint {
  const match = typeof text === 'string' ? lsnPattern.exec(text) : null;
  if (!match) throw new TypeError(`not a PostgreSQL LSN: ${JSON.stringify(text)}`);
  return (BigInt(`0x${match[1]!}`) << 32n) | BigInt(`0x${match[2]!}`);
}

/** The LSN as PostgreSQL prints it (`16/B374D848`, `0/0`). Throws a RangeError outside 0..2^64-1. */
export function formatLsn(lsn: bigint): string {
  if (lsn < 0n || lsn > maxValue) throw new RangeError(`LSN out of range: ${lsn}`);
  const high = (lsn >> 32n).toString(16).toUpperCase();
  const low = (lsn & 0xffffffffn).toString(16).toUpperCase();
  return `${high}/${low}`;
}

/** `a − b` in bytes of WAL: how far `a` is ahead of `b` (negative when it is behind). */
export function lsnDiff(a: bigint, b: bigint): bigint {
  return a - b;
}

/**
 * The furthest of the LSNs given; absent ones (a standby that has received nothing yet) are
 * skipped, and with none left the result is `undefined`.
 */
export function maxLsn(...lsns: (bigint | undefined)[]): bigint | undefined {
  let max: bigint | undefined;
  for (const lsn of lsns) if (lsn !== undefined && (max === undefined || lsn > max)) max = lsn;
  return max;
}
