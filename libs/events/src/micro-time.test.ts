import { describe, expect, it } from 'vitest';
import { formatMicroTime } from './micro-time.js';

describe('formatMicroTime', () => {
  it.each([
    [new Date('2026-01-01T00:00:00.123Z'), '2026-01-01T00:00:00.123000Z'],
    [new Date('2026-01-01T00:00:00Z'), '2026-01-01T00:00:00.000000Z'],
    [Date.UTC(2030, 11, 31, 23, 59, 59, 999), '2030-12-31T23:59:59.999000Z'],
  ])('writes %s as RFC 3339 UTC with exactly six fractional digits', (time, expected) => {
    expect(formatMicroTime(time)).toBe(expected);
  });
});
