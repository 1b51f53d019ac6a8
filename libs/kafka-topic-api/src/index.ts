/**
 * @steward/kafka-topic-api — the `KafkaTopic` kind (`kafka.steward.dev/v1alpha1`, namespaced, short
 * name `kt`): one source of truth for its TypeScript types and its CRD.
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - `providerProfileRef` is immutable. The topic name — `spec.topicName`, default `metadata.name` —
 *   is Kafka's legal name (`[a-zA-Z0-9._-]{1,249}`, not `.`/`..`) and immutable: a set
 *   `topicName` cannot change, and adding or removing it may not change the name either.
 * - `partitions` is 1..10000 and may only increase; `replicationFactor` is 1..32 (omitted: the
 *   broker's default); `config` holds at most 64 keys spelled as Kafka's topic configs.
 * - Defaults: `deletionPolicy: Retain`, `adopt: false`.
 *
 * What only the controller can know is a condition with a reason, not an admission error: the
 * profile exists and is a kafka profile, config keys and values are ones Kafka 4.1 accepts
 * (`InvalidConfig`), the replication factor matches the topic's (`NotSupported` otherwise), no
 * older KafkaTopic claims the same topic (`ResourceConflict`), and the topic is this object's
 * (`AlreadyExists` unless `adopt`).
 *
 * Status: `Ready` and `Synced` conditions, `topicName` (and `externalName`, the same name as the
 * external-resource reconciler records it), `partitions`, `replicationFactor`, the managed `config`
 * keys with their values on the topic, `providerState`, `observedGeneration`. There is no
 * `topicId`: kafkajs 2.2.4 speaks Metadata up to v6, and topic ids arrive with v10.
 */
export {
  CONFIG_KEY_PATTERN,
  KafkaTopic,
  KafkaTopicSpec,
  KafkaTopicStatus,
  MAX_CONFIG_ENTRIES,
  MAX_PARTITIONS,
  MAX_REPLICATION_FACTOR,
  TOPIC_NAME_MAX_LENGTH,
  TOPIC_NAME_PATTERN,
  TopicStates,
  type TopicState,
} from './kafka-topic.js';
