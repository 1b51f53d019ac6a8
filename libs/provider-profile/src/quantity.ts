import { parseQuantity as parseExactQuantity } from '@steward/workload';

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

/**
 * Reads `text` as a quantity; throws `InvalidQuantityError` when it is none. The grammar and the
 * arithmetic are `@steward/workload`'s (one parser for every Steward lib); a profile's and a
 * workload's quantities are unsigned, so a sign is refused here.
 */
export function parseQuantity(text: string): Quantity {
  const value = /^[+-]/.test(text) ? undefined : parseExactQuantity(text);
  if (!value) throw new InvalidQuantityError(text);
  return { text, numerator: value.numerator, denominator: value.denominator };
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
