import {
  ConditionsSchema,
  defineKind,
  ImagePullPolicies,
  immutable,
  quantityBounds,
  SpreadPolicies,
  StringEnum,
  StringMap,
  withValidations,
} from '@steward/crd';
import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';
import { endpointUrl } from './endpoint-url.js';
import { s3Destination } from './s3-destination.js';

/**
 * The providers a profile can describe: two clouds (managed databases), a Kafka cluster (topics),
 * and `kubernetes` — the cluster itself, for workloads the operators run in it (CacheCluster,
 * PostgresCluster).
 */
export const Providers = ['aws', 'gcp', 'kafka', 'kubernetes'] as const;
export type Provider = (typeof Providers)[number];

export const DeletionPolicies = ['Retain', 'Delete'] as const;
export type DeletionPolicy = (typeof DeletionPolicies)[number];

export const SaslMechanisms = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * Which topics a KafkaTopic may manage through a kafka profile: `NamespacePrefix` (the default),
 * only those named `<its namespace>.<…>`, so tenants sharing a cluster cannot reach each other's
 * topics; `Any`, every topic (for a profile bound to one namespace, or tenants that trust each
 * other: then only the claims and the create ledger decide between objects).
 */
export const TopicNamePolicies = ['NamespacePrefix', 'Any'] as const;
export type TopicNamePolicy = (typeof TopicNamePolicies)[number];
export type SaslMechanism = (typeof SaslMechanisms)[number];

/**
 * An image reference as the container runtime reads it: an optional registry host (with a port),
 * lowercase repository path components, then a tag (`:7.0.15`), a digest (`@sha256:` and 64
 * lowercase hex digits) or both in that order. A digest pins the bits; a tag alone may move.
 */
export const IMAGE_REFERENCE_PATTERN =
  '^([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*(:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$';

/** A size class name as DatabaseInstance's `spec.size` spells it: a DNS label (`small`, `db-large`). */
export const SIZE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/**
 * A resource quantity as Kubernetes spells it, without a sign: a decimal number (`1`, `0.5`, `.5`)
 * with an optional binary suffix (`Ki Mi Gi Ti Pi Ei`), decimal suffix (`n u m k M G T P E`) or
 * decimal exponent (`1e3`, `5E-1`). `@steward/provider-profile`'s `parseQuantity` reads exactly
 * these.
 */
export const QUANTITY_PATTERN =
  '^(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][-+]?[0-9]+))?$';

/** A map from names to objects (`additionalProperties: <schema>`), e.g. size classes. */
function ObjectMap<S extends TSchema>(
  values: S,
  options: Record<string, unknown> = {},
): TUnsafe<Record<string, Static<S>>> {
  return Type.Unsafe<Record<string, Static<S>>>({
    type: 'object',
    additionalProperties: values,
    ...options,
  });
}

/**
 * A resource quantity field (`QUANTITY_PATTERN`; the API server's message names the field) above 0
 * and, for a size in bytes, a whole number of them (`quantityBounds`; `field` names it there).
 */
const quantity = (field: string, bytes: boolean, description: string) =>
  withValidations(
    Type.String({ minLength: 1, maxLength: 32, pattern: QUANTITY_PATTERN, description }),
    quantityBounds(field, { bytes }),
  );

/** A Secret in a given namespace (the profile is cluster-scoped, so the namespace is explicit). */
const secretReference = (description: string) =>
  Type.Object(
    {
      namespace: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN }),
      name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN }),
    },
    { description },
  );

/** A Secret and optionally one key in it. */
const credentialsSecretRef = Type.Object(
  {
    namespace: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN }),
    name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN }),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        pattern: '^[-._a-zA-Z0-9]+$',
        description:
          'The key holding the credentials; when omitted the controller reads its documented default keys.',
      }),
    ),
  },
  { description: 'The Secret holding the provider credentials. Never copied into status or logs.' },
);

const endpoint = Type.Optional(
  endpointUrl(
    'Overrides the API endpoint (a private endpoint, or a local API in tests): http(s)://host[:port][/path], no user, password or query.',
    2048,
  ),
);

const region = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9-]+$',
  description: 'e.g. eu-west-1 (AWS) or europe-west1 (GCP).',
});

