/**
 * Condition reasons of KafkaTopic (CamelCase constants a user can search for), besides those of
 * the managed reconciler (`Available`, `Creating`, `AlreadyExists`, `ReconcileError`, …):
 *
 * | reason | what the user does |
 * |---|---|
 * | InvalidConfig | fixes `spec.config` (an unknown key, a bad value, or one the brokers refused) |
 * | InvalidTopicName | sets a `spec.topicName` Kafka accepts |
 * | NotSupported | sets `spec.replicationFactor`/`spec.partitions` to what the topic has (the admin API cannot change them that way) |
 * | ResourceConflict | deletes one of two KafkaTopics that name one topic on one profile |
 * | InvalidReplicationFactor | asks for at most as many replicas as the cluster has brokers |
 * | ProviderProfileNotFound, WrongProvider, InvalidProviderProfile | fixes `spec.providerProfileRef` or the profile |
 * | CredentialsNotFound, CredentialsInvalid | (platform team) fixes the profile's TLS/SASL Secrets |
 * | PlaintextSasl | (platform team) adds `spec.kafka.tls` to the profile — SASL without TLS sends the password in clear — or sets `spec.kafka.allowPlaintextSasl: true` |
 * | Forbidden | (platform team) grants the profile's principal the ACLs on the topic |
 * | DeletionPolicyNotAllowed | uses a deletion policy the profile's guardrails allow |
 *
 * and one the controller retries on its own (`Ready=False` without `Stalled`):
 *
 * | BrokersUnreachable | nothing: no broker of the profile answers; retried with backoff until one does |
 */
export const KafkaTopicReasons = {
  InvalidConfig: 'InvalidConfig',
  InvalidTopicName: 'InvalidTopicName',
  NotSupported: 'NotSupported',
  ResourceConflict: 'ResourceConflict',
  InvalidReplicationFactor: 'InvalidReplicationFactor',
  ProviderProfileNotFound: 'ProviderProfileNotFound',
  WrongProvider: 'WrongProvider',
  InvalidProviderProfile: 'InvalidProviderProfile',
  CredentialsNotFound: 'CredentialsNotFound',
  CredentialsInvalid: 'CredentialsInvalid',
  /** The profile authenticates with SASL over a plaintext listener and does not allow it. */
  PlaintextSasl: 'PlaintextSasl',
  Forbidden: 'Forbidden',
  DeletionPolicyNotAllowed: 'DeletionPolicyNotAllowed',
  /** The profile's `topicNamePolicy: NamespacePrefix` does not let this namespace name the topic. */
  TopicNameNotAllowed: 'TopicNameNotAllowed',
  BrokersUnreachable: 'BrokersUnreachable',
} as const;
