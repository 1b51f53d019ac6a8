import { describe, expect, it } from 'vitest';
import { jsonEqual } from './status-diff.js';

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: 1 }, { a: 2 }, false],
    [[1, 2], [2, 1], false],
    [{ a: [] }, { a: {} }, false],
    [null, {}, false],
    [{ a: null }, { a: null }, true],
    ['1', 1, false],
  ])('%j vs %j → %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
  });
});
