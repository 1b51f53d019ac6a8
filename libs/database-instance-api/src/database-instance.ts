import { ConditionsSchema, defineKind, immutable, StringEnum, withValidations } from '@steward/crd';
import { DeletionPolicies, SIZE_NAME_PATTERN } from '@steward/provider-profile-api';
import Type from 'typebox';

export const Engines = ['postgres', 'mysql'] as const;
export type Engine = (typeof Engines)[number];

/**
 * The provider's state, normalised across RDS (`DBInstanceStatus`) and Cloud SQL (`state`); the raw
 * value is in `status.atProvider.status`. `unknown` is for a raw state the controller cannot map.
 */
export const ProviderStates = [
  'creating',
  'available',
  'modifying',
  'backing-up',
  'maintenance',
  'stopped',
  'deleting',
  'failed',
  'unknown',
] as const;
export type ProviderState = (typeof ProviderStates)[number];

export const AwsStorageTypes = ['gp2', 'gp3', 'io1', 'io2', 'standard'] as const;
export const GcpDataDiskTypes = ['PD_SSD', 'PD_HDD'] as const;

const awsOverrides = Type.Object(
  {
    instanceClass: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^db\\.[a-z0-9.-]+$',
        description: 'RDS DB instance class, e.g. db.t3.micro; wins over spec.size.',
      }),
    ),
    storageType: Type.Optional(StringEnum(AwsStorageTypes)),
    iops: Type.Optional(Type.Integer({ minimum: 1000, maximum: 256000 })),
    dbSubnetGroupName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    vpcSecurityGroupIds: Type.Optional(
      Type.Array(Type.String({ pattern: '^sg-[0-9a-f]+$', maxLength: 32 }), {
        maxItems: 16,
        'x-kubernetes-list-type': 'set',
      }),
    ),
  },
  { description: 'AWS RDS settings; only for an aws ProviderProfile.' },
);

const gcpOverrides = Type.Object(
  {
    tier: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^db-[a-z0-9-]+$',
        description: 'Cloud SQL machine tier, e.g. db-custom-2-7680; wins over spec.size.',
      }),
    ),
    dataDiskType: Type.Optional(StringEnum(GcpDataDiskTypes)),
    zone: Type.Optional(Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9-]+$' })),
  },
  { description: 'GCP Cloud SQL settings; only for a gcp ProviderProfile.' },
);

export const DatabaseInstanceSpec = withValidations(
  Type.Object({
    providerProfileRef: withValidations(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 253 }) },
        { description: 'The cluster-scoped ProviderProfile (aws or gcp) to provision with.' },
      ),
      [
        immutable(
          'spec.providerProfileRef is immutable: an instance cannot move between providers',
        ),
      ],
    ),
    engine: withValidations(StringEnum(Engines, { description: 'Immutable.' }), [
      immutable('spec.engine is immutable'),
    ]),
    version: Type.String({
      maxLength: 32,
      pattern: '^[0-9]+(\\.[0-9]+){0,2}$',
      description: 'Engine version: major (16) or more precise (16.4, 8.0.35).',
    }),
    size: Type.Optional(
      Type.String({
        maxLength: 63,
        pattern: SIZE_NAME_PATTERN,
        description: 'A size class of the ProviderProfile (a key of its spec.sizeClasses).',
      }),
    ),
    providerOverrides: Type.Optional(
      withValidations(
        Type.Object(
          { aws: Type.Optional(awsOverrides), gcp: Type.Optional(gcpOverrides) },
          { description: 'Provider-specific settings that win over spec.size; one block.' },
        ),
        [
          {
            rule: 'has(self.aws) != has(self.gcp)',
            message: 'spec.providerOverrides takes exactly one block: aws or gcp',
          },
        ],
      ),
    ),
    storageGiB: withValidations(
      Type.Integer({ minimum: 10, maximum: 65536, description: 'Allocated storage; grow only.' }),
      [
        {
          rule: 'self >= oldSelf',
          message: 'spec.storageGiB may only grow: RDS and Cloud SQL cannot shrink storage',
        },
      ],
    ),
    highAvailability: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'A standby in another zone (RDS Multi-AZ, Cloud SQL REGIONAL).',
      }),
    ),
    backup: Type.Optional(
      Type.Object(
        {
          retentionDays: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 35,
              default: 7,
              description: 'Days automated backups are kept; 0 turns them off.',
            }),
          ),
        },
        { default: {} },
      ),
    ),
    security: Type.Optional(
      Type.Object(
        {
          storageEncrypted: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                'Encrypt the storage at rest. RDS: StorageEncrypted with the account’s default KMS key, set at creation (an instance created unencrypted stays so: RDS cannot encrypt it in place; status.atProvider.storageEncrypted says). Cloud SQL always encrypts: false is refused.',
            }),
          ),
          publiclyAccessible: Type.Optional(
            Type.Boolean({
              default: false,
              description:
                'RDS PubliclyAccessible: an address reachable from outside the VPC (still behind the security groups). Cloud SQL: true is refused (its instances are reached through authorized networks or the Cloud SQL Auth Proxy).',
            }),
          ),
          deletionProtection: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                'The provider refuses to delete the instance (RDS DeletionProtection, Cloud SQL deletionProtectionEnabled) — by hand or by another tool. With deletionPolicy Delete, deleting this object lifts it first: that field is the explicit consent.',
            }),
          ),
          requireTLS: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                'Cloud SQL: connections must use TLS (sslMode ENCRYPTED_ONLY). RDS: Steward does not manage parameter groups — PostgreSQL 15 and later refuse unencrypted connections by default (rds.force_ssl), MySQL does not; false is refused for aws.',
            }),
          ),
        },
        {
          default: {},
          description:
            'Secure by default: opt out of a default explicitly, and only where the ProviderProfile’s guardrails.requireSecureDefaults allows.',
        },
      ),
    ),
    deletionPolicy: Type.Optional(
      StringEnum(DeletionPolicies, {
        default: 'Retain',
        description:
          'Retain: deleting the resource leaves the instance. Delete: it is deleted too.',
      }),
    ),
    finalSnapshot: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'With deletionPolicy Delete: take a final snapshot before deleting.',
      }),
    ),
    adopt: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Take over an existing instance with the external name instead of failing; never implicit.',
      }),
    ),
    writeConnectionSecretToRef: Type.Optional(
      Type.Object(
        {
          name: Type.String({
            minLength: 1,
            maxLength: 253,
            pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
          }),
        },
        {
          description: 'A Secret in this namespace to write host, port, username and password to.',
        },
      ),
    ),
  }),
  [
    {
      rule: 'has(self.size) || (has(self.providerOverrides) && ((has(self.providerOverrides.aws) && has(self.providerOverrides.aws.instanceClass)) || (has(self.providerOverrides.gcp) && has(self.providerOverrides.gcp.tier))))',
      message:
        'spec.size or an instance class (spec.providerOverrides.aws.instanceClass or spec.providerOverrides.gcp.tier) is required',
    },
  ],
);

