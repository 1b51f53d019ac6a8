/**
 * A Kubernetes resource quantity (`500m`, `0.5`, `1Gi`, `1073741824`, `2e3`) as an exact rational
 * number, so that two spellings of one amount compare equal: the API server canonicalises
 * quantities (cpu `1000m` is stored as `1`, memory `1024Mi` as `1Gi`), and a comparison of strings
 * would see drift that is not there.
 *
 * Grammar (k8s.io/apimachinery/pkg/api/resource): `<sign>?<digits>[.<digits>]<suffix>` where the
 * suffix is a binary SI one (`Ki Mi Gi Ti Pi Ei`), a decimal SI one (`n u m "" k M G T P E`) or a
 * decimal exponent (`e3`, `E-2`).
 */
export interface QuantityValue {
  /** value = numerator / denominator, denominator > 0 */
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const quantityPattern =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;

const binaryPowers: Record<string, bigint> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const decimalExponents: Record<string, number> = {
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

/** Exponents beyond this are not quantities any API server accepts; they stay plain strings. */
const maxExponent = 100;

/** The exact value of `text`, or `undefined` when it is not a quantity. */
export function parseQuantity(text: string): QuantityValue | undefined {
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, sign, number, suffix = ''] = match as unknown as [string, string, string, string?];
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  if (sign === '-') numerator = -numerator;
  let exponent = -fraction.length;
  if (suffix in binaryPowers) {
    numerator *= 1024n ** binaryPowers[suffix]!;
  } else if (suffix in decimalExponents) {
    exponent += decimalExponents[suffix]!;
  } else if (suffix !== '') {
    exponent += Number(suffix.slice(1));
  }
  if (Math.abs(exponent) > maxExponent) return undefined;
  return exponent >= 0
    ? { numerator: numerator * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator, denominator: 10n ** BigInt(-exponent) };
}

/** True when both strings are quantities of the same value (`1000m` and `1`, `1Gi` and `1024Mi`). */
export function quantitiesEqual(a: string, b: string): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return false;
  return x.numerator * y.denominator === y.numerator * x.denominator;
}
