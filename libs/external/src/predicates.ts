import { type Predicate } from '@steward/controller';
import { ExternalAnnotations as A } from './annotations.js';

/** Annotations the managed reconciler writes itself; its own writes must not wake it again. */
const ownWrites: readonly string[] = [
  A.externalName,
  A.createPending,
  A.createSucceeded,
  A.createFailed,
  A.createRefused,
];

/**
 * The event filter for external kinds: passes spec changes (generation), deletion, a finalizer
 * removed, and annotation changes made by someone else — e.g. the pause annotation, or a user
 * removing `create-pending` after checking the provider — but not the ledger writes the reconciler
 * makes itself, which would otherwise make a refused create run again and again.
 */
export const externalChanges: Predicate = {
  update: (old, obj) => {
    const o = old.metadata ?? {};
    const n = obj.metadata ?? {};
    if (o.generation !== n.generation) return true;
    if (Boolean(o.deletionTimestamp) !== Boolean(n.deletionTimestamp)) return true;
    // A finalizer removed (someone took ours away: it is put back). One added is not news: the
    // reconciler adds its own in the same write as the create's pending mark and carries on, and
    // waking it for that echo would let a reconcile on a cache still behind that write repeat it.
    const kept = new Set(n.finalizers ?? []);
    if ((o.finalizers ?? []).some((f) => !kept.has(f))) return true;
    const before = o.annotations ?? {};
    const after = n.annotations ?? {};
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (before[key] === after[key]) continue;
      if (!ownWrites.includes(key)) return true;
      if (key === A.createPending && after[key] === undefined) return true; // a user cleared it
    }
    return false;
  },
};
