import { describe, expect, it } from 'vitest';
import { planManaged, type ManagedAction, type ManagedFacts } from './plan.js';

/** A live object, recorded and created, its resource present, ours and up to date. */
const converged: ManagedFacts = {
  paused: false,
  deleting: false,
  hasFinalizer: true,
  nameRecorded: true,
  ledger: 'succeeded',
  refusedAtThisGeneration: false,
  deletionPolicy: 'Retain',
  adopt: false,
  adoptionAllowed: false,
  deterministicNames: true,
  admission: 'manage',
  observed: { owner: 'this', upToDate: true },
};
/** A new object: nothing recorded, nothing observed yet. */
const fresh: ManagedFacts = {
  ...converged,
  hasFinalizer: false,
  nameRecorded: false,
  ledger: 'none',
  observed: 'not-yet',
};
const deleting = (f: Partial<ManagedFacts>): ManagedFacts => ({
  ...converged,
  deleting: true,
  ...f,
});
const other = { owner: 'other', upToDate: true } as const;
const unknownOwner = { owner: 'unknown', upToDate: true } as const;
const otherNamespace = { owner: 'other-namespace', upToDate: false } as const;
const unmarked = { owner: 'unmarked', upToDate: false } as const;

const cases: [name: string, facts: ManagedFacts, expected: ManagedAction][] = [
  // Pause comes first, whatever else holds.
  ['paused, live: reports paused', { ...converged, paused: true }, { type: 'report-paused' }],
  [
    'paused, deleting with Delete: reports paused, deletes nothing',
    deleting({ paused: true, deletionPolicy: 'Delete' }),
    { type: 'report-paused' },
  ],
  [
    'paused, admission refuses: still only reports paused',
    { ...fresh, paused: true, admission: 'stop' },
    { type: 'report-paused' },
  ],
  // Admission, before any provider call.
  [
    'new object, admission refuses: refuses before observing',
    { ...fresh, admission: 'stop' },
    { type: 'refuse', reason: 'admission' },
  ],
  [
    'converged object, admission refuses (guardrail changed): refuses',
    { ...converged, admission: 'stop' },
    { type: 'refuse', reason: 'admission' },
  ],
  [
    'live object, admission releases: nothing',
    { ...converged, admission: 'release' },
    { type: 'nothing' },
  ],
  // Observation first, then decisions on what was seen.
  ['new object: observes before anything else', fresh, { type: 'observe' }],
  ['new object, absent: creates', { ...fresh, observed: 'absent' }, { type: 'create' }],
  [
    'pending create, absent, deterministic names: creates again (the provider refuses a duplicate name)',
    { ...fresh, nameRecorded: true, hasFinalizer: true, ledger: 'pending', observed: 'absent' },
    { type: 'create' },
  ],
  [
    'pending create, absent, names not deterministic: refuses (CreateOutcomeUnknown), never a second create',
    {
      ...fresh,
      nameRecorded: true,
      hasFinalizer: true,
      ledger: 'pending',
      deterministicNames: false,
      observed: 'absent',
    },
    { type: 'refuse', reason: 'create-outcome-unknown' },
  ],
  [
    'pending create, present and ours: records the success and syncs',
    { ...converged, ledger: 'pending' },
    { type: 'sync', record: true, update: false, adopt: false },
  ],
  [
    'pending create, present, owner unknown (no marks): records the success — the pending mark came first',
    { ...converged, ledger: 'pending', observed: unknownOwner },
    { type: 'sync', record: true, update: false, adopt: false },
  ],
  [
    'pending create, names not deterministic, present: records the success',
    { ...converged, ledger: 'pending', deterministicNames: false },
    { type: 'sync', record: true, update: false, adopt: false },
  ],
  [
    'refused at this generation: refuses again without calling the provider',
    { ...converged, ledger: 'failed', refusedAtThisGeneration: true, observed: 'not-yet' },
    { type: 'refuse', reason: 'create-refused' },
  ],
  [
    'refused at an older generation, absent: creates again',
    { ...converged, ledger: 'failed', observed: 'absent' },
    { type: 'create' },
  ],
  [
    'refused earlier, present and not ours: AlreadyExists, not taken over',
    { ...converged, ledger: 'failed', observed: other },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    'never created, present, foreign: AlreadyExists',
    { ...fresh, observed: other },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    'never created, present, owner unknown: AlreadyExists',
    { ...fresh, observed: unknownOwner },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    'never created, present, foreign, spec.adopt, the profile allows adoption: adopts (records) and updates to the spec',
    { ...fresh, adopt: true, adoptionAllowed: true, observed: { owner: 'other', upToDate: false } },
    { type: 'sync', record: true, update: true, adopt: true },
  ],
  [
    'never created, present, foreign, spec.adopt, the profile does not allow adoption: refused, nothing taken over',
    { ...fresh, adopt: true, observed: { owner: 'other', upToDate: false } },
    { type: 'refuse', reason: 'adoption-not-allowed' },
  ],
  [
    'never created, present, unmarked, spec.adopt, adoption allowed: adopts',
    { ...fresh, adopt: true, adoptionAllowed: true, observed: unmarked },
    { type: 'sync', record: true, update: true, adopt: true },
  ],
  [
    'never created, present, unmarked, no spec.adopt: AlreadyExists',
    { ...fresh, observed: unmarked },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    "present with another namespace's mark, spec.adopt, adoption allowed: OwnedElsewhere, never taken over",
    { ...fresh, adopt: true, adoptionAllowed: true, observed: otherNamespace },
    { type: 'refuse', reason: 'owned-elsewhere' },
  ],
  [
    "forged ledger (created, succeeded) on another namespace's resource: OwnedElsewhere",
    { ...converged, observed: otherNamespace },
    { type: 'refuse', reason: 'owned-elsewhere' },
  ],
  [
    'forged ledger on an unmarked resource of a provider that marks: AlreadyExists (the ledger is no proof)',
    { ...converged, observed: unmarked },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    'owner unknown (no marks), spec.adopt without the profile allowing it: refused',
    { ...fresh, adopt: true, observed: unknownOwner },
    { type: 'refuse', reason: 'adoption-not-allowed' },
  ],
  [
    'owner unknown (no marks), created by the ledger: syncs (the ledger is all there is)',
    { ...converged, observed: unknownOwner },
    { type: 'sync', record: false, update: false, adopt: false },
  ],
  [
    'never created, present with our ownership mark (create answer lost before the ledger): syncs',
    { ...fresh, observed: { owner: 'this', upToDate: true } },
    { type: 'sync', record: true, update: false, adopt: false },
  ],
  [
    'created, present, up to date: syncs with zero metadata writes',
    converged,
    { type: 'sync', record: false, update: false, adopt: false },
  ],
  [
    'created, present, drifted: updates',
    { ...converged, observed: { owner: 'this', upToDate: false } },
    { type: 'sync', record: false, update: true, adopt: false },
  ],
  [
    'created, present, finalizer removed by someone: records it again',
    { ...converged, hasFinalizer: false },
    { type: 'sync', record: true, update: false, adopt: false },
  ],
  [
    "created, present, someone else's mark now, ledger says ours: AlreadyExists (the mark decides, not the ledger)",
    { ...converged, observed: other },
    { type: 'refuse', reason: 'already-exists' },
  ],
  [
    'created, absent (deleted outside): creates it again',
    { ...converged, observed: 'absent' },
    { type: 'create' },
  ],
  // Deletion.
  ['deleting, finalizer gone: nothing', deleting({ hasFinalizer: false }), { type: 'nothing' }],
  [
    'deleting, never created, Delete: releases without calling the provider',
    deleting({ ledger: 'none', deletionPolicy: 'Delete', observed: 'not-yet' }),
    { type: 'release', reason: 'never-created' },
  ],
  [
    'deleting, no name recorded: releases',
    deleting({ nameRecorded: false, ledger: 'none', observed: 'not-yet' }),
    { type: 'release', reason: 'never-created' },
  ],
  [
    'deleting, created, Retain: releases and retains',
    deleting({ observed: 'not-yet' }),
    { type: 'release', reason: 'retained' },
  ],
  [
    'deleting, adopted (ledger none), Retain: retains',
    deleting({ ledger: 'none', adopt: true, observed: 'not-yet' }),
    { type: 'release', reason: 'retained' },
  ],
  [
    'deleting, created, Delete, not observed yet: observes',
    deleting({ deletionPolicy: 'Delete', observed: 'not-yet' }),
    { type: 'observe' },
  ],
  [
    'deleting, created, Delete, present and ours: deletes',
    deleting({ deletionPolicy: 'Delete' }),
    { type: 'delete' },
  ],
  [
    'deleting, pending create, Delete, present (owner unknown): deletes — it may be ours',
    deleting({ deletionPolicy: 'Delete', ledger: 'pending', observed: unknownOwner }),
    { type: 'delete' },
  ],
  [
    'deleting, created, Delete, absent: released as deleted',
    deleting({ deletionPolicy: 'Delete', observed: 'absent' }),
    { type: 'release', reason: 'deleted' },
  ],
  [
    "deleting, created, Delete, present but someone else's: not deleted",
    deleting({ deletionPolicy: 'Delete', observed: other }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    'deleting, adopt, Delete, present with another mark: not deleted (only what carries our mark is)',
    deleting({ deletionPolicy: 'Delete', adopt: true, adoptionAllowed: true, observed: other }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    "deleting, forged ledger, Delete, another namespace's resource: not deleted",
    deleting({ deletionPolicy: 'Delete', adopt: true, observed: otherNamespace }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    'deleting, Delete, unmarked resource: not deleted',
    deleting({ deletionPolicy: 'Delete', observed: unmarked }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    'deleting, created (ledger), Delete, owner unknown (no marks): deletes',
    deleting({ deletionPolicy: 'Delete', observed: unknownOwner }),
    { type: 'delete' },
  ],
  [
    'deleting, adopt without permission, Delete, owner unknown, nothing in the ledger: not deleted',
    deleting({ deletionPolicy: 'Delete', ledger: 'none', adopt: true, observed: unknownOwner }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    'deleting, created, Delete, admission refuses (profile gone): holds the finalizer',
    deleting({ deletionPolicy: 'Delete', admission: 'stop', observed: 'not-yet' }),
    { type: 'refuse', reason: 'admission' },
  ],
  [
    'deleting, created, Retain, admission refuses: released anyway (Retain touches no provider)',
    deleting({ admission: 'stop', observed: 'not-yet' }),
    { type: 'release', reason: 'retained' },
  ],
  [
    'deleting, never created, admission refuses: released anyway',
    deleting({ ledger: 'none', deletionPolicy: 'Delete', admission: 'stop' }),
    { type: 'release', reason: 'never-created' },
  ],
  [
    'deleting, created, Delete, admission releases (held by another object): not deleted',
    deleting({ deletionPolicy: 'Delete', admission: 'release', observed: 'not-yet' }),
    { type: 'release', reason: 'foreign' },
  ],
  [
    'deleting, refused create at this generation, Delete: nothing was made, released',
    deleting({
      deletionPolicy: 'Delete',
      ledger: 'failed',
      refusedAtThisGeneration: true,
      observed: 'absent',
    }),
    { type: 'release', reason: 'deleted' },
  ],
];

describe('planManaged', () => {
  it('has at least 30 named cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map(([name]) => name)).size).toBe(cases.length);
  });
  it.each(cases)('%s', (_name, facts, expected) => {
    expect(planManaged(facts)).toEqual(expected);
  });

  it('never creates for an object that is paused, being deleted or refused by admission', () => {
    const bools = [false, true];
    const ledgers = ['none', 'pending', 'succeeded', 'failed'] as const;
    const observations = ['not-yet', 'absent', { owner: 'this', upToDate: true }] as const;
    for (const paused of bools)
      for (const deletingNow of bools)
        for (const ledger of ledgers)
          for (const observed of observations)
            for (const admission of ['manage', 'stop', 'release'] as const) {
              const action = planManaged({
                ...converged,
                paused,
                deleting: deletingNow,
                ledger,
                observed,
                admission,
              });
              if (paused || deletingNow || admission !== 'manage')
                expect(action.type).not.toBe('create');
              if (action.type === 'delete') expect(deletingNow && !paused).toBe(true);
            }
  });

  it('never creates again after a pending create when names are not deterministic', () => {
    for (const refused of [false, true])
      expect(
        planManaged({
          ...fresh,
          ledger: 'pending',
          deterministicNames: false,
          observed: 'absent',
          refusedAtThisGeneration: refused,
        }).type,
      ).toBe('refuse');
  });
});
