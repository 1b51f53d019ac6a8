import { isTerminalError } from '@steward/controller';
import { type ExternalClient, type Observation, type Present } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import kafkajs, { type Admin } from 'kafkajs';
import { beforeEach, describe, expect, it } from 'vitest';
import { type KafkaAdminCache } from './kafka/admin-cache.js';
import { topicAdmin } from './kafka/topic-admin.js';
import { kafkaTopicProvider, type SeenTopic } from './provider.js';
import { desiredTopic, type DesiredTopic } from './topic-plan.js';

function present(observation: Observation<SeenTopic>): Present<SeenTopic> {
  if (!observation.exists) throw new Error('expected the topic to exist');
  return observation;
}

const { ConfigSource } = kafkajs;
/** kafkajs' error classes take more arguments than its typings declare. */
const construct = (C: unknown, ...args: unknown[]): Error =>
  new (C as new (...a: unknown[]) => Error)(...args);
const protocol = (type: string) =>
  new kafkajs.KafkaJSProtocolError({ type, code: 0, retriable: false, message: type } as never);

interface FakeTopic {
  partitions: number;
  rf: number;
  overrides: Record<string, string>;
  leaderless?: boolean;
}

/** A fake kafkajs admin over an in-memory cluster, recording every call. */
function fakeAdmin(cluster: Map<string, FakeTopic>) {
  const calls: string[] = [];
  const admin = {
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      calls.push('Metadata');
      const t = cluster.get(topics[0]!);
      if (!t) throw protocol('UNKNOWN_TOPIC_OR_PARTITION');
      if (t.leaderless) throw protocol('LEADER_NOT_AVAILABLE');
      return {
        topics: [
          {
            name: topics[0],
            partitions: Array.from({ length: t.partitions }, (_, i) => ({
              partitionId: i,
              leader: 1,
              replicas: Array.from({ length: t.rf }, (_, r) => r + 1),
              isr: [1],
              partitionErrorCode: 0,
            })),
          },
        ],
      };
    },
    describeConfigs: async ({ resources }: { resources: { name: string }[] }) => {
      calls.push('DescribeConfigs');
      const name = resources[0]!.name;
      const t = cluster.get(name)!;
      return {
        resources: [
          {
            resourceName: name,
            configEntries: [
              ...Object.entries(t.overrides).map(([configName, configValue]) => ({
                configName,
                configValue,
                configSource: ConfigSource.TOPIC_CONFIG,
                isSensitive: false,
              })),
              {
                configName: 'segment.bytes',
                configValue: '1048576',
                configSource: ConfigSource.STATIC_BROKER_CONFIG,
                isSensitive: false,
              },
            ],
          },
        ],
      };
    },
    createTopics: async ({
      topics,
    }: {
      topics: {
        topic: string;
        numPartitions: number;
        replicationFactor: number;
        configEntries: { name: string; value: string }[];
      }[];
    }) => {
      calls.push(`CreateTopics ${JSON.stringify(topics[0])}`);
      const t = topics[0]!;
      if (cluster.has(t.topic)) return false;
      if (t.configEntries.some((e) => e.name === 'remote.storage.enable'))
        throw new kafkajs.KafkaJSAggregateError('Topic creation errors', [
          protocol('INVALID_CONFIG'),
        ]);
      cluster.set(t.topic, {
        partitions: t.numPartitions,
        rf: t.replicationFactor === -1 ? 1 : t.replicationFactor,
        overrides: Object.fromEntries(t.configEntries.map((e) => [e.name, e.value])),
      });
      return true;
    },
    createPartitions: async ({
      topicPartitions,
    }: {
      topicPartitions: { topic: string; count: number }[];
    }) => {
      calls.push(`CreatePartitions ${topicPartitions[0]!.count}`);
      cluster.get(topicPartitions[0]!.topic)!.partitions = topicPartitions[0]!.count;
    },
    alterConfigs: async ({
      resources,
    }: {
      resources: { name: string; configEntries: { name: string; value: string }[] }[];
    }) => {
      const r = resources[0]!;
      calls.push(
        `AlterConfigs ${JSON.stringify(Object.fromEntries(r.configEntries.map((e) => [e.name, e.value])))}`,
      );
      cluster.get(r.name)!.overrides = Object.fromEntries(
        r.configEntries.map((e) => [e.name, e.value]),
      );
    },
    deleteTopics: async ({ topics }: { topics: string[] }) => {
      calls.push('DeleteTopics');
      if (topics[0] === 'undeletable') {
        // as kafkajs' retrier wraps a non-retriable error: the original is the cause
        const e = protocol('TOPIC_DELETION_DISABLED');
        throw construct(kafkajs.KafkaJSNonRetriableError, e, { cause: e });
      }
      cluster.delete(topics[0]!);
    },
  };
  return { admin: admin as unknown as Admin, calls };
}

