import { eventually } from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import { type Admin, type ConfigEntries, type ITopicMetadata } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaError, topicAdmin, type KafkaCallContext, type TopicAdmin } from '../src/index.js';

let kafka: Kafka;
/** The broker as a bystander sees it. */
let inspector: Admin;
/** The admin client under test, and the requests it sent (`Operation/result`). */
let client: Admin;
let requests: string[] = [];
let topics: TopicAdmin;

beforeAll(async () => {
  kafka = await startKafka();
  inspector = await kafka.admin();
  client = await kafka.admin();
  const context: KafkaCallContext = {
    where: 'the test broker',
    metrics: { request: (_p, operation, result) => void requests.push(`${operation}/${result}`) },
  };
  topics = topicAdmin(client, context);
});
afterAll(async () => {
  await kafka?.[Symbol.asyncDispose]();
});

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
const outcome = (r: { ok: boolean; error?: unknown }) =>
  r.ok ? 'ok' : r.error instanceof KafkaError ? r.error.kind : String(r.error);

describe('topicAdmin against a Kafka 4.1 broker', () => {
  it('creates many topics in one CreateTopics, failing only the topic the broker refuses', async () => {
    requests = [];
    const results = await Promise.all(
      [
        { topic: 'batch-a', numPartitions: 3, replicationFactor: 1 },
        {
          topic: 'batch-tiered',
          numPartitions: 1,
          replicationFactor: 1,
          configEntries: [{ name: 'remote.storage.enable', value: 'true' }],
        },
        {
          topic: 'batch-b',
          numPartitions: 2,
          replicationFactor: 1,
          configEntries: [{ name: 'retention.ms', value: '3600000' }],
        },
      ].map((t) => settle(topics.createTopic(t))),
    );
    expect(results.map(outcome)).toEqual(['ok', 'invalid-config', 'ok']);
    expect(requests).toEqual(['CreateTopics/error']);
    // The broker's metadata lists a created topic a moment after CreateTopics answers (seen once
    // under load in CI): read until both are there, then check the refused one never was.
    const listed = await eventually(
      async () => {
        const names = await inspector.listTopics();
        return names.includes('batch-a') && names.includes('batch-b') ? names : undefined;
      },
      { description: 'batch-a and batch-b listed', timeoutMs: 15_000 },
    );
    expect(listed).not.toContain('batch-tiered');
  });

  it('reads metadata and configs of many topics in one request each, and tells missing topics apart', async () => {
    requests = [];
    const [a, missing, b] = (await Promise.all(
      ['batch-a', 'batch-missing', 'batch-b'].map((t) => settle(topics.metadata(t))),
    )) as [Settled<ITopicMetadata>, Settled<ITopicMetadata>, Settled<ITopicMetadata>];
    expect(outcome(missing)).toBe('not-found');
    expect(a.ok && a.value.partitions).toHaveLength(3);
    expect(b.ok && b.value.partitions).toHaveLength(2);
    // one Metadata for the batch (refused for the missing topic), one of every topic to attribute it
    expect(requests).toEqual(['Metadata/error', 'Metadata/success']);

    requests = [];
    const [configsA, configsB] = await Promise.all(
      ['batch-a', 'batch-b'].map((t) => topics.describeConfigs(t)),
    );
    const retention = (entries: ConfigEntries[] | undefined) =>
      entries?.find((e) => e.configName === 'retention.ms')?.configValue;
    expect(retention(configsB)).toBe('3600000');
    expect(retention(configsA)).not.toBe('3600000');
    expect(requests).toEqual(['DescribeConfigs/success']);
  });

  it('adds partitions to many topics at once; a refused one fails alone, the others are not sent twice', async () => {
    requests = [];
    const results = await Promise.all([
      settle(topics.createPartitions('batch-a', 5)),
      settle(topics.createPartitions('batch-b', 1)), // fewer than it has: INVALID_PARTITIONS
    ]);
    expect(results.map(outcome)).toEqual(['ok', 'invalid-partitions']);
    const { topics: described } = await inspector.fetchTopicMetadata({
      topics: ['batch-a', 'batch-b'],
    });
    expect(Object.fromEntries(described.map((t) => [t.name, t.partitions.length]))).toEqual({
      'batch-a': 5,
      'batch-b': 2,
    });
    expect(requests.filter((r) => r.startsWith('CreatePartitions'))).toEqual([
      'CreatePartitions/error',
      'CreatePartitions/error', // batch-b alone; batch-a already had its 5
    ]);
  });

  it('changes the configs of many topics in one AlterConfigs and deletes them in one DeleteTopics', async () => {
    requests = [];
    await Promise.all(
      ['batch-a', 'batch-b'].map((t) =>
        topics.alterConfigs(t, [{ name: 'retention.ms', value: '7200000' }]),
      ),
    );
    expect(requests).toEqual(['AlterConfigs/success']);
    requests = [];
    await Promise.all(['batch-a', 'batch-b'].map((t) => topics.deleteTopic(t)));
    expect(requests).toEqual(['DeleteTopics/success']);
    expect(await inspector.listTopics()).not.toContain('batch-a');
  });
});
