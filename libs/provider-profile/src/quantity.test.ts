import { QUANTITY_PATTERN } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import {
  compareQuantities,
  InvalidQuantityError,
  isQuantity,
  parseQuantity,
  quantityToNumber,
} from './quantity.js';

/** The exact value as `numerator/denominator` in lowest terms, for readable expectations. */
function exact(text: string): string {
  const { numerator, denominator } = parseQuantity(text);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
  const d = gcd(numerator, denominator) || 1n;
  const n = numerator / d;
  const m = denominator / d;
  return m === 1n ? `${n}` : `${n}/${m}`;
}

describe('parseQuantity', () => {
  it.each([
    ['0', '0'],
    ['1', '1'],
    ['1.5', '3/2'],
    ['.5', '1/2'],
    ['2.', '2'],
    ['007', '7'],
    ['500m', '1/2'],
    ['250m', '1/4'],
    ['1500m', '3/2'],
    ['100u', '1/10000'],
    ['3n', '3/1000000000'],
    ['1k', '1000'],
    ['1M', '1000000'],
    ['1G', '1000000000'],
    ['1T', '1000000000000'],
    ['1P', '1000000000000000'],
    ['1E', '1000000000000000000'],
    ['1Ki', '1024'],
    ['1Mi', '1048576'],
    ['1Gi', '1073741824'],
    ['1Ti', '1099511627776'],
    ['1Pi', '1125899906842624'],
    ['1Ei', '1152921504606846976'],
    ['1.5Gi', '1610612736'],
    ['0.5Ki', '512'],
    ['1e3', '1000'],
    ['1E3', '1000'],
    ['1e+3', '1000'],
    ['5e-1', '1/2'],
    ['1.5e2', '150'],
    ['12e0', '12'],
  ])('reads %s as %s', (text, value) => {
    expect(exact(text)).toBe(value);
  });

  it.each([
    '',
    ' 1Gi',
    '1Gi ',
    '-1',
    '+1',
    '1 Gi',
    '1GB',
    '1gi',
    '1K',
    '1KiB',
    'Gi',
    '.',
    '1.2.3',
    '1e',
    '1e1.5',
    '1Mi2',
    'ten',
    '1e1001',
  ])('refuses %j with an InvalidQuantityError quoting it', (text) => {
    expect(() => parseQuantity(text)).toThrow(InvalidQuantityError);
    expect(() => parseQuantity(text)).toThrow(`"${text}" is not a quantity`);
    expect(isQuantity(text)).toBe(false);
  });

  it('accepts exactly what the CRD’s QUANTITY_PATTERN accepts', () => {
    const pattern = new RegExp(QUANTITY_PATTERN);
    const samples = [
      ...['0', '1', '1.5', '.5', '2.', '500m', '100u', '3n', '1k', '1M', '1G', '1T', '1P', '1E'],
      ...['1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei', '1e3', '1E-3', '1e+3', '1.5e2'],
      ...['', '-1', '+1', '1 Gi', '1GB', '1gi', '1K', '1KiB', 'Gi', '.', '1.2.3', '1e', '1e1.5'],
      ...['1Mi2', 'ten', '1Gi\n'],
    ];
    for (const text of samples)
      expect([text, isQuantity(text)]).toEqual([text, pattern.test(text)]);
  });
});

describe('compareQuantities', () => {
  it.each<[string, string, -1 | 0 | 1]>([
    ['1Gi', '1024Mi', 0],
    ['1Gi', '1073741824', 0],
    ['1G', '1Gi', -1],
    ['1000Mi', '1Gi', -1],
    ['1025Mi', '1Gi', 1],
    ['1.5Gi', '1536Mi', 0],
    ['500m', '0.5', 0],
    ['1', '999m', 1],
    ['1e3', '1k', 0],
    ['1e-3', '1m', 0],
    ['100Gi', '107374182400', 0],
    ['100Gi', '107374182401', -1],
    ['1Ei', '1E', 1],
    ['0', '1n', -1],
    ['10Ti', '10000G', 1],
  ])('compares %s with %s: %i', (a, b, expected) => {
    expect(compareQuantities(a, b)).toBe(expected);
    expect(compareQuantities(b, a)).toBe(expected === 0 ? 0 : -expected);
  });

  it('takes parsed quantities too, and throws for text that is not one', () => {
    expect(compareQuantities(parseQuantity('2Gi'), '2048Mi')).toBe(0);
    expect(() => compareQuantities('2 GB', '1Gi')).toThrow(InvalidQuantityError);
  });
});

describe('quantityToNumber', () => {
  it.each([
    ['1Gi', 1073741824],
    ['500m', 0.5],
    ['1.5e2', 150],
    ['3n', 3e-9],
  ])('%s is %d', (text, value) => {
    expect(quantityToNumber(text)).toBeCloseTo(value, 12);
  });
});
