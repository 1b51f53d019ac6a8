import { type KafkaTopic } from '@steward/kafka-topic-api';
import { planConfig, type ConfigPlan } from './config/index.js';

/** A topic as the brokers describe it. */
export interface ObservedTopic {
  name: string;
  /** Number of partitions. */
  partitions: number;
  /** Replicas of each partition, in partition order. */
  replicaCounts: readonly number[];
  /** Partitions without a leader (unavailable). */
  leaderless: number;
  /** The topic's dynamic config overrides (`null`: a value the broker hides). */
  overrides: Readonly<Record<string, string | null>>;
}

/** What the spec asks of the topic. */
export interface DesiredTopic {
  partitions: number;
  /** Undefined: whatever the topic has (the broker's default at creation). */
  replicationFactor?: number;
  config: Readonly<Record<string, string>>;
  /** `status.config`: the managed keys as last seen (see `planConfig`). */
  managed: Readonly<Record<string, string>>;
}

/** How to bring a topic to the spec. */
export interface TopicPlan {
  /** Grow the topic to this many partitions. */
  partitions?: number;
  config: ConfigPlan;
  /** What the admin API cannot do; when non-empty nothing is changed (`NotSupported`). */
  notSupported: string[];
  /** Nothing to do. */
  upToDate: boolean;
}

/** The desired topic of an object (its spec, and `status.config` as the managed keys). */
export function desiredTopic(obj: KafkaTopic): DesiredTopic {
  const managed: Record<string, string> = {};
  for (const [key, value] of Object.entries(obj.status?.config ?? {})) {
    if (typeof value === 'string') managed[key] = value;
  }
  return {
    partitions: obj.spec.partitions,
    ...(obj.spec.replicationFactor !== undefined
      ? { replicationFactor: obj.spec.replicationFactor }
      : {}),
    config: { ...obj.spec.config },
    managed,
  };
}

/** The replication factor of a topic: the fewest replicas of any partition (0 without partitions). */
export function replicationFactorOf(topic: ObservedTopic): number {
  return topic.replicaCounts.length ? Math.min(...topic.replicaCounts) : 0;
}

/**
 * Plans the changes that bring `topic` to `desired` (pure): more partitions (Kafka cannot remove
 * any), the config plan, and what the admin API cannot do — fewer partitions, another replication
 * factor (that is a partition reassignment), overrides AlterConfigs could not send back. Anything
 * not supported makes the whole plan stop: nothing is half-applied.
 */
export function planTopic(desired: DesiredTopic, topic: ObservedTopic): TopicPlan {
  const notSupported: string[] = [];
  if (topic.partitions > desired.partitions) {
    notSupported.push(
      `topic ${topic.name} has ${topic.partitions} partitions and spec.partitions is ${desired.partitions}: Kafka cannot remove partitions from a topic; set spec.partitions to ${topic.partitions} or more`,
    );
  }
  const want = desired.replicationFactor;
  if (want !== undefined && topic.replicaCounts.some((n) => n !== want)) {
    const counts = [...new Set(topic.replicaCounts)].sort((a, b) => a - b);
    const have =
      counts.length === 1
        ? `${counts[0]} replica${counts[0] === 1 ? '' : 's'} per partition`
        : `${counts.join(' to ')} replicas per partition`;
    notSupported.push(
      `spec.replicationFactor is ${want} but topic ${topic.name} has ${have}: the Kafka admin API cannot change a topic's replication factor (that takes a partition reassignment, e.g. kafka-reassign-partitions.sh); set spec.replicationFactor to ${counts.length === 1 ? counts[0] : 'the topic’s'}, or remove it`,
    );
  }
  const config = planConfig({
    desired: desired.config,
    managed: desired.managed,
    overrides: topic.overrides,
  });
  if (config.changed && config.hidden.length) {
    notSupported.push(
      `topic ${topic.name} has config overrides whose values the brokers hide (${config.hidden.join(', ')}); changing spec.config would reset them, because AlterConfigs replaces every override`,
    );
  }
  const partitions = desired.partitions > topic.partitions ? desired.partitions : undefined;
  return {
    ...(partitions !== undefined ? { partitions } : {}),
    config,
    notSupported,
    upToDate: notSupported.length === 0 && partitions === undefined && !config.changed,
  };
}
