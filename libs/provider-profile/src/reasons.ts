/** The finalizer that keeps a ProviderProfile while resources reference it. */
export const InUseFinalizer = 'steward.dev/in-use';

/** The condition every handled ProviderProfile carries: do its credentials work? */
export const ReadyCondition = 'Ready';

/**
 * Reasons of the profile's `Ready` condition and of its Events (CamelCase constants a user can
 * search for). Which ones the controller retries on its own is part of the contract:
 * - `CredentialsVerified` (True): the provider accepted the credentials;
 * - `CredentialsNotFound`, `CredentialsInvalid`, `InvalidProviderProfile` (False, `Stalled=True`):
 *   the platform team must change the Secret, the provider-side permissions or the profile; checked
 *   again only on a spec change and every recheck interval;
 * - `ProviderUnreachable`, `CredentialsCheckFailed` (False, no `Stalled`): retried with backoff;
 * - `InUse` (False): the profile is being deleted and resources still reference it.
 */
export const ProviderProfileReasons = {
  CredentialsVerified: 'CredentialsVerified',
  CredentialsNotFound: 'CredentialsNotFound',
  CredentialsInvalid: 'CredentialsInvalid',
  InvalidProviderProfile: 'InvalidProviderProfile',
  ProviderUnreachable: 'ProviderUnreachable',
  CredentialsCheckFailed: 'CredentialsCheckFailed',
  InUse: 'InUse',
} as const;
