/**
 * @steward/provider-profile-api — the `ProviderProfile` kind (`steward.dev/v1alpha1`, cluster-scoped,
 * short name `pp`): one source of truth for its TypeScript types and its CRD.
 *
 * Contract:
 * - `spec.provider` (`aws | gcp | kafka | kubernetes`, immutable) names the one provider block
 *   that is set; the API server rejects a missing block, a block for another provider and a
 *   provider change.
 * - Credentials are only ever a Secret reference (`credentialsSecretRef`, or `secretRef` for Kafka
 *   TLS/SASL); their contents never appear in status, Events or logs.
 * - `sizeClasses` maps a size name (what a DatabaseInstance's `spec.size` says) to the provider's
 *   instance class (AWS) or tier (GCP).
 * - `kubernetes` is for workloads the operators run in the cluster (CacheCluster, PostgresCluster):
 *   `sizeClasses` (name → `cpu` request, `memory` request = limit, optional `storage` and, for
 *   caches, `maxMemory` below `memory`), `images` (the catalogue: one image per `engine` +
 *   `version`, a list map on those keys; each `image` an image reference — `IMAGE_REFERENCE_PATTERN`,
 *   pinned by digest `…@sha256:<64 hex>` where the platform team wants the same bits on every
 *   node (recommended) — with an optional `imagePullPolicy`, default `IfNotPresent`),
 *   `imagePullSecrets` (Secret names every workload pod references, in the workload's own
 *   namespace; the controller never reads them), optional `storageClassNames`, `maxReplicas`,
 *   `maxStorage`, `requirePersistence` (default false), `requireSpread` (`nodes` / `zones`:
 *   `Required` makes workloads set `spec.scheduling.spread.<x>: Required`, `Preferred` forbids
 *   the override that would replace the default spread), and PostgreSQL's production guardrails
 *   `requireSyncReplication` (default false) and `maxFailoverLagBytes` (the largest
 *   `failover.maxLagBytes` a PostgresCluster may set). Quantities follow `QUANTITY_PATTERN`
 *   and are compared by value at admission (a class's storage within `maxStorage`). A kubernetes
 *   profile has no credentials; the top-level `sizeClasses` and `requireFinalSnapshot: true` are
 *   refused on it.
 * - `guardrails` are defaulted by the API server (`allowedDeletionPolicies: [Retain, Delete]`,
 *   `requireFinalSnapshot: false`; no `allowedSizes` = every size class, and `allowedSizes` must
 *   name keys of the size classes of the profile's provider) and are enforced by the controller
 *   of each referencing resource as a condition, not at admission (a profile's guardrails can
 *   change after the resource was admitted).
 * - **Tenancy**: `namespaces` (names) and `namespaceSelector` (a metav1.LabelSelector over the
 *   namespace's labels; `{}` selects every namespace) say which namespaces' resources may use the
 *   profile — a namespace either allows may; neither set, none may. `adoption.namespaces` names
 *   the namespaces whose resources may adopt existing external resources through it (absent:
 *   none). Enforced at admission by each chart's ValidatingAdmissionPolicy and by every controller.
 * - Status: `Ready` says whether the credentials work (for kubernetes, which has none: that the
 *   catalogue was accepted); `usedBy` counts referencing resources (a profile in use is held by a
 *   finalizer); `observedGeneration`.
 */
export {
  DeletionPolicies,
  IMAGE_REFERENCE_PATTERN,
  LabelSelectorOperators,
  MAX_PROFILE_NAMESPACES,
  ProviderProfile,
  QUANTITY_PATTERN,
  ProviderProfileSpec,
  ProviderProfileStatus,
  Providers,
  SaslMechanisms,
  SIZE_NAME_PATTERN,
  TopicNamePolicies,
  type TopicNamePolicy,
  type DeletionPolicy,
  type KubernetesImage,
  type KubernetesProfileSpec,
  type KubernetesSizeClass,
  type Provider,
  type SaslMechanism,
} from './provider-profile.js';
export { S3CredentialKeys, s3Destination } from './s3-destination.js';
