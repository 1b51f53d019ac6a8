import { type KubeObject } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { claimNamesOf, deletionGuardrailRefusal } from './deletion.js';

describe('deletionGuardrailRefusal', () => {
  it('holds Delete when the profile allows only other policies, naming the profile and what stays', () => {
    expect(
      deletionGuardrailRefusal('CacheCluster', 'prod', ['Retain'], 'its volumes and Secret'),
    ).toEqual({
      reason: 'DeletionPolicyNotAllowed',
      message:
        'spec.deletionPolicy Delete is not allowed by ProviderProfile prod (allowed: Retain). The CacheCluster is being deleted, but its volumes and Secret are not deleted and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)',
    });
  });
  it('lets Delete through without guardrails, or when they allow it', () => {
    expect(deletionGuardrailRefusal('X', 'p', undefined, 'x')).toBeUndefined();
    expect(deletionGuardrailRefusal('X', 'p', ['Retain', 'Delete'], 'x')).toBeUndefined();
  });
});

describe('claimNamesOf', () => {
  const claim = (namespace: string, name: string, cluster?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace, name, ...(cluster ? { labels: { 'x/cluster': cluster } } : {}) },
  });
  it('names the claims labelled with the object, in its namespace only, sorted', () => {
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'X',
      metadata: { namespace: 'a', name: 'c' },
    };
    const claims = [
      claim('a', 'data-c-1', 'c'),
      claim('a', 'data-c-0', 'c'),
      claim('b', 'data-c-0', 'c'),
      claim('a', 'data-d-0', 'd'),
      claim('a', 'loose'),
    ];
    expect(claimNamesOf(claims, obj, 'x/cluster')).toEqual(['data-c-0', 'data-c-1']);
  });
});
