import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import { renderStatefulSet } from './stateful-set.js';

const cluster = (spec: Partial<PostgresCluster['spec']> = {}): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'orders', namespace: 'shop', uid: 'u-1' },
    spec: { version: '17', replicas: 3, ...spec },
  }) as PostgresCluster;

type Pod = {
  affinity: { podAntiAffinity: Record<string, { labelSelector?: unknown }[]> };
  topologySpreadConstraints: { labelSelector: unknown; whenUnsatisfiable: string }[];
  nodeSelector?: Record<string, string>;
  imagePullSecrets?: { name: string }[];
  containers: { imagePullPolicy: string }[];
};
const podOf = (c: PostgresCluster, extra = {}) =>
  (
    renderStatefulSet({
      cluster: c,
      image: 'ghcr.io/steward-dev/postgres:17.12',
      storage: { size: '1Gi' },
      ...extra,
    }) as unknown as { spec: { template: { spec: Pod } } }
  ).spec.template.spec;

describe('the instances’ StatefulSet: placement and image pull (the call site)', () => {
  it('spreads the instances by default over the cluster’s own selector and pulls IfNotPresent', () => {
    const pod = podOf(cluster());
    const own = { matchLabels: { 'postgres.steward.dev/cluster': 'orders' } };
    expect(pod.affinity.podAntiAffinity['preferredDuringSchedulingIgnoredDuringExecution']).toEqual(
      [
        {
          weight: 100,
          podAffinityTerm: { labelSelector: own, topologyKey: 'kubernetes.io/hostname' },
        },
      ],
    );
    expect(pod.topologySpreadConstraints[0]).toMatchObject({
      labelSelector: own,
      whenUnsatisfiable: 'ScheduleAnyway',
    });
    expect(pod.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(pod).not.toHaveProperty('imagePullSecrets');
  });

  it('takes spec.scheduling and the resolved pull settings', () => {
    const pod = podOf(
      cluster({
        scheduling: {
          spread: { nodes: 'Required', zones: 'Required' },
          nodeSelector: { pool: 'databases' },
        },
      }),
      { pull: { policy: 'Always', secrets: ['regcred'] } },
    );
    expect(pod.affinity.podAntiAffinity).toHaveProperty(
      'requiredDuringSchedulingIgnoredDuringExecution',
    );
    expect(pod.topologySpreadConstraints[0]!.whenUnsatisfiable).toBe('DoNotSchedule');
    expect(pod.nodeSelector).toEqual({ pool: 'databases' });
    expect(pod.containers[0]!.imagePullPolicy).toBe('Always');
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  });

  it('a major upgrade’s second instance set spreads its own pods (its selector)', () => {
    const pod = podOf(cluster(), { instanceSet: 'orders-v18' });
    expect(pod.topologySpreadConstraints[0]!.labelSelector).toEqual({
      matchLabels: {
        'postgres.steward.dev/cluster': 'orders',
        'postgres.steward.dev/instance-set': 'orders-v18',
      },
    });
  });
});
