import {
  ConditionsSchema,
  defineKind,
  immutable,
  StringEnum,
  StringMap,
  withValidations,
} from '@steward/crd';
import Type from 'typebox';

export const Providers = ['aws', 'gcp', 'kafka'] as const;
export type Provider = (typeof Providers)[number];

export const DeletionPolicies = ['Retain', 'Delete'] as const;
export type DeletionPolicy = (typeof DeletionPolicies)[number];

export const SaslMechanisms = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SaslMechanisms)[number];

/** A size class name as DatabaseInstance's `spec.size` spells it: a DNS label (`small`, `db-large`). */
export const SIZE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

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
  Type.String({
    maxLength: 2048,
    pattern: '^https?://[^\\s]+$',
    description: 'Overrides the API endpoint (a private endpoint, or a local API in tests).',
  }),
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

const kafka = Type.Object(
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
          secretRef: secretReference('A Secret with ca.crt (and tls.crt/tls.key for mutual TLS).'),
        },
        { description: 'Connect with TLS.' },
      ),
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
  },
  {
    description: 'An existing Kafka cluster. Required when provider is kafka, forbidden otherwise.',
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
    aws: Type.Optional(aws),
    gcp: Type.Optional(gcp),
    kafka: Type.Optional(kafka),
    sizeClasses: Type.Optional(
      withValidations(
        StringMap({
          maxProperties: 32,
          description:
            'Size name → the provider instance class or tier, e.g. small: db.t3.micro (AWS) or small: db-f1-micro (GCP).',
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
              description: 'When true, referencing resources may not set finalSnapshot: false.',
            }),
          ),
          allowedSizes: Type.Optional(
            Type.Array(Type.String({ maxLength: 63, pattern: SIZE_NAME_PATTERN }), {
              maxItems: 32,
              'x-kubernetes-list-type': 'set',
              description:
                'Size names referencing resources may use (keys of sizeClasses). Default: every size class.',
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
      rule: '!has(self.guardrails) || !has(self.guardrails.allowedSizes) || self.guardrails.allowedSizes.all(s, has(self.sizeClasses) && s in self.sizeClasses)',
      message: 'spec.guardrails.allowedSizes may only name keys of spec.sizeClasses',
    },
  ],
);

export const ProviderProfileStatus = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  usedBy: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'How many resources reference this profile; deletion waits until it is 0.',
    }),
  ),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * A provider account or cluster and the platform team's guardrails for it. Cluster-scoped:
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
    'A provider (AWS, GCP or a Kafka cluster), the credentials to reach it, default size classes and the guardrails platform teams set for every resource that references it.',
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
