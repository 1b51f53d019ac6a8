import Type from 'typebox';
import { quantityBounds } from './quantity-rules.js';
import {
  type CelRule,
  immutable,
  StringEnum,
  StringMap,
  withValidations,
} from './schema-helpers.js';

/**
 * The spec vocabulary every in-cluster workload kind shares (CacheCluster, PostgresCluster, and a
 * kind the scaffold makes): one schema, one message for one concept — requests and limits, a
 * volume that only grows, who may connect, failover's delay, the size class and ProviderProfile
 * referred to, what deleting keeps — so the API server refuses both kinds' specs alike. Each
 * fragment's messages name the field (`spec.storage.size …`), as `kubectl apply` shows them alone.
 */

/** A Kubernetes object name (RFC 1123 subdomain), e.g. of a Secret or a StorageClass. */
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** An RFC 1123 label, e.g. a size class. */
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/**
 * What deleting an object does to what it manages: the two policies of every Steward kind.
 * `Retain` (the default of `DeletionPolicyField`) leaves it in place; `Delete` deletes it too.
 * The same two as @steward/provider-profile-api's `DeletionPolicies`, declared here because a kind
 * importing that lib would ship the ProviderProfile CRD in its chart.
 */
export const DeletionPolicies = ['Retain', 'Delete'] as const;
export type DeletionPolicy = (typeof DeletionPolicies)[number];

/** `spec.deletionPolicy`, default Retain; `description` says what each policy keeps or deletes. */
export function DeletionPolicyField(description: string) {
  return StringEnum(DeletionPolicies, { default: 'Retain', description });
}

/**
 * When the kubelet pulls a workload's image (a container's `imagePullPolicy`): `IfNotPresent`
 * (Steward's default: once per node, then the node's copy), `Always` (every pod start checks the
 * registry: a moved tag is picked up), `Never` (only images already on the node).
 */
export const ImagePullPolicies = ['Always', 'IfNotPresent', 'Never'] as const;
export type ImagePullPolicy = (typeof ImagePullPolicies)[number];

/** The name of a Kubernetes object in the kind's namespace, e.g. a Secret. */
export function ObjectName() {
  return Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN });
}

/** `spec.providerProfileRef`: the kubernetes ProviderProfile the kind takes its classes from. */
export const ProviderProfileRef = Type.Object(
  { name: ObjectName() },
  {
    additionalProperties: false,
    description:
      'A kubernetes ProviderProfile: size classes, the image catalogue and guardrails. Default: the controller’s default profile, if it has one.',
  },
);

/** `spec.size`: a size class of the ProviderProfile; `description` says what it sizes. */
export function SizeClass(description: string) {
  return Type.String({ maxLength: 63, pattern: DNS_LABEL, description });
}

/** How a `Quantity` field is described and bounded. */
export interface QuantityOptions {
  /** Completes "not a quantity such as …", e.g. `250m or 1`, `256Mi or 1Gi`. */
  example: string;
  /** A size in bytes (memory, a volume): a fraction of a byte is refused (`quantityBounds`). */
  bytes: boolean;
  /** What `kubectl explain` shows. Default: `<field>: e.g. <example>`. */
  description?: string;
  /** Rules checked after the quantity's own, e.g. a transition rule. */
  rules?: CelRule[];
}

/**
 * A resource quantity as Kubernetes spells it (`250m`, `1Gi`, `512Mi`, `2`): a quantity, above 0
 * and, for a size in bytes, a whole number of them. `field` is its path (`spec.maxMemory`), which
 * every message names; a value that is no quantity at all gets the one message
 * `<field>: not a quantity such as <example>`.
 */
export function Quantity(
  field: string,
  { example, bytes, description, rules = [] }: QuantityOptions,
) {
  return withValidations(
    Type.String({ maxLength: 32, description: description ?? `${field}: e.g. ${example}` }),
    [
      { rule: 'isQuantity(self)', message: `${field}: not a quantity such as ${example}` },
      ...quantityBounds(field, { bytes }),
      ...rules,
    ],
  );
}

/** `cpu` and `memory` of `<path>` (`spec.resources.requests` or `.limits`). */
const cpuMemory = (path: string) =>
  Type.Object(
    {
      cpu: Type.Optional(Quantity(`${path}.cpu`, { example: '250m or 1', bytes: false })),
      memory: Type.Optional(Quantity(`${path}.memory`, { example: '256Mi or 1Gi', bytes: true })),
    },
    { additionalProperties: false },
  );

/**
 * `spec.resources`: the requests and limits (cpu, memory) of the kind's server container;
 * `description` says whose. Add `requestsWithinLimits` to the spec's rules: a rule on one of
 * them cannot see the other.
 */
