/**
 * Kubernetes resource quantities (`500m`, `1.5Gi`, `10G`, `1e3`), read exactly: a quantity is held
 * as a fraction of two BigInts, so `1Gi` and `1073741824` are equal and `1000Mi` is below `1Gi`,
 * with no floating-point rounding in between. Accepts what `QUANTITY_PATTERN` of
 * `@steward/provider-profile-api` accepts: an unsigned decimal number with an optional binary
 * suffix (`Ki Mi Gi Ti Pi Ei`), decimal suffix (`n u m k M G T P E`) or decimal exponent
 * (`e3`, `E-2`) — the quantities a ProviderProfile and the workloads' specs carry.
 */

/** A quantity's exact value, `numerator / denominator` (both ≥ 0, the denominator > 0). */
export interface Quantity {
  /** The text it was read from. */
  readonly text: string;
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** Thrown by `parseQuantity` for text that is not a quantity; the message quotes the text. */
export class InvalidQuantityError extends Error {
  override readonly name = 'InvalidQuantityError';
  constructor(readonly text: string) {
    super(`"${text}" is not a quantity such as 500m, 1Gi or 10G`);
  }
}

const QUANTITY = /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([KMGTPE]i)|([numkMGTPE])|[eE]([-+]?[0-9]+))?$/;

const BINARY: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/**
 * The largest decimal exponent read (`1e1000`). Kubernetes itself keeps quantities far below it;
 * the bound only keeps a 32-character `1e99999999` from costing a huge BigInt.
 */
const MaxExponent = 1_000;

/** Reads `text` as a quantity; throws `InvalidQuantityError` when it is none. */
export function parseQuantity(text: string): Quantity {
  const match = QUANTITY.exec(text);
  if (!match) throw new InvalidQuantityError(text);
  const [, number, binary, decimal, exponent] = match;
  const [whole, fraction = ''] = number!.split('.');
  let digits = BigInt(`${whole || '0'}${fraction}`);
  let power10 = -fraction.length;
  if (decimal) power10 += DECIMAL[decimal]!;
  if (exponent !== undefined) {
    const e = Number(exponent);
    if (Math.abs(e) > MaxExponent) throw new InvalidQuantityError(text);
    power10 += e;
  }
  if (binary) digits <<= BINARY[binary]!;
  return power10 >= 0
    ? { text, numerator: digits * 10n ** BigInt(power10), denominator: 1n }
    : { text, numerator: digits, denominator: 10n ** BigInt(-power10) };
}

/** Whether `text` is a quantity `parseQuantity` reads. */
export function isQuantity(text: string): boolean {
  try {
    parseQuantity(text);
    return true;
  } catch {
    return false;
  }
}

const read = (q: Quantity | string): Quantity => (typeof q === 'string' ? parseQuantity(q) : q);

/**
 * -1, 0 or 1 as `a` is below, equal to or above `b`, by value (`1Gi` = `1024Mi`, `1G` < `1Gi`).
 * Text is parsed first, so an invalid one throws `InvalidQuantityError`.
 */
export function compareQuantities(a: Quantity | string, b: Quantity | string): -1 | 0 | 1 {
  const x = read(a);
  const y = read(b);
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The value as a JavaScript number (bytes, cores): exact up to 2^53, rounded beyond. */
export function quantityToNumber(q: Quantity | string): number {
  const { numerator, denominator } = read(q);
  const whole = numerator / denominator;
  const rest = numerator % denominator;
  return Number(whole) + Number(rest) / Number(denominator);
}
