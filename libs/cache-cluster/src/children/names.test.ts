import { describe, expect, it } from 'vitest';
import { childNames, ordinalOf } from './names.js';

describe('childNames', () => {
  it('names every child after the cluster', () => {
    const names = childNames('web');
    expect({ ...names, pod: names.pod(2), pvc: names.pvc(2) }).toEqual({
      statefulSet: 'web',
      headless: 'web-headless',
      readWrite: 'web-rw',
      readOnly: 'web-ro',
      configMap: 'web-config',
      authSecret: 'web-auth',
      podDisruptionBudget: 'web',
      networkPolicy: 'web',
      pod: 'web-2',
      pvc: 'data-web-2',
    });
  });

  it.each([-1, 1.5, Number.NaN])('refuses the ordinal %s', (ordinal) => {
    expect(() => childNames('web').pod(ordinal)).toThrow(RangeError);
    expect(() => childNames('web').pvc(ordinal)).toThrow(RangeError);
  });
});

describe('ordinalOf', () => {
  it.each([
    ['web-0', 0, 'web'],
    ['web-8', 8, 'web'],
    ['web-12', 12, 'web'],
    ['web-a-3', 3, 'web-a'],
  ])('%s is pod %i of %s', (pod, ordinal, cluster) => {
    expect(ordinalOf(pod, cluster)).toBe(ordinal);
  });

  it.each([
    ['web', 'web'],
    ['web-', 'web'],
    ['web-01', 'web'],
    ['web-1-0', 'web'],
    ['web-a-3', 'web'],
    ['webx-1', 'web'],
    ['other-1', 'web'],
    ['web-+1', 'web'],
    ['web-1e3', 'web'],
    ['data-web-0', 'web'],
  ])('%s is no pod of %s', (pod, cluster) => {
    expect(ordinalOf(pod, cluster)).toBeUndefined();
  });

  it('round-trips childNames().pod', () => {
    for (const ordinal of [0, 1, 9, 10, 123]) {
      expect(ordinalOf(childNames('c').pod(ordinal), 'c')).toBe(ordinal);
    }
  });
});
