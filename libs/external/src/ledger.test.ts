import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExternalAnnotations as A } from './annotations.js';
import { decideMissing, ledgerState, type LedgerState } from './ledger.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

describe('ledgerState', () => {
  it.each<[string, Record<string, string> | undefined, LedgerState]>([
    ['no annotations', undefined, 'none'],
    ['pending only', { [A.createPending]: t(1) }, 'pending'],
    ['pending then succeeded', { [A.createPending]: t(1), [A.createSucceeded]: t(2) }, 'succeeded'],
    ['pending then failed', { [A.createPending]: t(1), [A.createFailed]: t(2) }, 'failed'],
    [
      'an old success before a newer pending',
      { [A.createSucceeded]: t(1), [A.createPending]: t(2) },
      'pending',
    ],
    [
      'failed, retried, succeeded',
      { [A.createFailed]: t(2), [A.createPending]: t(3), [A.createSucceeded]: t(4) },
      'succeeded',
    ],
    ['succeeded without pending (adopted or migrated)', { [A.createSucceeded]: t(1) }, 'succeeded'],
  ])('%s → %s', (_case, annotations, expected) => {
    expect(ledgerState(annotations)).toBe(expected);
  });
});

describe('decideMissing', () => {
  it('never creates again after an unrecorded outcome when names are not deterministic', () => {
    expect(decideMissing('pending', false)).toEqual({ action: 'stop-unknown-outcome' });
    expect(decideMissing('pending', true)).toEqual({ action: 'create' });
    expect(decideMissing('none', false)).toEqual({ action: 'create' });
    expect(decideMissing('failed', false)).toEqual({ action: 'create' });
  });

  it('a crash at any point of pending → create → outcome never yields two creates without a known failure (property)', () => {
    // Model: each attempt writes pending, may create (the provider keeps what was created), may crash
    // before recording the outcome. With non-deterministic names, a resource created under an
    // unrecorded attempt is invisible to observe.
    fc.assert(
      fc.property(
        fc.array(fc.record({ created: fc.boolean(), crashBeforeOutcome: fc.boolean() }), {
          minLength: 1,
          maxLength: 8,
        }),
        (attempts) => {
          let annotations: Record<string, string> = {};
          let created = 0;
          let clock = 0;
          for (const attempt of attempts) {
            const decision = decideMissing(ledgerState(annotations), false);
            if (decision.action !== 'create') break;
            annotations = { ...annotations, [A.createPending]: t(++clock) };
            if (attempt.created) created++;
            if (attempt.crashBeforeOutcome) continue;
            annotations = {
              ...annotations,
              [attempt.created ? A.createSucceeded : A.createFailed]: t(++clock),
            };
            if (attempt.created) break; // observed from now on
          }
          expect(created).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
