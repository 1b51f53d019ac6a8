/**
 * Talking to Kafka: a kafka profile's connection (bootstrap servers, TLS and SASL from its
 * Secrets), the per-profile cache of connected admin clients, and the mapping of kafkajs errors.
 */
export {
  KafkaAdminCache,
  type KafkaAdminCacheOptions,
  type KafkaAdminLease,
} from './admin-cache.js';
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
  mapKafkaError,
  type KafkaCallContext,
  type KafkaErrorKind,
} from './errors.js';
