/**
 * @steward/external — the reconciler for resources that live outside the cluster (Kafka topics,
 * RDS and Cloud SQL instances), with Crossplane's contract and Steward's create ledger.
 *
 * A kind supplies `admit(obj)` (profile, guardrails: which provider, with what context) and a
 * provider: `ExternalProvider` (externalName, deterministicNames, validate — the desired state,
 * computed once, before any call — and connect) and `ExternalClient` (observe, create, update,
 * delete; observe never mutates, the others are idempotent and non-blocking; a typed observation
 * carries the provider's raw object to update/delete and connection details to the publisher).
 * `managedReconciler()` is an object reconciler that owns everything else, as a plan and its
 * executors (`planManaged`: pause → deletion → admission → ledger → observation, one action; one
 * file per phase): finalizer, deletion policy (default Retain), pause annotation, adoption only on
 * `spec.adopt`, the `Synced`/`Ready` (and `Reconciling`/`Stalled`) conditions through the one
 * status writer, Events and poll intervals — and the ledger that makes a crash at any step unable
 * to duplicate an external resource (`ledger.ts`, `metadata-writes.ts`): a new resource is Ready
 * in four writes (finalizer + name + pending mark in one checked patch, the outcome, two status
 * writes), a converged one costs none.
 *
 * **Ownership is proven at the provider, not by annotations.** A provider that can keep marks
 * (RDS tags, Cloud SQL user labels) reports the object its resource's mark names (`Present.mark`);
 * `ownerOf` compares it with the object. A resource marked by an object of another namespace is
 * never updated, adopted or deleted (`ExternalResourceOwnedElsewhere`); one that is unmarked or
 * marked by another object of the namespace is this object's only by an adoption that its
 * ProviderProfile allows for the namespace (`Admission.adoptionAllowed`; else `AlreadyExists` /
 * `AdoptionNotAllowed`) — the ledger annotations, which a user can write, never suffice. A
 * deletion acts only on a resource carrying this object's mark. Providers without marks (Kafka)
 * fall back on the ledger. What the ledger remembers (a create refused at a
 * generation) lives in annotations, never in status.
 */
export { ExternalAnnotations } from './annotations.js';
export {
  decideMissing,
  formatRefusal,
  ledgerState,
  ledgerTime,
  refusalAt,
  type CreateRefusal,
  type LedgerState,
  type MissingResourceDecision,
} from './ledger.js';
export { managedReconciler, ownerOf } from './managed-reconciler.js';
export {
  type Admission,
  type ManagedObject,
  type ManagedReconcilerOptions,
} from './managed-run.js';
export {
  planManaged,
  type ManagedAction,
  type ManagedFacts,
  type Owner,
  type RefusalReason,
  type ReleaseReason,
} from './plan.js';
export { deletionActsAtProvider } from './deletion.js';
export { externalChanges } from './predicates.js';
export {
  type Absent,
  type ExternalClient,
  type ExternalProvider,
  type Observation,
  type OwnerMark,
  type Present,
  readOwnerMark,
} from './provider.js';
export { Reasons } from './reasons.js';
