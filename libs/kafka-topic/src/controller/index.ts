/**
 * The KafkaTopic controller: ProviderProfile → admission (claim, profile, guardrail, config) →
 * `managedReconciler` with `kafkaTopicProvider`, and the pure admission it is built from.
 */
export { admitKafkaTopic, type KafkaTopicAdmission } from './admission.js';
export {
  ByProviderProfile,
  ByTopicClaim,
  KafkaTopicFinalizer,
  kafkaTopicController,
  type KafkaTopicControllerOptions,
} from './controller.js';
