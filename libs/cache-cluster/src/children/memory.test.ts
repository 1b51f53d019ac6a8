import { describe, expect, it } from 'vitest';
import { memoryBytes } from './memory.js';

describe('memoryBytes', () => {
  it.each([
    ['1Gi', 1073741824n],
    ['512Mi', 536870912n],
    ['1.5Ki', 1536n],
    ['1G', 1000000000n],
    ['250M', 250000000n],
    ['128974848', 128974848n],
    ['129e6', 129000000n],
    ['1500m', 1n],
    ['0', 0n],
  ])('%s is %s bytes', (quantity, bytes) => {
    expect(memoryBytes(quantity)).toBe(bytes);
  });

  it.each(['', 'Gi', '1GB', '1 Gi', '-1Gi', 'lots'])('%j is not a quantity', (text) => {
    expect(memoryBytes(text)).toBeUndefined();
  });
});
