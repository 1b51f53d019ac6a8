import { describe, expect, it } from 'vitest';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  or,
  passesUpdate,
  resourceVersionChanged,
  type Meta,
} from './predicates.js';

const m = (metadata: NonNullable<Meta['metadata']>): Meta => ({ metadata });

describe('generationChanged', () => {
  it.each([
    ['a spec change (generation bumped)', m({ generation: 1 }), m({ generation: 2 }), true],
    [
      'a status write or resync (same generation)',
      m({ generation: 1, resourceVersion: '1' }),
      m({ generation: 1, resourceVersion: '2' }),
      false,
    ],
    [
      'deletion starting',
      m({ generation: 1 }),
      m({ generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' }),
      true,
    ],
    [
      'a finalizer removed',
      m({ generation: 1, finalizers: ['a', 'b'] }),
      m({ generation: 1, finalizers: ['a'] }),
      true,
    ],
  ])('%s → %s', (_name, old, obj, expected) => {
    expect(generationChanged.update!(old, obj)).toBe(expected);
  });
});

describe('other predicates and combinators', () => {
  it('resourceVersionChanged drops resyncs', () => {
    expect(
      resourceVersionChanged.update!(m({ resourceVersion: '1' }), m({ resourceVersion: '1' })),
    ).toBe(false);
    expect(
      resourceVersionChanged.update!(m({ resourceVersion: '1' }), m({ resourceVersion: '2' })),
    ).toBe(true);
  });

  it('labelsChanged and annotationsChanged compare the maps, not their identity', () => {
    expect(labelsChanged.update!(m({ labels: { a: '1' } }), m({ labels: { a: '1' } }))).toBe(false);
    expect(labelsChanged.update!(m({ labels: { a: '1' } }), m({ labels: { a: '2' } }))).toBe(true);
    expect(annotationsChanged.update!(m({}), m({ annotations: { x: 'y' } }))).toBe(true);
  });

  it('or passes when any passes, and treats a missing method as passing', () => {
    const p = or(generationChanged, labelsChanged);
    expect(p.update!(m({ generation: 1 }), m({ generation: 1, labels: { a: 'b' } }))).toBe(true);
    expect(p.update!(m({ generation: 1 }), m({ generation: 1 }))).toBe(false);
    expect(p.create!(m({}))).toBe(true);
  });

  it('and passes only when all pass', () => {
    const p = and(generationChanged, labelsChanged);
    expect(p.update!(m({ generation: 1 }), m({ generation: 2 }))).toBe(false);
    expect(p.update!(m({ generation: 1 }), m({ generation: 2, labels: { a: 'b' } }))).toBe(true);
    expect(passesUpdate([generationChanged], m({ generation: 1 }), m({ generation: 1 }))).toBe(
      false,
    );
    expect(passesUpdate([], m({ generation: 1 }), m({ generation: 1 }))).toBe(true);
  });
});
