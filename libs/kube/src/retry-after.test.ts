import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it.each([
    ['1', 1],
    [' 30 ', 30],
    ['0', 0],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5],
    ['Wed, 01 Jan 2025 00:00:04 GMT', 4],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
  ])('reads %j as %d seconds', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });

  it.each([[null], [undefined], [''], ['soon'], ['-1'], ['1.5']])('ignores %j', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});
