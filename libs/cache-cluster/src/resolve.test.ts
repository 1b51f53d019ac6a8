import { type CacheCluster } from '@steward/cache-cluster-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { resolveWorkload } from './resolve.js';

const cluster = (spec: Partial<CacheCluster['spec']> = {}): CacheCluster => ({
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1' },
  spec: { version: '7.0', engine: 'redis', mode: 'Replicated', replicas: 2, ...spec },
});

const profile = (kubernetes: Record<string, unknown> = {}): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'production' },
    spec: {
      provider: 'kubernetes',
      namespaces: ['shop'],
      kubernetes: {
        images: [
          {
            engine: 'redis',
            version: '7.0',
            image: `registry.example/redis:7.0.15@sha256:${'b'.repeat(64)}`,
            imagePullPolicy: 'Always',
          },
        ],
        ...kubernetes,
      },
    },
  }) as ProviderProfile;

describe('resolveWorkload: spread guardrail and pull settings', () => {
  it('takes the catalogue entry’s pull policy and the profile’s pull secrets', () => {
    expect(
      resolveWorkload(cluster(), profile({ imagePullSecrets: [{ name: 'regcred' }] })),
    ).toMatchObject({
      allowed: true,
      resolved: { pull: { policy: 'Always', secrets: ['regcred'] } },
    });
  });

  it('runs the built-in catalogue without pull settings of its own (the renderer’s default)', () => {
    const resolution = resolveWorkload(cluster(), undefined);
    expect(resolution.allowed).toBe(true);
    expect(resolution.allowed && resolution.resolved).not.toHaveProperty('pull');
  });

  it('refuses less spread than the profile requires, naming the field to set', () => {
    const strict = profile({ requireSpread: { nodes: 'Required' } });
    expect(resolveWorkload(cluster(), strict)).toEqual({
      allowed: false,
      reason: 'SpreadRequired',
      message:
        'spec.scheduling.spread.nodes Preferred is less than ProviderProfile production requires (spec.kubernetes.requireSpread.nodes: Required): set spec.scheduling.spread.nodes: Required',
    });
    expect(
      resolveWorkload(cluster({ scheduling: { spread: { nodes: 'Required' } } }), strict).allowed,
    ).toBe(true);
  });
});