const aws = Type.Object(
  { region, endpoint, credentialsSecretRef },
  { description: 'AWS (RDS). Required when provider is aws, forbidden otherwise.' },
);

const gcp = Type.Object(
  {
    project: Type.String({
      minLength: 6,
      maxLength: 30,
      pattern: '^[a-z][-a-z0-9]*[a-z0-9]$',
      description: 'The GCP project id.',
    }),
    region,
    endpoint,
    credentialsSecretRef,
  },
  { description: 'GCP (Cloud SQL). Required when provider is gcp, forbidden otherwise.' },
);

const kafka = withValidations(
  Type.Object(
    {
      bootstrapServers: Type.Array(
        Type.String({ minLength: 3, maxLength: 261, pattern: '^\\S+:[0-9]{1,5}$' }),
        {
          minItems: 1,
          maxItems: 32,
          description: 'host:port of at least one broker.',
        },
      ),
      tls: Type.Optional(
        Type.Object(
          {
            secretRef: secretReference(
              'A Secret with ca.crt (and tls.crt/tls.key for mutual TLS).',
            ),
          },
          { description: 'Connect with TLS.' },
        ),
      ),
      topicNamePolicy: Type.Optional(
        StringEnum(TopicNamePolicies, {
          default: 'NamespacePrefix',
          description:
            'Which topics a KafkaTopic may manage through this profile. NamespacePrefix (default): only topics named <namespace>.<name> after the KafkaTopic’s own namespace (TopicNameNotAllowed otherwise), so namespaces sharing the cluster cannot reach each other’s topics. Any: every topic — for a profile bound to one namespace, or tenants that trust each other.',
        }),
      ),
      sasl: Type.Optional(
        Type.Object(
          {
            mechanism: StringEnum(SaslMechanisms),
            secretRef: secretReference('A Secret with username and password.'),
          },
          { description: 'Authenticate with SASL.' },
        ),
      ),
      allowPlaintextSasl: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'SASL without tls sends the credentials (and every record) in clear: refused unless this is true. Set it only for brokers reached over a network you trust.',
        }),
      ),
    },
    {
      description:
        'An existing Kafka cluster. Required when provider is kafka, forbidden otherwise.',
    },
  ),
  [
    {
      rule: '!has(self.sasl) || has(self.tls) || (has(self.allowPlaintextSasl) && self.allowPlaintextSasl)',
      message:
        'spec.kafka.sasl without spec.kafka.tls sends the password in clear: set spec.kafka.tls (a Secret with ca.crt), or spec.kafka.allowPlaintextSasl: true to accept that',
      reason: 'FieldValueForbidden',
      fieldPath: '.sasl',
    },
  ],
);

/** What a kubernetes size class gives each pod of a workload that names it in `spec.size`. */
const kubernetesSizeClass = withValidations(
  Type.Object(
    {
      cpu: quantity(
        'spec.kubernetes.sizeClasses: a size class’s cpu',
        false,
        'The CPU request of each pod, e.g. 500m or 2. No CPU limit is set: CPU is compressible, and a limit only throttles.',
      ),
      memory: quantity(
        'spec.kubernetes.sizeClasses: a size class’s memory',
        true,
        'The memory of each pod, e.g. 1Gi: both its request and its limit (requests = limits for memory, so a pod never holds memory the node did not reserve for it and is not the first to be evicted).',
      ),
      storage: Type.Optional(
        quantity(
          'spec.kubernetes.sizeClasses: a size class’s storage',
          true,
          "The volume of each pod when its data is on PersistentVolumeClaims, e.g. 10Gi. A size the workload states explicitly wins over it; without either, the workload's own default applies.",
        ),
      ),
      maxMemory: Type.Optional(
        quantity(
          'spec.kubernetes.sizeClasses: a size class’s maxMemory',
          true,
          'For caches: the dataset limit (Redis/Valkey maxmemory), e.g. 800Mi; below memory, since the server needs room beyond its dataset. Other workloads do not take it.',
        ),
      ),
    },
    { additionalProperties: false },
  ),
  [
    {
      rule: '!has(self.maxMemory) || !isQuantity(self.maxMemory) || !isQuantity(self.memory) || quantity(self.maxMemory).isLessThan(quantity(self.memory))',
      message:
        'spec.kubernetes.sizeClasses: a size class’s maxMemory must be below its memory (the memory limit): the server needs memory beyond its dataset',
    },
  ],
);

