// The values.schema.json every controller chart ships: the keys charts/steward-common's templates
// read (a controller chart's values.yaml must have them), so helm refuses an unknown key or a value
// of the wrong type before anything is sent. A controller's own values come from its file under
// tools/charts/controllers/ as `ValuesSchemaAdditions`.
import { type ExpandObject } from './json-file.js';

/** A JSON Schema (draft-07) as the values schemas use it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Values a controller's chart has besides the common ones. */
export interface ValuesSchemaAdditions {
  /** Top-level keys, after the common ones; a key the common schema has is refused. */
  properties?: Readonly<Record<string, JsonSchema>>;
  /** Of those keys, the ones values.yaml must set. */
  required?: readonly string[];
}

/** A Kubernetes object name in its DNS-1123 label form, or empty (then defaulted). */
const optionalDnsLabel: JsonSchema = {
  type: 'string',
  maxLength: 63,
  pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$',
};

const stringMap = { $ref: '#/definitions/stringMap' };

const definitions: Record<string, JsonSchema> = {
  dnsLabel: { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
  stringMap: { type: 'object', additionalProperties: { type: 'string' } },
  quantity: {
    type: ['string', 'number'],
    pattern: '^[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$',
  },
  resourceList: {
    type: 'object',
    additionalProperties: false,
    properties: {
      cpu: { $ref: '#/definitions/quantity' },
      memory: { $ref: '#/definitions/quantity' },
      'ephemeral-storage': { $ref: '#/definitions/quantity' },
    },
  },
  duration: { type: 'string', pattern: '^([0-9]+(ms|s|m|h))+$' },
};

const required = [
  'image',
  'replicas',
  'watchNamespace',
  'leaderElection',
  'probePort',
  'logLevel',
  'maxConcurrentReconciles',
  'pollIntervalSeconds',
  'serviceAccount',
  'rbac',
  'resources',
  'service',
  'serviceMonitor',
  'prometheusRule',
  'podDisruptionBudget',
  'networkPolicy',
  'dashboard',
];

const properties: Record<string, JsonSchema> = {
  nameOverride: optionalDnsLabel,
  fullnameOverride: optionalDnsLabel,
  image: {
    type: 'object',
    additionalProperties: false,
    required: ['repository', 'pullPolicy'],
    properties: {
      repository: { type: 'string', minLength: 1 },
      tag: { type: 'string', pattern: '^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$' },
      digest: { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' },
      pullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
    },
  },
  imagePullSecrets: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1 } },
    },
  },
  replicas: {
    description: 'Pods of the controller; more than one needs leader election.',
    type: 'integer',
    minimum: 0,
    maximum: 3,
  },
  watchNamespace: {
    description:
      'Deprecated: watchNamespaces with one namespace. Empty: every namespace. Not with watchNamespaces.',
    ...optionalDnsLabel,
  },
  // Not required: `helm upgrade --reuse-values` from a release before it existed has no such key.
  watchNamespaces: {
    description:
      'The namespaces the controller watches, each with a Role of its own (STEWARD_WATCH_NAMESPACES). Empty: every namespace, with a ClusterRole.',
    type: 'array',
    uniqueItems: true,
    items: { $ref: '#/definitions/dnsLabel' },
  },
  leaderElection: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: { enabled: { type: 'boolean' } },
  },
  probePort: { type: 'integer', minimum: 1024, maximum: 65535 },
  logLevel: {
    type: 'string',
    enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
  },
  maxConcurrentReconciles: { type: 'integer', minimum: 1, maximum: 64 },
  pollIntervalSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
  manageProviderProfiles: {
    description: 'null: on when watching every namespace, off with watchNamespaces.',
    type: ['boolean', 'null'],
  },
  otel: {
    type: 'object',
    additionalProperties: false,
    properties: {
      endpoint: { type: 'string', pattern: '^(https?://[^\\s]+)?$' },
    },
  },
  extraEnv: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        value: { type: 'string' },
        valueFrom: { type: 'object' },
      },
    },
  },
  serviceAccount: {
    type: 'object',
    additionalProperties: false,
    required: ['create', 'name'],
    properties: {
      create: { type: 'boolean' },
      name: { type: 'string', maxLength: 253, pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$' },
      annotations: stringMap,
    },
  },
  rbac: {
    type: 'object',
    additionalProperties: false,
    properties: {
      credentialsSecretNamespaces: {
        type: 'array',
        uniqueItems: true,
        items: { $ref: '#/definitions/dnsLabel' },
      },
    },
  },
  resources: {
    type: 'object',
    additionalProperties: false,
    properties: {
      requests: { $ref: '#/definitions/resourceList' },
      limits: { $ref: '#/definitions/resourceList' },
    },
  },
  terminationGracePeriodSeconds: { type: 'integer', minimum: 0, maximum: 3600 },
  priorityClassName: { type: 'string' },
  podAnnotations: stringMap,
  podLabels: stringMap,
  nodeSelector: stringMap,
  tolerations: { type: 'array', items: { type: 'object' } },
  affinity: { type: 'object' },
  topologySpreadConstraints: { type: 'array', items: { type: 'object' } },
  service: {
    type: 'object',
    additionalProperties: false,
    required: ['port'],
    properties: {
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      annotations: stringMap,
    },
  },
  serviceMonitor: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean' },
      interval: { $ref: '#/definitions/duration' },
      scrapeTimeout: { $ref: '#/definitions/duration' },
      labels: stringMap,
    },
  },
  prometheusRule: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean' },
      labels: stringMap,
    },
  },
  networkPolicy: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean' },
      // NetworkPolicyPeer objects: the API server validates them at install (dry run).
      metricsFrom: { type: 'array', items: { type: 'object' } },
    },
  },
  podDisruptionBudget: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled', 'maxUnavailable'],
    properties: {
      enabled: { type: 'boolean' },
      maxUnavailable: {
        oneOf: [
          { type: 'integer', minimum: 0 },
          { type: 'string', pattern: '^[0-9]+%$' },
        ],
      },
    },
  },
  // Helm adds the values of each dependency under its name, so this key is always there.
  'steward-common': {
    description: 'Set by helm for the steward-common library chart; nothing to configure.',
    type: 'object',
    additionalProperties: false,
    properties: { global: { type: 'object' } },
  },
  dashboard: {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean' },
      namespace: optionalDnsLabel,
      labels: stringMap,
      annotations: stringMap,
    },
  },
};

