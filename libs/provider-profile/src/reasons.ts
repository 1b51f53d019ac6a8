/** The finalizer that keeps a ProviderProfile while resources reference it. */
export const InUseFinalizer = 'steward.dev/in-use';

/**
 * The condition every handled ProviderProfile carries: do its credentials work (for a kubernetes
 * profile, which has none: was its catalogue accepted)?
 */
export const ReadyCondition = 'Ready';

/**
 * Reasons of the profile's `Ready` condition and of its Events (CamelCase constants a user can
 * search for). Which ones the controller retries on its own is part of the contract:
 * - `CredentialsVerified` (True): the provider accepted the credentials;
 * - `CatalogueAccepted` (True): a kubernetes profile — no credentials to check; its size classes,
 *   image catalogue and limits passed admission and are what workloads referencing it get;
 * - `CredentialsNotFound`, `CredentialsInvalid`, `InvalidProviderProfile` (False, `Stalled=True`):
 *   the platform team must change the Secret, the provider-side permissions or the profile; checked
 *   again only on a spec change and every recheck interval;
 * - `ProviderUnreachable`, `CredentialsCheckFailed` (False, no `Stalled`): retried with backoff;
 * - `InUse` (False): the profile is being deleted and resources still reference it.
 */
export const ProviderProfileReasons = {
  CredentialsVerified: 'CredentialsVerified',
  CatalogueAccepted: 'CatalogueAccepted',
  CredentialsNotFound: 'CredentialsNotFound',
  CredentialsInvalid: 'CredentialsInvalid',
  InvalidProviderProfile: 'InvalidProviderProfile',
  ProviderUnreachable: 'ProviderUnreachable',
  CredentialsCheckFailed: 'CredentialsCheckFailed',
  InUse: 'InUse',
} as const;

/**
 * Why `admitWorkload` refuses an in-cluster workload (CacheCluster, PostgresCluster) under a
 * kubernetes profile: the reasons of that workload's `Ready=False` (CamelCase constants a user can
 * search for). Every one is for a person to fix — the workload's spec or the profile — so callers
 * report it as terminal (no retry before either changes).
 */
export const WorkloadAdmissionReasons = {
  /** The profile the workload names (or the controller's default) does not exist. */
  ProviderProfileNotFound: 'ProviderProfileNotFound',
  /** The profile is not a kubernetes profile. */
  WrongProvider: 'WrongProvider',
  /** The profile does not allow the workload's namespace (`namespaceRefusal`). */
  ProfileNotAllowedInNamespace: 'ProfileNotAllowedInNamespace',
  /** A kubernetes profile without `spec.kubernetes` (admission prevents it; an older CRD might not). */
  InvalidProviderProfile: 'InvalidProviderProfile',
  /** `spec.deletionPolicy` is not in `guardrails.allowedDeletionPolicies`. */
  DeletionPolicyNotAllowed: 'DeletionPolicyNotAllowed',
  /** `spec.size` is not a key of `spec.kubernetes.sizeClasses`. */
  UnknownSize: 'UnknownSize',
  /** `spec.size` is a size class but not in `guardrails.allowedSizes`. */
  SizeNotAllowed: 'SizeNotAllowed',
  /** No entry of `spec.kubernetes.images` for the engine and version asked for. */
  ImageNotInCatalogue: 'ImageNotInCatalogue',
  /** More replicas than `spec.kubernetes.maxReplicas`. */
  ReplicasExceedLimit: 'ReplicasExceedLimit',
  /**
   * `spec.scheduling` spreads less than `spec.kubernetes.requireSpread` asks, or replaces the
   * spread it guards (`affinity.podAntiAffinity`, `topologySpreadConstraints`).
   */
  SpreadRequired: 'SpreadRequired',
  /** No volumes, but `spec.kubernetes.requirePersistence` is true. */
  PersistenceRequired: 'PersistenceRequired',
  /** A StorageClass outside `spec.kubernetes.storageClassNames`, or none named while it is set. */
  StorageClassNotAllowed: 'StorageClassNotAllowed',
  /** A volume larger than `spec.kubernetes.maxStorage`. */
  StorageExceedsLimit: 'StorageExceedsLimit',
  /** A size in the request or the profile that is not a quantity (admission prevents it). */
  InvalidQuantity: 'InvalidQuantity',
} as const;
export type WorkloadAdmissionReason =
  (typeof WorkloadAdmissionReasons)[keyof typeof WorkloadAdmissionReasons];
