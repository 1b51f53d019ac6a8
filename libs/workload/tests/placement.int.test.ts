// The pods renderWorkloadStatefulSet places, as the real API server takes them: every spec.scheduling
// the CRD admits renders a StatefulSet Kubernetes' own validation accepts, and what the server
// stores still contains what was rendered (a converged StatefulSet is never re-applied).
import { type WorkloadScheduling } from '@steward/crd';
import { KubeClient, Namespaces, StatefulSets, type KubeObject } from '@steward/kube';
import { startControlPlane, type ControlPlane } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isSubset,
  podSecurityContext,
  renderWorkloadStatefulSet,
  TmpVolume,
  type ImagePull,
} from '../src/index.js';

const namespace = 'placement';
let plane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane();
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'placement-test' });
  await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

const zone = 'topology.kubernetes.io/zone';
let sets = 0;
const render = (scheduling: WorkloadScheduling | undefined, pull?: ImagePull) => {
  const name = `set-${++sets}`;
  const selector = { 'steward.dev/cluster': name };
  return renderWorkloadStatefulSet({
    meta: { namespace, labels: { ...selector } },
    name,
    serviceName: `${name}-headless`,
    selector,
    replicas: 3,
    updateStrategy: 'OnDelete',
    whenScaled: 'Delete',
    podAnnotations: {},
    securityContext: podSecurityContext(999, 999),
    containers: [{ name: 'server', image: 'ghcr.io/steward-dev/redis:7.0.15' }],
    volumes: [TmpVolume],
    claim: { name: 'data', size: '1Gi' },
    ...(scheduling ? { scheduling } : {}),
    ...(pull ? { pull } : {}),
  });
};

describe('rendered placement on the real API server', () => {
  it.each<[string, WorkloadScheduling | undefined, ImagePull | undefined]>([
    ['the default spread', undefined, undefined],
    [
      'a Required spread, pull secrets',
      { spread: { nodes: 'Required', zones: 'Required' } },
      { policy: 'Always', secrets: ['regcred'] },
    ],
    [
      'every field the CRD offers',
      {
        spread: { nodes: 'Preferred', zones: 'Preferred' },
        nodeSelector: { 'node.example.com/pool': 'databases' },
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'databases', effect: 'NoSchedule' },
          {
            key: 'node.kubernetes.io/unreachable',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 30,
          },
          { operator: 'Exists' },
        ],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: zone, operator: 'In', values: ['eu-1a', 'eu-1b'] }] },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 20,
                preference: { matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['3'] }] },
              },
            ],
          },
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                podAffinityTerm: {
                  labelSelector: {
                    matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }],
                  },
                  namespaceSelector: { matchLabels: { tier: 'apps' } },
                  namespaces: ['shop'],
                  topologyKey: zone,
                },
              },
            ],
          },
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', minDomains: 3 },
          {
            maxSkew: 2,
            topologyKey: 'kubernetes.io/hostname',
            whenUnsatisfiable: 'ScheduleAnyway',
            matchLabelKeys: ['controller-revision-hash'],
            nodeAffinityPolicy: 'Ignore',
            nodeTaintsPolicy: 'Honor',
          },
        ],
      },
      { policy: 'Never', secrets: [] },
    ],
    [
      'the spread turned off',
      { affinity: { podAntiAffinity: {} }, topologySpreadConstraints: [] },
      undefined,
    ],
  ])(
    '%s: applied, and the stored StatefulSet still holds every rendered field',
    async (_what, scheduling, pull) => {
      const desired = render(scheduling, pull);
      const applied = await client.apply<KubeObject>(StatefulSets, desired as never, {
        fieldManager: 'placement-test',
      });
      expect(isSubset(desired, applied)).toBe(true);
    },
  );
});
