import {
  ClientsSpec,
  ComputeResources,
  ConditionsSchema,
  defineKind,
  DeletionPolicyField,
  FailoverCountFields,
  FailoverRecordFields,
  FailoverSpecFields,
  FencingStatus,
  immutable,
  ObjectName,
  ProviderProfileRef,
  Quantity,
  ReplicaStatusFields,
  requestsWithinLimits,
  RolloutSpec,
  SchedulingSpec,
  SizeClass,
  StatusEndpoint,
  storageClassNameStaysSet,
  StringEnum,
  SwitchoverPauseFields,
  SwitchoverReasons,
  VolumeClaimFields,
  withValidations,
  WorkloadColumns,
  workloadPhases,
} from '@steward/crd';
import Type from 'typebox';

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
export const CachePhases = workloadPhases('SwitchingOver');
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

/** `spec.fencing.maxLag`'s range, in whole seconds (Redis/Valkey `min-replicas-max-lag`). */
export const FENCING_MAX_LAG_SECONDS = { min: 1, max: 60 } as const;

/**
 * The fence's bound over `min-replicas-max-lag` S: a primary counts a replica good while the
 * replica's last acknowledgement is at most S whole seconds old (the server's clock in whole
 * seconds: up to 1 s more), and refreshes that count once a second (up to 1 s more): it refuses
 * writes at most S + 2 seconds after the last acknowledgement it received.
 */
export const FENCING_BOUND_MARGIN_SECONDS = 2;

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
      SizeClass(
        'A size class of the ProviderProfile (resources, maxMemory and storage); explicit resources, maxMemory and persistence.size win over it.',
      ),
    ),
    resources: Type.Optional(ComputeResources('The server container’s requests and limits.')),
    maxMemory: Type.Optional(
      Quantity('spec.maxMemory', {
        example: '256Mi or 1Gi',
        bytes: true,
        description:
          'spec.maxMemory: the dataset limit (Redis maxmemory), e.g. 200Mi; below the memory limit',
      }),
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
          ...VolumeClaimFields('persistence', {
            example: '256Mi or 1Gi',
            description: 'spec.persistence.size: each pod’s volume, e.g. 1Gi; grow only',
          }),
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
                  name: ObjectName(),
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
        FailoverSpecFields(
          'replica',
          'Promote a replica when the primary is lost (Replicated only).',
        ),
        { additionalProperties: false },
      ),
    ),
    fencing: Type.Optional(
      Type.Object(
        {
          minReplicas: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: MAX_REPLICAS - 1,
              default: 1,
              description:
                'Redis/Valkey min-replicas-to-write: the primary refuses writes (NOREPLICAS) unless at least this many replicas acknowledged its replication stream within maxLag. At most spec.replicas − 1; with spec.replicas − 1 (every replica) a failover, which loses the old primary, leaves the new one refusing writes until the old pod returns as a replica.',
            }),
          ),
          maxLag: Type.Optional(
            withValidations(
              Type.String({
                maxLength: 8,
                pattern: '^[0-9]+s$',
                default: '2s',
                description:
                  'Redis/Valkey min-replicas-max-lag, in whole seconds (1s–60s): a replica counts while its last acknowledgement is at most this old. The fence bound (status.fencing.boundSeconds) is this + 2 s: a primary cut off from its replicas refuses writes within it, and a failover promotes only once it has passed since any replica was last linked to the old primary.',
              }),
              [
                {
                  rule: `duration(self) >= duration('${FENCING_MAX_LAG_SECONDS.min}s') && duration(self) <= duration('${FENCING_MAX_LAG_SECONDS.max}s')`,
                  message: `spec.fencing.maxLag must be between ${FENCING_MAX_LAG_SECONDS.min}s and ${FENCING_MAX_LAG_SECONDS.max}s`,
                },
              ],
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Durability (Replicated only): a primary cut off from its replicas stops accepting writes by itself (min-replicas-to-write / min-replicas-max-lag in every pod’s redis.conf), so a failover never overlaps a primary still acknowledging writes, and before it is resynchronised a returning old primary’s dataset is saved (status.failover.salvage). Absent: no fence (status.fencing.mode None): a primary cut off from the controller and its replicas may go on acknowledging writes that the next failover loses. The cost: writes are refused while fewer than minReplicas replicas are linked and caught up (a replica restarting, a two-pod cluster after a failover).',
        },
      ),
    ),
    rollout: Type.Optional(
      RolloutSpec(
        'replica',
        'FAILOVER TO the replica: the primary pauses writes, waits until the replica has received every byte of its replication stream, then becomes its replica (the switchover of status.switchover, reason Rollout; without that the switchover is given up and writes resume on the old primary)',
        'Restart restarts the primary in place: its server comes back fenced (without persistence, empty), so the failover rules promote the replica with the highest offset after failover.after, as for any lost primary (status.failover).',
      ),
    ),
    scheduling: Type.Optional(SchedulingSpec('pods')),
    clients: Type.Optional(ClientsSpec('pods')),
    providerProfileRef: Type.Optional(ProviderProfileRef),
    deletionPolicy: Type.Optional(
      DeletionPolicyField(
        'Retain: deleting the CacheCluster leaves its volumes and auth Secret in place (an Event says where). Delete: they are deleted too.',
      ),
    ),
  }),
  [
    {
      rule: 'has(self.auth) == has(oldSelf.auth)',
      message:
        'spec.auth is immutable: create a new CacheCluster to change where the password is kept',
    },
    storageClassNameStaysSet('persistence'),
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
      rule: "!has(self.fencing) || self.mode == 'Replicated'",
      message:
        'spec.fencing needs mode Replicated: a Standalone cache has no replica to acknowledge its writes',
    },
    {
      rule: '!has(self.fencing) || !has(self.fencing.minReplicas) || self.fencing.minReplicas <= (has(self.replicas) ? self.replicas : 2) - 1',
      message:
        'spec.fencing.minReplicas must be at most spec.replicas − 1 (the replicas there are; spec.replicas defaults to 2 in mode Replicated)',
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
    ...requestsWithinLimits,
  ],
);

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

