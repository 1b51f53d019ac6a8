/**
 * @steward/provider-profile-api — the `ProviderProfile` kind (`steward.dev/v1alpha1`, cluster-scoped,
 * short name `pp`): one source of truth for its TypeScript types and its CRD.
 *
 * Contract:
 * - `spec.provider` (`aws | gcp | kafka`, immutable) names the one provider block that is set;
 *   the API server rejects a missing block, a block for another provider and a provider change.
 * - Credentials are only ever a Secret reference (`credentialsSecretRef`, or `secretRef` for Kafka
 *   TLS/SASL); their contents never appear in status, Events or logs.
 * - `sizeClasses` maps a size name (what a DatabaseInstance's `spec.size` says) to the provider's
 *   instance class (AWS) or tier (GCP).
 * - `guardrails` are defaulted by the API server (`allowedDeletionPolicies: [Retain, Delete]`,
 *   `requireFinalSnapshot: false`; no `allowedSizes` = every size class) and are enforced by the
 *   controller of each referencing resource as a condition, not at admission (a profile's
 *   guardrails can change after the resource was admitted).
 * - Status: `Ready` says whether the credentials work; `usedBy` counts referencing resources (a
 *   profile in use is held by a finalizer); `observedGeneration`.
 */
export {
  DeletionPolicies,
  ProviderProfile,
  ProviderProfileSpec,
  ProviderProfileStatus,
  Providers,
  SaslMechanisms,
  SIZE_NAME_PATTERN,
  type DeletionPolicy,
  type Provider,
  type SaslMechanism,
} from './provider-profile.js';
