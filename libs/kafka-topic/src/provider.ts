import { TerminalError } from '@steward/controller';
import {
  type ExternalClient,
  type ExternalProvider,
  type Observation,
  type Present,
} from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import kafkajs, { type ConfigEntries, type PartitionMetadata } from 'kafkajs';
import { configStatus, validateTopicConfig } from './config/index.js';
import { type KafkaAdminCache, type KafkaAdminLease } from './kafka/admin-cache.js';
import { isKafkaUnreachable, KafkaError, kafkaErrorType } from './kafka/errors.js';
import { type TopicAdmin } from './kafka/topic-admin.js';
import { KafkaTopicReasons } from './reasons.js';
import { resolveTopicName } from './topic-name.js';
import {
  desiredTopic,
  planTopic,
  replicationFactorOf,
  type DesiredTopic,
  type ObservedTopic,
} from './topic-plan.js';

/** The provider's name, in messages and as `provider="kafka"` in metrics. */
export const KafkaProviderName = 'kafka';

export interface KafkaTopicProviderOptions {
  /** Connected admin clients, one per profile, shared across reconciles. */
  admins: KafkaAdminCache;
}

/** What `observe` saw of an existing topic: its shape, or that a partition has no leader. */
export type SeenTopic = ObservedTopic | 'unavailable';

/** The KafkaTopic provider: the admitted object's kafka ProviderProfile is its context. */
export type KafkaTopicProvider = ExternalProvider<
  KafkaTopic,
  ProviderProfile,
  DesiredTopic,
  SeenTopic
>;

/**
 * The `KafkaTopic` provider for `managedReconciler`, on kafkajs' admin API. The external name is
 * the topic name (`spec.topicName`, default `metadata.name`): deterministic, and Kafka refuses a
 * second topic of a name, so a create repeated after a crash cannot duplicate anything.
 *
 * Ownership: Kafka topics carry no labels or tags, so the create ledger alone says a topic is
 * this object's (the managed reconciler treats an existing topic with no ledger entry as
 * `AlreadyExists` unless `spec.adopt`). Observations never claim ownership (`mark`
 * is left undefined).
 *
 * Requests: every admin call goes through the lease's `topics` (`topicAdmin`), which gathers the
 * calls that concurrent reconciles on one profile make into shared requests (one CreateTopics for
 * many topics, …) and hands each reconcile its own topic's answer or error.
 *
 * Config: Kafka's IncrementalAlterConfigs is not in kafkajs 2.2.4, so changes go through
 * AlterConfigs, which replaces all of a topic's overrides: the provider sends the overrides it
 * just described, with the managed keys changed, so keys Steward does not manage are sent back as
 * they were. The trade-off: a change someone makes to such a key between the DescribeConfigs of
 * `observe` and the AlterConfigs of `update` (milliseconds apart) is overwritten with the value
 * described. Managed keys are those of `spec.config`; removed ones are tracked through
 * `status.config` and reset.
 */
export function kafkaTopicProvider(options: KafkaTopicProviderOptions): KafkaTopicProvider {
  return {
    name: KafkaProviderName,
    deterministicNames: true,
    externalName: (obj) => resolveTopicName(obj),
    /** The topic name Kafka accepts and a `spec.config` Kafka 4.1 accepts (`InvalidConfig`). */
    validate: (obj) => {
      resolveTopicName(obj);
      validateTopicConfig(obj.spec.config);
      return desiredTopic(obj);
    },
    connect: async (_obj, profile, signal) =>
      new KafkaTopicClient(await options.admins.acquire(profile, signal)),
    // Kafka's admin API is its brokers: when none answers, the topic is not usable either.
    unavailableReason: (error) =>
      isKafkaUnreachable(error) ? KafkaTopicReasons.BrokersUnreachable : undefined,
  };
}

/** One reconcile's conversation with the brokers about one object's topic. */
class KafkaTopicClient implements ExternalClient<KafkaTopic, DesiredTopic, SeenTopic> {
  /** Batched with the calls of every other reconcile on this profile's client. */
  private readonly topics: TopicAdmin;

  constructor(private readonly lease: KafkaAdminLease) {
    this.topics = lease.topics;
  }

