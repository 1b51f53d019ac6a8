/**
 * What the ProviderProfile controller needs from the KafkaTopic domain: the credentials check of
 * `kafka` profiles (connect with the profile's TLS/SASL Secrets, DescribeCluster, map the answer to
 * `CredentialsInvalid` / `ProviderUnreachable` / …), and KafkaTopic as a kind that uses profiles.
 */
export { kafkaCredentialsCheck, type KafkaCredentialsCheckOptions } from './credentials-check.js';
export { kafkaCheckFailure, type KafkaCheckFailure } from './failures.js';
export { kafkaTopicUsers } from './users.js';
