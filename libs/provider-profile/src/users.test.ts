import { describe, expect, it } from 'vitest';
import { describeUsage, profileUsage } from './users.js';

describe('profileUsage', () => {
  it('orders users by kind, namespace and name, so messages are stable', () => {
    const usage = profileUsage([
      { kind: 'KafkaTopic', namespace: 'a', name: 'x' },
      { kind: 'DatabaseInstance', namespace: 'b', name: 'a' },
      { kind: 'DatabaseInstance', namespace: 'a', name: 'z' },
      { kind: 'DatabaseInstance', namespace: 'a', name: 'b' },
    ]);
    expect(usage.count).toBe(4);
    expect(usage.users.map((u) => `${u.kind} ${u.namespace}/${u.name}`)).toEqual([
      'DatabaseInstance a/b',
      'DatabaseInstance a/z',
      'DatabaseInstance b/a',
      'KafkaTopic a/x',
    ]);
  });
});

describe('describeUsage', () => {
  const refs = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      kind: 'DatabaseInstance',
      namespace: 'ns',
      name: `db${i}`,
    }));

  it.each([
    [1, '1 resource references it: DatabaseInstance ns/db0'],
    [2, '2 resources reference it: DatabaseInstance ns/db0, DatabaseInstance ns/db1'],
    [
      3,
      '3 resources reference it: DatabaseInstance ns/db0, DatabaseInstance ns/db1, DatabaseInstance ns/db2',
    ],
    [
      7,
      '7 resources reference it: DatabaseInstance ns/db0, DatabaseInstance ns/db1, DatabaseInstance ns/db2 and 4 more',
    ],
  ])('with %i users: %s', (n, expected) => {
    expect(describeUsage(profileUsage(refs(n)))).toBe(expected);
  });

  it('names cluster-scoped users without a namespace', () => {
    expect(describeUsage(profileUsage([{ kind: 'Gateway', name: 'edge' }]))).toBe(
      '1 resource references it: Gateway edge',
    );
  });
});
