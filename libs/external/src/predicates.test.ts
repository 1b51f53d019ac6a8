import { describe, expect, it } from 'vitest';
import { ExternalAnnotations as A } from './annotations.js';
import { externalChanges } from './predicates.js';

const obj = (annotations: Record<string, string>, generation = 1) => ({
  metadata: { generation, annotations },
});

describe('externalChanges', () => {
  it.each([
    ['a spec change', obj({}, 1), obj({}, 2), true],
    ['the pause annotation set', obj({}), obj({ [A.paused]: 'true' }), true],
    ['the pause annotation removed', obj({ [A.paused]: 'true' }), obj({}), true],
    ['a user clearing create-pending', obj({ [A.createPending]: 't1' }), obj({}), true],
    [
      'the reconciler recording a failed create',
      obj({ [A.createPending]: 't1' }),
      obj({ [A.createPending]: 't1', [A.createFailed]: 't2' }),
      false,
    ],
    ['the reconciler recording the external name', obj({}), obj({ [A.externalName]: 'x' }), false],
    ['the reconciler writing create-pending', obj({}), obj({ [A.createPending]: 't1' }), false],
    ['a status-only write', obj({ a: 'b' }), obj({ a: 'b' }), false],
    [
      'the reconciler adding its finalizer with the pending mark',
      obj({}),
      {
        metadata: {
          generation: 1,
          annotations: { [A.createPending]: 't1' },
          finalizers: ['x.steward.dev/f'],
        },
      },
      false,
    ],
    [
      'someone removing the finalizer',
      { metadata: { generation: 1, annotations: {}, finalizers: ['x.steward.dev/f'] } },
      obj({}),
      true,
    ],
  ])('%s → %s', (_case, old, next, expected) => {
    expect(externalChanges.update!(old, next)).toBe(expected);
  });
});
