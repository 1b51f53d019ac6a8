import { describe, expect, it } from 'vitest';
import { ExternalAnnotations as A } from './annotations.js';
import { deletionActsAtProvider } from './deletion.js';

const created = {
  [A.externalName]: 'orders',
  [A.createPending]: '2026-01-01T00:00:00.000Z',
  [A.createSucceeded]: '2026-01-01T00:00:01.000Z',
};
const obj = (
  spec: { deletionPolicy?: 'Retain' | 'Delete'; adopt?: boolean },
  annotations?: Record<string, string>,
) => ({
  apiVersion: 'x.steward.dev/v1alpha1',
  kind: 'X',
  metadata: { name: 'orders', namespace: 'shop', ...(annotations ? { annotations } : {}) },
  spec,
});

describe('deletionActsAtProvider', () => {
  it('is true only for Delete on a resource this object created or adopted', () => {
    expect(deletionActsAtProvider(obj({}, created))).toBe(false);
    expect(deletionActsAtProvider(obj({ deletionPolicy: 'Delete' }))).toBe(false);
    expect(deletionActsAtProvider(obj({ deletionPolicy: 'Delete' }, created))).toBe(true);
    expect(
      deletionActsAtProvider(
        obj({ deletionPolicy: 'Delete', adopt: true }, { [A.externalName]: 'orders' }),
      ),
    ).toBe(true);
    expect(
      deletionActsAtProvider(obj({ deletionPolicy: 'Delete' }, { [A.externalName]: 'orders' })),
    ).toBe(false);
  });
});