/** One entry of the image catalogue. */
const kubernetesImage = Type.Object(
  {
    engine: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: DNS_LABEL_PATTERN,
      description: 'The server the image runs, as the workload names it: redis, valkey, postgres.',
    }),
    version: Type.String({
      minLength: 1,
      maxLength: 16,
      pattern: '^[0-9]+(\\.[0-9]+)*$',
      description:
        'The version as the workload’s spec.version spells it: 7.0, 8.0 (redis), 8.1 (valkey), 15, 17 (postgres).',
    }),
    image: withValidations(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'The image reference: registry/repository:tag, repository@sha256:<64 hex digits> or both, e.g. registry.example.com/redis:7.0.15@sha256:… Pin by digest (recommended): every pod on every node, and every node that replaces one, then runs the same bits, whatever happens to the tag.',
      }),
      [
        {
          rule: `self.matches('${IMAGE_REFERENCE_PATTERN.replaceAll('\\', '\\\\')}')`,
          message:
            'spec.kubernetes.images: image must be an image reference such as registry.example.com/redis:7.0.15, registry.example.com/redis@sha256:<64 lowercase hex digits> or both (tag, then digest)',
        },
      ],
    ),
    imagePullPolicy: Type.Optional(
      StringEnum(ImagePullPolicies, {
        default: 'IfNotPresent',
        description:
          'When the kubelet pulls the image: IfNotPresent (default; once per node), Always (checks the registry on every pod start: a moved tag is picked up, and the registry must answer), Never (only an image already on the node, e.g. imported by hand).',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The fields of `spec.kubernetes.backup` that keep tenants' backups apart: whether a workload may
 * name its own destination, the endpoints it may name then (the controller lists and prunes the
 * bucket itself, so it only ever connects to an endpoint a profile names), and whether the
 * profile's credentials are copied into workload namespaces (never, unless said explicitly).
 */
const backupIsolationFields = {
  allowWorkloadDestinations: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'false (default): a PostgresCluster using this profile may not set spec.backup.destination or spec.bootstrap.recovery.source.destination (BackupDestinationNotAllowed): its backups go to destination, in the folder <prefix>/<namespace>/<name>, and a recovery source is named by cluster name only, read from <prefix>/<its own namespace>/<source name> — a namespace never reaches another’s folder. true: workloads may name a bucket, prefix and credentials Secret of their own (the platform team’s keys must then scope what each namespace reaches); an endpoint they name must be in allowedEndpoints.',
    }),
  ),
  allowedEndpoints: Type.Optional(
    Type.Array(endpointUrl('An S3 API endpoint, as a backup destination spells it.'), {
      maxItems: 16,
      'x-kubernetes-list-type': 'set',
      description:
        'With allowWorkloadDestinations: the S3 endpoints a workload’s destination may name (besides destination.endpoint), compared exactly (a trailing slash aside). A destination naming another endpoint is refused (BackupEndpointNotAllowed) before anything connects to it: the controller itself lists and prunes the bucket, and never calls an endpoint no profile names. A destination naming no endpoint is AWS S3 of its region.',
    }),
  ),
  copyCredentialsToWorkloadNamespaces: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'false (default): nothing is copied; destination.credentialsSecretRef names a Secret the platform team provisions in each workload namespace, ideally with a key that reaches only that namespace’s folder <prefix>/<namespace>/. true: the controller copies credentialsSourceSecretRef’s keys into a Secret of that name in the namespace of each PostgresCluster that backs up to destination — every such namespace then holds the same key, which reaches whatever that key reaches (use it only for a key scoped to one tenant, or tenants that trust each other).',
    }),
  ),
  credentialsSourceSecretRef: Type.Optional(
    secretReference(
      'With copyCredentialsToWorkloadNamespaces: the Secret (in the platform team’s namespace) whose access key keys, as destination.credentialsSecretRef names them, are copied. Never copied into status or logs.',
    ),
  ),
};