const profile = { metadata: { name: 'events' }, spec: { provider: 'kafka' } } as ProviderProfile;

let cluster: Map<string, FakeTopic>;
let calls: string[];
let released: number;
let ext: ExternalClient<KafkaTopic, DesiredTopic, SeenTopic>;
const signal = new AbortController().signal;

beforeEach(async () => {
  cluster = new Map();
  const fake = fakeAdmin(cluster);
  calls = fake.calls;
  released = 0;
  const context = { where: 'ProviderProfile events (k:9092)' };
  const admins = {
    acquire: async () => ({
      admin: fake.admin,
      topics: topicAdmin(fake.admin, context),
      context,
      release: () => void released++,
      discard: () => undefined,
    }),
  } as unknown as KafkaAdminCache;
  const provider = kafkaTopicProvider({ admins });
  ext = await provider.connect(topic(), profile, signal);
});

const topic = (
  spec: Partial<KafkaTopic['spec']> = {},
  status?: KafkaTopic['status'],
): KafkaTopic => ({
  apiVersion: 'kafka.steward.dev/v1alpha1',
  kind: 'KafkaTopic',
  metadata: { name: 'orders', namespace: 'shop', uid: 'u1', generation: 1 },
  spec: { providerProfileRef: { name: 'events' }, partitions: 3, ...spec },
  ...(status ? { status } : {}),
});

async function terminal(p: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await p;
  } catch (error) {
    if (isTerminalError(error)) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected a TerminalError');
}

