import { TerminalError } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import {
  noopCredentialsCheck,
  runCredentialsCheck,
  type CredentialsCheck,
} from './credentials-check.js';

const profile = {
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'ProviderProfile',
  metadata: { name: 'prod-gcp' },
  spec: {
    provider: 'gcp',
    namespaceSelector: {},
    gcp: {
      project: 'steward-test',
      region: 'europe-west1',
      credentialsSecretRef: { namespace: 'ops', name: 'gcp' },
    },
  },
} as ProviderProfile;
const live = () => new AbortController().signal;

describe('runCredentialsCheck', () => {
  it('returns what the check returns', async () => {
    const failed: CredentialsCheck = async () => ({
      ok: false,
      reason: 'CredentialsInvalid',
      message: 'refused',
    });
    expect(await runCredentialsCheck(noopCredentialsCheck, profile, live(), 1_000)).toEqual({
      ok: true,
      message: 'credentials are not checked',
    });
    expect(await runCredentialsCheck(failed, profile, live(), 1_000)).toEqual({
      ok: false,
      reason: 'CredentialsInvalid',
      message: 'refused',
    });
  });

  it('turns a thrown TerminalError into a failure the user must fix', async () => {
    const check: CredentialsCheck = async () => {
      throw new TerminalError('CredentialsNotFound', 'Secret ops/gcp does not exist');
    };
    expect(await runCredentialsCheck(check, profile, live(), 1_000)).toEqual({
      ok: false,
      reason: 'CredentialsNotFound',
      message: 'Secret ops/gcp does not exist',
    });
  });

  it('turns any other throw into a transient CredentialsCheckFailed', async () => {
    const check: CredentialsCheck = async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.1:443');
    };
    expect(await runCredentialsCheck(check, profile, live(), 1_000)).toEqual({
      ok: false,
      reason: 'CredentialsCheckFailed',
      message: 'checking the credentials failed: connect ECONNREFUSED 10.0.0.1:443',
      transient: true,
    });
  });

  it('cuts off a check that does not settle in time as a transient ProviderUnreachable, aborting its signal', async () => {
    let seen: AbortSignal | undefined;
    const hangs: CredentialsCheck = (_p, signal) => {
      seen = signal;
      return new Promise(() => undefined);
    };
    const result = await runCredentialsCheck(hangs, profile, live(), 50);
    expect(result).toMatchObject({ ok: false, reason: 'ProviderUnreachable', transient: true });
    expect(result.ok ? '' : result.message).toContain('gcp API did not answer');
    expect(seen?.aborted).toBe(true);
  });

  it('rejects with the reason when the caller aborts (shutdown): nothing to record', async () => {
    const controller = new AbortController();
    const hangs: CredentialsCheck = () => new Promise(() => undefined);
    const running = runCredentialsCheck(hangs, profile, controller.signal, 10_000);
    controller.abort(new Error('shutting down'));
    await expect(running).rejects.toThrow('shutting down');
    await expect(
      runCredentialsCheck(noopCredentialsCheck, profile, controller.signal, 1_000),
    ).rejects.toThrow('shutting down');
  });
});
