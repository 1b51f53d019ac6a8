import { describe, expect, it } from 'vitest';
import { generatePassword } from './password.js';

describe('generatePassword', () => {
  it('is 32 URL-safe characters by default', () => {
    const password = generatePassword();
    expect(password).toHaveLength(32);
    expect(password).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encodeURIComponent(password)).toBe(password);
  });

  it('has the length asked for', () => {
    expect(generatePassword(1)).toHaveLength(1);
    expect(generatePassword(100)).toHaveLength(100);
  });

  it('never repeats itself', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => generatePassword()));
    expect(seen.size).toBe(1000);
  });

  it('uses the whole alphabet', () => {
    const symbols = new Set(generatePassword(20_000));
    expect(symbols.size).toBe(64);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses length %s', (length) => {
    expect(() => generatePassword(length)).toThrow(RangeError);
  });
});
