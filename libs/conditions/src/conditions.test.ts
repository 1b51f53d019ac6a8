import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Condition, type ConditionUpdate } from './condition.js';
import {
  findCondition,
  isFalse,
  isTrue,
  removeCondition,
  setCondition,
  setConditions,
} from './conditions.js';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00Z');

const ready = (
  status: Condition['status'],
  reason = 'Available',
  message = 'ok',
  gen = 1,
): ConditionUpdate => ({
  type: 'Ready',
  status,
  reason,
  message,
  observedGeneration: gen,
});

describe('setCondition', () => {
  it('adds a new condition stamped with the time, in seconds precision', () => {
    const { conditions, changed } = setCondition([], ready('True'), t0);
    expect(changed).toBe(true);
    expect(conditions).toEqual([{ ...ready('True'), lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it('returns the same array and changed=false when nothing differs', () => {
    const first = setCondition([], ready('True'), t0).conditions;
    const again = setCondition(first, ready('True'), t1);
    expect(again.changed).toBe(false);
    expect(again.conditions).toBe(first);
  });

  it.each([
    ['reason', ready('True', 'Reconciled')],
    ['message', ready('True', 'Available', 'still ok')],
    ['observedGeneration', ready('True', 'Available', 'ok', 2)],
  ])('keeps lastTransitionTime when only the %s changes', (_field, update) => {
    const first = setCondition([], ready('True'), t0).conditions;
    const next = setCondition(first, update, t1);
    expect(next.changed).toBe(true);
    expect(findCondition(next.conditions, 'Ready')?.lastTransitionTime).toBe(
      '2026-01-01T00:00:00Z',
    );
  });

  it('moves lastTransitionTime when the status changes', () => {
    const first = setCondition([], ready('True'), t0).conditions;
    const next = setCondition(
      first,
      ready('False', 'InvalidSpec', 'spec.size must be positive'),
      t1,
    );
    expect(findCondition(next.conditions, 'Ready')).toEqual({
      ...ready('False', 'InvalidSpec', 'spec.size must be positive'),
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
  });

  it('never mutates its input and keeps other conditions in place', () => {
    const input = Object.freeze([
      Object.freeze({
        type: 'Synced',
        status: 'True',
        reason: 'Synced',
        message: '',
        lastTransitionTime: 'x',
      }),
      Object.freeze({
        type: 'Ready',
        status: 'True',
        reason: 'A',
        message: '',
        lastTransitionTime: 'y',
      }),
    ]) as readonly Condition[];
    const next = setCondition(
      input,
      { type: 'Ready', status: 'False', reason: 'B', message: 'm' },
      t1,
    );
    expect(next.conditions.map((c) => c.type)).toEqual(['Synced', 'Ready']);
    expect(input[1]?.status).toBe('True');
  });

  it('lastTransitionTime changes if and only if status changes (property)', () => {
    const status = fc.constantFrom<Condition['status']>('True', 'False', 'Unknown');
    const update = fc.record({
      type: fc.constantFrom('Ready', 'Synced'),
      status,
      reason: fc.constantFrom('A', 'B'),
      message: fc.constantFrom('', 'm'),
    });
    fc.assert(
      fc.property(fc.array(update, { minLength: 1, maxLength: 30 }), (updates) => {
        let conditions: Condition[] = [];
        updates.forEach((u, i) => {
          const now = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
          const before = findCondition(conditions, u.type);
          conditions = setCondition(conditions, u, now).conditions;
          const after = findCondition(conditions, u.type)!;
          const expectMoved = !before || before.status !== u.status;
          expect(after.lastTransitionTime === before?.lastTransitionTime).toBe(!expectMoved);
        });
        expect(new Set(conditions.map((c) => c.type)).size).toBe(conditions.length);
      }),
    );
  });
});

describe('setConditions, removeCondition and the predicates', () => {
  it('reports changed when any update changed something', () => {
    const base = setConditions(
      [],
      [ready('True'), { type: 'Synced', status: 'True', reason: 'S', message: '' }],
      t0,
    );
    expect(base.changed).toBe(true);
    expect(setConditions(base.conditions, [ready('True')], t1).changed).toBe(false);
    expect(isTrue(base.conditions, 'Ready')).toBe(true);
    expect(isFalse(base.conditions, 'Ready')).toBe(false);
    expect(isTrue(base.conditions, 'Missing')).toBe(false);
  });

  it('removes a condition and says whether it was there', () => {
    const { conditions } = setCondition([], ready('True'), t0);
    expect(removeCondition(conditions, 'Ready')).toEqual({ conditions: [], changed: true });
    expect(removeCondition([], 'Ready').changed).toBe(false);
  });
});
