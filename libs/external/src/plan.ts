import { type LedgerState } from './ledger.js';

/**
 * Who an existing external resource belongs to, as its ownership mark at the provider (tags,
 * labels) tells — never as the object's own annotations claim:
 * - `this`: the mark names this object (its uid);
 * - `other-namespace`: the mark names an object of another namespace — another tenant's: never
 *   changed, adopted or deleted through this object;
 * - `other`: the mark names another object of this namespace (e.g. one deleted with Retain);
 * - `unmarked`: the provider keeps marks, but this resource has none (made outside Steward);
 * - `unknown`: the provider keeps no marks (Kafka topics): the create ledger alone decides.
 */
export type Owner = 'this' | 'other-namespace' | 'other' | 'unmarked' | 'unknown';

/** What the managed reconciler knows about one object when it decides (all of it plain data). */
export interface ManagedFacts {
  /** `steward.dev/paused: "true"`. */
  paused: boolean;
  /** `metadata.deletionTimestamp` is set. */
  deleting: boolean;
  /** The object carries this reconciler's finalizer. */
  hasFinalizer: boolean;
  /** `steward.dev/external-name` is recorded. */
  nameRecorded: boolean;
  /** The create ledger (`ledgerState`). */
  ledger: LedgerState;
  /** The provider refused the create at the object's current generation (`refusalAt`). */
  refusedAtThisGeneration: boolean;
  deletionPolicy: 'Retain' | 'Delete';
  adopt: boolean;
  /**
   * The object's profile lets its namespace adopt existing resources (`spec.adoption`). Without
   * it, `adopt` takes nothing over.
   */
  adoptionAllowed: boolean;
  /** The provider's `deterministicNames`. */
  deterministicNames: boolean;
  /**
   * The kind's admission (profile, guardrails, the provider's `validate`): `manage` — the provider
   * may be called; `stop` — only the user can fix what it found; `release` — the object is being
   * deleted and no provider can or need be called for it.
   */
  admission: 'manage' | 'stop' | 'release';
  /** What `observe` said, once it was called. */
  observed: 'not-yet' | 'absent' | { owner: Owner; upToDate: boolean };
}

/** Why an object's finalizer goes without anything deleted at the provider (or after). */
export type ReleaseReason =
  /** No create was ever made for it and nothing was adopted: there is nothing of its out there. */
  | 'never-created'
  /** `deletionPolicy: Retain`: the resource stays where it is. */
  | 'retained'
  /** The resource under its name is someone else's now: it is not deleted. */
  | 'foreign'
  /** The provider no longer has the resource. */
  | 'deleted';

/** Why the reconciler stops for the user. */
export type RefusalReason =
  /** The kind's admission said so (its reason and message). */
  | 'admission'
  /** The provider refused the create at this generation; only a spec change may make it succeed. */
  | 'create-refused'
  /** A create of unknown outcome with names that are not deterministic: another could duplicate it. */
  | 'create-outcome-unknown'
  /** A resource of the name exists that this object did not create, and `spec.adopt` is not set. */
  | 'already-exists'
  /** The resource's ownership mark names an object of another namespace. */
  | 'owned-elsewhere'
  /** `spec.adopt` asks to take an existing resource over, and the profile does not allow it. */
  | 'adoption-not-allowed';

