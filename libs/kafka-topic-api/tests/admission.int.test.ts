import { KafkaTopic, type KafkaTopicSpec } from '../src/index.js';
import { InvalidError, KubeClient, Namespaces } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The generated CRDs exactly as the chart ships them (tools/scripts/generate-crds.ts). */
const chartCrds = join(repoRoot(), 'charts', 'kafka-topic-controller', 'crds');
const namespace = 'kt';

let plane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane({ crds: [chartCrds] });
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'kafka-topic-api-test' });
  await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

const spec = { providerProfileRef: { name: 'events' }, partitions: 3 };

const topic = (name: string, s: Record<string, unknown>): KafkaTopic =>
  ({
    apiVersion: KafkaTopic.apiVersion,
    kind: 'KafkaTopic',
    metadata: { name, namespace },
    spec: s,
  }) as KafkaTopic;

async function rejection(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof InvalidError) return error.message;
    throw error;
  }
  throw new Error('expected the API server to reject the request');
}

const read = (name: string) => client.get<KafkaTopic>(KafkaTopic.resourceType, name, namespace);

describe('the KafkaTopic CRD from the chart, in a real API server', () => {
  it('ships ProviderProfile in the same chart and accepts a kafka profile', async () => {
    const created = await client.create<ProviderProfile>(ProviderProfile.resourceType, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: 'events' },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: {
          bootstrapServers: ['kafka-0.kafka:9093'],
          tls: { secretRef: { namespace: 'kafka', name: 'ca' } },
          sasl: { mechanism: 'scram-sha-512', secretRef: { namespace: 'kafka', name: 'admin' } },
        },
      },
    } as ProviderProfile);
    expect(created.spec.provider).toBe('kafka');
  });

  it('accepts a minimal KafkaTopic and applies the safe defaults', async () => {
    const created = await client.create<KafkaTopic>(KafkaTopic.resourceType, topic('orders', spec));
    expect(created.spec).toEqual({
      ...spec,
      deletionPolicy: 'Retain',
      adopt: false,
    } satisfies KafkaTopicSpec);
  });

  it('accepts every field set, a topic name with dots, underscores and capitals, and 64 config keys', async () => {
    const config = Object.fromEntries(
      Array.from({ length: 64 }, (_, i) => [`x.key${i}`, String(i)]),
    );
    const created = await client.create<KafkaTopic>(
      KafkaTopic.resourceType,
      topic('payments', {
        ...spec,
        topicName: 'Payments_v2.EU-west',
        partitions: 10000,
        replicationFactor: 3,
        config,
        deletionPolicy: 'Delete',
        adopt: true,
      }),
    );
    expect(created.spec).toMatchObject({ topicName: 'Payments_v2.EU-west', adopt: true });
    expect(Object.keys(created.spec.config ?? {})).toHaveLength(64);
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    ['no partitions', 'bad', { ...spec, partitions: undefined }, 'spec.partitions: Required value'],
    [
      'no providerProfileRef',
      'bad',
      { ...spec, providerProfileRef: undefined },
      'spec.providerProfileRef: Required value',
    ],
    ['0 partitions', 'bad', { ...spec, partitions: 0 }, 'should be greater than or equal to 1'],
    [
      '10001 partitions',
      'bad',
      { ...spec, partitions: 10001 },
      'should be less than or equal to 10000',
    ],
    [
      'replicationFactor 0',
      'bad',
      { ...spec, replicationFactor: 0 },
      'should be greater than or equal to 1',
    ],
    [
      'replicationFactor 33',
      'bad',
      { ...spec, replicationFactor: 33 },
      'should be less than or equal to 32',
    ],
    [
      'a topic name with a slash',
      'bad',
      { ...spec, topicName: 'orders/v1' },
      'spec.topicName: Invalid value: "orders/v1"',
    ],
    [
      'a topic name with a space',
      'bad',
      { ...spec, topicName: 'my topic' },
      'spec.topicName: Invalid value: "my topic"',
    ],
    [
      'the topic name ..',
      'bad',
      { ...spec, topicName: '..' },
      "spec.topicName may not be '.' or '..'",
    ],
    [
      'the topic name .',
      'bad',
      { ...spec, topicName: '.' },
      "spec.topicName may not be '.' or '..'",
    ],
    [
      'a 250-character topic name',
      'bad',
      { ...spec, topicName: 'a'.repeat(250) },
      'spec.topicName: Too long',
    ],
    [
      'a config key in capitals',
      'bad',
      { ...spec, config: { 'Retention.ms': '1000' } },
      'spec.config keys must be Kafka topic config names: lowercase letters, digits and dots, such as retention.ms',
    ],
    [
      'a config key with an equals sign',
      'bad',
      { ...spec, config: { 'retention.ms=1': '1000' } },
      'spec.config keys must be Kafka topic config names',
    ],
    [
      '65 config keys',
      'bad',
      {
        ...spec,
        config: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, '1'])),
      },
      'spec.config: Too many: 65: must have at most 64 items',
    ],
    [
      'a config value that is a number, not a string',
      'bad',
      { ...spec, config: { 'retention.ms': 1000 } },
      'spec.config.retention.ms: Invalid value: "integer"',
    ],
    [
      'an unknown deletionPolicy',
      'bad',
      { ...spec, deletionPolicy: 'Orphan' },
      'Unsupported value: "Orphan"',
    ],
    [
      'a 250-character metadata.name and no topicName',
      'x'.repeat(250),
      spec,
      'metadata.name is longer than 249 characters, the longest topic name Kafka accepts: set spec.topicName',
    ],
  ])('rejects a KafkaTopic with %s', async (_case, name, s, expected) => {
    expect(await rejection(client.create(KafkaTopic.resourceType, topic(name, s)))).toContain(
      expected,
    );
  });

  it('accepts a 250-character metadata.name with a legal spec.topicName', async () => {
    const created = await client.create<KafkaTopic>(
      KafkaTopic.resourceType,
      topic('y'.repeat(250), { ...spec, topicName: 'short' }),
    );
    expect(created.spec.topicName).toBe('short');
  });

  it.each<[string, string, (s: KafkaTopicSpec) => KafkaTopicSpec, string]>([
    [
      'decreasing partitions',
      'orders',
      (s) => ({ ...s, partitions: 2 }),
      'spec.partitions may only increase: Kafka cannot remove partitions from a topic',
    ],
    [
      'changing topicName',
      'payments',
      (s) => ({ ...s, topicName: 'payments-v3' }),
      'spec.topicName is immutable: create a new KafkaTopic for another topic',
    ],
    [
      'adding a topicName other than metadata.name',
      'orders',
      (s) => ({ ...s, topicName: 'orders-v2' }),
      'the topic name is immutable: spec.topicName may only be added or removed when it equals metadata.name',
    ],
    [
      'removing a topicName other than metadata.name',
      'payments',
      (s) => ({ ...s, topicName: undefined }),
      'the topic name is immutable: spec.topicName may only be added or removed when it equals metadata.name',
    ],
    [
      'changing providerProfileRef',
      'orders',
      (s) => ({ ...s, providerProfileRef: { name: 'other' } }),
      'spec.providerProfileRef is immutable: a topic cannot move between Kafka clusters',
    ],
  ])('rejects an update %s', async (_case, name, change, expected) => {
    const current = await read(name);
    expect(
      await rejection(
        client.update(KafkaTopic.resourceType, { ...current, spec: change(current.spec) }),
      ),
    ).toContain(expected);
  });

  it('accepts more partitions, a new config, a replication factor (the controller judges it) and topicName = metadata.name', async () => {
    const current = await read('orders');
    const updated = await client.update<KafkaTopic>(KafkaTopic.resourceType, {
      ...current,
      spec: {
        ...current.spec,
        partitions: 6,
        replicationFactor: 3,
        config: { 'retention.ms': '3600000', 'cleanup.policy': 'compact' },
        topicName: 'orders',
        deletionPolicy: 'Delete',
      },
    });
    expect(updated.spec).toMatchObject({ partitions: 6, topicName: 'orders' });
    // and removing it again names the same topic
    const removed = await client.update<KafkaTopic>(KafkaTopic.resourceType, {
      ...updated,
      spec: { ...updated.spec, topicName: undefined },
    });
    expect(removed.spec.topicName).toBeUndefined();
  });

  it('takes the status the controller writes through the status subresource', async () => {
    const current = await read('orders');
    const updated = await client.updateStatus<KafkaTopic>(KafkaTopic.resourceType, {
      ...current,
      status: {
        observedGeneration: current.metadata.generation,
        topicName: 'orders',
        externalName: 'orders',
        partitions: 6,
        replicationFactor: 1,
        config: { 'retention.ms': '3600000' },
        providerState: 'available',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Available',
            message: 'orders is available at kafka',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    expect(updated.status).toMatchObject({ partitions: 6, config: { 'retention.ms': '3600000' } });
    // a config key removed by a merge patch with null goes away
    const patched = await client.mergePatch<KafkaTopic>(
      KafkaTopic.resourceType,
      'orders',
      namespace,
      { status: { config: { 'retention.ms': null } } },
      { subresource: 'status' },
    );
    expect(patched.status?.config).toEqual({});
    expect(
      await rejection(
        client.updateStatus(KafkaTopic.resourceType, {
          ...patched,
          status: { ...patched.status, providerState: 'exploded' },
        }),
      ),
    ).toContain('Unsupported value: "exploded"');
  });
});
