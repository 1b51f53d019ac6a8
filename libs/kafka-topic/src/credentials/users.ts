import { KafkaTopic } from '@steward/kafka-topic-api';
import { type ProfileUser } from '@steward/provider-profile';

/**
 * KafkaTopics as users of ProviderProfiles (`spec.providerProfileRef.name`), for the
 * ProviderProfile controller's `users`. Counted in every namespace: a topic being deleted with
 * `deletionPolicy: Delete` still needs its profile's brokers and credentials to delete the topic,
 * so it keeps the profile until it is gone.
 */
export const kafkaTopicUsers: ProfileUser<KafkaTopic> = {
  resourceType: KafkaTopic.resourceType,
  profileNameOf: (obj) => obj.spec?.providerProfileRef?.name,
};
