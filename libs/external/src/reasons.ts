/**
 * Condition reasons of the managed reconciler, shared by every external kind (CamelCase constants
 * a user can search for). Two that look alike mean different things, and both stay:
 * - `Unsupported`: a field this provider does not support at all (e.g. AWS overrides on a GCP
 *   profile) — never silently ignored (DESIGN.md, "Common API conventions");
 * - `NotSupported`: a change to a supported field that the provider cannot make in place (fewer
 *   partitions, another replication factor, a major engine version).
 */
export const Reasons = {
  /** `Ready=True`: the resource is usable. */
  Available: 'Available',
  /** `Ready=False`: being created at the provider. */
  Creating: 'Creating',
  /** `Ready=False`: being brought to the spec (or busy) at the provider. */
  Updating: 'Updating',
  /** `Ready=False`: being deleted at the provider. */
  Deleting: 'Deleting',
  /** `Synced=True`: the last reconcile applied the spec. */
  ReconcileSuccess: 'ReconcileSuccess',
  /** `Synced=False` (and `Ready=False` unless known available): a retried, transient failure. */
  ReconcileError: 'ReconcileError',
  /** `Synced=False`: the `steward.dev/paused` annotation stops reconciliation. */
  ReconcilePaused: 'ReconcilePaused',
  /** Terminal: a resource of the name exists that this object did not create (`spec.adopt`). */
  AlreadyExists: 'AlreadyExists',
  /**
   * Terminal: the resource's ownership mark at the provider names an object of another namespace;
   * nothing is changed, adopted or deleted through this object.
   */
  ExternalResourceOwnedElsewhere: 'ExternalResourceOwnedElsewhere',
  /** Terminal: `spec.adopt`, but the ProviderProfile does not allow adoption from the namespace. */
  AdoptionNotAllowed: 'AdoptionNotAllowed',
  /** Terminal: a create of unknown outcome, names not deterministic; the user checks the provider. */
  CreateOutcomeUnknown: 'CreateOutcomeUnknown',
  /** Terminal: see the module doc. */
  Unsupported: 'Unsupported',
  /** Terminal: see the module doc. */
  NotSupported: 'NotSupported',
  /** Event: `deletionPolicy: Retain` left the resource at the provider. */
  ExternalResourceRetained: 'ExternalResourceRetained',
  /** Event: the resource was deleted at the provider. */
  ExternalResourceDeleted: 'ExternalResourceDeleted',
  /** Event: an existing resource was taken over through `spec.adopt`, as the profile allows. */
  ExternalResourceAdopted: 'ExternalResourceAdopted',
  /** Event: the resource under the object's name is someone else's; it was not deleted. */
  ExternalResourceNotOwned: 'ExternalResourceNotOwned',
} as const;
