import { TerminalError } from '@steward/controller';
import { KafkaTopicReasons } from '../reasons.js';
import {
  describeType,
  parseConfigValue,
  RemovedTopicConfigs,
  TopicConfigs,
} from './topic-configs.js';

/** One thing wrong with `spec.config`, naming the key and the value. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/**
 * Every problem of a `spec.config` for Kafka 4.1 (pure), in key order: keys that are not
 * topic-level configs (with the closest known key as a hint, and the topic-level name when a
 * broker setting `log.…` was used), keys Kafka 4.0 removed, values that do not parse or are out of
 * range for their key, and `min.compaction.lag.ms` above `max.compaction.lag.ms`.
 */
export function configProblems(config: Readonly<Record<string, string>>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const parsed: Record<string, unknown> = {};
  for (const key of Object.keys(config).sort()) {
    const value = config[key]!;
    const removed = RemovedTopicConfigs[key];
    if (removed) {
      problems.push({ key, message: `spec.config.${key} ("${value}"): ${removed}` });
      continue;
    }
    const type = TopicConfigs[key];
    if (!type) {
      problems.push({
        key,
        message: `spec.config.${key} ("${value}"): ${key} is not a topic-level config of Kafka 4.1${hint(key)}`,
      });
      continue;
    }
    const result = parseConfigValue(type, value);
    if (!result.ok) {
      problems.push({
        key,
        message: `spec.config.${key}: "${value}" is not valid; expected ${describeType(type)}`,
      });
      continue;
    }
    parsed[key] = result.value;
  }
  const min = parsed['min.compaction.lag.ms'];
  const max = parsed['max.compaction.lag.ms'];
  if (typeof min === 'bigint' && typeof max === 'bigint' && min > max) {
    problems.push({
      key: 'min.compaction.lag.ms',
      message: `spec.config.min.compaction.lag.ms ("${config['min.compaction.lag.ms']}") is greater than spec.config.max.compaction.lag.ms ("${config['max.compaction.lag.ms']}")`,
    });
  }
  return problems;
}

/**
 * Throws `TerminalError('InvalidConfig')` listing every problem `configProblems` finds, before any
 * call to Kafka; returns quietly for a valid config.
 */
export function validateTopicConfig(config: Readonly<Record<string, string>> | undefined): void {
  const problems = configProblems(config ?? {});
  if (problems.length === 0) return;
  throw new TerminalError(
    KafkaTopicReasons.InvalidConfig,
    `spec.config is not valid for Kafka 4.1: ${problems.map((p) => p.message).join('; ')}`,
  );
}

function hint(key: string): string {
  const topicLevel = key.startsWith('log.') ? key.slice(4) : undefined;
  if (topicLevel && TopicConfigs[topicLevel]) {
    return ` (${key} is a broker setting; the topic-level config is ${topicLevel})`;
  }
  let best: { key: string; distance: number } | undefined;
  for (const known of Object.keys(TopicConfigs)) {
    const distance = editDistance(key, known);
    if (!best || distance < best.distance) best = { key: known, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(key.length / 4))
    ? ` (did you mean ${best.key}?)`
    : '';
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
