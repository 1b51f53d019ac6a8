import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { WorkloadProfiles, type ProfileReferrer } from './workload-profiles.js';

const profile = (name: string, allowed?: ('Retain' | 'Delete')[]): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'kubernetes',
      kubernetes: {},
      ...(allowed ? { guardrails: { allowedDeletionPolicies: allowed } } : {}),
    },
  }) as ProviderProfile;

const obj = (ref?: string): ProfileReferrer => ({
  metadata: { namespace: 'a', name: 'c' },
  spec: ref ? { providerProfileRef: { name: ref } } : {},
});

describe('WorkloadProfiles', () => {
  const known = new Map([
    ['prod', profile('prod', ['Retain'])],
    ['dev', profile('dev')],
    ['both', profile('both', ['Retain', 'Delete'])],
  ]);
  const profiles = new WorkloadProfiles((n) => known.get(n), 'dev');

  it('takes the named profile, else the default', () => {
    expect(profiles.nameOf(obj('prod'))).toBe('prod');
    expect(profiles.nameOf(obj())).toBe('dev');
    expect(new WorkloadProfiles(() => undefined, undefined).nameOf(obj())).toBeUndefined();
    expect(profiles.of(obj('prod'))?.metadata.name).toBe('prod');
  });

  it('admits through the kind’s resolve over the profile, or refuses a missing profile first', () => {
    const seen: (string | undefined)[] = [];
    const resolve = (p: ProviderProfile | undefined) => {
      seen.push(p?.metadata.name);
      return { allowed: true as const, resolved: p?.metadata.name };
    };
    expect(profiles.admit(obj('prod'), resolve)).toEqual({ allowed: true, resolved: 'prod' });
    expect(profiles.admit(obj('gone'), resolve)).toMatchObject({
      allowed: false,
      reason: 'ProviderProfileNotFound',
    });
    expect(seen).toEqual(['prod']);
  });

  it('names a missing profile, and says nothing when none is named', () => {
    expect(profiles.missing(obj('gone'))).toEqual({
      reason: 'ProviderProfileNotFound',
      message:
        'ProviderProfile gone not found: create it, or reference an existing kubernetes profile',
    });
    expect(profiles.missing(obj('prod'))).toBeUndefined();
    expect(new WorkloadProfiles(() => undefined, undefined).missing(obj())).toBeUndefined();
  });

  it('holds Delete when the guardrails allow only other policies, naming the profile and what stays', () => {
    expect(profiles.deletionRefusal('CacheCluster', obj('prod'), 'its volumes and Secret')).toEqual(
      {
        reason: 'DeletionPolicyNotAllowed',
        message:
          'spec.deletionPolicy Delete is not allowed by ProviderProfile prod (allowed: Retain). The CacheCluster is being deleted, but its volumes and Secret are not deleted and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)',
      },
    );
  });

  it('lets Delete through without guardrails, or when they allow it, or without a profile', () => {
    expect(profiles.deletionRefusal('X', obj('dev'), 'x')).toBeUndefined();
    expect(profiles.deletionRefusal('X', obj('both'), 'x')).toBeUndefined();
    expect(profiles.deletionRefusal('X', obj('gone'), 'x')).toBeUndefined();
  });
});
