import { describe, expect, it } from 'vitest';
import { formatLsn, lsnDiff, maxLsn, parseLsn } from './lsn.js';

describe('parseLsn', () => {
  it.each([
    ['16/B374D848', (0x16n << 32n) | 0xb374d848n],
    ['0/0', 0n],
    ['0/1', 1n],
    ['1/0', 1n << 32n],
    ['0/3000060', 0x3000060n],
    ['FFFFFFFF/FFFFFFFF', (1n << 64n) - 1n],
    ['16/b374d848', (0x16n << 32n) | 0xb374d848n],
    ['00000016/0B374D84', (0x16n << 32n) | 0x0b374d84n],
  ])('reads %s', (text, lsn) => {
    expect(parseLsn(text)).toBe(lsn);
  });

  it.each([
    '',
    '16',
    '16/',
    '/B374D848',
    '16/B374D848/1',
    '16:B374D848',
    ' 16/B374D848',
    '16/B374D848 ',
    '-1/0',
    '0x16/0',
    '123456789/0',
    '0/123456789',
    '16/G374D848',
    '1.5/0',
  ])('refuses %j with a TypeError naming it', (text) => {
    expect(() => parseLsn(text)).toThrow(TypeError);
    expect(() => parseLsn(text)).toThrow(JSON.stringify(text));
  });

  it('refuses what is not a string at all', () => {
    expect(() => parseLsn(null as unknown as string)).toThrow(TypeError);
    expect(() => parseLsn(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('formatLsn', () => {
  it.each([
    [(0x16n << 32n) | 0xb374d848n, '16/B374D848'],
    [0n, '0/0'],
    [0x3000060n, '0/3000060'],
    [1n << 32n, '1/0'],
    [(1n << 64n) - 1n, 'FFFFFFFF/FFFFFFFF'],
  ])('prints %s as PostgreSQL does: %s', (lsn, text) => {
    expect(formatLsn(lsn)).toBe(text);
  });

  it('refuses values no LSN can have', () => {
    expect(() => formatLsn(-1n)).toThrow(RangeError);
    expect(() => formatLsn(1n << 64n)).toThrow(RangeError);
  });

  it('round-trips: format(parse(text)) is the canonical text, parse(format(lsn)) the value', () => {
    for (const text of ['0/0', '16/B374D848', 'A/1', 'FFFFFFFF/FFFFFFFF', '1/FFFFFFFF']) {
      expect(formatLsn(parseLsn(text))).toBe(text);
    }
    expect(formatLsn(parseLsn('000A/0001'))).toBe('A/1');
    // a deterministic spread of values over the whole range
    let lsn = 0x9e3779b97f4a7c15n;
    for (let i = 0; i < 200; i++) {
      lsn = (lsn * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      const value = lsn >> BigInt(i % 64);
      expect(parseLsn(formatLsn(value))).toBe(value);
    }
  });
});

describe('lsnDiff and maxLsn', () => {
  it('subtracts: bytes of WAL a is ahead of b, across the 32-bit boundary too', () => {
    expect(lsnDiff(parseLsn('0/3000148'), parseLsn('0/3000060'))).toBe(0xe8n);
    expect(lsnDiff(parseLsn('1/10'), parseLsn('0/FFFFFFF0'))).toBe(0x20n);
    expect(lsnDiff(parseLsn('0/10'), parseLsn('0/20'))).toBe(-0x10n);
    expect(lsnDiff(5n, 5n)).toBe(0n);
  });

  it('picks the furthest LSN, skipping absent ones', () => {
    expect(maxLsn(parseLsn('0/3000060'), parseLsn('1/0'), parseLsn('0/FFFFFFFF'))).toBe(1n << 32n);
    expect(maxLsn(undefined, 3n, undefined, 2n)).toBe(3n);
    expect(maxLsn(0n)).toBe(0n);
    expect(maxLsn()).toBeUndefined();
    expect(maxLsn(undefined)).toBeUndefined();
  });
});
