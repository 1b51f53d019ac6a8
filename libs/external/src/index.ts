/**
 * @steward/external — the reconciler for resources that live outside the cluster (Kafka topics,
 * RDS and Cloud SQL instances), with Crossplane's contract and Steward's create ledger.
 *
 * A provider implements `ExternalProvider` (connect, externalName, deterministicNames) and
 * `ExternalClient` (observe, create, update, delete; observe never mutates, the others are
 * idempotent and non-blocking). `managedReconciler()` owns everything else: finalizer,
 * deletion policy (default Retain), pause annotation, adoption only on `spec.adopt`, the
 * `Synced`/`Ready` conditions, Events and poll intervals — and the ledger that makes a crash at any
 * step unable to duplicate an external resource (see `ledger.ts` and `managedReconciler`).
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
export { managedReconciler } from './managed-reconciler.js';
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
  type Present,
} from './provider.js';
export { Reasons } from './reasons.js';
