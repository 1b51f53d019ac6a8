import { type WorkloadScheduling } from '@steward/crd';
import { describe, expect, it } from 'vitest';
import { renderPlacement } from './placement.js';
import {
  podSecurityContext,
  renderWorkloadStatefulSet,
  TmpVolume,
  type WorkloadStatefulSetSpec,
} from './stateful-set.js';

const selector = { 'steward.dev/cluster': 'orders' };
const own = { matchLabels: selector };
const preferredNodes = {
  preferredDuringSchedulingIgnoredDuringExecution: [
    { weight: 100, podAffinityTerm: { labelSelector: own, topologyKey: 'kubernetes.io/hostname' } },
  ],
};
const preferredZones = {
  maxSkew: 1,
  topologyKey: 'topology.kubernetes.io/zone',
  whenUnsatisfiable: 'ScheduleAnyway',
  labelSelector: own,
  nodeTaintsPolicy: 'Honor',
};

describe('renderPlacement', () => {
  it('spreads over nodes and zones, preferred, when nothing is said', () => {
    const expected = {
      affinity: { podAntiAffinity: preferredNodes },
      topologySpreadConstraints: [preferredZones],
    };
    expect(renderPlacement(undefined, selector)).toEqual(expected);
    // as the API server defaults it
    expect(
      renderPlacement({ spread: { nodes: 'Preferred', zones: 'Preferred' } }, selector),
    ).toEqual(expected);
  });

  it('Required: never two pods on a node; zones DoNotSchedule over at least two zones', () => {
    expect(renderPlacement({ spread: { nodes: 'Required', zones: 'Required' } }, selector)).toEqual(
      {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: own, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            minDomains: 2,
            labelSelector: own,
            nodeTaintsPolicy: 'Honor',
          },
        ],
      },
    );
  });

  it('each dimension on its own', () => {
    const zonesOnly = renderPlacement({ spread: { zones: 'Required' } }, selector);
    expect(zonesOnly.affinity).toEqual({ podAntiAffinity: preferredNodes });
    expect(zonesOnly.topologySpreadConstraints[0]).toMatchObject({
      whenUnsatisfiable: 'DoNotSchedule',
    });
    const nodesOnly = renderPlacement({ spread: { nodes: 'Required' } }, selector);
    expect(nodesOnly.topologySpreadConstraints).toEqual([preferredZones]);
  });

  it('hands nodeSelector and tolerations to the pods as given, and leaves empty ones out', () => {
    const scheduling: WorkloadScheduling = {
      nodeSelector: { 'node.example.com/pool': 'databases' },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'databases', effect: 'NoSchedule' },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 30,
        },
      ],
    };
    const placement = renderPlacement(scheduling, selector);
    expect(placement.nodeSelector).toEqual(scheduling.nodeSelector);
    expect(placement.tolerations).toEqual(scheduling.tolerations);
    expect(placement.affinity).toEqual({ podAntiAffinity: preferredNodes });
    const empty = renderPlacement({ nodeSelector: {}, tolerations: [] }, selector);
    expect(empty).not.toHaveProperty('nodeSelector');
    expect(empty).not.toHaveProperty('tolerations');
  });

  it('keeps the node spread beside a given nodeAffinity and podAffinity', () => {
    const nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'disktype', operator: 'In' as const, values: ['ssd'] }] },
        ],
      },
    };
    const podAffinity = {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 50,
          podAffinityTerm: {
            labelSelector: { matchLabels: { app: 'orders-api' } },
            topologyKey: 'topology.kubernetes.io/zone',
          },
        },
      ],
    };
    expect(renderPlacement({ affinity: { nodeAffinity, podAffinity } }, selector).affinity).toEqual(
      { nodeAffinity, podAffinity, podAntiAffinity: preferredNodes },
    );
  });

  it('a given podAntiAffinity replaces the node spread; a term without labelSelector selects the cluster’s pods', () => {
    const placement = renderPlacement(
      {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: 'topology.kubernetes.io/zone' },
            ],
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                podAffinityTerm: {
                  labelSelector: { matchLabels: { app: 'noisy' } },
                  topologyKey: 'kubernetes.io/hostname',
                },
              },
            ],
          },
        },
      },
      selector,
    );
    expect(placement.affinity).toEqual({
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: own, topologyKey: 'topology.kubernetes.io/zone' },
        ],
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 10,
            podAffinityTerm: {
              labelSelector: { matchLabels: { app: 'noisy' } },
              topologyKey: 'kubernetes.io/hostname',
            },
          },
        ],
      },
    });
    // the zone spread stays
    expect(placement.topologySpreadConstraints).toEqual([preferredZones]);
  });

  it('given topologySpreadConstraints replace the zone spread, each without labelSelector counting the cluster’s pods', () => {
    const placement = renderPlacement(
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' },
          {
            maxSkew: 2,
            topologyKey: 'topology.kubernetes.io/region',
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: { tier: 'data' } },
          },
        ],
      },
      selector,
    );
    expect(placement.topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: own,
      },
      {
        maxSkew: 2,
        topologyKey: 'topology.kubernetes.io/region',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { tier: 'data' } },
      },
    ]);
    expect(placement.affinity).toEqual({ podAntiAffinity: preferredNodes });
  });

  it('empty overrides turn the spread off', () => {
    expect(
      renderPlacement(
        { affinity: { podAntiAffinity: {} }, topologySpreadConstraints: [] },
        selector,
      ),
    ).toEqual({ affinity: { podAntiAffinity: {} }, topologySpreadConstraints: [] });
  });
});

