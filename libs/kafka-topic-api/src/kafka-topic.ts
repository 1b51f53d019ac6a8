import {
  ConditionsSchema,
  defineKind,
  immutable,
  StringEnum,
  StringMap,
  withValidations,
} from '@steward/crd';
import { DeletionPolicies } from '@steward/provider-profile-api';
import Type from 'typebox';

/** Kafka's legal topic name (`org.apache.kafka.common.internals.Topic`): also not `.` or `..`. */
export const TOPIC_NAME_PATTERN = '^[a-zA-Z0-9._-]{1,249}$';
/** Kafka's limit on a topic name's length. */
export const TOPIC_NAME_MAX_LENGTH = 249;
/** A `spec.config` key as Kafka spells topic-level configs (`retention.ms`, `cleanup.policy`). */
export const CONFIG_KEY_PATTERN = '^[a-z0-9.]+$';
export const MAX_CONFIG_ENTRIES = 64;
export const MAX_PARTITIONS = 10000;
export const MAX_REPLICATION_FACTOR = 32;

/**
 * The topic's state at the broker: `available` when every partition has a leader, `unavailable`
 * otherwise (a broker holding its only replicas is down).
 */
export const TopicStates = ['available', 'unavailable'] as const;
export type TopicState = (typeof TopicStates)[number];

export const KafkaTopicSpec = Type.Object({
  providerProfileRef: withValidations(
    Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 253 }) },
      { description: 'The cluster-scoped ProviderProfile (provider kafka) of the Kafka cluster.' },
    ),
    [immutable('spec.providerProfileRef is immutable: a topic cannot move between Kafka clusters')],
  ),
  topicName: Type.Optional(
    withValidations(
      Type.String({
        minLength: 1,
        maxLength: TOPIC_NAME_MAX_LENGTH,
        pattern: TOPIC_NAME_PATTERN,
        description:
          "The topic's name in Kafka; default metadata.name. Letters, digits, '.', '_' and '-', at most 249. Immutable.",
      }),
      [
        {
          rule: "self != '.' && self != '..'",
          message: "spec.topicName may not be '.' or '..'",
        },
        immutable('spec.topicName is immutable: create a new KafkaTopic for another topic'),
      ],
    ),
  ),
  partitions: withValidations(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PARTITIONS,
      description: 'Number of partitions; may only increase.',
    }),
    [
      {
        rule: 'self >= oldSelf',
        message: 'spec.partitions may only increase: Kafka cannot remove partitions from a topic',
      },
    ],
  ),
  replicationFactor: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_REPLICATION_FACTOR,
      description:
        "Replicas per partition; default the broker's default.replication.factor. A change is reported NotSupported: the admin API cannot change it.",
    }),
  ),
  config: Type.Optional(
    withValidations(
      StringMap({
        maxProperties: MAX_CONFIG_ENTRIES,
        additionalProperties: { type: 'string', maxLength: 4096 },
        description:
          "Topic-level configs (e.g. retention.ms: '604800000', cleanup.policy: compact). Only these keys are managed: keys set on the topic by others are left alone; a key removed from here is reset to the cluster default.",
      }),
      [
        {
          rule: "self.all(k, k.size() <= 128 && k.matches('^[a-z0-9.]+$'))",
          message:
            'spec.config keys must be Kafka topic config names: lowercase letters, digits and dots, such as retention.ms',
        },
      ],
    ),
  ),
  deletionPolicy: Type.Optional(
    StringEnum(DeletionPolicies, {
      default: 'Retain',
      description:
        'Retain: deleting the resource leaves the topic and its data. Delete: the topic is deleted too.',
    }),
  ),
  adopt: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Take over an existing topic of this name instead of failing with AlreadyExists; never implicit.',
    }),
  ),
});

export const KafkaTopicStatus = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  topicName: Type.Optional(Type.String({ description: "The topic's name in Kafka." })),
  partitions: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Partitions the topic has, as last observed.' }),
  ),
  replicationFactor: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'Replicas per partition (the fewest of any partition), as last observed.',
    }),
  ),
  config: Type.Optional(
    StringMap({
      description:
        'The managed config keys (those of spec.config) and their values on the topic, as last observed.',
    }),
  ),
  externalName: Type.Optional(
    Type.String({
      description: 'The topic name as the external-resource reconciler records it (= topicName).',
    }),
  ),
  providerState: Type.Optional(StringEnum(TopicStates)),
  adoptedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When an existing resource was adopted through spec.adopt (with the ProviderProfile’s permission), rather than created by this object.',
    }),
  ),
});

/** A topic on an existing Kafka cluster reached through a `kafka` ProviderProfile. */
export const KafkaTopic = defineKind({
  group: 'kafka.steward.dev',
  version: 'v1alpha1',
  kind: 'KafkaTopic',
  plural: 'kafkatopics',
  shortNames: ['kt'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    'A topic on an existing Kafka cluster, reached through a kafka ProviderProfile: partitions (increase only), replication factor and topic-level config, kept converged.',
  spec: KafkaTopicSpec,
  status: KafkaTopicStatus,
  validations: [
    {
      // metadata.name is a DNS subdomain (legal in a topic name) of up to 253 characters.
      rule: `has(self.spec.topicName) || self.metadata.name.size() <= ${TOPIC_NAME_MAX_LENGTH}`,
      message: `metadata.name is longer than ${TOPIC_NAME_MAX_LENGTH} characters, the longest topic name Kafka accepts: set spec.topicName`,
    },
    {
      // Adding or removing spec.topicName must not change the topic the object names (the
      // field-level rule covers a change of a set value).
      rule: 'has(self.spec.topicName) == has(oldSelf.spec.topicName) || (has(self.spec.topicName) ? self.spec.topicName : self.metadata.name) == (has(oldSelf.spec.topicName) ? oldSelf.spec.topicName : oldSelf.metadata.name)',
      message:
        'the topic name is immutable: spec.topicName may only be added or removed when it equals metadata.name',
    },
  ],
  printerColumns: [
    { name: 'Topic', type: 'string', jsonPath: '.status.topicName' },
    { name: 'Partitions', type: 'integer', jsonPath: '.status.partitions' },
    { name: 'Replication', type: 'integer', jsonPath: '.status.replicationFactor' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
    {
      name: 'Synced',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Synced")].status',
      priority: 1,
    },
    { name: 'Profile', type: 'string', jsonPath: '.spec.providerProfileRef.name', priority: 1 },
  ],
});

export type KafkaTopic = typeof KafkaTopic.$object;
export type KafkaTopicSpec = KafkaTopic['spec'];
export type KafkaTopicStatus = NonNullable<KafkaTopic['status']>;
