import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuantity, quantitiesEqual } from './quantity.js';
import { isSubset } from './subset.js';

describe('quantities', () => {
  it.each([
    ['1000m', '1'],
    ['500m', '0.5'],
    ['0.5', '.5'],
    ['1Gi', '1073741824'],
    ['1024Mi', '1Gi'],
    ['2e3', '2k'],
    ['2E3', '2000'],
    ['1.5Gi', '1536Mi'],
    ['100u', '0.0001'],
    ['1n', '0.000000001'],
    ['+1', '1'],
    ['-0', '0'],
    ['1E', '1000000000000000000'],
  ])('%s equals %s', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(true);
    expect(quantitiesEqual(b, a)).toBe(true);
  });

  it.each([
    ['1', '2'],
    ['1Gi', '1G'],
    ['1m', '1M'],
    ['1Ki', '1k'],
  ])('%s differs from %s', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(false);
  });

  it.each([
    '',
    'abc',
    '1Gib',
    'redis:7.2',
    '1.2.3',
    '.',
    '1e',
    'Gi',
    '10%',
    'e3',
    '1 Gi',
    '1e1000',
  ])('%j is not a quantity', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('isSubset', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['equal scalars', 3, 3, true],
    ['different scalars', 3, 4, false],
    ['a string is not a number', '3', 3, false],
    ['booleans', true, false, false],
    ['desired keys of live', { a: 1 }, { a: 1, b: 2 }, true],
    ['a desired key missing from live', { a: 1, b: 2 }, { a: 1 }, false],
    ['a desired key with another value', { a: 1 }, { a: 2 }, false],
    [
      'nested, extra live fields',
      { spec: { x: { y: 1 } } },
      { spec: { x: { y: 1, z: 2 }, w: 3 } },
      true,
    ],
    [
      'nested, a key missing deep down',
      { spec: { x: { y: 1, q: 'v' } } },
      { spec: { x: { y: 1 } } },
      false,
    ],
    ['an object against a scalar', { a: 1 }, 'a', false],
    ['arrays element by element', [{ a: 1 }, { b: 2 }], [{ a: 1, x: 0 }, { b: 2 }], true],
    ['live with more elements', [1], [1, 2], true],
    ['live with fewer elements', [1, 2], [1], false],
    ['arrays compare by index, not by content', [1, 2], [2, 1], false],
    ['an array against an object', [1], { 0: 1 }, false],
    ['cpu canonicalised by the server', { cpu: '1000m' }, { cpu: '1' }, true],
    ['memory canonicalised by the server', { memory: '1024Mi' }, { memory: '1Gi' }, true],
    ['bytes against a suffix', '1073741824', '1Gi', true],
    ['a desired number against a live quantity', { cpu: 2 }, { cpu: '2' }, true],
    ['a changed quantity', { cpu: '500m' }, { cpu: '1' }, false],
    ['strings that are not quantities', 'redis:7', 'redis:7.0', false],
    ['an empty map the server omits', { labels: {} }, {}, true],
    ['an empty list the server omits', { items: [] }, {}, true],
    ['a false the server omits', { hostNetwork: false }, {}, true],
    ['a zero the server omits', { spec: { n: 0, s: '' } }, { spec: {} }, true],
    ['null against absent', { a: null }, {}, true],
    ['a non-zero value against absent', { hostNetwork: true }, {}, false],
    ['a nested non-zero value against absent', { a: { b: { c: 1 } } }, {}, false],
    ['a non-empty list against absent', { items: [0] }, {}, false],
    ['undefined desired members are absent', { a: undefined }, {}, true],
  ])('%s', (_name, desired, live, expected) => {
    expect(isSubset(desired, live)).toBe(expected);
  });

  const json = fc.jsonValue();

  it('every value is a subset of itself', () => {
    fc.assert(fc.property(json, (value) => isSubset(value, value)));
  });

  it('fields the server adds never make a subset fail', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), json),
        fc.dictionary(fc.string(), json),
        (desired, added) => isSubset(desired, { ...added, ...desired }),
      ),
    );
  });

  it('a desired field the live object lacks fails, unless it is a zero value', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.oneof(fc.integer({ min: 1 }), fc.string({ minLength: 1 })),
        (key, value) => !isSubset({ [key]: value }, {}),
      ),
    );
  });
});
