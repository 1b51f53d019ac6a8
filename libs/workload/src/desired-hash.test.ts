import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, desiredHash } from './desired-hash.js';

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
}

describe('desiredHash', () => {
  it('is 16 hex digits of sha256', () => {
    expect(desiredHash({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });

  it('does not depend on key order', () => {
    expect(desiredHash({ a: 1, b: { c: 2, d: [1, { e: 3, f: 4 }] } })).toBe(
      desiredHash({ b: { d: [1, { f: 4, e: 3 }], c: 2 }, a: 1 }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => desiredHash(value) === desiredHash(reversed(value))),
    );
  });

  it('is the same in every process (a fixed value)', () => {
    // A changed hash re-applies every child of every parent once: it must not change by accident.
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: 0 }] })).toBe('{"a":[2,{"c":0,"d":1}],"b":1}');
    expect(desiredHash({ metadata: { name: 'x' } })).toBe('ef6eb3146527e3ad');
  });

  it('changes when a field is removed, added or changed, and with array order', () => {
    const base = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, data: { k: 'v' } };
    const hash = desiredHash(base);
    expect(desiredHash({ ...base, data: {} })).not.toBe(hash);
    expect(desiredHash({ ...base, data: { k: 'v', l: 'w' } })).not.toBe(hash);
    expect(desiredHash({ ...base, data: { k: 'w' } })).not.toBe(hash);
    expect(desiredHash([1, 2])).not.toBe(desiredHash([2, 1]));
  });

  it('leaves undefined members out, as JSON does', () => {
    expect(desiredHash({ a: 1, b: undefined })).toBe(desiredHash({ a: 1 }));
  });
});
