import kafkajs, { type Admin, type ITopicConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaError, KafkaUnreachableError, type KafkaCallContext } from './errors.js';
import { topicAdmin, type TopicAdminOptions } from './topic-admin.js';

const protocol = (type: string) =>
  new kafkajs.KafkaJSProtocolError({ type, code: 0, retriable: false, message: type } as never);
/** As kafkajs reports one topic's CreateTopics error (a `KafkaJSCreateTopicError`). */
const topicError = (type: string, topic: string) => Object.assign(protocol(type), { topic });

interface FakeTopic {
  partitions: number;
  config: Record<string, string>;
}

/**
 * A kafkajs admin over an in-memory cluster, with kafkajs' ways of answering a request of many
 * topics: CreateTopics names each refused topic; the other APIs throw the first topic's error
 * only, unnamed. Records every request as `Api topic,topic`.
 */
function fakeKafka() {
  const cluster = new Map<string, FakeTopic>();
  const requests: string[] = [];
  /** Topics whose DescribeConfigs, AlterConfigs or CreatePartitions the brokers refuse. */
  const refuse = new Map<string, string>();
  /** Topics whose next Metadata answer shows this partition count (a broker yet to apply a change). */
  const stale = new Map<string, number>();
  let down = false;
  const enter = (api: string, topics: readonly string[]) => {
    requests.push(`${api} ${topics.join(',')}`.trim());
    if (down) {
      throw Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
        name: 'KafkaJSConnectionError',
      });
    }
  };
  const firstRefused = (topics: readonly string[]) => {
    for (const t of topics) {
      if (refuse.has(t)) throw protocol(refuse.get(t)!);
      if (!cluster.has(t)) throw protocol('UNKNOWN_TOPIC_OR_PARTITION');
    }
  };
  const seen = (name: string): number => {
    const count = stale.get(name) ?? cluster.get(name)!.partitions;
    stale.delete(name);
    return count;
  };
  const admin = {
    fetchTopicMetadata: async ({ topics = [] }: { topics?: string[] } = { topics: [] }) => {
      enter('Metadata', topics);
      const names = topics.length ? topics : [...cluster.keys()];
      for (const t of names) if (!cluster.has(t)) throw protocol('UNKNOWN_TOPIC_OR_PARTITION');
      return {
        topics: names.map((name) => ({
          name,
          partitions: Array.from({ length: seen(name) }, (_, i) => ({
            partitionId: i,
            leader: 1,
            replicas: [1],
            isr: [1],
            partitionErrorCode: 0,
          })),
        })),
      };
    },
    describeConfigs: async ({ resources }: { resources: { name: string }[] }) => {
      const topics = resources.map((r) => r.name);
      enter('DescribeConfigs', topics);
      firstRefused(topics);
      return {
        resources: topics.map((t) => ({
          resourceName: t,
          configEntries: Object.entries(cluster.get(t)!.config).map(
            ([configName, configValue]) => ({
              configName,
              configValue,
            }),
          ),
        })),
      };
    },
    createTopics: async ({ topics }: { topics: ITopicConfig[] }) => {
      enter(
        'CreateTopics',
        topics.map((t) => t.topic),
      );
      const errors: Error[] = [];
      for (const t of topics) {
        if (cluster.has(t.topic)) errors.push(topicError('TOPIC_ALREADY_EXISTS', t.topic));
        else if (t.configEntries?.some((e) => e.name === 'remote.storage.enable'))
          errors.push(topicError('INVALID_CONFIG', t.topic));
        else cluster.set(t.topic, { partitions: t.numPartitions ?? 1, config: {} });
      }
      if (errors.length === 0) return true;
      if (errors.every((e) => (e as { type?: string }).type === 'TOPIC_ALREADY_EXISTS'))
        return false;
      throw new kafkajs.KafkaJSAggregateError('Topic creation errors', errors);
    },
    createPartitions: async ({
      topicPartitions,
    }: {
      topicPartitions: { topic: string; count: number }[];
    }) => {
      enter(
        'CreatePartitions',
        topicPartitions.map((p) => p.topic),
      );
      let first: Error | undefined;
      for (const { topic, count } of topicPartitions) {
        const t = cluster.get(topic);
        if (refuse.has(topic)) first ??= protocol(refuse.get(topic)!);
        else if (!t) first ??= protocol('UNKNOWN_TOPIC_OR_PARTITION');
        else if (t.partitions >= count) first ??= protocol('INVALID_PARTITIONS');
        else t.partitions = count;
      }
      if (first) throw first; // the others went through, as Kafka does them one by one
      return true;
    },
    alterConfigs: async ({
      resources,
    }: {
      resources: { name: string; configEntries: { name: string; value: string }[] }[];
    }) => {
      enter(
        'AlterConfigs',
        resources.map((r) => r.name),
      );
      let first: Error | undefined;
      for (const r of resources) {
        if (refuse.has(r.name)) first ??= protocol(refuse.get(r.name)!);
        else if (!cluster.has(r.name)) first ??= protocol('UNKNOWN_TOPIC_OR_PARTITION');
        else
          cluster.get(r.name)!.config = Object.fromEntries(
            r.configEntries.map((e) => [e.name, e.value]),
          );
      }
      if (first) throw first;
      return { resources: [] };
    },
    deleteTopics: async ({ topics }: { topics: string[] }) => {
      enter('DeleteTopics', topics);
      let first: Error | undefined;
      for (const t of topics) {
        if (!cluster.delete(t)) first ??= protocol('UNKNOWN_TOPIC_OR_PARTITION');
      }
      if (first) throw first;
    },
  } as unknown as Admin;
  return {
    admin,
    cluster,
    requests,
    refuse,
    stale,
    setDown: (value: boolean) => void (down = value),
  };
}

