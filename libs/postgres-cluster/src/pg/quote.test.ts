import { describe, expect, it } from 'vitest';
import { quoteIdentifier, quoteLiteral } from './quote.js';

describe('quoteLiteral', () => {
  it.each([
    ['plain', "'plain'"],
    ['', "''"],
    ["it's", "'it''s'"],
    ["''", "''''''"],
    ["'; DROP TABLE x; --", "'''; DROP TABLE x; --'"],
    ['FIRST 1 (s1, "s 2")', `'FIRST 1 (s1, "s 2")'`],
    ['a\\b', "E'a\\\\b'"],
    ["\\'", "E'\\\\'''"],
    ['$$dollar$$', "'$$dollar$$'"],
    ['ünïcödé', "'ünïcödé'"],
  ])('quotes %j as %s', (value, literal) => {
    expect(quoteLiteral(value)).toBe(literal);
  });

  it('refuses a NUL', () => {
    expect(() => quoteLiteral('a\0b')).toThrow(TypeError);
  });
});

describe('quoteIdentifier', () => {
  it.each(['app', 'user', '_x', 'a1_b2', 'a'.repeat(63)])('quotes %j', (name) => {
    expect(quoteIdentifier(name)).toBe(`"${name}"`);
  });

  it.each(['', 'App', '1app', 'a-b', 'a b', 'a"b', "a'b", 'a;b', 'a'.repeat(64), 'ä', 'a.b'])(
    'refuses %j with a TypeError naming it',
    (name) => {
      expect(() => quoteIdentifier(name, 'role name')).toThrow(TypeError);
      expect(() => quoteIdentifier(name, 'role name')).toThrow(
        `not a valid role name: ${JSON.stringify(name)}`,
      );
    },
  );
});
