import { type CelRule } from './schema-helpers.js';

/**
 * A quantity the API server holds as a decimal (`1.5Gi`: `isInteger()` is false for every such
 * one, whatever its value) is a whole number when subtracting the integer nearest its approximate
 * value leaves exactly 0. Only a value at or below 0 (the other rule's) or beyond 9e18 bytes
 * (8 EiB; `int()` would overflow) is left to that rule or refused.
 */
const WHOLE_BY_VALUE =
  "(quantity(self).asApproximateFloat() <= 0.0 || (quantity(self).asApproximateFloat() < 9.0e18 && quantity(self).sub(int(quantity(self).asApproximateFloat() + 0.5)).compareTo(quantity('0')) == 0))";

/** What a quantity field measures: `bytes` (memory, volumes, dataset limits) or anything else (cpu). */
export interface QuantityBounds {
  /** A size in bytes: a fraction of a byte (`0.5`, `100m`) is refused. */
  bytes: boolean;
}

/**
 * CEL rules that bound a resource quantity field (a string such as `250m` or `1Gi`) beyond being a
 * quantity: greater than 0 (`0` and `-1Gi` are refused: no request, limit, volume or dataset is
 * empty or negative) and, for a size in bytes, a whole number of bytes (`0.5` and `100m` are
 * refused; `1.5Gi` is 1610612736 bytes and is not). `field` names the field in the messages, e.g.
 * `spec.storage.size`. Each rule holds for a value that is no quantity at all, so the field's own
 * "not a quantity" rule or pattern gives that one message alone.
 */
export function quantityBounds(field: string, { bytes }: QuantityBounds): CelRule[] {
  return [
    {
      rule: "!isQuantity(self) || quantity(self).isGreaterThan(quantity('0'))",
      message: `${field} must be greater than 0`,
    },
    ...(bytes
      ? [
          {
            rule: `!isQuantity(self) || quantity(self).isInteger() || ${WHOLE_BY_VALUE}`,
            message: `${field} must be a whole number of bytes, such as 512Mi or 1Gi (not a fraction such as 0.5 or 100m)`,
          },
        ]
      : []),
  ];
}
