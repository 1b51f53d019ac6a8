/**
 * @steward/database-instance-api — the `DatabaseInstance` kind (`database.steward.dev/v1alpha1`,
 * namespaced, short name `dbi`): one source of truth for its TypeScript types and its CRD.
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - `providerProfileRef` and `engine` are immutable; `storageGiB` is 10..65536 and may only grow;
 *   `backup.retentionDays` is 0..35; `version` is `major[.minor[.patch]]`.
 * - The machine size comes from `size` (a key of the profile's `sizeClasses`) or from
 *   `providerOverrides.aws.instanceClass` / `providerOverrides.gcp.tier` (which win over `size`);
 *   at least one is required, and `providerOverrides` holds exactly one provider block.
 * - Defaults: `deletionPolicy: Retain`, `finalSnapshot: true`, `adopt: false`,
 *   `highAvailability: false`, `backup.retentionDays: 7`.
 *
 * What only the controller can know (the profile exists and is aws/gcp, the size class exists and
 * is allowed, the overrides block matches the profile's provider, guardrails) is a condition with
 * a reason, not an admission error. Status: `Ready` and `Synced` conditions, `externalName`,
 * `providerState` (normalised; raw in `atProvider.status`), `endpoint`, `observedGeneration`.
 */
export {
  AwsStorageTypes,
  DatabaseInstance,
  DatabaseInstanceSpec,
  DatabaseInstanceStatus,
  Engines,
  GcpDataDiskTypes,
  ProviderStates,
  type Engine,
  type ProviderState,
} from './database-instance.js';
