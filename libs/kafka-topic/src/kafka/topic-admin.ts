import kafkajs, {
  type Admin,
  type ConfigEntries,
  type IResourceConfigEntry,
  type ITopicConfig,
  type ITopicMetadata,
} from 'kafkajs';
import { Batcher, type BatcherOptions, type BatchResult } from './batcher.js';
import {
  kafkaErrorKind,
  kafkaErrorType,
  kafkaRequest,
  mapKafkaError,
  type KafkaCallContext,
} from './errors.js';

/**
 * The admin calls the KafkaTopic provider makes, each about one topic. Every method rejects as
 * `kafkaCall` does: a `KafkaError` with its kind for what the caller decides on (`not-found`,
 * `already-exists`, `invalid-config`, …), `KafkaUnreachableError`, `TerminalError` for refused
 * credentials or ACLs, an `Error` naming the call otherwise.
 *
 * Six methods rather than five: one per Kafka API, so each is counted and batched on its own.
 */
export interface TopicAdmin {
  /** Metadata: the topic's partitions (leader, replicas). A missing topic is `not-found`. */
  metadata(topic: string): Promise<ITopicMetadata>;
  /** DescribeConfigs of the topic resource, without synonyms. */
  describeConfigs(topic: string): Promise<ConfigEntries[]>;
  /** CreateTopics, not waiting for leaders. An existing topic is `already-exists` (or resolves). */
  createTopic(topic: ITopicConfig): Promise<void>;
  /** CreatePartitions up to `count`. */
  createPartitions(topic: string, count: number): Promise<void>;
  /** AlterConfigs: replaces all of the topic's overrides with `entries`. */
  alterConfigs(topic: string, entries: IResourceConfigEntry[]): Promise<void>;
  /**
   * DeleteTopics. A topic that is not there is `not-found` — the answer also for a topic this very
   * call deleted when another topic of its batch failed and each was sent again: either way, gone.
   */
  deleteTopic(topic: string): Promise<void>;
}

/** The Kafka API behind each `TopicAdmin` method, as counted in metrics. */
export const TopicOperations = {
  metadata: 'Metadata',
  describeConfigs: 'DescribeConfigs',
  createTopic: 'CreateTopics',
  createPartitions: 'CreatePartitions',
  alterConfigs: 'AlterConfigs',
  deleteTopic: 'DeleteTopics',
} as const satisfies Record<keyof TopicAdmin, string>;

/** How calls are gathered into requests (`Batcher`'s options, per Kafka API). */
export type TopicBatching = Omit<BatcherOptions<unknown>, 'key'>;

export interface TopicAdminOptions {
  /** Batching of concurrent calls; `false` sends every call alone, at once. Default on. */
  batching?: TopicBatching | false;
  /** Counts each call (one per topic, however they are batched) by operation. */
  onCall?(operation: string): void;
}

/** The `timeout` of CreateTopics, CreatePartitions and DeleteTopics, for the Kafka controller. */
const brokerTimeoutMs = 10_000;

const ok = <R>(value: R): BatchResult<R> => ({ ok: true, value });
const failed = <R>(error: unknown): BatchResult<R> => ({ ok: false, error });

/**
 * A `TopicAdmin` on one connected admin client, whose calls go out batched: the calls of one kind
 * made within `maxWaitMs` (10 ms) of the first share one request, up to `maxItems` (100) topics —
 * CreateTopics, Metadata, DescribeConfigs, CreatePartitions, AlterConfigs and DeleteTopics all take
 * many topics. Each request counts once in `context.metrics`.
 *
 * Sharing the answer out. CreateTopics answers per topic (kafkajs' aggregate error names each
 * topic), so a refused topic fails only its caller. The others answer per topic on the wire but
 * kafkajs throws only the first topic's error, unnamed: such a failure of a batch is attributed
 * again before anyone is failed —
 * - Metadata, when a topic is missing: one Metadata of every topic (`listTopics`' request) says
 *   which exist; a missing topic fails its caller with `not-found`, as its own request would. A
 *   topic the principal may not Describe is absent from that list too, and reads as missing;
 * - CreatePartitions: the topics are looked up (batched Metadata); one that has its `count` of
 *   partitions now succeeded, the others are sent again, one request each;
 * - DescribeConfigs, AlterConfigs (idempotent: the whole set of overrides) and DeleteTopics (a
 *   second delete of a deleted topic is `not-found`, which the provider takes as done): each
 *   topic again in a request of its own.
 * A failure of the request itself (brokers unreachable, credentials refused, a timeout) fails
 * every caller of the batch with it.
 */
