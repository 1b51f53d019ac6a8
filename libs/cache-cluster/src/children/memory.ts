import { InvalidQuantityError, parseQuantity } from '@steward/provider-profile';

/**
 * Memory quantities as whole bytes, for redis.conf's `maxmemory`: Kubernetes' grammar, read exactly
 * by @steward/provider-profile's `parseQuantity` (the one the profile guardrails use), rounded down
 * to a byte.
 */
export function memoryBytes(quantity: string): bigint | undefined {
  try {
    const { numerator, denominator } = parseQuantity(quantity);
    return numerator / denominator;
  } catch (error) {
    if (error instanceof InvalidQuantityError) return undefined;
    throw error;
  }
}