/** The one thing to do next. */
export type ManagedAction =
  /** Being deleted and no longer carrying the finalizer: not ours to act on. */
  | { type: 'nothing' }
  /** Paused: say so in `Synced`; touch nothing, anywhere. */
  | { type: 'report-paused' }
  | { type: 'refuse'; reason: RefusalReason }
  /** Remove the finalizer (nothing to do at the provider, or no longer). */
  | { type: 'release'; reason: ReleaseReason }
  /** Connect and observe, then decide again with what was seen. */
  | { type: 'observe' }
  /** Record finalizer, external name and the pending mark in one checked write, then create. */
  | { type: 'create' }
  /**
   * The resource exists and is this object's: record what the metadata lacks (finalizer, name,
   * the create's success or the adoption) in one write when `record`, update it when `update`,
   * then report its state. `adopt`: the resource is not (yet) this object's by its mark or the
   * ledger, and is being taken over through an adoption the profile allows — recorded in status
   * (`adoptedAt`) and a Normal Event.
   */
  | { type: 'sync'; record: boolean; update: boolean; adopt: boolean }
  /** `deletionPolicy: Delete`: start (or follow) the deletion at the provider. */
  | { type: 'delete' };

/**
 * The managed reconciler's decision (pure): from the facts of one object to one action. The order
 * is the same for every kind: pause first, then deletion state, then admission, then the ledger,
 * then what the provider showed. A crash between any two steps leaves facts from which this
 * function never creates twice, never deletes what is not the object's, and never forgets a
 * create it may have made.
 */
export function planManaged(f: ManagedFacts): ManagedAction {
  if (f.paused) return { type: 'report-paused' };
  if (f.deleting) return planDeletion(f);
  if (f.admission === 'stop') return { type: 'refuse', reason: 'admission' };
  if (f.admission === 'release') return { type: 'nothing' };
  if (f.ledger === 'failed' && f.refusedAtThisGeneration)
    return { type: 'refuse', reason: 'create-refused' };
  if (f.observed === 'not-yet') return { type: 'observe' };
  if (f.observed === 'absent') {
    if (f.ledger === 'pending' && !f.deterministicNames)
      return { type: 'refuse', reason: 'create-outcome-unknown' };
    return { type: 'create' };
  }
  const owner = f.observed.owner;
  if (owner === 'other-namespace') return { type: 'refuse', reason: 'owned-elsewhere' };
  // With marks, the ledger's word is no proof (a user can write annotations): only the mark says
  // a resource is this object's. Without marks (`unknown`), the ledger is all there is.
  const ours =
    owner === 'this' || (owner === 'unknown' && f.ledger !== 'none' && f.ledger !== 'failed');
  if (!ours) {
    if (!f.adopt) return { type: 'refuse', reason: 'already-exists' };
    if (!f.adoptionAllowed) return { type: 'refuse', reason: 'adoption-not-allowed' };
  }
  return {
    type: 'sync',
    record: !f.hasFinalizer || !f.nameRecorded || f.ledger !== 'succeeded',
    update: !f.observed.upToDate,
    adopt: !ours,
  };
}

function planDeletion(f: ManagedFacts): ManagedAction {
  if (!f.hasFinalizer) return { type: 'nothing' };
  const created = f.nameRecorded && (f.ledger !== 'none' || f.adopt);
  if (!created) return { type: 'release', reason: 'never-created' };
  // Admission releases an object whose deletion must not reach the provider (e.g. the resource
  // is held by another object): with Delete, the resource is someone else's.
  if (f.admission === 'release')
    return { type: 'release', reason: f.deletionPolicy === 'Retain' ? 'retained' : 'foreign' };
  if (f.deletionPolicy === 'Retain') return { type: 'release', reason: 'retained' };
  // Delete would act at the provider: what admission found (no profile, a guardrail) holds it.
  if (f.admission === 'stop') return { type: 'refuse', reason: 'admission' };
  if (f.observed === 'not-yet') return { type: 'observe' };
  if (f.observed === 'absent') return { type: 'release', reason: 'deleted' };
  // Only what this object's mark is on is deleted; without marks, what it created or adopted.
  const owner = f.observed.owner;
  if (owner === 'this') return { type: 'delete' };
  if (owner !== 'unknown') return { type: 'release', reason: 'foreign' };
  if (f.ledger === 'none' && !(f.adopt && f.adoptionAllowed))
    return { type: 'release', reason: 'foreign' };
  return { type: 'delete' };
}
