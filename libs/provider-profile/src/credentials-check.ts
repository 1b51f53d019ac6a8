import { terminalCause } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { ProviderProfileReasons as R } from './reasons.js';

/** What a credentials check found. Messages are shown in status and Events: never a secret. */
export type CredentialsCheckResult =
  | {
      ok: true;
      /** e.g. `RDS DescribeDBInstances in eu-west-1 succeeded`. */
      message: string;
    }
  | {
      ok: false;
      /** CamelCase constant, e.g. `CredentialsInvalid`; becomes the `Ready` condition's reason. */
      reason: string;
      /** What is wrong and what to do about it. */
      message: string;
      /**
       * True when trying again later may succeed by itself (network, 5xx, throttling): the
       * controller retries with backoff. False or absent: the platform team must change something;
       * the controller checks again on a spec change and every recheck interval, never sooner.
       */
      transient?: boolean;
    };

/**
 * Verifies a profile's credentials with the provider. Called by the controller on creation, on
 * each spec change (new generation), every recheck interval and, after a transient failure, with
 * backoff — never twice at once for one profile. Must only read (one cheap call, e.g. a list with
 * a small page) and must be idempotent. May read the profile's credentials Secret; must not mutate
 * `profile` (a shared cache object). Should honour `signal` (aborted on shutdown or timeout).
 *
 * Failures should be returned, not thrown; still, a thrown `TerminalError` counts as a failure the
 * user must fix (its reason and message), anything else thrown as a transient
 * `CredentialsCheckFailed` with the error's message — so no message may contain a secret.
 */
export type CredentialsCheck = (
  profile: ProviderProfile,
  signal: AbortSignal,
) => Promise<CredentialsCheckResult>;

/** A check that accepts every profile: for processes and tests where credentials do not matter. */
export const noopCredentialsCheck: CredentialsCheck = async () => ({
  ok: true,
  message: 'credentials are not checked',
});

/** Longest message kept from an unexpected error. */
const MaxErrorMessage = 512;

/**
 * Runs `check` once for `profile` and always resolves with a result: a check that does not settle
 * within `timeoutMs` is a transient `ProviderUnreachable`; a throw is mapped as the
 * `CredentialsCheck` doc says. Rejects only when `signal` aborts (shutdown: nothing to record),
 * with the signal's reason.
 */
export async function runCredentialsCheck(
  check: CredentialsCheck,
  profile: ProviderProfile,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<CredentialsCheckResult> {
  signal.throwIfAborted();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('timeout')), timeoutMs);
  timer.unref?.();
  const both = AbortSignal.any([signal, timeout.signal]);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(both.reason);
    both.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([check(profile, both), aborted]);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (timeout.signal.aborted) {
      return {
        ok: false,
        reason: R.ProviderUnreachable,
        message: `the ${profile.spec.provider} API did not answer the credentials check within ${Math.round(timeoutMs / 1000)} s`,
        transient: true,
      };
    }
    const terminal = terminalCause(error);
    if (terminal) return { ok: false, reason: terminal.reason, message: terminal.message };
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      reason: R.CredentialsCheckFailed,
      message: `checking the credentials failed: ${detail.slice(0, MaxErrorMessage)}`,
      transient: true,
    };
  } finally {
    clearTimeout(timer);
    if (onAbort) both.removeEventListener('abort', onAbort);
  }
}
