import {
  ConditionsSchema,
  defineKind,
  FailoverCountFields,
  FailoverRecordFields,
  ReplicaStatusFields,
  immutable,
  quantityBounds,
  StatusEndpoint,
  StringEnum,
  StringMap,
  withValidations,
  type CelRule,
} from '@steward/crd';
import Type from 'typebox';

/**
 * What deleting a CacheCluster does to what it manages: the two policies of every Steward kind,
 * default Retain. Declared here, not imported from @steward/provider-profile-api: a kind that
 * references no ProviderProfile in its chart would otherwise ship the ProviderProfile CRD.
 */
export const CacheClusterDeletionPolicies = ['Retain', 'Delete'] as const;
export type CacheClusterDeletionPolicy = (typeof CacheClusterDeletionPolicies)[number];

/** The servers a CacheCluster can run. Both speak the same protocol and replication. */
export const CacheEngines = ['redis', 'valkey'] as const;
export type CacheEngine = (typeof CacheEngines)[number];

export const CacheModes = ['Standalone', 'Replicated'] as const;
export type CacheMode = (typeof CacheModes)[number];

/** Redis's own `maxmemory-policy` values (valid for Redis 7.0–8.x and Valkey 8). */
export const EvictionPolicies = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
] as const;
export type EvictionPolicy = (typeof EvictionPolicies)[number];

/** What `status.phase` can say. */
export const CachePhases = [
  'Pending',
  'Provisioning',
  'Ready',
  'Scaling',
  'Updating',
  'FailingOver',
  'Degraded',
  'Failed',
  'Deleting',
] as const;
export type CachePhase = (typeof CachePhases)[number];

/**
 * The longest `metadata.name`: the StatefulSet's pods carry the label
 * `controller-revision-hash: <name>-<10 characters>`, which must stay a 63-character label value.
 */
export const MAX_NAME_LENGTH = 52;
/** Most pods of one Replicated CacheCluster (one primary and replicas). */
export const MAX_REPLICAS = 9;
/** The port every CacheCluster serves on (its Services and pods). */
export const CACHE_PORT = 6379;

const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/**
 * A resource quantity as Kubernetes spells it (`250m`, `1Gi`, `512Mi`, `2`), above 0 and, for a
 * size in bytes, a whole number of them. `description` starts with the field's path, which the
 * messages name.
 */
const quantity = (description: string, bytes: boolean, rules: CelRule[] = []) => {
  const field = description.split(':')[0]!;
  return withValidations(Type.String({ maxLength: 32, description }), [
    { rule: 'isQuantity(self)', message: `${field}: not a quantity such as 256Mi or 1Gi` },
    ...quantityBounds(field, { bytes }),
    ...rules,
  ]);
};

const cpuMemory = (what: string) =>
  Type.Object(
    {
      cpu: Type.Optional(quantity(`${what}.cpu: e.g. 250m or 1`, false)),
      memory: Type.Optional(quantity(`${what}.memory: e.g. 256Mi`, true)),
    },
    { additionalProperties: false },
  );

const labelMap = (description: string) =>
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

