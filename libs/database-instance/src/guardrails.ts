import { type DatabaseInstance } from '@steward/database-instance-api';
import { type ProviderProfile } from '@steward/provider-profile-api';

/** Why a DatabaseInstance may not be reconciled against a profile; undefined when it may. */
export interface GuardrailViolation {
  reason:
    | 'WrongProvider'
    | 'DeletionPolicyNotAllowed'
    | 'FinalSnapshotRequired'
    | 'SizeNotAllowed'
    | 'UnknownSize'
    | 'InsecureSettingNotAllowed';
  message: string;
}

/**
 * The platform team's guardrails, applied to one DatabaseInstance (pure). Checked on every
 * reconcile, before anything is created, changed or deleted at the provider, so a forbidden
 * deletion policy stops the Delete path too: nothing is deleted that a guardrail forbids.
 */
export function checkGuardrails(
  profile: ProviderProfile,
  obj: DatabaseInstance,
): GuardrailViolation | undefined {
  const name = profile.metadata.name;
  if (profile.spec.provider !== 'aws' && profile.spec.provider !== 'gcp') {
    return {
      reason: 'WrongProvider',
      message: `ProviderProfile ${name} is for ${profile.spec.provider}; a DatabaseInstance needs an aws or gcp profile`,
    };
  }
  const guardrails = profile.spec.guardrails ?? {};
  const policy = obj.spec.deletionPolicy ?? 'Retain';
  const allowedPolicies = guardrails.allowedDeletionPolicies ?? ['Retain', 'Delete'];
  if (!allowedPolicies.includes(policy)) {
    return {
      reason: 'DeletionPolicyNotAllowed',
      message: `spec.deletionPolicy ${policy} is not allowed by ProviderProfile ${name} (allowed: ${allowedPolicies.join(', ')})`,
    };
  }
  if (guardrails.requireFinalSnapshot && obj.spec.finalSnapshot === false) {
    return {
      reason: 'FinalSnapshotRequired',
      message: `ProviderProfile ${name} requires a final snapshot: remove spec.finalSnapshot: false`,
    };
  }
  if (guardrails.requireSecureDefaults) {
    const insecure = insecureSettings(obj);
    if (insecure.length)
      return {
        reason: 'InsecureSettingNotAllowed',
        message: `ProviderProfile ${name} requires the secure defaults: remove ${insecure.join(', ')}`,
      };
  }
  const size = obj.spec.size;
  const override =
    profile.spec.provider === 'aws'
      ? obj.spec.providerOverrides?.aws?.instanceClass
      : obj.spec.providerOverrides?.gcp?.tier;
  if (size && !override) {
    if (!profile.spec.sizeClasses?.[size]) {
      const known = Object.keys(profile.spec.sizeClasses ?? {});
      return {
        reason: 'UnknownSize',
        message: `spec.size ${size} is not a size class of ProviderProfile ${name} (known: ${known.join(', ') || 'none'})`,
      };
    }
  }
  if (size && guardrails.allowedSizes && !guardrails.allowedSizes.includes(size)) {
    return {
      reason: 'SizeNotAllowed',
      message: `spec.size ${size} is not allowed by ProviderProfile ${name} (allowed: ${guardrails.allowedSizes.join(', ')})`,
    };
  }
  return undefined;
}

/** The spec.security opt-outs of a DatabaseInstance, as `field: value` (empty: none). */
export function insecureSettings(obj: DatabaseInstance): string[] {
  const s = obj.spec.security ?? {};
  return [
    ...(s.storageEncrypted === false ? ['spec.security.storageEncrypted: false'] : []),
    ...(s.publiclyAccessible === true ? ['spec.security.publiclyAccessible: true'] : []),
    ...(s.deletionProtection === false ? ['spec.security.deletionProtection: false'] : []),
    ...(s.requireTLS === false ? ['spec.security.requireTLS: false'] : []),
  ];
}