describe('renderWorkloadStatefulSet: placement and image pull', () => {
  const base: WorkloadStatefulSetSpec = {
    meta: { namespace: 'shop', labels: { ...selector, 'app.kubernetes.io/name': 'postgres' } },
    name: 'orders',
    serviceName: 'orders-headless',
    selector,
    replicas: 3,
    updateStrategy: 'OnDelete',
    whenScaled: 'Delete',
    podAnnotations: {},
    securityContext: podSecurityContext(999, 999),
    containers: [{ name: 'postgres', image: 'registry.example/postgres:17' }, { name: 'agent' }],
    volumes: [TmpVolume],
  };
  type Pod = {
    imagePullSecrets?: { name: string }[];
    containers: { imagePullPolicy?: string }[];
    affinity: unknown;
    topologySpreadConstraints: unknown;
    nodeSelector?: unknown;
  };
  const podOf = (spec: WorkloadStatefulSetSpec) =>
    (renderWorkloadStatefulSet(spec) as never as { spec: { template: { spec: Pod } } }).spec
      .template.spec;

  it('places the pods over the StatefulSet’s own selector, the default spread without scheduling', () => {
    const pod = podOf(base);
    expect(pod.affinity).toEqual({ podAntiAffinity: preferredNodes });
    expect(pod.topologySpreadConstraints).toEqual([preferredZones]);
    expect(pod).not.toHaveProperty('nodeSelector');
  });

  it('a single-pod cluster gets the same pod template as three: scaling restarts nothing', () => {
    const one = renderWorkloadStatefulSet({ ...base, replicas: 1 }) as never as {
      spec: { replicas: number; template: unknown };
    };
    const three = renderWorkloadStatefulSet({ ...base, replicas: 3 }) as never as {
      spec: { replicas: number; template: unknown };
    };
    expect(one.spec.replicas).toBe(1);
    expect(one.spec.template).toEqual(three.spec.template);
  });

  it('pulls IfNotPresent without pull secrets by default', () => {
    const pod = podOf(base);
    expect(pod.containers.map((c) => c.imagePullPolicy)).toEqual(['IfNotPresent', 'IfNotPresent']);
    expect(pod).not.toHaveProperty('imagePullSecrets');
  });

  it('gives every container the catalogue’s pull policy and the pod the profile’s pull secrets', () => {
    const pod = podOf({
      ...base,
      pull: { policy: 'Always', secrets: ['registry-a', 'registry-b'] },
    });
    expect(pod.containers.map((c) => c.imagePullPolicy)).toEqual(['Always', 'Always']);
    expect(pod.imagePullSecrets).toEqual([{ name: 'registry-a' }, { name: 'registry-b' }]);
  });
});
