// spec.scheduling as the real API server admits it: a test kind whose spec is the shared fragment
// alone (each workload kind's admission test proves its own CRD carries it).
import { isInvalid, KubeClient } from '@steward/kube';
import { controlPlaneSuite, customObject, refusalOf } from '@steward/testing';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConditionsSchema, defineKind, SchedulingSpec } from '../src/index.js';

const Placed = defineKind({
  group: 'crdtest.steward.dev',
  version: 'v1alpha1',
  kind: 'Placed',
  plural: 'placeds',
  scope: 'Namespaced',
  description: 'A test kind with spec.scheduling.',
  spec: Type.Object({ scheduling: Type.Optional(SchedulingSpec('pods')) }),
  status: Type.Object({ conditions: Type.Optional(ConditionsSchema) }),
});
type Placed = typeof Placed.$object;

const namespace = 'placement';
const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { generatedCrds: [Placed.crd()], namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'scheduling-test' }),
);
let objects = 0;
const placed = (scheduling: unknown) =>
  customObject<Placed>(
    Placed,
    { name: `p-${++objects}`, namespace },
    scheduling === undefined ? {} : { scheduling },
  );
const create = (scheduling: unknown) =>
  api.client.create<Placed>(Placed.resourceType, placed(scheduling));
const rejection = (scheduling: unknown) => refusalOf(create(scheduling), isInvalid);

const zone = 'topology.kubernetes.io/zone';

describe('spec.scheduling admission (the real API server)', () => {
  it('defaults to spreading over nodes and zones, preferred', async () => {
    expect((await create(undefined)).spec.scheduling).toEqual({
      spread: { nodes: 'Preferred', zones: 'Preferred' },
    });
    expect((await create({ spread: { nodes: 'Required' } })).spec.scheduling).toEqual({
      spread: { nodes: 'Required', zones: 'Preferred' },
    });
  });

  it('admits what a production cluster sets', async () => {
    const scheduling = {
      spread: { nodes: 'Required', zones: 'Required' },
      nodeSelector: { 'node.example.com/pool': 'databases', 'kubernetes.io/arch': 'amd64' },
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
              {
                matchExpressions: [
                  { key: zone, operator: 'In', values: ['eu-1a', 'eu-1b', 'eu-1c'] },
                ],
              },
            ],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 20,
              preference: {
                matchExpressions: [{ key: 'cpu-generation', operator: 'Gt', values: ['3'] }],
              },
            },
          ],
        },
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 50,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: 'orders-api' } },
                namespaces: ['shop'],
                topologyKey: zone,
              },
            },
          ],
        },
      },
    };
    expect((await create(scheduling)).spec.scheduling).toEqual(scheduling);
    const overrides = {
      spread: { nodes: 'Preferred', zones: 'Preferred' },
      affinity: {
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
          labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
          nodeTaintsPolicy: 'Honor',
        },
      ],
    };
    expect((await create(overrides)).spec.scheduling).toEqual(overrides);
  });

  it.each<[string, unknown, string]>([
    [
      'an unknown spread policy',
      { spread: { zones: 'Always' } },
      'spec.scheduling.spread.zones: Unsupported value: "Always"',
    ],
    [
      'a node selector key that is no label key',
      { nodeSelector: { 'bad key': 'x' } },
      'spec.scheduling.nodeSelector: keys must be Kubernetes label keys',
    ],
    [
      'a node selector value that is no label value',
      { nodeSelector: { disk: 'not ok!' } },
      'spec.scheduling.nodeSelector.disk',
    ],
    [
      'a toleration operator Kubernetes does not have',
      { tolerations: [{ key: 'a', operator: 'Matches' }] },
      'spec.scheduling.tolerations[0].operator: Unsupported value: "Matches"',
    ],
    [
      'an unknown taint effect',
      { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoRun' }] },
      'spec.scheduling.tolerations[0].effect: Unsupported value: "NoRun"',
    ],
    [
      'a value with operator Exists',
      { tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] },
      'a toleration with operator Exists takes no value',
    ],
    [
      'a toleration without key or Exists',
      { tolerations: [{ value: 'b' }] },
      'a toleration without a key must have operator Exists',
    ],
    [
      'tolerationSeconds without NoExecute',
      {
        tolerations: [
          { key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 10 },
        ],
      },
      'tolerationSeconds needs effect NoExecute',
    ],
    [
      'In without values',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: zone, operator: 'In' }] }],
            },
          },
        },
      },
      'a node selector requirement: In and NotIn need values; Exists and DoesNotExist take none',
    ],
    [
      'Gt with a value that is no integer',
      {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 1,
                preference: { matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['x'] }] },
              },
            ],
          },
        },
      },
      'Gt and Lt take exactly one value, an integer',
    ],
    [
      'Gt in a pod label selector',
      {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: {
                  matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['1'] }],
                },
                topologyKey: zone,
              },
            ],
          },
        },
      },
      'operator: Unsupported value: "Gt"',
    ],
    [
      'a weight above 100',
      {
        affinity: {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 101, podAffinityTerm: { topologyKey: zone } },
            ],
          },
        },
      },
      'weight: Invalid value: 101',
    ],
    [
      'a pod affinity term without topologyKey',
      { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{}] } } },
      'topologyKey: Required value',
    ],
    [
      'no node selector terms',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
          },
        },
      },
      'nodeSelectorTerms',
    ],
    [
      'maxSkew 0',
      {
        topologySpreadConstraints: [
          { maxSkew: 0, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      'maxSkew: Invalid value: 0',
    ],
    [
      'an unknown whenUnsatisfiable',
      {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'Maybe' }],
      },
      'whenUnsatisfiable: Unsupported value: "Maybe"',
    ],
    [
      'minDomains with ScheduleAnyway',
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
        ],
      },
      'minDomains needs whenUnsatisfiable DoNotSchedule',
    ],
    [
      'two constraints on one topology key and policy',
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
          { maxSkew: 2, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      'Duplicate value',
    ],
    [
      'a topology key that is no label key',
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'no/such/key', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      'spec.scheduling.topologySpreadConstraints[0].topologyKey in body should match',
    ],
    [
      'a Required zone spread beside topologySpreadConstraints that replace it',
      {
        spread: { zones: 'Required' },
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      'spec.scheduling.spread.zones Required does not apply when spec.scheduling.topologySpreadConstraints is given',
    ],
    [
      'a Required node spread beside a podAntiAffinity that replaces it',
      { spread: { nodes: 'Required' }, affinity: { podAntiAffinity: {} } },
      'spec.scheduling.spread.nodes Required does not apply when spec.scheduling.affinity.podAntiAffinity is given',
    ],
    [
      'too many tolerations',
      { tolerations: Array.from({ length: 33 }, (_, i) => ({ key: `k${i}`, operator: 'Exists' })) },
      'spec.scheduling.tolerations: Too many',
    ],
  ])('refuses %s', async (_what, scheduling, message) => {
    expect(await rejection(scheduling)).toContain(message);
  });
});