const backupIsolationRules = [
  {
    rule: '!has(self.copyCredentialsToWorkloadNamespaces) || !self.copyCredentialsToWorkloadNamespaces || (has(self.credentialsSourceSecretRef) && has(self.destination))',
    message:
      'spec.kubernetes.backup.copyCredentialsToWorkloadNamespaces needs credentialsSourceSecretRef (the Secret to copy) and destination (whose credentialsSecretRef names the copies)',
  },
  {
    rule: '!has(self.credentialsSourceSecretRef) || (has(self.copyCredentialsToWorkloadNamespaces) && self.copyCredentialsToWorkloadNamespaces)',
    message:
      'spec.kubernetes.backup.credentialsSourceSecretRef is only read with copyCredentialsToWorkloadNamespaces: true (nothing is copied without it)',
  },
  {
    rule: '!has(self.allowedEndpoints) || (has(self.allowWorkloadDestinations) && self.allowWorkloadDestinations)',
    message:
      'spec.kubernetes.backup.allowedEndpoints is only read with allowWorkloadDestinations: true (workloads name no destination, hence no endpoint, without it)',
  },
];

const kubernetes = withValidations(
  Type.Object(
    {
      sizeClasses: Type.Optional(
        withValidations(
          ObjectMap(kubernetesSizeClass, {
            maxProperties: 32,
            description:
              'Size name → the resources (and storage, and for caches maxMemory) of each pod of a workload whose spec.size names it. Resources the workload states explicitly win over its size class.',
          }),
          [
            {
              rule: "self.all(k, k.size() <= 63 && k.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
              message:
                'spec.kubernetes.sizeClasses keys must be lowercase DNS labels such as small or large-ha',
            },
          ],
        ),
      ),
      images: Type.Array(kubernetesImage, {
        minItems: 1,
        maxItems: 64,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['engine', 'version'],
        description:
          'The image catalogue: the image for each engine and version workloads may run. One entry per engine and version; a version that is not listed is refused (ImageNotInCatalogue).',
      }),
      storageClassNames: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN }), {
          minItems: 1,
          maxItems: 32,
          'x-kubernetes-list-type': 'set',
          description:
            'The StorageClasses workloads may put their volumes on; a workload with volumes must then name one of them. Absent: any, including the cluster default.',
        }),
      ),
      maxReplicas: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 1000,
          description:
            'The most pods (replicas) one workload may run. Absent: no limit but the kind’s own.',
        }),
      ),
      maxStorage: Type.Optional(
        quantity(
          'spec.kubernetes.maxStorage',
          true,
          'The largest volume one pod of a workload may ask for, e.g. 100Gi (explicitly or through its size class). Absent: no limit.',
        ),
      ),
      requirePersistence: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'When true, workloads must keep their data on PersistentVolumeClaims (e.g. a CacheCluster with persistence.enabled: true).',
        }),
      ),
      requireSyncReplication: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'When true, PostgresClusters must set replication.mode: sync (a commit is acknowledged only once a standby has it, so a failover loses nothing committed) — a production guardrail.',
        }),
      ),
      requireSpread: Type.Optional(
        Type.Object(
          {
            nodes: Type.Optional(
              StringEnum(SpreadPolicies, {
                description:
                  'Required: workloads must set spec.scheduling.spread.nodes: Required (never two pods of one workload on a node). Preferred: workloads keep at least the default preferred node spread (spec.scheduling.affinity.podAntiAffinity, which replaces it, is refused).',
              }),
            ),
            zones: Type.Optional(
              StringEnum(SpreadPolicies, {
                description:
                  'Required: workloads must set spec.scheduling.spread.zones: Required (their pods over at least two zones, no zone two pods ahead). Preferred: workloads keep at least the default preferred zone spread (spec.scheduling.topologySpreadConstraints, which replaces it, is refused).',
              }),
            ),
          },
          {
            additionalProperties: false,
            description:
              'A production guardrail: how far workloads (CacheCluster, PostgresCluster) must spread their pods over nodes and zones. A workload that asks for less is refused (SpreadRequired) before anything is created or changed. Absent: workloads choose (the default is preferred spread over both).',
          },
        ),
      ),
      imagePullSecrets: Type.Optional(
        Type.Array(
          Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN_PATTERN }) },
            { additionalProperties: false },
          ),
          {
            maxItems: 8,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            description:
              'Secrets (type kubernetes.io/dockerconfigjson) the kubelet pulls the catalogue’s images with, by name: the pods of every workload using this profile reference them, so each must exist in every namespace that uses the profile (the platform team provisions them there). The controller only names them in the pods: it never reads them, and needs no access to Secrets for it. A missing one shows as ImagePullFailed once a pull needs it.',
          },
        ),
      ),
      backup: Type.Optional(
        withValidations(
          Type.Object(
            {
              destination: Type.Optional(
                s3Destination(
                  'The key prefix below which each workload gets its folder <prefix>/<namespace>/<name>, without leading or trailing slash (default: none, the folder is <namespace>/<name>).',
                ),
              ),
              minRetentionDays: Type.Optional(
                Type.Integer({
                  minimum: 1,
                  maximum: 3650,
                  description:
                    'The fewest days of backups a workload may keep: a PostgresCluster whose spec.backup.retentionDays is lower is refused (RetentionBelowMinimum); one that states none keeps this many (at least 7).',
                }),
              ),
              ...backupIsolationFields,
            },
            {
              additionalProperties: false,
              description:
                'Backups of the workloads that use this profile: the destination every PostgresCluster with spec.backup (or spec.bootstrap.recovery) uses, each in the folder <prefix>/<namespace>/<name> the controller derives; whether workloads may name destinations of their own (allowWorkloadDestinations) and which endpoints those may name (allowedEndpoints); where the credentials come from (a Secret the platform team provisions in each workload namespace, scoped to that namespace’s folder — or, only with copyCredentialsToWorkloadNamespaces, a copy of one Secret); and the shortest retention allowed.',
            },
          ),
          backupIsolationRules,
        ),
      ),
      maxFailoverLagBytes: Type.Optional(
        Type.Integer({
          minimum: 0,
          format: 'int64',
          description:
            'The most WAL (bytes) a PostgresCluster failover may be allowed to lose: a PostgresCluster whose failover.maxLagBytes (default 16 MiB) exceeds it is refused. Unset: no bound.',
        }),
      ),
    },
    {
      description:
        'The cluster itself, for workloads the operators run in it (CacheCluster, PostgresCluster): size classes, the image catalogue and limits. Required when provider is kubernetes, forbidden otherwise.',
    },
  ),
  [
    {
      rule: '!has(self.maxStorage) || !has(self.sizeClasses) || !isQuantity(self.maxStorage) || self.sizeClasses.all(k, !has(self.sizeClasses[k].storage) || !isQuantity(self.sizeClasses[k].storage) || quantity(self.sizeClasses[k].storage).compareTo(quantity(self.maxStorage)) <= 0)',
      message:
        'spec.kubernetes.sizeClasses: a size class’s storage may not exceed spec.kubernetes.maxStorage',
    },
  ],
);