describe('kafkaTopicProvider', () => {
  it('names the topic deterministically after the object', () => {
    const provider = kafkaTopicProvider({ admins: {} as KafkaAdminCache });
    expect(provider).toMatchObject({ name: 'kafka', deterministicNames: true });
    expect(provider.externalName(topic({ topicName: 'orders.v2' }), profile)).toBe('orders.v2');
    expect(provider.externalName(topic(), profile)).toBe('orders');
  });

  it.each([
    [
      'an invalid config',
      topic({ config: { 'retention.ms': 'forever' } }),
      'InvalidConfig',
      'spec.config.retention.ms: "forever" is not valid',
    ],
    [
      'an illegal topic name',
      topic({ topicName: 'a b' }),
      'InvalidTopicName',
      'topic name "a b" from spec.topicName is not a legal Kafka topic name',
    ],
  ])('validates before any call: refuses %s', async (_case, obj, reason, message) => {
    const provider = kafkaTopicProvider({ admins: {} as KafkaAdminCache });
    const failure = await terminal(Promise.resolve().then(() => provider.validate(obj, profile)));
    expect(failure.reason).toBe(reason);
    expect(failure.message).toContain(message);
    expect(calls).toEqual([]);
  });

  it('observes a missing topic as not existing', async () => {
    expect(await ext.observe(topic(), 'orders', desiredTopic(topic()), signal)).toEqual({
      exists: false,
    });
    expect(calls).toEqual(['Metadata']);
  });

  it('creates with partitions, the broker’s default replication factor and the config', async () => {
    const withConfig = topic({ config: { 'retention.ms': '1000' } });
    await ext.create(withConfig, 'orders', desiredTopic(withConfig), signal);
    expect(calls).toEqual([
      'CreateTopics {"topic":"orders","numPartitions":3,"replicationFactor":-1,"configEntries":[{"name":"retention.ms","value":"1000"}]}',
    ]);
    const observation = await ext.observe(withConfig, 'orders', desiredTopic(withConfig), signal);
    expect(observation).toMatchObject({
      exists: true,
      upToDate: true,
      ready: true,
      state: 'available',
      status: {
        topicName: 'orders',
        partitions: 3,
        replicationFactor: 1,
        config: { 'retention.ms': '1000' },
      },
    });
    expect(observation.exists && observation.mark).toBeUndefined();
  });

  it('counts an existing topic as created (idempotent create)', async () => {
    cluster.set('orders', { partitions: 3, rf: 1, overrides: {} });
    await expect(
      ext.create(topic(), 'orders', desiredTopic(topic()), signal),
    ).resolves.toBeUndefined();
  });

  it('maps a config the brokers refuse to InvalidConfig naming the keys and values', async () => {
    expect(
      await terminal(
        ext.create(
          topic(),
          'orders',
          desiredTopic(topic({ config: { 'remote.storage.enable': 'true' } })),
          signal,
        ),
      ),
    ).toEqual({
      reason: 'InvalidConfig',
      message: expect.stringContaining(
        'Kafka refused to create topic orders with spec.config {remote.storage.enable=true}: INVALID_CONFIG',
      ),
    });
  });

  it('grows partitions and changes only the managed keys, sending the others back unchanged', async () => {
    cluster.set('orders', {
      partitions: 3,
      rf: 1,
      overrides: { 'retention.ms': '1000', 'x.outside': 'kept' },
    });
    const obj = topic(
      { partitions: 6, config: { 'retention.ms': '2000' } },
      { config: { 'retention.ms': '1000' } },
    );
    const observation = present(await ext.observe(obj, 'orders', desiredTopic(obj), signal));
    expect(observation.upToDate).toBe(false);
    await ext.update(obj, 'orders', desiredTopic(obj), observation, signal);
    expect(calls.slice(2)).toEqual([
      'CreatePartitions 6',
      'AlterConfigs {"x.outside":"kept","retention.ms":"2000"}',
    ]);
  });

  it('reports another replication factor as NotSupported before changing anything', async () => {
    cluster.set('orders', { partitions: 3, rf: 1, overrides: {} });
    const obj = topic({ partitions: 6, replicationFactor: 3, config: { 'retention.ms': '2000' } });
    const observation = present(await ext.observe(obj, 'orders', desiredTopic(obj), signal));
    const failure = await terminal(
      ext.update(obj, 'orders', desiredTopic(obj), observation, signal),
    );
    expect(failure.reason).toBe('NotSupported');
    expect(failure.message).toContain(
      'spec.replicationFactor is 3 but topic orders has 1 replica per partition',
    );
    expect(calls).toEqual(['Metadata', 'DescribeConfigs']);
  });

  it('reports a topic with a leaderless partition as existing and unavailable', async () => {
    cluster.set('orders', { partitions: 3, rf: 1, overrides: {}, leaderless: true });
    expect(await ext.observe(topic(), 'orders', desiredTopic(topic()), signal)).toEqual({
      exists: true,
      raw: 'unavailable',
      upToDate: true,
      ready: false,
      state: 'unavailable',
    });
  });

  it('deletes the topic and is done once it is gone; a cluster that forbids deletion is NotSupported', async () => {
    cluster.set('orders', { partitions: 3, rf: 1, overrides: {} });
    const observation = present(await ext.observe(topic(), 'orders', undefined, signal));
    expect(await ext.delete(topic(), 'orders', observation, signal)).toEqual({ done: true });
    expect(cluster.has('orders')).toBe(false);
    cluster.set('undeletable', { partitions: 1, rf: 1, overrides: {} });
    expect((await terminal(ext.delete(topic(), 'undeletable', observation, signal))).reason).toBe(
      'NotSupported',
    );
  });

  it('hands the client back to the cache on close', async () => {
    await ext.close?.();
    expect(released).toBe(1);
  });
});
