import { eventually, tcpConnect } from '@steward/testing';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  KafkaJSNonRetriableError,
  KafkaJSProtocolError,
  logLevel,
  type Admin,
  type Kafka as KafkaClient,
} from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kafkaLibDir,
  startKafka,
  type Kafka,
  type KafkaListener,
  type KafkaSaslUser,
} from '../src/kafka.js';

/** pids of processes whose command line mentions `dataDir` (pgrep exits 1 when nothing matches). */
function processesUsing(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', dataDir], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Produces `values` to `topic` and reads them back from the beginning with a new consumer group. */
async function roundTrip(client: KafkaClient, topic: string, values: string[]): Promise<string[]> {
  const producer = client.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: values.map((value) => ({ value })) });
  } finally {
    await producer.disconnect();
  }
  return consumeAll(client, topic, values.length);
}

async function consumeAll(client: KafkaClient, topic: string, count: number): Promise<string[]> {
  const consumer = client.consumer({ groupId: `reader-${Math.random().toString(36).slice(2)}` });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
      },
    });
    await eventually(() => seen.length >= count, {
      description: `${count} messages on ${topic}`,
      timeoutMs: 60_000,
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

/** The kafkajs error a rejected call ends with. */
async function rejection(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to be rejected');
}

describe('startKafka: a real Apache Kafka broker through kafkajs', () => {
  let kafka: Kafka;
  let admin: Admin;

  beforeAll(async () => {
    kafka = await startKafka();
    admin = await kafka.admin();
  });
  afterAll(() => kafka?.[Symbol.asyncDispose]());

  it('serves one KRaft node on loopback, under its own cluster id', async () => {
    expect(kafka.bootstrapServers).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    expect(kafka.saslBootstrapServers).toBeUndefined();
    expect(kafka.tlsBootstrapServers).toBeUndefined();
    const cluster = await admin.describeCluster();
    expect(cluster.clusterId).toBe(kafka.clusterId);
    expect(cluster.brokers).toEqual([
      { nodeId: 1, host: '127.0.0.1', port: Number(kafka.bootstrapServers[0]!.split(':')[1]) },
    ]);
  });

  it('creates a topic, then a produced message can be consumed', async () => {
    expect(await admin.createTopics({ topics: [{ topic: 'orders' }], waitForLeaders: true })).toBe(
      true,
    );
    expect(await admin.listTopics()).toContain('orders');
    expect(await roundTrip(kafka.kafka(), 'orders', ['first', 'second'])).toEqual([
      'first',
      'second',
    ]);
  });

  it('does not create topics on first use (auto.create.topics.enable=false)', async () => {
    const error = await rejection(admin.fetchTopicMetadata({ topics: ['never-created'] }));
    expect(error).toBeInstanceOf(KafkaJSProtocolError);
    expect((error as KafkaJSProtocolError).type).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(await admin.listTopics()).not.toContain('never-created');
  });

  it('serves what a topic operator calls: configs, partitions, delete', async () => {
    await admin.createTopics({
      topics: [
        {
          topic: 'payments',
          numPartitions: 2,
          replicationFactor: 1,
          configEntries: [{ name: 'retention.ms', value: '3600000' }],
        },
      ],
    });
    const described = await admin.describeConfigs({
      resources: [{ type: 2 /* TOPIC */, name: 'payments', configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    expect(described.resources[0]?.configEntries).toEqual([
      expect.objectContaining({ configName: 'retention.ms', configValue: '3600000' }),
    ]);

    await admin.alterConfigs({
      resources: [
        { type: 2, name: 'payments', configEntries: [{ name: 'retention.ms', value: '60000' }] },
      ],
      validateOnly: false,
    });
    await admin.createPartitions({ topicPartitions: [{ topic: 'payments', count: 4 }] });
    const { topics } = await admin.fetchTopicMetadata({ topics: ['payments'] });
    expect(topics[0]?.partitions).toHaveLength(4);

    // A replication factor above the broker count is refused: one node, one replica.
    const refused = await rejection(
      admin.createTopics({ topics: [{ topic: 'wide', replicationFactor: 3 }] }),
    );
    expect(JSON.stringify(refused)).toMatch(/INVALID_REPLICATION_FACTOR/);

    await admin.deleteTopics({ topics: ['payments'] });
    await eventually(async () => !(await admin.listTopics()).includes('payments'), {
      description: 'payments to be deleted',
    });
  });
});

describe('a broker stopped and started again (faults)', () => {
  let kafka: Kafka;

  beforeAll(async () => {
    kafka = await startKafka();
  });
  afterAll(() => kafka?.[Symbol.asyncDispose]());

  it('stop() leaves no process; start() brings the same cluster back with its topics and data', async () => {
    const admin = await kafka.admin();
    await admin.createTopics({ topics: [{ topic: 'kept' }], waitForLeaders: true });
    await roundTrip(kafka.kafka(), 'kept', ['before']);
    const pid = kafka.pid!;
    const servers = kafka.bootstrapServers;

    await kafka.stop();
    expect(kafka.running).toBe(false);
    expect(kafka.pid).toBeUndefined();
    expect(alive(pid)).toBe(false);
    expect(processesUsing(kafka.dataDir)).toEqual([]);
    await kafka.stop(); // idempotent

    await kafka.start();
    expect(kafka.pid).not.toBe(pid);
    expect(kafka.bootstrapServers).toEqual(servers);
    const again = await kafka.admin();
    expect((await again.describeCluster()).clusterId).toBe(kafka.clusterId);
    expect(await again.listTopics()).toContain('kept');
    expect(await consumeAll(kafka.kafka(), 'kept', 1)).toEqual(['before']);
  });

  it('a client of its own sees the broker go away, and recovers once it is back after a crash', async () => {
    const client = kafka.kafka({ logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const admin = client.admin();
    await admin.connect();
    try {
      await kafka.kill();
      expect(processesUsing(kafka.dataDir)).toEqual([]);
      await expect(admin.listTopics()).rejects.toThrow();

      await kafka.start();
      const topics = await eventually(() => admin.listTopics(), {
        description: 'the same admin to reach the restarted broker',
      });
      expect(topics).toContain('kept');
    } finally {
      await admin.disconnect();
    }
  });

  it('pause() freezes the broker until resume()', async () => {
    const client = kafka.kafka({
      logLevel: logLevel.NOTHING,
      requestTimeout: 1_000,
      retry: { retries: 0 },
    });
    const admin = client.admin();
    await admin.connect();
    try {
      kafka.pause();
      await expect(admin.describeCluster()).rejects.toThrow();
      kafka.resume();
      const cluster = await eventually(() => admin.describeCluster(), {
        description: 'the broker to answer again after resume()',
      });
      expect(cluster.clusterId).toBe(kafka.clusterId);
    } finally {
      kafka.resume();
      await admin.disconnect();
    }
  });

  it('disposing removes the data directory', async () => {
    const other = await startKafka();
    const { dataDir } = other;
    expect(existsSync(dataDir)).toBe(true);
    await other[Symbol.asyncDispose]();
    expect(existsSync(dataDir)).toBe(false);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});

describe.each<KafkaSaslUser['mechanism']>(['scram-sha-512', 'scram-sha-256', 'plain'])(
  'a SASL_PLAINTEXT listener with %s',
  (mechanism) => {
    const user: KafkaSaslUser = { mechanism, username: 'orders-app', password: 'p@ss=w0rd]!' };
    let kafka: Kafka;

    beforeAll(async () => {
      kafka = await startKafka({ sasl: user });
    });
    afterAll(() => kafka?.[Symbol.asyncDispose]());

    it('admits the configured user', async () => {
      expect(kafka.saslBootstrapServers).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
      expect(kafka.saslBootstrapServers).not.toEqual(kafka.bootstrapServers);
      const admin = kafka.kafka(kafka.clientConfig('sasl')).admin();
      await admin.connect();
      try {
        await admin.createTopics({ topics: [{ topic: 'secured' }], waitForLeaders: true });
        expect(await admin.listTopics()).toContain('secured');
      } finally {
        await admin.disconnect();
      }
      const producer = kafka.kafka(kafka.clientConfig('sasl')).producer();
      await producer.connect();
      await producer.send({ topic: 'secured', messages: [{ value: 'authenticated' }] });
      await producer.disconnect();
      const offsets = await (await kafka.admin()).fetchTopicOffsets('secured');
      expect(offsets).toEqual([expect.objectContaining({ partition: 0, high: '1' })]);
    });

    it('refuses a wrong password', async () => {
      const config = kafka.clientConfig('sasl');
      const admin = kafka
        .kafka({
          ...config,
          sasl: { mechanism, username: user.username, password: 'wrong' } as typeof config.sasl,
          logLevel: logLevel.NOTHING,
          retry: { retries: 0 },
        })
        .admin();
      const error = await rejection(admin.connect());
      await admin.disconnect();
      expect(error).toBeInstanceOf(KafkaJSNonRetriableError);
      expect(error.name).toBe('KafkaJSSASLAuthenticationError');
    });
  },
);

describe('an SSL listener', () => {
  let kafka: Kafka;

  beforeAll(async () => {
    kafka = await startKafka({ tls: true });
  });
  afterAll(() => kafka?.[Symbol.asyncDispose]());

  it('serves a certificate for 127.0.0.1 signed by the CA it hands out', async () => {
    expect(kafka.caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const admin = kafka.kafka(kafka.clientConfig('tls')).admin();
    await admin.connect();
    try {
      expect((await admin.describeCluster()).clusterId).toBe(kafka.clusterId);
    } finally {
      await admin.disconnect();
    }
  });

  it('is refused by a client that does not trust that CA', async () => {
    const admin = kafka
      .kafka({
        brokers: kafka.tlsBootstrapServers!,
        ssl: true,
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
      })
      .admin();
    const error = await rejection(admin.connect());
    await admin.disconnect();
    expect(String(error.cause ?? error.message)).toMatch(/certificate/i);
  });
});

describe('a broker on another host address', () => {
  let kafka: Kafka;

  beforeAll(async () => {
    kafka = await startKafka({
      host: '127.0.0.2',
      sasl: { mechanism: 'scram-sha-512', username: 'orders-app', password: 's3cret' },
      tls: true,
    });
    await (await kafka.admin()).createTopics({ topics: [{ topic: 'reachable' }] });
  });
  afterAll(() => kafka?.[Symbol.asyncDispose]());

  it.each<KafkaListener>(['plaintext', 'sasl', 'tls', 'sasl-tls'])(
    'listens on and advertises that address only: %s',
    async (listener) => {
      const { brokers } = kafka.clientConfig(listener);
      expect(brokers).toEqual([expect.stringMatching(/^127\.0\.0\.2:\d+$/)]);
      const port = Number((brokers as string[])[0]!.split(':')[1]);
      const admin = kafka.kafka(kafka.clientConfig(listener)).admin();
      await admin.connect();
      try {
        expect(await admin.listTopics()).toContain('reachable');
        // Its metadata names the advertised address, so clients stay on it.
        expect((await admin.describeCluster()).brokers).toEqual([
          { nodeId: 1, host: '127.0.0.2', port },
        ]);
      } finally {
        await admin.disconnect();
      }
      expect(await tcpConnect('127.0.0.1', port)).toBe('ECONNREFUSED');
    },
  );
});

describe('brokers never outlive their owner, and never share state', () => {
  it('two brokers run side by side, each with its own cluster and topics', async () => {
    const [a, b] = await Promise.all([startKafka(), startKafka()]);
    try {
      expect(a.bootstrapServers).not.toEqual(b.bootstrapServers);
      expect(a.clusterId).not.toBe(b.clusterId);
      await (await a.admin()).createTopics({ topics: [{ topic: 'only-in-a' }] });
      expect(await (await b.admin()).listTopics()).not.toContain('only-in-a');
      expect(await (await a.admin()).listTopics()).toContain('only-in-a');
    } finally {
      await Promise.all([a[Symbol.asyncDispose](), b[Symbol.asyncDispose]()]);
    }
  });

  it('a configuration Kafka refuses fails start-up with Kafka’s own words', async () => {
    const error = await rejection(
      startKafka({ brokerProperties: { 'log.segment.bytes': 'not-a-number' } }),
    );
    expect(error.message).toMatch(/^steward: kafka-storage format failed/);
    expect(error.message).toMatch(
      /Invalid value not-a-number for configuration log\.segment\.bytes/,
    );
  });

  it('a broker not ready in time is stopped, and the error carries its log tail', async () => {
    const error = await rejection(startKafka({ readyTimeoutMs: 1 }));
    expect(error.message).toMatch(/^steward: the Kafka broker did not answer describeCluster/);
    expect(error.message).toMatch(/Formatting metadata directory (\S+)\/data/);
    const dataDir = /Formatting metadata directory (\S+)\/data/.exec(error.message)![1]!;
    expect(processesUsing(dataDir)).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('the watchdog ends the broker when its owner is killed outright (SIGKILL)', async () => {
    const lib = await kafkaLibDir();
    const moduleUrl = new URL('../src/kafka.ts', import.meta.url).href;
    const script = `const { startKafka } = await import(${JSON.stringify(moduleUrl)});
      const kafka = await startKafka();
      console.log(JSON.stringify({ pid: kafka.pid, dataDir: kafka.dataDir }));
      setInterval(() => {}, 1000);`;
    const owner = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, STEWARD_KAFKA_LIB: lib } },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: owner.stdout! }).once('line', resolve);
      owner.once('exit', (code) => reject(new Error(`owner exited early with ${code}`)));
    });
    const { pid, dataDir } = JSON.parse(line) as { pid: number; dataDir: string };
    expect(processesUsing(dataDir)).toEqual([pid]);

    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGKILL');
    await exited;

    await eventually(() => processesUsing(dataDir).length === 0, {
      description: `the broker ${pid} using ${dataDir} to be gone`,
      timeoutMs: 30_000,
    });
    await rm(dataDir, { recursive: true, force: true });
  });
});