/** More than one replica only with leader election (only the leader may reconcile). */
const replicasNeedLeaderElection: JsonSchema = {
  if: { properties: { replicas: { minimum: 2 } }, required: ['replicas'] },
  then: { properties: { leaderElection: { properties: { enabled: { const: true } } } } },
};

/** The top-level keys every chart has, in the schema's order. */
export const commonValueKeys: readonly string[] = Object.keys(properties);

/** Thrown when a controller's additions redefine a common value. */
export class ValueRedefinedError extends Error {
  constructor(
    readonly chart: string,
    readonly key: string,
  ) {
    super(`the values schema of ${chart} redefines the common value ${key}`);
    this.name = 'ValueRedefinedError';
  }
}

/**
 * The values schema of `chart`: the common keys, then `additions`. `comment` becomes its
 * `$comment` (it says the file is generated).
 */
export function valuesSchema(
  chart: string,
  additions: ValuesSchemaAdditions,
  comment: string,
): JsonSchema {
  const own = additions.properties ?? {};
  for (const key of Object.keys(own)) {
    if (key in properties) throw new ValueRedefinedError(chart, key);
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment: comment,
    title: `${chart} values`,
    type: 'object',
    additionalProperties: false,
    definitions,
    required: [...required, ...(additions.required ?? [])],
    properties: { ...properties, ...own },
    ...replicasNeedLeaderElection,
  };
}

/** How deeply objects nest in `value` (an object without object members is 1; arrays are transparent). */
function depth(value: unknown): number {
  if (Array.isArray(value)) return Math.max(0, ...value.map(depth));
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depth));
}

/**
 * The schema file's layout: a definition, and anything holding more than one level of nested
 * objects, one member a line; small schemas (`{ "type": "string" }`, a `properties` of those)
 * on one line where they fit.
 */
export const valuesSchemaLayout: ExpandObject = (path, value) =>
  (path.length === 2 && path[0] === 'definitions') || depth(value) > 2;