export const CacheClusterSpec = withValidations(
  Type.Object({
    engine: Type.Optional(
      withValidations(
        StringEnum(CacheEngines, {
          default: 'redis',
          description: 'redis or valkey. Immutable: create a new CacheCluster to change engines.',
        }),
        [immutable('spec.engine is immutable: create a new CacheCluster to change engines')],
      ),
    ),
    version: withValidations(
      Type.String({
        maxLength: 16,
        pattern: '^[0-9]+\\.[0-9]+$',
        description:
          'major.minor of the engine, e.g. 7.0 or 8.0 (redis), 8.1 (valkey); an image of the catalogue (the ProviderProfile, or the controller’s own) must exist for it. May only go up: an older server cannot read a newer one’s data.',
      }),
      [
        {
          rule: "int(self.split('.')[0]) > int(oldSelf.split('.')[0]) || (int(self.split('.')[0]) == int(oldSelf.split('.')[0]) && int(self.split('.')[1]) >= int(oldSelf.split('.')[1]))",
          messageExpression:
            "'spec.version may not go down (from ' + oldSelf + ' to ' + self + '): an older server cannot read the data a newer one wrote'",
        },
      ],
    ),
    mode: Type.Optional(
      withValidations(
        StringEnum(CacheModes, {
          default: 'Standalone',
          description:
            'Standalone: one pod. Replicated: a primary and replicas (REPLICAOF), with failover. Immutable.',
        }),
        [immutable('spec.mode is immutable: create a new CacheCluster to change it')],
      ),
    ),
    replicas: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REPLICAS,
        description:
          'Pods, the primary included. Standalone: 1 (the default). Replicated: 2 or more (default 2).',
      }),
    ),
    size: Type.Optional(
      Type.String({
        maxLength: 63,
        pattern: DNS_LABEL,
        description:
          'A size class of the ProviderProfile (resources, maxMemory and storage); explicit resources, maxMemory and persistence.size win over it.',
      }),
    ),
    resources: Type.Optional(
      Type.Object(
        {
          requests: Type.Optional(cpuMemory('spec.resources.requests')),
          limits: Type.Optional(cpuMemory('spec.resources.limits')),
        },
        { additionalProperties: false, description: 'The server container’s requests and limits.' },
      ),
    ),
    maxMemory: Type.Optional(
      quantity(
        'spec.maxMemory: the dataset limit (Redis maxmemory), e.g. 200Mi; below the memory limit',
        true,
      ),
    ),
    evictionPolicy: Type.Optional(
      StringEnum(EvictionPolicies, {
        default: 'noeviction',
        description: 'Redis maxmemory-policy: what happens when maxMemory is reached.',
      }),
    ),
    persistence: Type.Optional(
      Type.Object(
        {
          enabled: withValidations(
            Type.Boolean({
              default: false,
              description:
                'false: no volumes, a restart loses the data (a cache of regenerable data). true: AOF + RDB on a PersistentVolumeClaim per pod. Immutable.',
            }),
            [
              immutable(
                'spec.persistence.enabled is immutable: create a new CacheCluster to change it',
              ),
            ],
          ),
          size: Type.Optional(
            quantity('spec.persistence.size: each pod’s volume, e.g. 1Gi; grow only', true, [
              {
                rule: '!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0',
                messageExpression:
                  "'spec.persistence.size may only grow (from ' + oldSelf + ' to ' + self + '): a PersistentVolumeClaim cannot shrink'",
              },
            ]),
          ),
          storageClassName: Type.Optional(
            withValidations(
              Type.String({
                maxLength: 253,
                pattern: DNS_SUBDOMAIN,
                description: 'The StorageClass of the volumes. Immutable.',
              }),
              [immutable('spec.persistence.storageClassName is immutable')],
            ),
          ),
        },
        {
          additionalProperties: false,
          default: { enabled: false },
          description: 'Whether the data survives a pod restart.',
        },
      ),
    ),
    auth: Type.Optional(
      withValidations(
        Type.Object(
          {
            existingSecret: Type.Optional(
              Type.Object(
                {
                  name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN }),
                  key: Type.Optional(
                    Type.String({
                      minLength: 1,
                      maxLength: 253,
                      pattern: '^[-._a-zA-Z0-9]+$',
                      default: 'password',
                    }),
                  ),
                },
                {
                  additionalProperties: false,
                  description: 'A Secret of this namespace holding the password.',
                },
              ),
            ),
          },
          {
            additionalProperties: false,
            description:
              'Authentication is always on: a password generated once into the Secret <name>-auth, or the Secret named here. Immutable.',
          },
        ),
        [
          immutable(
            'spec.auth is immutable: create a new CacheCluster to change where the password is kept',
          ),
        ],
      ),
    ),
    failover: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              default: true,
              description: 'Promote a replica when the primary is lost (Replicated only).',
            }),
          ),
          after: Type.Optional(
            withValidations(
              Type.String({
                maxLength: 16,
                default: '10s',
                pattern: '^[0-9]+(ms|s|m)$',
                description:
                  'How long the primary must be gone before a replica is promoted, e.g. 10s (1s–10m).',
              }),
              [
                {
                  rule: "duration(self) >= duration('1s') && duration(self) <= duration('10m')",
                  message: 'spec.failover.after must be between 1s and 10m',
                },
              ],
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    clients: Type.Optional(
      Type.Object(
        {
          podSelector: Type.Optional(labelMap('Labels of the pods allowed to connect.')),
          namespaceSelector: Type.Optional(
            labelMap(
              'Labels of the namespaces those pods may be in; default: this namespace only.',
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Who may connect (the NetworkPolicy): pods matching podSelector (in namespaces matching namespaceSelector); the cluster’s own pods and the controller always may. Absent: nobody else.',
        },
      ),
    ),
    providerProfileRef: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN }) },
        {
          additionalProperties: false,
          description:
            'A kubernetes ProviderProfile: size classes, the image catalogue and guardrails. Default: the controller’s default profile, if it has one.',
        },
      ),
    ),
    deletionPolicy: Type.Optional(
      StringEnum(CacheClusterDeletionPolicies, {
        default: 'Retain',
        description:
          'Retain: deleting the CacheCluster leaves its volumes and auth Secret in place (an Event says where). Delete: they are deleted too.',
      }),
    ),
  }),
  [
    {
      rule: 'has(self.auth) == has(oldSelf.auth)',
      message:
        'spec.auth is immutable: create a new CacheCluster to change where the password is kept',
    },
    {
      rule: '!has(self.persistence) || !has(oldSelf.persistence) || has(self.persistence.storageClassName) == has(oldSelf.persistence.storageClassName)',
      message: 'spec.persistence.storageClassName is immutable',
    },
    {
      rule: "!has(self.replicas) || self.mode != 'Standalone' || self.replicas == 1",
      message: 'spec.replicas must be 1 for mode Standalone: use mode Replicated for replicas',
    },
    {
      rule: "!has(self.replicas) || self.mode != 'Replicated' || self.replicas >= 2",
      message: 'spec.replicas must be at least 2 for mode Replicated (a primary and a replica)',
    },
    {
      rule: "self.mode == 'Replicated' || !has(self.failover) || !has(self.failover.enabled) || !self.failover.enabled",
      message: 'spec.failover needs mode Replicated: a Standalone cache has no replica to promote',
    },
    {
      rule: '!has(self.persistence) || self.persistence.enabled || (!has(self.persistence.size) && !has(self.persistence.storageClassName))',
      message: 'spec.persistence.size and storageClassName need spec.persistence.enabled: true',
    },
    {
      rule: '!has(self.maxMemory) || !has(self.resources) || !has(self.resources.limits) || !has(self.resources.limits.memory) || quantity(self.maxMemory).isLessThan(quantity(self.resources.limits.memory))',
      message:
        'spec.maxMemory must be below spec.resources.limits.memory (the server needs memory beyond its dataset)',
    },
    {
      rule: '!has(self.resources) || !has(self.resources.requests) || !has(self.resources.limits) || !has(self.resources.requests.memory) || !has(self.resources.limits.memory) || quantity(self.resources.requests.memory).compareTo(quantity(self.resources.limits.memory)) <= 0',
      message: 'spec.resources.requests.memory may not exceed spec.resources.limits.memory',
    },
    {
      rule: '!has(self.resources) || !has(self.resources.requests) || !has(self.resources.limits) || !has(self.resources.requests.cpu) || !has(self.resources.limits.cpu) || quantity(self.resources.requests.cpu).compareTo(quantity(self.resources.limits.cpu)) <= 0',
      message: 'spec.resources.requests.cpu may not exceed spec.resources.limits.cpu',
    },
  ],
);

