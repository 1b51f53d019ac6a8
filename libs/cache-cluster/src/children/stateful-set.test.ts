import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { passwordSecretOf } from './render-children.js';
import { renderStatefulSet } from './stateful-set.js';

const cluster = (spec: Partial<CacheCluster['spec']> = {}): CacheCluster => ({
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1' },
  spec: { version: '7.0', engine: 'redis', mode: 'Replicated', replicas: 3, ...spec },
});

type Pod = {
  affinity: { podAntiAffinity: Record<string, unknown> };
  topologySpreadConstraints: { labelSelector: unknown; whenUnsatisfiable: string }[];
  tolerations?: unknown[];
  imagePullSecrets?: { name: string }[];
  containers: { imagePullPolicy: string }[];
};
const podOf = (c: CacheCluster, extra = {}) =>
  (
    renderStatefulSet({
      cluster: c,
      image: 'ghcr.io/steward-dev/redis:7.0.15',
      passwordSecret: passwordSecretOf(c),
      ...extra,
    }) as unknown as { spec: { template: { spec: Pod } } }
  ).spec.template.spec;

describe('the StatefulSet: placement and image pull (the call site)', () => {
  it('spreads the pods by default over the cluster’s selector and pulls IfNotPresent', () => {
    const pod = podOf(cluster());
    expect(pod.affinity.podAntiAffinity).toHaveProperty(
      'preferredDuringSchedulingIgnoredDuringExecution',
    );
    expect(pod.topologySpreadConstraints[0]).toMatchObject({
      labelSelector: { matchLabels: { 'cache.steward.dev/cluster': 'web' } },
      whenUnsatisfiable: 'ScheduleAnyway',
    });
    expect(pod.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(pod).not.toHaveProperty('imagePullSecrets');
  });

  it('takes spec.scheduling and the resolved pull settings', () => {
    const toleration = {
      key: 'dedicated',
      operator: 'Exists' as const,
      effect: 'NoSchedule' as const,
    };
    const pod = podOf(
      cluster({ scheduling: { spread: { zones: 'Required' }, tolerations: [toleration] } }),
      { pull: { policy: 'Never', secrets: ['mirror'] } },
    );
    expect(pod.topologySpreadConstraints[0]!.whenUnsatisfiable).toBe('DoNotSchedule');
    expect(pod.tolerations).toEqual([toleration]);
    expect(pod.containers[0]!.imagePullPolicy).toBe('Never');
    expect(pod.imagePullSecrets).toEqual([{ name: 'mirror' }]);
  });
});