/**
 * One planned switchover of the primary role (the newest is in status.switchover): the shared
 * write pause (`SwitchoverPauseFields`) with the replication offsets of Redis/Valkey.
 */
export const SwitchoverRecord = Type.Object({
  phase: StringEnum(['Demoting', 'Completed', 'Failed'] as const, {
    description:
      'Demoting: the old primary is out of the read-write Service and hands over with FAILOVER TO the replica (writes paused until the replica has every byte, then it becomes the replica’s replica). Completed: the replica serves as primary. Failed: the old primary stays primary (message says why).',
  }),
  from: Type.String({ description: 'The pod that was primary.' }),
  to: Type.String({ description: 'The replica made primary.' }),
  reason: StringEnum(SwitchoverReasons, {
    description:
      'Rollout: a rolling update reached the primary and spec.rollout.primary is Switchover. NodeDrain: the primary’s node is cordoned (a drain), so the role moves to a replica on another node before the pod can be evicted. (Requested and ScaleDown are PostgresCluster’s.)',
  }),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  ...SwitchoverPauseFields,
  primaryLastOffset: Type.Optional(
    Type.Integer({
      description:
        'The replication offset of the old primary when the switchover was decided (its writes were still flowing).',
    }),
  ),
  promotedOffset: Type.Optional(
    Type.Integer({
      description:
        'The replication offset of the new primary when it was first seen serving: every byte the old primary acknowledged (FAILOVER hands over only at its final offset).',
    }),
  ),
  message: Type.String(),
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
      readWrite: Type.Optional(StatusEndpoint),
      readOnly: Type.Optional(StatusEndpoint),
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
  fencing: Type.Optional(FencingStatus),
  failover: Type.Optional(FailoverRecord),
  ...FailoverCountFields,
  switchover: Type.Optional(SwitchoverRecord),
  switchoverCount: Type.Optional(Type.Integer({ minimum: 0 })),
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
    WorkloadColumns.ready,
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
    WorkloadColumns.primary,
    WorkloadColumns.readyReplicas,
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
    { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
    WorkloadColumns.reason,
  ],
});

export type CacheCluster = typeof CacheCluster.$object;
export type CacheClusterSpec = CacheCluster['spec'];
export type CacheClusterStatus = NonNullable<CacheCluster['status']>;
export type FailoverRecord = NonNullable<CacheClusterStatus['failover']>;
export type SwitchoverRecord = NonNullable<CacheClusterStatus['switchover']>;
export type CacheFencing = NonNullable<CacheClusterSpec['fencing']>;
