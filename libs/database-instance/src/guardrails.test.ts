import { type DatabaseInstance } from '@steward/database-instance-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { checkGuardrails } from './guardrails.js';

const profile = (spec: Partial<ProviderProfile['spec']> = {}): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'aws-prod' },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: 'steward', name: 'aws' } },
      sizeClasses: { small: 'db.t3.micro', large: 'db.r6g.large' },
      ...spec,
    },
  }) as ProviderProfile;

const db = (spec: Partial<DatabaseInstance['spec']> = {}): DatabaseInstance =>
  ({
    apiVersion: 'database.steward.dev/v1alpha1',
    kind: 'DatabaseInstance',
    metadata: { name: 'orders', namespace: 'shop' },
    spec: {
      providerProfileRef: { name: 'aws-prod' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...spec,
    },
  }) as DatabaseInstance;

describe('checkGuardrails', () => {
  it('names every opt-out of the secure defaults, and allows them where the profile does not require the defaults', () => {
    const open = db({
      security: {
        storageEncrypted: false,
        publiclyAccessible: true,
        deletionProtection: false,
        requireTLS: false,
      },
    });
    expect(checkGuardrails(profile({ guardrails: { requireSecureDefaults: true } }), open)).toEqual(
      {
        reason: 'InsecureSettingNotAllowed',
        message:
          'ProviderProfile aws-prod requires the secure defaults: remove spec.security.storageEncrypted: false, spec.security.publiclyAccessible: true, spec.security.deletionProtection: false, spec.security.requireTLS: false',
      },
    );
    expect(checkGuardrails(profile(), open)).toBeUndefined();
    // The defaults spelled out are no opt-out.
    expect(
      checkGuardrails(
        profile({ guardrails: { requireSecureDefaults: true } }),
        db({ security: { storageEncrypted: true, publiclyAccessible: false } }),
      ),
    ).toBeUndefined();
  });

  it.each([
    [
      'a kafka profile',
      profile({ provider: 'kafka' } as Partial<ProviderProfile['spec']>),
      db(),
      'WrongProvider',
    ],
    [
      'Delete where only Retain is allowed',
      profile({ guardrails: { allowedDeletionPolicies: ['Retain'] } }),
      db({ deletionPolicy: 'Delete' }),
      'DeletionPolicyNotAllowed',
    ],
    [
      'skipping the final snapshot where one is required',
      profile({ guardrails: { requireFinalSnapshot: true } }),
      db({ finalSnapshot: false }),
      'FinalSnapshotRequired',
    ],
    [
      'an opt-out of the secure defaults where the profile requires them',
      profile({ guardrails: { requireSecureDefaults: true } }),
      db({ security: { deletionProtection: false } }),
      'InsecureSettingNotAllowed',
    ],
    ['a size the profile does not define', profile(), db({ size: 'huge' }), 'UnknownSize'],
    [
      'a size outside allowedSizes',
      profile({ guardrails: { allowedSizes: ['small'] } }),
      db({ size: 'large' }),
      'SizeNotAllowed',
    ],
  ] as const)('refuses %s', (_case, p, d, reason) => {
    expect(checkGuardrails(p, d)?.reason).toBe(reason);
  });

  it.each([
    ['the defaults', profile(), db()],
    [
      'Retain where only Retain is allowed',
      profile({ guardrails: { allowedDeletionPolicies: ['Retain'] } }),
      db(),
    ],
    [
      'an explicit instance class instead of a size class',
      profile(),
      db({ size: 'huge', providerOverrides: { aws: { instanceClass: 'db.m6g.large' } } }),
    ],
  ] as const)('allows %s', (_case, p, d) => {
    expect(checkGuardrails(p, d)).toBeUndefined();
  });

  it('names the field, the profile and what is allowed in its message', () => {
    const v = checkGuardrails(
      profile({ guardrails: { allowedDeletionPolicies: ['Retain'] } }),
      db({ deletionPolicy: 'Delete' }),
    );
    expect(v?.message).toBe(
      'spec.deletionPolicy Delete is not allowed by ProviderProfile aws-prod (allowed: Retain)',
    );
  });
});