function setup(options: TopicAdminOptions = {}) {
  const kafka = fakeKafka();
  const counted: string[] = [];
  const calls: string[] = [];
  let unusable = 0;
  const context: KafkaCallContext = {
    where: 'ProviderProfile events (k:9092)',
    metrics: { request: (_p, operation, result) => void counted.push(`${operation}/${result}`) },
    onUnusable: () => void unusable++,
  };
  const topics = topicAdmin(kafka.admin, context, {
    ...options,
    onCall: (operation) => void calls.push(operation),
  });
  return { ...kafka, topics, counted, calls, unusable: () => unusable };
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
const kindOf = (result: { ok: boolean; error?: unknown }) =>
  result.ok ? 'ok' : result.error instanceof KafkaError ? result.error.kind : String(result.error);

describe('topicAdmin', () => {
  it('sends concurrent calls of one kind as one request, counted once, each caller getting its own topic', async () => {
    const { topics, cluster, requests, counted, calls } = setup();
    for (const t of ['a', 'b', 'c']) cluster.set(t, { partitions: 3, config: { x: t } });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((t) => topics.metadata(t)));
    expect([a!.name, b!.name, c!.name]).toEqual(['a', 'b', 'c']);
    expect(a!.partitions).toHaveLength(3);
    const configs = await Promise.all(['c', 'a'].map((t) => topics.describeConfigs(t)));
    expect(configs.map((entries) => entries[0]?.configValue)).toEqual(['c', 'a']);
    expect(requests).toEqual(['Metadata a,b,c', 'DescribeConfigs c,a']);
    expect(counted).toEqual(['Metadata/success', 'DescribeConfigs/success']);
    expect(calls).toEqual([
      'Metadata',
      'Metadata',
      'Metadata',
      'DescribeConfigs',
      'DescribeConfigs',
    ]);
  });

  it('fails only the topic CreateTopics refused; an existing topic is already-exists for its caller alone', async () => {
    const { topics, cluster, requests, counted } = setup();
    cluster.set('old', { partitions: 1, config: {} });
    const results = await Promise.all(
      [
        { topic: 'fine', numPartitions: 3 },
        { topic: 'tiered', configEntries: [{ name: 'remote.storage.enable', value: 'true' }] },
        { topic: 'old' },
        { topic: 'also-fine' },
      ].map((t) => settle(topics.createTopic(t))),
    );
    expect(results.map(kindOf)).toEqual(['ok', 'invalid-config', 'already-exists', 'ok']);
    expect((results[1] as { error: Error }).error.message).toContain('INVALID_CONFIG');
    expect(requests).toEqual(['CreateTopics fine,tiered,old,also-fine']);
    expect(counted).toEqual(['CreateTopics/error']);
    expect(cluster.get('fine')?.partitions).toBe(3);
    expect(cluster.has('also-fine')).toBe(true);
  });

  it('finds which topics of a Metadata batch are missing with one listing, not a request per topic', async () => {
    const { topics, cluster, requests } = setup();
    cluster.set('here', { partitions: 2, config: {} });
    const results = await Promise.all(
      ['new-1', 'here', 'new-2'].map((t) => settle(topics.metadata(t))),
    );
    expect(results.map(kindOf)).toEqual(['not-found', 'ok', 'not-found']);
    expect(requests).toEqual(['Metadata new-1,here,new-2', 'Metadata']);
  });

  it('asks again topic by topic when DescribeConfigs or AlterConfigs fails for one topic of many', async () => {
    const { topics, cluster, refuse, requests } = setup();
    for (const t of ['a', 'b', 'c']) cluster.set(t, { partitions: 1, config: { k: t } });
    refuse.set('b', 'TOPIC_AUTHORIZATION_FAILED');
    const described = await Promise.all(
      ['a', 'b', 'c'].map((t) => settle(topics.describeConfigs(t))),
    );
    expect(described.map((r) => (r.ok ? 'ok' : (r.error as { reason?: string }).reason))).toEqual([
      'ok',
      'Forbidden',
      'ok',
    ]);
    refuse.set('b', 'INVALID_CONFIG');
    const altered = await Promise.all(
      ['a', 'b'].map((t) => settle(topics.alterConfigs(t, [{ name: 'k', value: `${t}2` }]))),
    );
    expect(altered.map(kindOf)).toEqual(['ok', 'invalid-config']);
    expect(cluster.get('a')!.config).toEqual({ k: 'a2' });
    expect(requests).toEqual([
      'DescribeConfigs a,b,c',
      'DescribeConfigs a',
      'DescribeConfigs b',
      'DescribeConfigs c',
      'AlterConfigs a,b',
      'AlterConfigs a',
      'AlterConfigs b',
    ]);
  });

  it('resends CreatePartitions only for the topics still short of their count', async () => {
    const { topics, cluster, refuse, requests } = setup();
    for (const t of ['a', 'b', 'c']) cluster.set(t, { partitions: 1, config: {} });
    refuse.set('b', 'INVALID_PARTITIONS');
    const results = await Promise.all(
      ['a', 'b', 'c', 'gone'].map((t) => settle(topics.createPartitions(t, 4))),
    );
    expect(results.map(kindOf)).toEqual(['ok', 'invalid-partitions', 'ok', 'not-found']);
    expect([...cluster.values()].map((t) => t.partitions)).toEqual([4, 1, 4]);
    expect(requests).toEqual([
      'CreatePartitions a,b,c,gone',
      'Metadata a,b,c,gone',
      'Metadata',
      'CreatePartitions b',
      'Metadata b', // refused alone too: looked at once more before failing its caller
    ]);
  });

  it('takes a resent CreatePartitions refused because the batch had done it after all as done', async () => {
    const { topics, cluster, refuse, stale, requests } = setup();
    for (const t of ['a', 'b']) cluster.set(t, { partitions: 1, config: {} });
    refuse.set('b', 'INVALID_PARTITIONS');
    stale.set('a', 1); // the first look after the batch still shows a's old count
    const results = await Promise.all(['a', 'b'].map((t) => settle(topics.createPartitions(t, 2))));
    expect(results.map(kindOf)).toEqual(['ok', 'invalid-partitions']);
    expect(requests).toEqual([
      'CreatePartitions a,b',
      'Metadata a,b',
      'CreatePartitions a', // refused: a has 2 already
      'CreatePartitions b',
      'Metadata a,b',
    ]);
  });

  it('deletes many topics in one request; when one was gone, each caller learns its topic is gone', async () => {
    const { topics, cluster, requests } = setup();
    for (const t of ['a', 'b']) cluster.set(t, { partitions: 1, config: {} });
    const results = await Promise.all(['a', 'gone', 'b'].map((t) => settle(topics.deleteTopic(t))));
    // a and b went with the first request, which failed for gone: asked again, each is not there
    expect(results.map(kindOf)).toEqual(['not-found', 'not-found', 'not-found']);
    expect(cluster.size).toBe(0);
    expect(requests).toEqual([
      'DeleteTopics a,gone,b',
      'DeleteTopics a',
      'DeleteTopics gone',
      'DeleteTopics b',
    ]);
  });

  it('fails every caller when the request fails as a whole, and drops the connection once', async () => {
    const { topics, setDown, requests, counted, unusable } = setup();
    setDown(true);
    const results = await Promise.all(['a', 'b', 'c'].map((t) => settle(topics.metadata(t))));
    for (const r of results) {
      expect(r.ok).toBe(false);
      expect((r as { error: unknown }).error).toBeInstanceOf(KafkaUnreachableError);
      expect((r as { error: Error }).error.message).toContain(
        'the Kafka brokers of ProviderProfile events (k:9092) are unreachable: Metadata failed',
      );
    }
    expect(new Set(results.map((r) => (r as { error: unknown }).error)).size).toBe(3); // one each
    expect(requests).toEqual(['Metadata a,b,c']);
    expect(counted).toEqual(['Metadata/error']);
    expect(unusable()).toBe(1);
  });

  it('sends each call alone with batching off', async () => {
    const { topics, cluster, requests, counted } = setup({ batching: false });
    for (const t of ['a', 'b']) cluster.set(t, { partitions: 1, config: {} });
    await Promise.all(['a', 'b'].map((t) => topics.metadata(t)));
    await Promise.all(['c', 'd'].map((topic) => topics.createTopic({ topic })));
    expect(requests).toEqual(['Metadata a', 'Metadata b', 'CreateTopics c', 'CreateTopics d']);
    expect(counted).toHaveLength(4);
  });
});
