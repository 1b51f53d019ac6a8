/**
 * Topic-level config: Kafka 4.1's keys and their types (`TopicConfigs`), validation of
 * `spec.config` before any call (`validateTopicConfig`), and the plan that converges the managed
 * keys while leaving every other key alone (`planConfig`).
 */
export { configStatus, planConfig, type ConfigPlan, type ConfigPlanInput } from './plan-config.js';
export {
  canonicalConfigValue,
  describeType,
  parseConfigValue,
  RemovedTopicConfigs,
  sameConfigValue,
  TopicConfigs,
  type Parsed,
  type TopicConfigType,
} from './topic-configs.js';
export { configProblems, validateTopicConfig, type ConfigProblem } from './validate-config.js';
