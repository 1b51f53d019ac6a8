import { describe, expect, it } from 'vitest';
import { childNames } from './names.js';

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