export function topicAdmin(
  admin: Admin,
  context: KafkaCallContext,
  options: TopicAdminOptions = {},
): TopicAdmin {
  const batching: TopicBatching =
    options.batching === false ? { maxItems: 1 } : (options.batching ?? {});
  const request = <R>(operation: string, call: () => Promise<R>): Promise<R> =>
    kafkaRequest(operation, context, call);

  /** Each item again, alone, in parallel. */
  const oneByOne = <I, R>(items: readonly I[], send: (item: I) => Promise<R>) =>
    Promise.all(items.map((item) => send(item).then(ok<R>, (error: unknown) => failed<R>(error))));

  const fetchOne = async (topic: string): Promise<ITopicMetadata> => {
    const { topics } = await request(TopicOperations.metadata, () =>
      admin.fetchTopicMetadata({ topics: [topic] }),
    );
    const found = topics.find((t) => t.name === topic);
    if (!found) throw unknownTopic();
    return found;
  };
  const metadata = new Batcher<string, ITopicMetadata>(
    async (topics) => {
      try {
        const { topics: found } = await request(TopicOperations.metadata, () =>
          admin.fetchTopicMetadata({ topics: [...topics] }),
        );
        return pick(topics, found);
      } catch (error) {
        if (topics.length === 1 || !perTopic(error)) throw error;
        if (kafkaErrorKind(error) === 'not-found') {
          const all = await request(TopicOperations.metadata, () =>
            admin.fetchTopicMetadata(),
          ).catch((e: unknown) => {
            if (!perTopic(e)) throw e;
            return undefined; // some topic of the cluster is leaderless: ask one by one
          });
          if (all) return pick(topics, all.topics);
        }
        return oneByOne(topics, fetchOne);
      }
    },
    { ...batching, key: (topic) => topic },
  );

  const describeOne = async (topic: string): Promise<ConfigEntries[]> => {
    const [entries] = await describe([topic]);
    return entries!;
  };
  const describe = async (topics: readonly string[]): Promise<ConfigEntries[][]> => {
    const { resources } = await request(TopicOperations.describeConfigs, () =>
      admin.describeConfigs({
        resources: topics.map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name })),
        includeSynonyms: false,
      }),
    );
    return topics.map((t) => resources.find((r) => r.resourceName === t)?.configEntries ?? []);
  };
  const describeConfigs = new Batcher<string, ConfigEntries[]>(
    async (topics) => {
      try {
        return (await describe(topics)).map(ok);
      } catch (error) {
        if (topics.length === 1 || !perTopic(error)) throw error;
        return oneByOne(topics, describeOne);
      }
    },
    { ...batching, key: (topic) => topic },
  );

  const createTopics = new Batcher<ITopicConfig, void>(
    async (configs) => {
      try {
        await request(TopicOperations.createTopic, () =>
          admin.createTopics({
            topics: [...configs],
            waitForLeaders: false,
            timeout: brokerTimeoutMs,
          }),
        );
        return configs.map(() => ok(undefined));
      } catch (error) {
        const byTopic = configs.length > 1 ? perTopicCreateErrors(error) : undefined;
        if (!byTopic) throw error;
        return configs.map((c) => {
          const own = byTopic.get(c.topic);
          return own
            ? failed(new kafkajs.KafkaJSAggregateError(own.message, [own]))
            : ok(undefined);
        });
      }
    },
    { ...batching, key: (config) => config.topic },
  );

  interface PartitionsCall {
    topic: string;
    count: number;
  }
  const sendPartitions = (calls: readonly PartitionsCall[]) =>
    request(TopicOperations.createPartitions, () =>
      admin.createPartitions({ topicPartitions: [...calls], timeout: brokerTimeoutMs }),
    );
  /** Whether the topic has exactly `count` partitions now (batched Metadata), or why unknown. */
  const hasCount = (c: PartitionsCall): Promise<BatchResult<boolean>> =>
    metadata.call(c.topic).then(
      (found) => ok(found.partitions.length === c.count),
      (e: unknown) => failed<boolean>(e),
    );
  /**
   * One topic of a batch that failed for some topic: done if the topic has its count already (the
   * batch went through for it), else sent alone — and a refusal of that (INVALID_PARTITIONS) looked
   * at once more, as the broker may have applied the batch's change only since the first look.
   */
  const settlePartitions = async (c: PartitionsCall): Promise<BatchResult<void>> => {
    const seen = await hasCount(c);
    if (seen.ok && seen.value) return ok(undefined);
    if (!seen.ok && kafkaErrorKind(seen.error) === 'not-found') return failed(seen.error);
    try {
      await sendPartitions([c]);
      return ok(undefined);
    } catch (error) {
      if (kafkaErrorKind(error) === 'invalid-partitions') {
        const again = await hasCount(c);
        if (again.ok && again.value) return ok(undefined);
      }
      return failed(error);
    }
  };
  const createPartitions = new Batcher<PartitionsCall, void>(
    async (calls) => {
      try {
        await sendPartitions(calls);
        return calls.map(() => ok(undefined));
      } catch (error) {
        if (calls.length === 1 || !perTopic(error)) throw error;
        // Some went through: a second CreatePartitions to the count a topic already has would be
        // refused (INVALID_PARTITIONS), so only the topics still short of their count are resent.
        return Promise.all(calls.map(settlePartitions));
      }
    },
    { ...batching, key: (c) => c.topic },
  );

  interface AlterCall {
    topic: string;
    entries: IResourceConfigEntry[];
  }
  const sendAlter = (calls: readonly AlterCall[]) =>
    request(TopicOperations.alterConfigs, () =>
      admin.alterConfigs({
        validateOnly: false,
        resources: calls.map((c) => ({
          type: kafkajs.ConfigResourceTypes.TOPIC,
          name: c.topic,
          configEntries: c.entries,
        })),
      }),
    );
  const alterConfigs = new Batcher<AlterCall, void>(
    async (calls) => {
      try {
        await sendAlter(calls);
        return calls.map(() => ok(undefined));
      } catch (error) {
        if (calls.length === 1 || !perTopic(error)) throw error;
        return oneByOne(calls, (c) => sendAlter([c]).then(() => undefined));
      }
    },
    { ...batching, key: (c) => c.topic },
  );

  const sendDelete = (topics: readonly string[]) =>
    request(TopicOperations.deleteTopic, () =>
      admin.deleteTopics({ topics: [...topics], timeout: brokerTimeoutMs }),
    );
  const deleteTopics = new Batcher<string, void>(
    async (topics) => {
      try {
        await sendDelete(topics);
        return topics.map(() => ok(undefined));
      } catch (error) {
        if (topics.length === 1 || !perTopic(error)) throw error;
        return oneByOne(topics, (t) => sendDelete([t]));
      }
    },
    { ...batching, key: (topic) => topic },
  );

  /** One call: counted, batched, and its failure mapped as `kafkaCall` maps it. */
  const call = <I, R>(operation: string, batcher: Batcher<I, R>, item: I): Promise<R> => {
    options.onCall?.(operation);
    return batcher.call(item).catch((error: unknown) => {
      throw mapKafkaError(operation, context, error);
    });
  };
  const O = TopicOperations;
  return {
    metadata: (topic) => call(O.metadata, metadata, topic),
    describeConfigs: (topic) => call(O.describeConfigs, describeConfigs, topic),
    createTopic: (topic) => call(O.createTopic, createTopics, topic),
    createPartitions: (topic, count) =>
      call(O.createPartitions, createPartitions, { topic, count }),
    alterConfigs: (topic, entries) => call(O.alterConfigs, alterConfigs, { topic, entries }),
    deleteTopic: (topic) => call(O.deleteTopic, deleteTopics, topic),
  };
}

