import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { ExternalAnnotations as A } from '@steward/external';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { KubeClient, Namespaces, NotFoundError } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import kafkajs, { type Admin } from 'kafkajs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaTopicController } from '../src/index.js';

/**
 * Tenants sharing one Kafka cluster through one profile (`topicNamePolicy` NamespacePrefix, the
 * default): team-a and team-b may use it, outsiders may not; every attempt to reach another
 * namespace's topic is refused and checked at the broker.
 */
type Topic = KafkaTopic;
const Kind = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
const { ConfigResourceTypes, ConfigSource } = kafkajs;
const [NS_A, NS_B, NS_OUT] = ['team-a', 'team-b', 'outsiders'];

let plane: ControlPlane;
let kafka: Kafka;
let admin: KubeClient;
let kafkaAdmin: Admin;
let manager: Manager;
/** Mutating admin calls the controller made, `Operation/result`. */
const calls: string[] = [];

beforeAll(async () => {
  [plane, kafka] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/kafka-topic-controller/crds')] }),
    startKafka(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  kafkaAdmin = await kafka.admin();
  for (const name of [NS_A, NS_B, NS_OUT]) {
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await admin.create<ProviderProfile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'shared-kafka' },
    spec: {
      provider: 'kafka',
      namespaces: [NS_A, NS_B],
      // team-b may even adopt: that still never reaches team-a's topics.
      adoption: { namespaces: [NS_B] },
      kafka: { bootstrapServers: kafka.bootstrapServers },
    },
  } as ProviderProfile);
  manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'kafka-topic-controller' });
  kafkaTopicController(manager, {
    pollIntervalMs: 500,
    busyPollIntervalMs: 200,
    externalMetrics: {
      request: (_provider, operation, result) => void calls.push(`${operation}/${result}`),
    },
  });
  manager.start().catch(() => undefined);
});
afterAll(async () => {
  await manager?.stop();
  await kafkaAdmin?.disconnect();
  await admin?.close();
  await Promise.all([plane?.stop(), kafka?.[Symbol.asyncDispose]()]);
});

const create = (
  namespace: string,
  name: string,
  spec: Partial<Topic['spec']> = {},
  annotations: Record<string, string> = {},
) =>
  admin.create<Topic>(Kind, {
    apiVersion: KafkaTopic.apiVersion,
    kind: 'KafkaTopic',
    metadata: { name, namespace, annotations },
    spec: { providerProfileRef: { name: 'shared-kafka' }, partitions: 2, ...spec },
  } as Topic);
const condition = async (namespace: string, name: string, type: string) =>
  findCondition((await admin.get<Topic>(Kind, name, namespace)).status?.conditions, type);
const reason = (namespace: string, name: string, expected: string) =>
  eventually(async () => (await condition(namespace, name, 'Ready'))?.reason === expected, {
    description: `${namespace}/${name} Ready reason ${expected}`,
    timeoutMs: 60_000,
  });
const gone = (namespace: string, name: string) =>
  eventually(
    () =>
      admin.get<Topic>(Kind, name, namespace).then(
        () => false,
        (e: unknown) => e instanceof NotFoundError,
      ),
    { description: `${namespace}/${name} gone`, timeoutMs: 30_000 },
  );
async function overridesOf(topic: string): Promise<Record<string, string>> {
  const described = await kafkaAdmin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
    includeSynonyms: false,
  });
  return Object.fromEntries(
    described.resources[0]!.configEntries.filter(
      (e) => e.configSource === ConfigSource.TOPIC_CONFIG,
    ).map((e) => [e.configName, e.configValue]),
  );
}
const topics = async () => (await kafkaAdmin.listTopics()).sort();
const mutations = () => calls.filter((c) => !/^(Describe|Fetch|List|Metadata)/.test(c));

describe('KafkaTopic tenancy', () => {
  it('manages a topic under its namespace prefix, and refuses a profile from a namespace it does not allow', async () => {
    await create(NS_A, 'orders', {
      topicName: 'team-a.orders',
      config: { 'retention.ms': '3600000' },
    });
    await reason(NS_A, 'orders', 'Available');
    expect(await topics()).toContain('team-a.orders');

    await create(NS_OUT, 'orders', { topicName: 'outsiders.orders' });
    await reason(NS_OUT, 'orders', 'ProfileNotAllowedInNamespace');
    expect((await condition(NS_OUT, 'orders', 'Stalled'))?.status).toBe('True');
    expect(await topics()).not.toContain('outsiders.orders');
  });

  it("refuses another namespace's topic — by spec.topicName or a forged external-name annotation, with spec.adopt and Delete — and changes nothing at Kafka", async () => {
    await eventually(async () => (await topics()).includes('team-a.orders'), {
      description: 'team-a.orders exists',
    });
    const before = await overridesOf('team-a.orders');
    const mutationsBefore = mutations().length;
    const forgedLedger = {
      [A.externalName]: 'team-a.orders',
      [A.createPending]: '2026-01-01T00:00:00.000Z',
      [A.createSucceeded]: '2026-01-01T00:00:01.000Z',
    };
    await create(
      NS_B,
      'thief',
      {
        topicName: 'team-b.thief',
        adopt: true,
        deletionPolicy: 'Delete',
        config: { 'retention.ms': '1' },
      },
      forgedLedger,
    );
    await create(NS_B, 'named-thief', {
      topicName: 'team-a.orders',
      adopt: true,
      deletionPolicy: 'Delete',
      config: { 'retention.ms': '1' },
    });
    for (const name of ['thief', 'named-thief']) {
      await reason(NS_B, name, 'TopicNameNotAllowed');
      expect((await condition(NS_B, name, 'Ready'))?.message).toContain(
        'allows only topics named team-b.<name>',
      );
    }
    await sleep(1_500);
    expect(await overridesOf('team-a.orders')).toEqual(before);

    // Refused before anything was recorded, they carry no finalizer: deleting them (with Delete)
    // removes the objects at once and touches nothing at Kafka.
    for (const name of ['thief', 'named-thief']) {
      expect((await admin.get<Topic>(Kind, name, NS_B)).metadata.finalizers ?? []).toEqual([]);
      await admin.delete(Kind, name, NS_B);
      await gone(NS_B, name);
    }
    await sleep(1_000);
    expect(await topics()).toContain('team-a.orders');
    expect(await overridesOf('team-a.orders')).toEqual(before);
    expect(mutations().length).toBe(mutationsBefore);
    expect((await condition(NS_A, 'orders', 'Ready'))?.status).toBe('True');
  });
});