/** At most this many namespaces in `spec.namespaces` and `spec.adoption.namespaces`. */
export const MAX_PROFILE_NAMESPACES = 256;

const namespaceNames = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN }), {
    maxItems: MAX_PROFILE_NAMESPACES,
    'x-kubernetes-list-type': 'set',
    description,
  });

/** The operators a `matchExpressions` requirement may use, as metav1.LabelSelector spells them. */
export const LabelSelectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** metav1.LabelSelector: `{}` selects every namespace. */
const namespaceSelector = Type.Object(
  {
    matchLabels: Type.Optional(
      StringMap({ maxProperties: 32, description: 'Labels the namespace must carry, exactly.' }),
    ),
    matchExpressions: Type.Optional(
      Type.Array(
        withValidations(
          Type.Object(
            {
              key: Type.String({ minLength: 1, maxLength: 317 }),
              operator: StringEnum(LabelSelectorOperators),
              values: Type.Optional(
                Type.Array(Type.String({ maxLength: 63 }), {
                  maxItems: 64,
                  'x-kubernetes-list-type': 'atomic',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          [
            {
              rule: "(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0)",
              message:
                'spec.namespaceSelector.matchExpressions: In and NotIn need values; Exists and DoesNotExist take none',
            },
          ],
        ),
        { maxItems: 16, 'x-kubernetes-list-type': 'atomic' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The namespaces (by their labels) whose resources may use this profile, as a label selector: {} selects every namespace. Together with spec.namespaces: a namespace either lists or selects is allowed. Neither set: no namespace may use the profile (refused at admission by the chart’s ValidatingAdmissionPolicy and by the controller: ProfileNotAllowedInNamespace).',
  },
);

/** `spec.<block>` is present exactly when `spec.provider` names it: two rules per block, one message each. */
const providerBlockRules = Providers.flatMap((p) => [
  {
    rule: `self.provider != '${p}' || has(self.${p})`,
    message: `spec.${p} is required when spec.provider is ${p}`,
  },
  {
    rule: `!has(self.${p}) || self.provider == '${p}'`,
    message: `spec.${p} is only allowed when spec.provider is ${p}`,
  },
]);

export const ProviderProfileSpec = withValidations(
  Type.Object({
    provider: withValidations(
      StringEnum(Providers, { description: 'Which provider block applies. Immutable.' }),
      [immutable('spec.provider is immutable: create a new ProviderProfile instead')],
    ),
    namespaces: Type.Optional(
      namespaceNames(
        'The namespaces whose resources may use this profile, by name. Together with spec.namespaceSelector: a namespace either lists or selects is allowed. Neither set: no namespace may use the profile (ProfileNotAllowedInNamespace).',
      ),
    ),
    namespaceSelector: Type.Optional(namespaceSelector),
    adoption: Type.Optional(
      Type.Object(
        {
          namespaces: namespaceNames(
            'The namespaces whose resources may adopt an existing external resource (spec.adopt: true) through this profile — one that carries no Steward ownership mark, or the mark of an earlier object of the same namespace. A resource marked as another namespace’s is never adopted (ExternalResourceOwnedElsewhere).',
          ),
        },
        {
          additionalProperties: false,
          description:
            'Who may adopt existing resources at this provider. Absent: nobody (spec.adopt is refused: AdoptionNotAllowed).',
        },
      ),
    ),
    aws: Type.Optional(aws),
    gcp: Type.Optional(gcp),
    kafka: Type.Optional(kafka),
    kubernetes: Type.Optional(kubernetes),
    sizeClasses: Type.Optional(
      withValidations(
        StringMap({
          maxProperties: 32,
          description:
            'Size name → the provider instance class or tier, e.g. small: db.t3.micro (AWS) or small: db-f1-micro (GCP). A kubernetes profile declares its size classes in spec.kubernetes.sizeClasses instead.',
        }),
        [
          {
            rule: "self.all(k, k.size() <= 63 && k.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
            message: 'spec.sizeClasses keys must be lowercase DNS labels such as small or large-ha',
          },
          {
            rule: 'self.all(k, self[k].size() > 0)',
            message: 'spec.sizeClasses values must name an instance class or tier',
          },
        ],
      ),
    ),
    guardrails: Type.Optional(
      Type.Object(
        {
          allowedDeletionPolicies: Type.Optional(
            Type.Array(StringEnum(DeletionPolicies), {
              minItems: 1,
              maxItems: 2,
              'x-kubernetes-list-type': 'set',
              default: [...DeletionPolicies],
              description:
                'deletionPolicy values referencing resources may use. Default: both. [Retain] forbids deleting through Kubernetes.',
            }),
          ),
          requireFinalSnapshot: Type.Optional(
            Type.Boolean({
              default: false,
              description:
                'When true, referencing resources may not set finalSnapshot: false (DatabaseInstance). Refused on a kubernetes profile.',
            }),
          ),
          requireSecureDefaults: Type.Optional(
            Type.Boolean({
              description:
                'When true, referencing DatabaseInstances may not opt out of spec.security’s defaults (storageEncrypted: false, publiclyAccessible: true, deletionProtection: false, requireTLS: false): the controller refuses them with InsecureSettingNotAllowed. Absent: false. Refused on a kubernetes profile.',
            }),
          ),
          allowedSizes: Type.Optional(
            Type.Array(Type.String({ maxLength: 63, pattern: SIZE_NAME_PATTERN }), {
              maxItems: 32,
              'x-kubernetes-list-type': 'set',
              description:
                'Size names referencing resources may use: keys of spec.sizeClasses, or of spec.kubernetes.sizeClasses for a kubernetes profile. Default: every size class.',
            }),
          ),
        },
        {
          default: {},
          description:
            'Limits the platform team sets; the controller of each referencing resource enforces them with a condition.',
        },
      ),
    ),
  }),
  [
    ...providerBlockRules,
    {
      rule: "self.provider == 'kubernetes' || !has(self.guardrails) || !has(self.guardrails.allowedSizes) || self.guardrails.allowedSizes.all(s, has(self.sizeClasses) && s in self.sizeClasses)",
      message: 'spec.guardrails.allowedSizes may only name keys of spec.sizeClasses',
    },
    {
      // Without the block its own rule speaks; this one would only repeat it.
      rule: "self.provider != 'kubernetes' || !has(self.kubernetes) || !has(self.guardrails) || !has(self.guardrails.allowedSizes) || self.guardrails.allowedSizes.all(s, has(self.kubernetes.sizeClasses) && s in self.kubernetes.sizeClasses)",
      message:
        'spec.guardrails.allowedSizes may only name keys of spec.kubernetes.sizeClasses in a kubernetes profile',
    },
    {
      rule: "self.provider != 'kubernetes' || !has(self.sizeClasses)",
      message:
        'spec.sizeClasses maps sizes to aws or gcp instance classes: a kubernetes profile declares its size classes in spec.kubernetes.sizeClasses',
    },
    {
      // Only `true` is refused: the guardrails' default writes requireFinalSnapshot: false.
      rule: "self.provider != 'kubernetes' || !has(self.guardrails) || !has(self.guardrails.requireFinalSnapshot) || !self.guardrails.requireFinalSnapshot",
      message:
        'spec.guardrails.requireFinalSnapshot is for aws and gcp profiles (DatabaseInstance final snapshots): in-cluster workloads take no final snapshot, so a kubernetes profile cannot require one',
    },
    {
      rule: "self.provider != 'kubernetes' || !has(self.guardrails) || !has(self.guardrails.requireSecureDefaults)",
      message:
        'spec.guardrails.requireSecureDefaults is for aws and gcp profiles (DatabaseInstance spec.security)',
    },
  ],
);

export const ProviderProfileStatus = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  usedBy: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'How many resources reference this profile (the sum of usedByKind); deletion waits until it is 0.',
    }),
  ),
  usedByKind: Type.Optional(
    Type.Unsafe<Record<string, number>>({
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      maxProperties: 32,
      description:
        'How many resources of each kind reference this profile, e.g. {CacheCluster: 2, PostgresCluster: 1}: each controller writes the kinds it watches, so several controllers that use one profile never overwrite each other’s counts.',
    }),
  ),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * A provider account or cluster — or, for `provider: kubernetes`, the cluster the operators run
 * workloads in — and the platform team's guardrails for it. Cluster-scoped:
 * resources in any namespace name it in `spec.providerProfileRef`.
 */
export const ProviderProfile = defineKind({
  group: 'steward.dev',
  version: 'v1alpha1',
  kind: 'ProviderProfile',
  plural: 'providerprofiles',
  shortNames: ['pp'],
  categories: ['steward'],
  scope: 'Cluster',
  description:
    'A provider (AWS, GCP, a Kafka cluster, or this Kubernetes cluster for in-cluster workloads), the credentials to reach it, size classes (and for kubernetes the image catalogue and limits) and the guardrails platform teams set for every resource that references it.',
  spec: ProviderProfileSpec,
  status: ProviderProfileStatus,
  printerColumns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Used By', type: 'integer', jsonPath: '.status.usedBy', priority: 1 },
  ],
});

export type ProviderProfile = typeof ProviderProfile.$object;
export type ProviderProfileSpec = ProviderProfile['spec'];
export type ProviderProfileStatus = NonNullable<ProviderProfile['status']>;
/** `spec.kubernetes`: size classes, the image catalogue and limits for in-cluster workloads. */
export type KubernetesProfileSpec = NonNullable<ProviderProfileSpec['kubernetes']>;
/** One size class of `spec.kubernetes.sizeClasses`. */
export type KubernetesSizeClass = Static<typeof kubernetesSizeClass>;
/** One entry of `spec.kubernetes.images`. */
export type KubernetesImage = Static<typeof kubernetesImage>;