export function ComputeResources(description: string) {
  return Type.Object(
    {
      requests: Type.Optional(cpuMemory('spec.resources.requests')),
      limits: Type.Optional(cpuMemory('spec.resources.limits')),
    },
    { additionalProperties: false, description },
  );
}

/** The spec's rules that keep `spec.resources.requests` (memory, cpu) within its limits. */
export const requestsWithinLimits: CelRule[] = (['memory', 'cpu'] as const).map((resource) => ({
  rule: `!has(self.resources) || !has(self.resources.requests) || !has(self.resources.limits) || !has(self.resources.requests.${resource}) || !has(self.resources.limits.${resource}) || quantity(self.resources.requests.${resource}).compareTo(quantity(self.resources.limits.${resource})) <= 0`,
  message: `spec.resources.requests.${resource} may not exceed spec.resources.limits.${resource}`,
}));

/** How a volume's `size` is described: see `VolumeClaimFields`. */
export interface VolumeSizeOptions {
  /** Completes "not a quantity such as …", e.g. `10Gi or 500Gi`. */
  example: string;
  /** What `kubectl explain` shows of `size`. */
  description: string;
}

/**
 * `size` and `storageClassName` of the PersistentVolumeClaim each pod gets, under `spec.<key>`
 * (to spread into that object): the size a whole number of bytes that may only grow (a claim
 * cannot shrink; the message names both sizes), the StorageClass immutable. Add
 * `storageClassNameStaysSet(key)` to the spec's rules: a rule on the field cannot see it being
 * added or removed.
 */
export function VolumeClaimFields(key: string, size: VolumeSizeOptions) {
  const path = `spec.${key}`;
  return {
    size: Type.Optional(
      Quantity(`${path}.size`, {
        ...size,
        bytes: true,
        rules: [
          {
            rule: '!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0',
            messageExpression: `'${path}.size may only grow (from ' + oldSelf + ' to ' + self + '): a PersistentVolumeClaim cannot shrink'`,
          },
        ],
      }),
    ),
    storageClassName: Type.Optional(
      withValidations(
        Type.String({
          maxLength: 253,
          pattern: DNS_SUBDOMAIN,
          description: 'The StorageClass of the volumes. Immutable.',
        }),
        [immutable(`${path}.storageClassName is immutable`)],
      ),
    ),
  };
}

/** The spec's rule that keeps `spec.<key>.storageClassName` from being added or removed. */
export function storageClassNameStaysSet(key: string): CelRule {
  return {
    rule: `!has(self.${key}) || !has(oldSelf.${key}) || has(self.${key}.storageClassName) == has(oldSelf.${key}.storageClassName)`,
    message: `spec.${key}.storageClassName is immutable`,
  };
}

/** Labels to select by (pods or namespaces): at most 8, Kubernetes label keys and values. */
const labelSelector = (description: string) =>
  withValidations(
    StringMap({
      maxProperties: 8,
      additionalProperties: {
        type: 'string',
        maxLength: 63,
        pattern: '^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$',
      },
      description,
    }),
    [
      {
        rule: "self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))",
        message: 'label keys must be Kubernetes label keys such as app or example.com/tier',
      },
    ],
  );

/**
 * `spec.clients`: who may connect, as the kind's NetworkPolicy lets them. `members` is what the
 * kind calls its own pods (`pods`, `instances`), which always may.
 */
export function ClientsSpec(members: string) {
  return Type.Object(
    {
      podSelector: Type.Optional(labelSelector('Labels of the pods allowed to connect.')),
      namespaceSelector: Type.Optional(
        labelSelector(
          'Labels of the namespaces those pods may be in; default: this namespace only.',
        ),
      ),
    },
    {
      additionalProperties: false,
      description: `Who may connect (the NetworkPolicy): pods matching podSelector (in namespaces matching namespaceSelector); the cluster’s own ${members} and the controller always may. Absent: nobody else.`,
    },
  );
}

/**
 * `spec.failover.enabled` (default true; `enabled` describes it) and `spec.failover.after`
 * (default 10s, 1s–10m), to spread into `spec.failover`. `promoted` is what the kind calls the
 * pod a failover promotes (`replica`, `standby`).
 */
export function FailoverSpecFields(promoted: string, enabled: string) {
  return {
    enabled: Type.Optional(Type.Boolean({ default: true, description: enabled })),
    after: Type.Optional(
      withValidations(
        Type.String({
          maxLength: 16,
          default: '10s',
          pattern: '^[0-9]+(ms|s|m)$',
          description: `How long the primary must be gone before a ${promoted} is promoted, e.g. 10s (1s–10m).`,
        }),
        [
          {
            rule: "duration(self) >= duration('1s') && duration(self) <= duration('10m')",
            message: 'spec.failover.after must be between 1s and 10m',
          },
        ],
      ),
    ),
  };
}