const endpoint = StatusEndpoint;

/**
 * One failover as the controller carried it out (the newest is in status.failover): the shared
 * record (`FailoverRecordFields`) with the replication offsets of Redis/Valkey.
 */
export const FailoverRecord = Type.Object({
  ...FailoverRecordFields,
  promotedOffset: Type.Integer({
    description: 'The replication offset of the promoted replica when it was chosen.',
  }),
  primaryLastOffset: Type.Optional(
    Type.Integer({
      description: 'The last replication offset the controller saw on the old primary.',
    }),
  ),
});

export const CacheClusterStatus = Type.Object({
  phase: Type.Optional(StringEnum(CachePhases)),
  primary: ReplicaStatusFields.primary,
  primaryRunId: Type.Optional(
    Type.String({
      description:
        'The run id of the primary’s server process, recorded once it serves as primary: a different one means the process restarted (and, booting fenced, lost its role).',
    }),
  ),
  replicas: ReplicaStatusFields.replicas,
  readyReplicas: ReplicaStatusFields.readyReplicas,
  image: Type.Optional(
    Type.String({ description: 'The image the pods run (from the catalogue).' }),
  ),
  endpoints: Type.Optional(
    Type.Object({
      readWrite: Type.Optional(endpoint),
      readOnly: Type.Optional(endpoint),
      secretName: Type.Optional(
        Type.String({ description: 'The Secret with the password (key in secretKey).' }),
      ),
      secretKey: Type.Optional(Type.String()),
    }),
  ),
  persistence: Type.Optional(
    Type.Object({
      durable: Type.Boolean({ description: 'Whether the data survives a pod restart.' }),
      message: Type.String(),
    }),
  ),
  failover: Type.Optional(FailoverRecord),
  ...FailoverCountFields,
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** Redis or Valkey run in the cluster by Steward's CacheCluster controller (@steward/cache-cluster). */
export const CacheCluster = defineKind({
  group: 'cache.steward.dev',
  version: 'v1alpha1',
  kind: 'CacheCluster',
  plural: 'cacheclusters',
  shortNames: ['cc'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    'Redis or Valkey run in the cluster: a StatefulSet, Services read-write (the primary) and read-only (replicas), an auth Secret, failover that records what it may have cost.',
  spec: CacheClusterSpec,
  status: CacheClusterStatus,
  validations: [
    {
      rule: `self.metadata.name.size() <= ${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`,
      message: `metadata.name must be a DNS label of at most ${MAX_NAME_LENGTH} characters starting with a letter: it names the StatefulSet, its pods and the Services <name>-rw and <name>-ro`,
    },
  ],
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
    { name: 'Primary', type: 'string', jsonPath: '.status.primary' },
    { name: 'Ready Replicas', type: 'integer', jsonPath: '.status.readyReplicas' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
    { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
      priority: 1,
    },
  ],
});

export type CacheCluster = typeof CacheCluster.$object;
export type CacheClusterSpec = CacheCluster['spec'];
export type CacheClusterStatus = NonNullable<CacheCluster['status']>;
export type FailoverRecord = NonNullable<CacheClusterStatus['failover']>;
