/**
 * @steward/kafka-topic — the KafkaTopic domain: topics on an existing Kafka cluster reached through
 * a `kafka` ProviderProfile, kept converged by `@steward/external`'s managed reconciler with
 * kafkajs' admin API.
 *
 * - Pure pieces, each tested on its own: the topic name (`resolveTopicName`: `spec.topicName`,
 *   default `metadata.name`, Kafka's rules); `spec.config` against Kafka 4.1's topic configs
 *   (`validateTopicConfig`: unknown key or bad value → `InvalidConfig` naming key and value, before
 *   any call); the config plan (`planConfig`: managed keys — those of `spec.config`, remembered in
 *   `status.config` — converge, drift included; keys removed from the spec are reset; keys Steward
 *   never managed are left alone); the topic plan (`planTopic`: more partitions, config, and
 *   `NotSupported` for fewer partitions or another replication factor); claims (`resolveClaim`:
 *   of two KafkaTopics naming one topic on one profile the older keeps it, the newer gets
 *   `ResourceConflict`).
 * - `kafkaTopicProvider`: the `ExternalProvider` (deterministic names; ownership by the create
 *   ledger or `spec.adopt`, since topics carry no labels), on admin clients cached per profile
 *   (`KafkaAdminCache`); an unreachable broker is a retried error saying so.
 * - `kafkaTopicController(manager, options)`: profile, admission, managed reconciler, watches.
 * - `kafkaCredentialsCheck(client)` and `kafkaTopicUsers` for the ProviderProfile controller.
 */
export * from './config/index.js';
export * from './controller/index.js';
export * from './credentials/index.js';
export * from './kafka/index.js';
export { claimKey, compareClaims, resolveClaim, type ClaimResolution } from './claims.js';
export {
  KafkaProviderName,
  kafkaTopicProvider,
  type KafkaTopicProviderOptions,
} from './provider.js';
export { KafkaTopicReasons } from './reasons.js';
export { resolveTopicName, topicNameOf, topicNameProblem } from './topic-name.js';
export {
  desiredTopic,
  planTopic,
  replicationFactorOf,
  type DesiredTopic,
  type ObservedTopic,
  type TopicPlan,
} from './topic-plan.js';
