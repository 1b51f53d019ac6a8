import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planWorkload, type WorkloadAction, type WorkloadFacts } from './workload-plan.js';

const base: WorkloadFacts = {
  paused: false,
  deleting: false,
  hasFinalizer: true,
  admission: 'allowed',
  deletionPolicy: 'Retain',
  deletionPolicyAllowed: true,
  preDelete: 'none',
};
const deleting = (f: Partial<WorkloadFacts>): Partial<WorkloadFacts> => ({ deleting: true, ...f });
const Delete = { deletionPolicy: 'Delete' } as const;

const cases: [string, Partial<WorkloadFacts>, WorkloadAction][] = [
  // Paused: nothing else is looked at.
  ['paused', { paused: true }, { type: 'report-paused' }],
  ['paused, no finalizer yet', { paused: true, hasFinalizer: false }, { type: 'report-paused' }],
  ['paused, refused', { paused: true, admission: 'refused' }, { type: 'report-paused' }],
  ['paused while deleting (Retain)', deleting({ paused: true }), { type: 'report-paused' }],
  [
    'paused while deleting (Delete, pre-delete due)',
    deleting({ paused: true, ...Delete, preDelete: 'due' }),
    { type: 'report-paused' },
  ],
  [
    'paused while a final backup runs',
    deleting({ paused: true, ...Delete, preDelete: 'running' }),
    { type: 'report-paused' },
  ],
  // Live objects.
  ['converged path: allowed, finalizer on', {}, { type: 'converge' }],
  ['new object: finalizer first', { hasFinalizer: false }, { type: 'add-finalizer' }],
  [
    'refused, never started: no finalizer added',
    { admission: 'refused', hasFinalizer: false },
    { type: 'refuse' },
  ],
  ['refused after running (profile changed)', { admission: 'refused' }, { type: 'refuse' }],
  ['Delete policy, live: converge', { ...Delete }, { type: 'converge' }],
  [
    'Delete not allowed by the profile, live: converge (judged at deletion)',
    { ...Delete, deletionPolicyAllowed: false },
    { type: 'converge' },
  ],
  [
    'pre-delete facts are ignored while live',
    { ...Delete, preDelete: 'failed' },
    { type: 'converge' },
  ],
  // Deleting without the finalizer: not ours.
  ['deleting, no finalizer', deleting({ hasFinalizer: false }), { type: 'nothing' }],
  [
    'deleting, no finalizer, Delete',
    deleting({ hasFinalizer: false, ...Delete, preDelete: 'due' }),
    { type: 'nothing' },
  ],
  [
    'deleting, no finalizer, refused',
    deleting({ hasFinalizer: false, admission: 'refused' }),
    { type: 'nothing' },
  ],
  // Retain.
  ['Retain', deleting({}), { type: 'retain' }],
  ['Retain, refused (profile gone)', deleting({ admission: 'refused' }), { type: 'retain' }],
  [
    'Retain when the guardrail would refuse Delete',
    deleting({ deletionPolicyAllowed: false }),
    { type: 'retain' },
  ],
  ['Retain skips the pre-delete step', deleting({ preDelete: 'due' }), { type: 'retain' }],
  ['Retain with a failed pre-delete step', deleting({ preDelete: 'failed' }), { type: 'retain' }],
  // Delete.
  ['Delete, nothing to save', deleting({ ...Delete }), { type: 'delete' }],
  [
    'Delete, final backup due',
    deleting({ ...Delete, preDelete: 'due' }),
    { type: 'pre-delete', start: true },
  ],
  [
    'Delete, final backup running',
    deleting({ ...Delete, preDelete: 'running' }),
    { type: 'pre-delete', start: false },
  ],
  [
    'Delete, final backup succeeded',
    deleting({ ...Delete, preDelete: 'succeeded' }),
    { type: 'delete' },
  ],
  [
    'Delete, final backup failed on every attempt',
    deleting({ ...Delete, preDelete: 'failed' }),
    { type: 'hold-deletion', reason: 'pre-delete-failed' },
  ],
  [
    'Delete not allowed by the guardrails',
    deleting({ ...Delete, deletionPolicyAllowed: false }),
    { type: 'hold-deletion', reason: 'deletion-policy-not-allowed' },
  ],
  [
    'Delete not allowed, even with the backup done',
    deleting({ ...Delete, deletionPolicyAllowed: false, preDelete: 'succeeded' }),
    { type: 'hold-deletion', reason: 'deletion-policy-not-allowed' },
  ],
  [
    'Delete not allowed: no backup is started for a deletion that cannot happen',
    deleting({ ...Delete, deletionPolicyAllowed: false, preDelete: 'due' }),
    { type: 'hold-deletion', reason: 'deletion-policy-not-allowed' },
  ],
  [
    'Delete, refused object, nothing to save',
    deleting({ ...Delete, admission: 'refused' }),
    { type: 'delete' },
  ],
  [
    'Delete, refused object with data: its final backup still runs',
    deleting({ ...Delete, admission: 'refused', preDelete: 'due' }),
    { type: 'pre-delete', start: true },
  ],
  [
    'Delete, finalizer on, pre-delete running, guardrail fine',
    deleting({ ...Delete, preDelete: 'running', deletionPolicyAllowed: true }),
    { type: 'pre-delete', start: false },
  ],
];

describe('planWorkload', () => {
  it.each(cases)('%s', (_name, facts, action) => {
    expect(planWorkload({ ...base, ...facts })).toEqual(action);
  });

  it('has at least 30 named cases, each unique', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map(([name]) => name)).size).toBe(cases.length);
  });

  const facts = fc.record<WorkloadFacts>({
    paused: fc.boolean(),
    deleting: fc.boolean(),
    hasFinalizer: fc.boolean(),
    admission: fc.constantFrom('allowed', 'refused'),
    deletionPolicy: fc.constantFrom('Retain', 'Delete'),
    deletionPolicyAllowed: fc.boolean(),
    preDelete: fc.constantFrom('none', 'due', 'running', 'succeeded', 'failed'),
  });

  it('never deletes data unless Delete is allowed and the pre-delete step is behind it', () => {
    fc.assert(
      fc.property(facts, (f) => {
        if (planWorkload(f).type !== 'delete') return;
        expect(f).toMatchObject({
          paused: false,
          deleting: true,
          hasFinalizer: true,
          deletionPolicy: 'Delete',
          deletionPolicyAllowed: true,
        });
        expect(['none', 'succeeded']).toContain(f.preDelete);
      }),
    );
  });

  it('changes nothing while paused, and runs the phases only for a live, admitted, finalized object', () => {
    fc.assert(
      fc.property(facts, (f) => {
        const action = planWorkload(f);
        if (f.paused) expect(action).toEqual({ type: 'report-paused' });
        if (action.type === 'converge')
          expect(f).toMatchObject({
            paused: false,
            deleting: false,
            hasFinalizer: true,
            admission: 'allowed',
          });
        if (action.type === 'add-finalizer') expect(f.admission).toBe('allowed');
        if (action.type === 'retain') expect(f.deletionPolicy).toBe('Retain');
        if (f.deleting) expect(['converge', 'add-finalizer', 'refuse']).not.toContain(action.type);
      }),
    );
  });
});
