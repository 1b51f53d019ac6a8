import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidRdsIdentifier, rdsIdentifier } from './identifier.js';

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const subdomain = fc.stringMatching(
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){0,3}$/,
);

describe('rdsIdentifier', () => {
  it.each([
    ['shop', 'orders', /^shop-orders-[0-9a-f]{8}$/],
    ['1team', 'db', /^db-1team-db-[0-9a-f]{8}$/],
    ['shop', 'orders.eu--west', /^shop-orders-eu-west-[0-9a-f]{8}$/],
    ['ns', 'x'.repeat(253), /^ns-x{51}-[0-9a-f]{8}$/],
  ])('%s/%s → %s', (namespace, name, expected) => {
    const id = rdsIdentifier(namespace, name);
    expect(id).toMatch(expected);
    expect(isValidRdsIdentifier(id)).toBe(true);
  });

  it('is stable: the same object always gets the same identifier', () => {
    expect(rdsIdentifier('shop', 'orders')).toBe(rdsIdentifier('shop', 'orders'));
  });

  it('tells apart names that read alike once joined, replaced or truncated', () => {
    expect(rdsIdentifier('a', 'b-c')).not.toBe(rdsIdentifier('a-b', 'c'));
    expect(rdsIdentifier('a', 'b.c')).not.toBe(rdsIdentifier('a', 'b-c'));
    expect(rdsIdentifier('n', `${'x'.repeat(80)}1`)).not.toBe(
      rdsIdentifier('n', `${'x'.repeat(80)}2`),
    );
  });

  it('always yields a valid RDS identifier for any Kubernetes namespace and name', () => {
    fc.assert(
      fc.property(label, subdomain, (namespace, name) =>
        isValidRdsIdentifier(rdsIdentifier(namespace, name)),
      ),
      { numRuns: 2000 },
    );
  });

  it('maps distinct objects to distinct identifiers', () => {
    fc.assert(
      fc.property(label, subdomain, label, subdomain, (ns1, n1, ns2, n2) => {
        fc.pre(ns1 !== ns2 || n1 !== n2);
        return rdsIdentifier(ns1, n1) !== rdsIdentifier(ns2, n2);
      }),
      { numRuns: 2000 },
    );
  });
});
