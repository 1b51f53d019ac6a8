import Type, { type Static } from 'typebox';
import { type CelRule, StringEnum, StringMap, withValidations } from './schema-helpers.js';

/**
 * `spec.scheduling`, shared by every in-cluster workload kind (CacheCluster, PostgresCluster): where
 * the pods may run and how they spread. By default a cluster's pods spread over nodes and zones,
 * *preferred* (the scheduler still places every pod when it cannot): `spread` makes either
 * `Required`; `nodeSelector` and `tolerations` are handed to the pods as given; `affinity` and
 * `topologySpreadConstraints` replace what the controller renders for them. The controller renders
 * the pods from it (`@steward/workload`'s `renderPlacement`); what the API server can check is
 * checked here, with messages that name the field.
 */

/** How strictly a cluster's pods spread over a topology (nodes, zones). */
export const SpreadPolicies = ['Preferred', 'Required'] as const;
export type SpreadPolicy = (typeof SpreadPolicies)[number];

/** The node label the node spread is over (one domain per node). */
export const NodeTopologyKey = 'kubernetes.io/hostname';
/** The node label the zone spread is over (one domain per availability zone). */
export const ZoneTopologyKey = 'topology.kubernetes.io/zone';

/** A Kubernetes label key (an optional DNS-subdomain prefix and `/`, then a name of ≤ 63 characters). */
export const LABEL_KEY_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
/** A Kubernetes label value (≤ 63 characters, maybe empty). */
const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
/** An RFC 1123 label (a namespace name). */
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** A label key field (the API server's pattern message names its path). */
const labelKey = (description: string) =>
  Type.String({ minLength: 1, maxLength: 317, pattern: LABEL_KEY_PATTERN, description });

const labelValue = () => Type.String({ maxLength: 63, pattern: LABEL_VALUE_PATTERN });

/** A map of label keys to values (`matchLabels`, `nodeSelector`): keys checked by CEL, values by pattern. */
const labelMap = (field: string, max: number, description: string) =>
  withValidations(
    StringMap({
      maxProperties: max,
      additionalProperties: { type: 'string', maxLength: 63, pattern: LABEL_VALUE_PATTERN },
      description,
    }),
    [
      {
        rule: `self.all(k, k.size() <= 317 && k.matches('${LABEL_KEY_PATTERN.replaceAll('\\', '\\\\')}'))`,
        message: `${field}: keys must be Kubernetes label keys such as ${ZoneTopologyKey} or disktype`,
      },
    ],
  );

/** The set operators of a label selector requirement. */
export const LabelSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
/** A node selector requirement also compares numbers: `Gt`, `Lt`. */
export const NodeSelectorOperators = [...LabelSelectorOperators, 'Gt', 'Lt'] as const;

const values = () =>
  Type.Array(labelValue(), {
    maxItems: 64,
    'x-kubernetes-list-type': 'atomic',
    description: 'The values compared with (In, NotIn; Gt and Lt: one integer).',
  });

/**
 * The rules of a requirement: In/NotIn need values, Exists/DoesNotExist take none (Gt/Lt: one
 * integer). `what` names it (the API server names its path).
 */
const requirementRules = (what: string, numeric: boolean): CelRule[] => [
  {
    rule: "(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0) || self.operator in ['Gt', 'Lt']",
    message: `${what}: In and NotIn need values; Exists and DoesNotExist take none`,
  },
  ...(numeric
    ? [
        {
          rule: "!(self.operator in ['Gt', 'Lt']) || (has(self.values) && size(self.values) == 1 && self.values[0].matches('^-?[0-9]+$'))",
          message: `${what}: Gt and Lt take exactly one value, an integer`,
        },
      ]
    : []),
];

/** metav1.LabelSelector: pods (or namespaces) by their labels. */
const labelSelector = (field: string, description: string) =>
  Type.Object(
    {
      matchLabels: Type.Optional(
        labelMap(`${field}.matchLabels`, 16, 'Labels the object must carry, exactly.'),
      ),
      matchExpressions: Type.Optional(
        Type.Array(
          withValidations(
            Type.Object(
              {
                key: labelKey('The label key.'),
                operator: StringEnum(LabelSelectorOperators, {
                  description: 'In, NotIn (values needed), Exists, DoesNotExist (no values).',
                }),
                values: Type.Optional(values()),
              },
              { additionalProperties: false },
            ),
            requirementRules('a label selector requirement', false),
          ),
          { maxItems: 16, 'x-kubernetes-list-type': 'atomic' },
        ),
      ),
    },
    { additionalProperties: false, description },
  );

/** A node selector term: node labels (`matchFields` is not offered). */
const nodeSelectorTerm = () =>
  Type.Object(
    {
      matchExpressions: Type.Optional(
        Type.Array(
          withValidations(
            Type.Object(
              {
                key: labelKey('The node label key.'),
                operator: StringEnum(NodeSelectorOperators, {
                  description:
                    'In, NotIn (values needed), Exists, DoesNotExist (no values), Gt, Lt (one integer value).',
                }),
                values: Type.Optional(values()),
              },
              { additionalProperties: false },
            ),
            requirementRules('a node selector requirement', true),
          ),
          { maxItems: 16, 'x-kubernetes-list-type': 'atomic' },
        ),
      ),
    },
    { additionalProperties: false, description: 'Node labels a node must match (all of them).' },
  );

const weight = () =>
  Type.Integer({ minimum: 1, maximum: 100, description: 'How much the term counts: 1–100.' });

const affinityField = 'spec.scheduling.affinity';

const nodeAffinity = Type.Object(
  {
    requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Type.Object(
        {
          nodeSelectorTerms: Type.Array(nodeSelectorTerm(), {
            minItems: 1,
            maxItems: 8,
            'x-kubernetes-list-type': 'atomic',
            description: 'A node must match one of the terms.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Type.Array(
        Type.Object(
          { weight: weight(), preference: nodeSelectorTerm() },
          { additionalProperties: false },
        ),
        { maxItems: 16, 'x-kubernetes-list-type': 'atomic' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Which nodes the pods run on (node labels).' },
);

/** A pod (anti-)affinity term. Without `labelSelector` it selects this cluster's own pods. */
const podAffinityTerm = (field: string) =>
  Type.Object(
    {
      labelSelector: Type.Optional(
        labelSelector(
          `${field}.labelSelector`,
          'The pods the term is about. Absent: this cluster’s own pods (the controller fills in their labels).',
        ),
      ),
      namespaceSelector: Type.Optional(
        labelSelector(
          `${field}.namespaceSelector`,
          'The namespaces of those pods, by label ({} for every namespace); together with namespaces. Neither: this namespace.',
        ),
      ),
      namespaces: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }), {
          maxItems: 16,
          'x-kubernetes-list-type': 'atomic',
          description: 'The namespaces of those pods, by name; together with namespaceSelector.',
        }),
      ),
      topologyKey: labelKey(
        `The node label whose values are the domains, e.g. ${NodeTopologyKey} or ${ZoneTopologyKey}.`,
      ),
    },
    { additionalProperties: false },
  );

const podAffinity = (field: string, description: string) =>
  Type.Object(
    {
      requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
        Type.Array(podAffinityTerm(`${field}.requiredDuringSchedulingIgnoredDuringExecution`), {
          maxItems: 8,
          'x-kubernetes-list-type': 'atomic',
        }),
      ),
      preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
        Type.Array(
          Type.Object(
            {
              weight: weight(),
              podAffinityTerm: podAffinityTerm(
                `${field}.preferredDuringSchedulingIgnoredDuringExecution`,
              ),
            },
            { additionalProperties: false },
          ),
          { maxItems: 8, 'x-kubernetes-list-type': 'atomic' },
        ),
      ),
    },
    { additionalProperties: false, description },
  );

/** The effects a taint (and so a toleration) can have. */
export const TaintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
/** How a toleration matches a taint's value. */
export const TolerationOperators = ['Equal', 'Exists'] as const;

const toleration = withValidations(
  Type.Object(
    {
      key: Type.Optional(
        Type.String({
          maxLength: 317,
          pattern: `^$|${LABEL_KEY_PATTERN}`,
          description: 'The taint key; empty (with operator Exists) tolerates every taint.',
        }),
      ),
      operator: Type.Optional(
        StringEnum(TolerationOperators, {
          description: 'Equal (the default): the value must match; Exists: any value.',
        }),
      ),
      value: Type.Optional(
        Type.String({
          maxLength: 63,
          pattern: LABEL_VALUE_PATTERN,
          description: 'The taint value to match (operator Equal).',
        }),
      ),
      effect: Type.Optional(
        StringEnum(TaintEffects, { description: 'The effect tolerated; empty: every effect.' }),
      ),
      tolerationSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          format: 'int64',
          description:
            'With effect NoExecute: how long the pod stays on a node after the taint appears (absent: for ever).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  [
    {
      rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
      message: 'spec.scheduling.tolerations: a toleration with operator Exists takes no value',
    },
    {
      rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
      message:
        'spec.scheduling.tolerations: a toleration without a key must have operator Exists (it tolerates every taint)',
    },
    {
      rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
      message: 'spec.scheduling.tolerations: tolerationSeconds needs effect NoExecute',
    },
  ],
);

/** What a topology spread does when it cannot be kept. */
export const WhenUnsatisfiable = ['DoNotSchedule', 'ScheduleAnyway'] as const;
const InclusionPolicies = ['Honor', 'Ignore'] as const;

const topologySpreadConstraint = withValidations(
  Type.Object(
    {
      maxSkew: Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'The most two domains’ pod counts may differ by.',
      }),
      topologyKey: labelKey(
        `The node label whose values are the domains, e.g. ${ZoneTopologyKey}.`,
      ),
      whenUnsatisfiable: StringEnum(WhenUnsatisfiable, {
        description: 'DoNotSchedule: the pod waits (Pending); ScheduleAnyway: a preference.',
      }),
      labelSelector: Type.Optional(
        labelSelector(
          'spec.scheduling.topologySpreadConstraints.labelSelector',
          'The pods counted. Absent: this cluster’s own pods (the controller fills in their labels).',
        ),
      ),
      minDomains: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 100,
          description:
            'With DoNotSchedule: the fewest domains the pods spread over; fewer eligible domains count as empty ones.',
        }),
      ),
      matchLabelKeys: Type.Optional(
        Type.Array(labelKey('A label key of the incoming pod.'), {
          maxItems: 8,
          'x-kubernetes-list-type': 'atomic',
          description:
            'Label keys whose values the incoming pod’s own labels add to labelSelector (e.g. controller-revision-hash: count only pods of the same revision).',
        }),
      ),
      nodeAffinityPolicy: Type.Optional(
        StringEnum(InclusionPolicies, {
          description:
            'Honor (Kubernetes’ default): only nodes the pods’ nodeSelector and nodeAffinity allow count as domains. Ignore: every node.',
        }),
      ),
      nodeTaintsPolicy: Type.Optional(
        StringEnum(InclusionPolicies, {
          description:
            'Honor: nodes with a taint the pods do not tolerate count as no domain (the rendered zone spread says Honor). Ignore (Kubernetes’ default): every node.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  [
    {
      rule: "!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",
      message:
        'spec.scheduling.topologySpreadConstraints: minDomains needs whenUnsatisfiable DoNotSchedule',
    },
  ],
);

const spread = Type.Object(
  {
    nodes: Type.Optional(
      StringEnum(SpreadPolicies, {
        default: 'Preferred',
        description: `Over nodes (${NodeTopologyKey}), by pod anti-affinity. Preferred (default): the scheduler avoids a node that holds another of the cluster’s pods while another node fits. Required: never two on one node; a pod that finds no such node stays Pending (Ready=False, Unschedulable, with the scheduler’s message). Ignored when affinity.podAntiAffinity is given.`,
      }),
    ),
    zones: Type.Optional(
      StringEnum(SpreadPolicies, {
        default: 'Preferred',
        description: `Over availability zones (${ZoneTopologyKey}), by a topology spread constraint with maxSkew 1. Preferred (default): ScheduleAnyway. Required: DoNotSchedule with minDomains 2 — no zone holds two pods more than another, and the pods use at least two zones (a second pod in a one-zone cluster stays Pending, and no pod goes to a node without the zone label: Unschedulable). Ignored when topologySpreadConstraints is given.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    default: {},
    description:
      'How the cluster’s pods spread, so that losing a node (or a zone) loses one instance, not all. A single-pod cluster gets the same rules (they hold trivially), so scaling it never changes its pods.',
  },
);

/** `spec.scheduling`'s spec rules: a Required spread that an override would replace is refused. */
const schedulingRules: CelRule[] = [
  {
    rule: "!has(self.spread) || !has(self.spread.zones) || self.spread.zones != 'Required' || !has(self.topologySpreadConstraints)",
    message:
      'spec.scheduling.spread.zones Required does not apply when spec.scheduling.topologySpreadConstraints is given (they replace the zone spread): remove one of them',
  },
  {
    rule: "!has(self.spread) || !has(self.spread.nodes) || self.spread.nodes != 'Required' || !has(self.affinity) || !has(self.affinity.podAntiAffinity)",
    message:
      'spec.scheduling.spread.nodes Required does not apply when spec.scheduling.affinity.podAntiAffinity is given (it replaces the node spread): remove one of them',
  },
];

/**
 * `spec.scheduling`: where the pods run and how they spread. `members` is what the kind calls its
 * pods (`pods`, `instances`).
 */
export function SchedulingSpec(members: string) {
  return withValidations(
    Type.Object(
      {
        spread: Type.Optional(spread),
        nodeSelector: Type.Optional(
          labelMap(
            'spec.scheduling.nodeSelector',
            16,
            `Node labels every one of the ${members} requires, e.g. {disktype: ssd}.`,
          ),
        ),
        tolerations: Type.Optional(
          Type.Array(toleration, {
            maxItems: 32,
            'x-kubernetes-list-type': 'atomic',
            description: `Taints the ${members} tolerate, e.g. of nodes kept for databases.`,
          }),
        ),
        affinity: Type.Optional(
          Type.Object(
            {
              nodeAffinity: Type.Optional(nodeAffinity),
              podAffinity: Type.Optional(
                podAffinity(
                  `${affinityField}.podAffinity`,
                  'Pods to run near (by topology). A term without labelSelector selects this cluster’s pods.',
                ),
              ),
              podAntiAffinity: Type.Optional(
                podAffinity(
                  `${affinityField}.podAntiAffinity`,
                  'Pods to keep away from; replaces the node spread (spread.nodes). A term without labelSelector selects this cluster’s pods.',
                ),
              ),
            },
            {
              additionalProperties: false,
              description: `The ${members}' affinity. Each part given is used (a pod term without labelSelector selects this cluster’s ${members}); the controller renders only podAntiAffinity (the node spread), which a given podAntiAffinity replaces.`,
            },
          ),
        ),
        topologySpreadConstraints: Type.Optional(
          Type.Array(topologySpreadConstraint, {
            maxItems: 8,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
            description:
              'Replaces the zone spread (spread.zones) the controller renders. A constraint without labelSelector counts this cluster’s pods.',
          }),
        ),
      },
      {
        additionalProperties: false,
        default: {},
        description: `Where the ${members} run and how they spread over nodes and zones (default: both, preferred).`,
      },
    ),
    schedulingRules,
  );
}

type SchedulingSchema = ReturnType<typeof SchedulingSpec>;
/** `spec.scheduling` as the kinds' types see it. */
export type WorkloadScheduling = Static<SchedulingSchema>;
/** One `spec.scheduling.topologySpreadConstraints` entry. */
export type TopologySpreadConstraint = Static<typeof topologySpreadConstraint>;
/** `spec.scheduling.affinity`. */
export type WorkloadAffinity = NonNullable<WorkloadScheduling['affinity']>;
/** One `spec.scheduling.tolerations` entry. */
export type Toleration = Static<typeof toleration>;