export const DatabaseInstanceStatus = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  externalName: Type.Optional(
    Type.String({ description: 'The instance identifier at the provider.' }),
  ),
  providerState: Type.Optional(StringEnum(ProviderStates)),
  adoptedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When an existing resource was adopted through spec.adopt (with the ProviderProfile’s permission), rather than created by this object.',
    }),
  ),
  endpoint: Type.Optional(
    Type.Object({
      host: Type.String(),
      port: Type.Integer({ minimum: 1, maximum: 65535 }),
    }),
  ),
  atProvider: Type.Optional(
    Type.Object(
      {
        status: Type.Optional(
          Type.String({ description: 'The raw provider state, e.g. backing-up or RUNNABLE.' }),
        ),
        instanceClass: Type.Optional(Type.String({ description: 'RDS class or Cloud SQL tier.' })),
        engineVersion: Type.Optional(Type.String()),
        storageGiB: Type.Optional(Type.Integer({ minimum: 0 })),
        highAvailability: Type.Optional(Type.Boolean()),
        backupRetentionDays: Type.Optional(Type.Integer({ minimum: 0 })),
        storageEncrypted: Type.Optional(Type.Boolean()),
        publiclyAccessible: Type.Optional(Type.Boolean()),
        deletionProtection: Type.Optional(Type.Boolean()),
        requireTLS: Type.Optional(Type.Boolean()),
      },
      { description: 'What the provider reports, as last observed.' },
    ),
  ),
});

/** A managed database in AWS RDS or GCP Cloud SQL, chosen by `spec.providerProfileRef`. */
export const DatabaseInstance = defineKind({
  group: 'database.steward.dev',
  version: 'v1alpha1',
  kind: 'DatabaseInstance',
  plural: 'databaseinstances',
  shortNames: ['dbi'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    'A managed PostgreSQL or MySQL instance in AWS RDS or GCP Cloud SQL, provisioned through a ProviderProfile.',
  spec: DatabaseInstanceSpec,
  status: DatabaseInstanceStatus,
  validations: [
    {
      // The default connection Secret, `<name>-connection`, must fit a Secret name (253). The
      // external identifiers need no rule: they are hashed to fit RDS's and Cloud SQL's limits.
      rule: `has(self.spec.writeConnectionSecretToRef) || self.metadata.name.size() <= ${253 - '-connection'.length}`,
      message: `metadata.name is longer than ${253 - '-connection'.length} characters: its connection Secret <name>-connection would exceed Kubernetes' 253; use a shorter name or set spec.writeConnectionSecretToRef.name`,
    },
  ],
  printerColumns: [
    { name: 'Engine', type: 'string', jsonPath: '.spec.engine' },
    { name: 'Size', type: 'string', jsonPath: '.spec.size' },
    { name: 'State', type: 'string', jsonPath: '.status.providerState' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    {
      name: 'Synced',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Synced")].status',
      priority: 1,
    },
    { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
    { name: 'Profile', type: 'string', jsonPath: '.spec.providerProfileRef.name', priority: 1 },
    { name: 'External Name', type: 'string', jsonPath: '.status.externalName', priority: 1 },
  ],
});

export type DatabaseInstance = typeof DatabaseInstance.$object;
export type DatabaseInstanceSpec = DatabaseInstance['spec'];
export type DatabaseInstanceStatus = NonNullable<DatabaseInstance['status']>;