  /** Metadata and the topic's own config overrides; undefined when the topic does not exist. */
  private async describe(topic: string): Promise<SeenTopic | undefined> {
    let partitions: PartitionMetadata[];
    try {
      const found = await this.topics.metadata(topic);
      partitions = [...found.partitions].sort((a, b) => a.partitionId - b.partitionId);
    } catch (error) {
      if (error instanceof KafkaError && error.kind === 'not-found') return undefined;
      if (error instanceof KafkaError && error.kind === 'leader-not-available')
        return 'unavailable';
      throw error;
    }
    let entries: ConfigEntries[];
    try {
      entries = await this.topics.describeConfigs(topic);
    } catch (error) {
      if (error instanceof KafkaError && error.kind === 'not-found') return undefined;
      throw error;
    }
    const overrides: Record<string, string | null> = {};
    for (const entry of entries) {
      if (entry.configSource === kafkajs.ConfigSource.TOPIC_CONFIG) {
        overrides[entry.configName] = entry.isSensitive ? null : entry.configValue;
      }
    }
    return {
      name: topic,
      partitions: partitions.length,
      replicaCounts: partitions.map((p) => p.replicas.length),
      leaderless: partitions.filter((p) => p.leader < 0).length,
      overrides,
    };
  }

  /**
   * Metadata + DescribeConfigs of the topic; never mutates. A topic with a leaderless partition is
   * reported existing and not ready (state `unavailable`, raw `'unavailable'`).
   */
  async observe(
    obj: KafkaTopic,
    topic: string,
    wanted: DesiredTopic | undefined,
  ): Promise<Observation<SeenTopic>> {
    const found = await this.describe(topic);
    if (!found) return { exists: false };
    if (found === 'unavailable') {
      return { exists: true, raw: found, upToDate: true, ready: false, state: 'unavailable' };
    }
    const desired = wanted ?? desiredTopic(obj);
    const plan = planTopic(desired, found);
    const ready = found.leaderless === 0 && found.partitions > 0;
    return {
      exists: true,
      raw: found,
      upToDate: plan.upToDate,
      ready,
      state: ready ? 'available' : 'unavailable',
      status: {
        topicName: topic,
        partitions: found.partitions,
        replicationFactor: replicationFactorOf(found),
        config: configStatus({
          desired: desired.config,
          managed: desired.managed,
          overrides: found.overrides,
        }),
      },
    };
  }

  /**
   * CreateTopics with `spec.partitions`, `spec.replicationFactor` (-1: the broker's default) and
   * `spec.config`; does not wait for partition leaders (observe reports them). Idempotent: a topic
   * that already exists (kafkajs answers TOPIC_ALREADY_EXISTS with `false`) counts as created — a
   * create of ours whose answer was lost, or a topic that appeared between observe and create,
   * which the two cannot tell apart (a topic has no ownership mark), so it is taken as this
   * object's: the pending mark was written before the call.
   */
  async create(obj: KafkaTopic, topic: string, desired: DesiredTopic): Promise<void> {
    const config = desired.config;
    try {
      await this.topics.createTopic({
        topic,
        numPartitions: desired.partitions,
        replicationFactor: desired.replicationFactor ?? -1,
        configEntries: Object.entries(config).map(([name, value]) => ({ name, value })),
      });
    } catch (error) {
      if (!(error instanceof KafkaError)) throw error;
      switch (error.kind) {
        case 'already-exists':
          return;
        case 'invalid-config':
          throw new TerminalError(
            KafkaTopicReasons.InvalidConfig,
            `Kafka refused to create topic ${topic} with spec.config ${entriesText(config)}: ${kafkaErrorType(error) ?? 'INVALID_CONFIG'} (a value the brokers reject, e.g. remote.storage.enable without tiered storage, or the cluster's create policy)`,
            { cause: error },
          );
        case 'invalid-replication-factor':
          throw new TerminalError(
            KafkaTopicReasons.InvalidReplicationFactor,
            `Kafka refused to create topic ${topic} with ${obj.spec.replicationFactor === undefined ? "the brokers' default replication factor" : `replication factor ${obj.spec.replicationFactor}`} (${kafkaErrorType(error)}): a topic cannot have more replicas than the cluster has brokers; lower spec.replicationFactor`,
            { cause: error },
          );
        case 'invalid-topic':
          throw new TerminalError(
            KafkaTopicReasons.InvalidTopicName,
            `Kafka refused the topic name ${topic} (${kafkaErrorType(error)}): it is illegal, or collides with an existing topic whose name differs only in '.' and '_' (Kafka treats them alike in metric names)`,
            { cause: error },
          );
        case 'invalid-partitions':
          throw new TerminalError(
            KafkaTopicReasons.NotSupported,
            `Kafka refused ${obj.spec.partitions} partitions for topic ${topic} (${kafkaErrorType(error)}); the cluster limits partitions per topic`,
            { cause: error },
          );
        default:
          throw new Error(error.message, { cause: error });
      }
    }
  }

