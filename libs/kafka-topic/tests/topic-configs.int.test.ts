import { startKafka, type Kafka } from '@steward/testing-backends';
import kafkajs, { type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalConfigValue,
  configProblems,
  kafkaErrorType,
  TopicConfigs,
  type TopicConfigType,
} from '../src/index.js';

const { ConfigResourceTypes, ConfigSource } = kafkajs;

let kafka: Kafka;
let admin: Admin;

beforeAll(async () => {
  kafka = await startKafka();
  admin = await kafka.admin();
});
afterAll(async () => {
  await kafka?.[Symbol.asyncDispose]();
});

/** Values at and around the bounds of a config type, plus garbage. */
function samples(t: TopicConfigType): string[] {
  switch (t.type) {
    case 'boolean':
      return ['true', 'FALSE', ' true ', 'yes', '1'];
    case 'int':
    case 'long': {
      const out = ['abc', '1.5', ''];
      if (t.min !== undefined) out.push(String(t.min), String(t.min - 1n), ` +${t.min + 1n} `);
      else out.push('-1', '-5');
      if (t.max !== undefined) out.push(String(t.max), String(t.max + 1n));
      else out.push(t.type === 'int' ? '2147483647' : '9223372036854775807');
      out.push(t.type === 'int' ? '2147483648' : '9223372036854775808');
      for (const v of t.also ?? []) out.push(String(v));
      return out;
    }
    case 'double':
      return [String(t.min), String(t.max), '0.25', String(t.max + 0.5), '-0.5', 'x'];
    case 'enum':
      return [...t.values, t.values[0]!.toUpperCase(), 'bogus'];
    case 'list':
      return ['', ...t.values, t.values.join(', '), `${t.values[0]},bogus`, 'bogus'];
    case 'throttled-replicas':
      return ['*', '', '0:1', '0:1, 1:1', '0-1', 'x'];
  }
}

/** Keys whose valid values this single, plain broker refuses for what it is (no tiered storage). */
const clusterDependent: Record<string, string[]> = {
  'remote.storage.enable': ['true', ' true '],
};

/** Whether the broker accepts `key=value` for a new topic (CreateTopics with validateOnly). */
async function brokerAccepts(key: string, value: string): Promise<boolean> {
  try {
    await admin.createTopics({
      validateOnly: true,
      waitForLeaders: false, // kafkajs would wait for the leaders of a topic never created
      topics: [{ topic: 'probe', numPartitions: 1, configEntries: [{ name: key, value }] }],
    });
    return true;
  } catch (error) {
    if (kafkaErrorType(error) === 'INVALID_CONFIG') return false;
    throw error;
  }
}

describe('TopicConfigs against a Kafka 4.1 broker', () => {
  it('knows every topic config the broker describes, and no other', async () => {
    await admin.createTopics({ topics: [{ topic: 'described', numPartitions: 1 }] });
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'described' }],
      includeSynonyms: false,
    });
    const names = described.resources[0]!.configEntries.map((e) => e.configName).sort();
    expect(Object.keys(TopicConfigs).sort()).toEqual(names);
  });

  it('accepts exactly the values the broker accepts, key by key', async () => {
    const disagreements: string[] = [];
    let refused = 0;
    let checked = 0;
    for (const [key, type] of Object.entries(TopicConfigs)) {
      for (const value of samples(type)) {
        checked++;
        const ours = configProblems({ [key]: value }).length === 0;
        const broker = await brokerAccepts(key, value);
        if (!broker) refused++;
        const expectedRefusal = clusterDependent[key]?.includes(value) ?? false;
        if (ours !== broker && !(ours && expectedRefusal)) {
          disagreements.push(
            `${key}=${JSON.stringify(value)}: Steward ${ours ? 'accepts' : 'refuses'}, the broker ${broker ? 'accepts' : 'refuses'}`,
          );
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(checked).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(100); // validateOnly does validate
  });

  it('spells values back as canonicalConfigValue says', async () => {
    const given: Record<string, string> = {
      preallocate: 'TRUE',
      'retention.ms': ' +1000 ',
      'cleanup.policy': 'compact, delete',
      'min.cleanable.dirty.ratio': '1',
      'compression.type': ' zstd ',
      'follower.replication.throttled.replicas': '0:1, 1:1',
    };
    await admin.createTopics({
      topics: [
        {
          topic: 'spelled',
          numPartitions: 1,
          configEntries: Object.entries(given).map(([name, value]) => ({ name, value })),
        },
      ],
    });
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'spelled' }],
      includeSynonyms: false,
    });
    const reported = Object.fromEntries(
      described.resources[0]!.configEntries.filter(
        (e) => e.configSource === ConfigSource.TOPIC_CONFIG,
      ).map((e) => [e.configName, e.configValue]),
    );
    expect(reported).toEqual(
      Object.fromEntries(Object.entries(given).map(([k, v]) => [k, canonicalConfigValue(k, v)])),
    );
  });
});
