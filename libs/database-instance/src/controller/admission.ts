import { type DatabaseInstance } from '@steward/database-instance-api';
import { deletionActsAtProvider } from '@steward/external';
import { namespaceRefusal, type NamespaceFacts } from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { checkGuardrails } from '../guardrails.js';
import { ProfileReasons } from './profile-config.js';

/** What the controller does with one object, given its profile (or none). */
export type Admission =
  /** Hand the object to the managed reconciler of this provider. */
  | { action: 'reconcile'; provider: 'aws' | 'gcp' }
  /** Stop with a TerminalError: nothing happens at any provider. */
  | { action: 'stop'; reason: string; message: string }
  /**
   * Being deleted, and nothing is to be done at a provider (Retain, or never created), but no
   * provider can be chosen (no aws/gcp profile): just let the object go.
   */
  | { action: 'release' };

/**
 * Decides, before anything happens at a provider, what to do with `obj` (pure):
 * - no profile → `ProviderProfileNotFound`, unless the object is being deleted and deleting it
 *   touches no provider (then it is released);
 * - a profile that does not allow the object's namespace → stop, `ProfileNotAllowedInNamespace`
 *   (like a guardrail, this holds a deletion that would act at the provider);
 * - a guardrail violation → stop with its reason. While the object is being deleted this still
 *   holds when deletion would act at the provider (deletionPolicy Delete): nothing is deleted, the
 *   finalizer stays, and the message says how to proceed. A deletion that touches no provider is
 *   never held back by a guardrail;
 * - otherwise → the profile's provider.
 */
export function admit(
  profile: ProviderProfile | undefined,
  obj: DatabaseInstance,
  namespace: NamespaceFacts = { name: obj.metadata.namespace ?? '' },
): Admission {
  const profileName = obj.spec.providerProfileRef.name;
  const deleting = Boolean(obj.metadata.deletionTimestamp);
  const touches = !deleting || deletionActsAtProvider(obj);
  if (!profile) {
    if (!touches) return { action: 'release' };
    return {
      action: 'stop',
      reason: ProfileReasons.ProviderProfileNotFound,
      message: deleting
        ? `ProviderProfile ${profileName} not found: the instance cannot be deleted at its provider without it, so the finalizer stays. Recreate the profile, or set spec.deletionPolicy: Retain to leave the instance`
        : `ProviderProfile ${profileName} not found: create it, or reference an existing aws or gcp profile`,
    };
  }
  const violation = touches
    ? (namespaceRefusal(profile, namespace) ?? checkGuardrails(profile, obj))
    : undefined;
  if (violation) {
    return {
      action: 'stop',
      reason: violation.reason,
      message: deleting
        ? `${violation.message}. The object is being deleted, but nothing is deleted at the provider and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)`
        : violation.message,
    };
  }
  const provider = profile.spec.provider;
  if (provider === 'aws' || provider === 'gcp') return { action: 'reconcile', provider };
  // Only reachable while deleting without touching the provider (guardrails caught it otherwise).
  return { action: 'release' };
}