  /**
   * Brings an existing topic to the spec: CreatePartitions for more partitions, AlterConfigs for the
   * config (see `kafkaTopicProvider` on why the whole set of overrides is sent). What the admin API
   * cannot do — fewer partitions, another replication factor — is `NotSupported`, raised before
   * anything changes. Idempotent: it acts on the difference between the spec and the topic.
   */
  async update(
    _obj: KafkaTopic,
    topic: string,
    desired: DesiredTopic,
    observed: Present<SeenTopic>,
  ): Promise<void> {
    const found = observed.raw;
    if (found === 'unavailable') return;
    const plan = planTopic(desired, found);
    if (plan.notSupported.length) {
      throw new TerminalError(KafkaTopicReasons.NotSupported, plan.notSupported.join('; '));
    }
    if (plan.partitions !== undefined) {
      const count = plan.partitions;
      await this.topics.createPartitions(topic, count).catch((error: unknown) => {
        if (error instanceof KafkaError && error.kind === 'not-found') return;
        // INVALID_PARTITIONS: someone changed the count meanwhile; the next observe decides.
        throw error instanceof KafkaError ? new Error(error.message, { cause: error }) : error;
      });
    }
    if (plan.config.changed) {
      const alter = plan.config.alter;
      await this.topics
        .alterConfigs(
          topic,
          Object.entries(alter).map(([name, value]) => ({ name, value })),
        )
        .catch((error: unknown) => {
          if (!(error instanceof KafkaError)) throw error;
          if (error.kind === 'not-found') return;
          if (error.kind === 'invalid-config') {
            const changes = [
              ...Object.entries(plan.config.set).map(([k, v]) => `${k}=${v}`),
              ...plan.config.reset.map((k) => `${k} (reset)`),
            ];
            throw new TerminalError(
              KafkaTopicReasons.InvalidConfig,
              `Kafka refused to change the config of topic ${topic} (${kafkaErrorType(error)}): ${changes.join(', ')}`,
              { cause: error },
            );
          }
          throw new Error(error.message, { cause: error });
        });
    }
  }

  /**
   * DeleteTopics (the managed reconciler calls it only with `deletionPolicy: Delete`, for a topic
   * this object created or adopted). Done once Metadata no longer finds the topic. A cluster with
   * `delete.topic.enable=false` is `NotSupported`.
   */
  async delete(_obj: KafkaTopic, topic: string): Promise<{ done: boolean }> {
    try {
      await this.topics.deleteTopic(topic);
    } catch (error) {
      if (!(error instanceof KafkaError)) throw error;
      if (error.kind === 'not-found') return { done: true };
      if (error.kind === 'deletion-disabled') {
        throw new TerminalError(
          KafkaTopicReasons.NotSupported,
          `the Kafka cluster refuses to delete topic ${topic} (TOPIC_DELETION_DISABLED: delete.topic.enable=false); delete it there, or set spec.deletionPolicy: Retain`,
          { cause: error },
        );
      }
      throw new Error(error.message, { cause: error });
    }
    return { done: (await this.describe(topic)) === undefined };
  }

  /** Hands the admin client back to the cache (it stays connected for the next reconcile). */
  async close(): Promise<void> {
    this.lease.release();
  }
}

function entriesText(config: Readonly<Record<string, string>>): string {
  const entries = Object.entries(config);
  return entries.length ? `{${entries.map(([k, v]) => `${k}=${v}`).join(', ')}}` : '{}';
}
