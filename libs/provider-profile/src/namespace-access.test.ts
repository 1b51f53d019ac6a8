import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import {
  adoptionRefusal,
  matchesLabelSelector,
  namespaceRefusal,
  profileAllowsAdoption,
  profileAllowsNamespace,
  TenancyReasons,
} from './namespace-access.js';

const profile = (spec: Partial<ProviderProfile['spec']>): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'shared' },
    spec: { provider: 'kubernetes', ...spec },
  }) as ProviderProfile;

describe('matchesLabelSelector', () => {
  const labels = { team: 'shop', tier: 'prod' };
  it.each([
    ['{} matches everything', {}, true],
    ['matchLabels, all present', { matchLabels: { team: 'shop' } }, true],
    ['matchLabels, a value differs', { matchLabels: { team: 'billing' } }, false],
    ['matchLabels, a key missing', { matchLabels: { owner: 'x' } }, false],
    [
      'In, value listed',
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['prod', 'stage'] }] },
      true,
    ],
    [
      'In, key missing',
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      false,
    ],
    [
      'NotIn, value listed',
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }] },
      false,
    ],
    [
      'NotIn, key missing holds',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, true],
    [
      'DoesNotExist, present',
      { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] },
      false,
    ],
    [
      'DoesNotExist, absent',
      { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] },
      true,
    ],
    [
      'every requirement must hold',
      {
        matchLabels: { team: 'shop' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['dev'] }],
      },
      false,
    ],
    [
      'an unknown operator matches nothing',
      { matchExpressions: [{ key: 'team', operator: 'Gt', values: ['1'] }] },
      false,
    ],
  ] as const)('%s', (_name, selector, expected) => {
    expect(matchesLabelSelector(selector as never, labels)).toBe(expected);
  });
});

describe('profileAllowsNamespace', () => {
  it('refuses every namespace when the profile sets neither namespaces nor a selector (the safe default)', () => {
    const p = profile({});
    expect(profileAllowsNamespace(p, { name: 'shop', labels: {} })).toBe(false);
    const refusal = namespaceRefusal(p, { name: 'shop', labels: {} });
    expect(refusal?.reason).toBe(TenancyReasons.ProfileNotAllowedInNamespace);
    expect(refusal?.message).toContain(
      'ProviderProfile shared may not be used from namespace shop',
    );
    expect(refusal?.message).toContain('neither spec.namespaces nor spec.namespaceSelector');
  });
  it('allows a listed namespace, even before its labels are known', () => {
    const p = profile({ namespaces: ['shop', 'billing'] });
    expect(profileAllowsNamespace(p, { name: 'shop' })).toBe(true);
    expect(profileAllowsNamespace(p, { name: 'other', labels: {} })).toBe(false);
  });
  it('allows a namespace the selector selects; {} selects every known namespace', () => {
    const p = profile({ namespaceSelector: { matchLabels: { 'steward.dev/tenant': 'shop' } } });
    expect(profileAllowsNamespace(p, { name: 'a', labels: { 'steward.dev/tenant': 'shop' } })).toBe(
      true,
    );
    expect(
      profileAllowsNamespace(p, { name: 'b', labels: { 'steward.dev/tenant': 'other' } }),
    ).toBe(false);
    expect(
      profileAllowsNamespace(profile({ namespaceSelector: {} }), { name: 'x', labels: {} }),
    ).toBe(true);
  });
  it('never selects a namespace whose labels are unknown, and says so', () => {
    const p = profile({ namespaceSelector: {} });
    expect(profileAllowsNamespace(p, { name: 'x' })).toBe(false);
    expect(namespaceRefusal(p, { name: 'x' })?.message).toContain('labels are not known yet');
  });
  it('allows what either field allows', () => {
    const p = profile({ namespaces: ['a'], namespaceSelector: { matchLabels: { t: 'b' } } });
    expect(profileAllowsNamespace(p, { name: 'a', labels: {} })).toBe(true);
    expect(profileAllowsNamespace(p, { name: 'b', labels: { t: 'b' } })).toBe(true);
    expect(namespaceRefusal(p, { name: 'c', labels: {} })?.message).toContain(
      'namespace c is neither listed in its spec.namespaces nor selected by its spec.namespaceSelector',
    );
  });
});

describe('adoption', () => {
  it('is allowed only from the namespaces spec.adoption names', () => {
    const p = profile({ adoption: { namespaces: ['legacy'] } });
    expect(profileAllowsAdoption(p, 'legacy')).toBe(true);
    expect(profileAllowsAdoption(p, 'shop')).toBe(false);
    expect(profileAllowsAdoption(profile({}), 'legacy')).toBe(false);
    expect(adoptionRefusal(p, 'shop')?.reason).toBe(TenancyReasons.AdoptionNotAllowed);
    expect(adoptionRefusal(p, 'legacy')).toBeUndefined();
  });
});
