import { FailureReasons } from './pod-problems.js';
import { VolumeReasons } from './volumes.js';

/**
 * The condition reasons every workload kind states (CacheCluster, PostgresCluster, and a kind the
 * scaffold makes): one word for one cause, whichever kind says it. A kind's own registry spreads
 * this one and adds what only it can say (a refused failover, a backup, an upgrade).
 */
export const WorkloadReasons = {
  // Ready=True / Progressing=False / Degraded=False
  Available: 'Available',
  Converged: 'Converged',
  Healthy: 'Healthy',
  // Under way (phase of the same name)
  Provisioning: 'Provisioning',
  Scaling: 'Scaling',
  Updating: 'Updating',
  FailingOver: 'FailingOver',
  // What is wrong with what exists
  PrimaryLost: 'PrimaryLost',
  /** A member desired does not exist (deleted, evicted) while the count desired did not change. */
  InstancesMissing: 'InstancesMissing',
  /** Members exist but are not ready in their role (not streaming, not in sync). */
  InstancesNotReady: 'InstancesNotReady',
  /** An action on a member (a role change, a promotion) failed this time; retried. */
  InstanceFailing: 'InstanceFailing',
  ...VolumeReasons,
  ...FailureReasons,
  // Terminal (Stalled), besides the profile guardrails' (WorkloadAdmissionReasons)
  ProviderProfileNotFound: 'ProviderProfileNotFound',
  ImageNotInCatalogue: 'ImageNotInCatalogue',
  SizeNeedsProfile: 'SizeNeedsProfile',
  ChildConflict: 'ChildConflict',
  DeletionPolicyNotAllowed: 'DeletionPolicyNotAllowed',
} as const;
