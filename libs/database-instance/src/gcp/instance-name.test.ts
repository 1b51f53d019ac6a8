import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLOUD_SQL_INSTANCE_NAME_MAX,
  CLOUD_SQL_INSTANCE_NAME_PATTERN,
  cloudSqlInstanceName,
} from './instance-name.js';

/** RFC 1123 label (namespaces) and subdomain (object names), as Kubernetes validates them. */
const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const subdomain = fc
  .array(label, { minLength: 1, maxLength: 6 })
  .map((parts) =>
    parts
      .join('.')
      .slice(0, 253)
      .replace(/[.-]+$/, ''),
  )
  .filter((s) => s.length > 0);

describe('cloudSqlInstanceName', () => {
  it('is a valid Cloud SQL instance ID within the length every project allows', () => {
    fc.assert(
      fc.property(label, subdomain, (ns, name) => {
        const id = cloudSqlInstanceName(ns, name);
        expect(id).toMatch(CLOUD_SQL_INSTANCE_NAME_PATTERN);
        expect(id.length).toBeLessThanOrEqual(CLOUD_SQL_INSTANCE_NAME_MAX);
        // the local API's rule: project (at most 30 chars) + ':' + name within 98
        expect(30 + 1 + id.length).toBeLessThanOrEqual(98);
      }),
      { numRuns: 2000 },
    );
  });

  it('is a pure function of namespace and name', () => {
    fc.assert(
      fc.property(label, subdomain, (ns, name) => {
        expect(cloudSqlInstanceName(ns, name)).toBe(cloudSqlInstanceName(ns, name));
      }),
    );
  });

  it('gives different objects different names, also where the plain join is ambiguous', () => {
    fc.assert(
      fc.property(label, subdomain, label, subdomain, (ns1, n1, ns2, n2) => {
        fc.pre(ns1 !== ns2 || n1 !== n2);
        expect(cloudSqlInstanceName(ns1, n1)).not.toBe(cloudSqlInstanceName(ns2, n2));
      }),
      { numRuns: 2000 },
    );
    expect(cloudSqlInstanceName('a-b', 'c')).not.toBe(cloudSqlInstanceName('a', 'b-c'));
    expect(cloudSqlInstanceName('a', 'b.c')).not.toBe(cloudSqlInstanceName('a', 'b-c'));
  });

  it.each([
    ['team-a', 'orders', /^team-a-orders-[0-9a-f]{10}$/],
    ['team-a', 'orders.v2', /^team-a-orders-v2-[0-9a-f]{10}$/],
    ['1st', 'db', /^db-1st-db-[0-9a-f]{10}$/],
    ['ns', 'x'.repeat(200), /^ns-x{49}-[0-9a-f]{10}$/],
  ])('reads as its object: %s/%s', (ns, name, expected) => {
    expect(cloudSqlInstanceName(ns, name)).toMatch(expected);
  });
});
