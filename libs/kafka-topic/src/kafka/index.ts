/**
 * Talking to Kafka: a kafka profile's connection (bootstrap servers, TLS and SASL from its
 * Secrets), the per-profile cache of connected admin clients, the topic calls batched on each
 * (`topicAdmin` on a `Batcher` per Kafka API), and the mapping of kafkajs errors.
 */
export {
  KafkaAdminCache,
  type KafkaAdminCacheOptions,
  type KafkaAdminCounts,
  type KafkaAdminLease,
} from './admin-cache.js';
export { Batcher, type BatcherOptions, type BatchResult, type BatchSend } from './batcher.js';
export {
  kafkaBlock,
  kafkaClientConfig,
  kafkaConnectionFromProfile,
  KafkaSecretKeys,
  readKafkaSecrets,
  type KafkaClientOptions,
  type KafkaConnection,
  type KafkaSecrets,
  type ReadSecret,
} from './connection.js';
export {
  isKafkaUnreachable,
  KafkaError,
  KafkaUnreachableError,
  kafkaCall,
  kafkaErrorDetail,
  kafkaErrorKind,
  kafkaErrorType,
  kafkaRequest,
  mapKafkaError,
  type KafkaCallContext,
  type KafkaErrorKind,
} from './errors.js';
export {
  topicAdmin,
  TopicOperations,
  type TopicAdmin,
  type TopicAdminOptions,
  type TopicBatching,
} from './topic-admin.js';