/** Each topic's metadata from an answer; a topic not in it is missing. */
function pick(
  topics: readonly string[],
  found: readonly ITopicMetadata[],
): BatchResult<ITopicMetadata>[] {
  const byName = new Map(found.map((t) => [t.name, t]));
  return topics.map((t) => {
    const metadata = byName.get(t);
    return metadata ? ok(metadata) : failed(unknownTopic());
  });
}

/** What a Metadata request for a missing topic answers. */
function unknownTopic(): Error {
  return new kafkajs.KafkaJSProtocolError({
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
    code: 3,
    retriable: true,
    message: 'This server does not host this topic-partition',
  } as never);
}

/**
 * Whether a failed request may have failed for some of its topics only: a Kafka error code that
 * the protocol reports per topic. Not so for an unreachable broker, refused credentials or a
 * cluster-wide authorization failure, which fail the request as a whole.
 */
function perTopic(error: unknown): boolean {
  const kind = kafkaErrorKind(error);
  if (kind === 'unreachable' || kind === 'authentication' || kind === 'tls') return false;
  const type = kafkaErrorType(error);
  return type !== undefined && type !== 'CLUSTER_AUTHORIZATION_FAILED';
}

/** CreateTopics' per-topic errors (kafkajs' aggregate of `KafkaJSCreateTopicError`s), by topic. */
function perTopicCreateErrors(error: unknown): Map<string, Error> | undefined {
  const errors = (error as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const byTopic = new Map<string, Error>();
  for (const e of errors as unknown[]) {
    const topic = (e as { topic?: unknown } | undefined)?.topic;
    if (!(e instanceof Error) || typeof topic !== 'string') return undefined;
    byTopic.set(topic, e);
  }
  return byTopic;
}
