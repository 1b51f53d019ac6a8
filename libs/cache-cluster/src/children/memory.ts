/**
 * Memory quantities as whole bytes, for redis.conf's `maxmemory`. Kubernetes' grammar
 * (k8s.io/apimachinery/pkg/api/resource): `<digits>[.<digits>]<suffix>`, the suffix binary SI
 * (`Ki Mi Gi Ti Pi Ei`), decimal SI (`m "" k M G T P E`; `n`, `u` too) or a decimal exponent
 * (`e3`). Exact arithmetic (bigint), rounded down to a byte.
 */

const quantityPattern =
  /^\+?(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;
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

/** The bytes `quantity` stands for, rounded down; `undefined` when it is not a quantity. */
export function memoryBytes(quantity: string): bigint | undefined {
  const match = quantityPattern.exec(quantity);
  if (!match) return undefined;
  const number = match[1]!;
  const suffix = match[2] ?? '';
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let exponent = -fraction.length;
  if (suffix in binaryPowers) numerator *= 1024n ** binaryPowers[suffix]!;
  else if (suffix in decimalExponents) exponent += decimalExponents[suffix]!;
  else if (suffix !== '') exponent += Number(suffix.slice(1));
  if (Math.abs(exponent) > 100) return undefined;
  return exponent >= 0 ? numerator * 10n ** BigInt(exponent) : numerator / 10n ** BigInt(-exponent);
}
