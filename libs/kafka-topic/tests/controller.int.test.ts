import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { ExternalAnnotations as A } from '@steward/external';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { KubeClient, Namespaces, NotFoundError } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import kafkajs, { type Admin } from 'kafkajs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KafkaTopicFinalizer, kafkaTopicController } from '../src/index.js';

type Topic = KafkaTopic;
type Profile = ProviderProfile;
const Kind = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
const { ConfigResourceTypes, ConfigSource } = kafkajs;

let plane: ControlPlane;
let kafka: Kafka;
let admin: KubeClient;
let kafkaAdmin: Admin;
let ns = 'kt';
let testNumber = 0;
const running: Manager[] = [];
/** Admin calls of the current test's controller, `Operation/result`. */
let calls: string[] = [];

beforeAll(async () => {
  [plane, kafka] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/kafka-topic-controller/crds')] }),
    startKafka(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  kafkaAdmin = await kafka.admin();
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'events' },
    spec: {
      provider: 'kafka',
      namespaceSelector: {},
      kafka: { bootstrapServers: kafka.bootstrapServers, topicNamePolicy: 'Any' },
    },
  } as Profile);
});
beforeEach(async () => {
  ns = `kt-${++testNumber}`;
  calls = [];
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const manager of running.splice(0)) await manager.stop();
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), kafka?.[Symbol.asyncDispose]()]);
});

/** API requests of the current test's controller, `verb path`. */
let requests: string[] = [];

function run(): void {
  requests = [];
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: 'kafka-topic-controller',
    client: { onRequest: (info) => void requests.push(`${info.verb} ${info.path}`) },
  });
  kafkaTopicController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 500,
    busyPollIntervalMs: 200,
    externalMetrics: {
      request: (_provider, operation, result) => void calls.push(`${operation}/${result}`),
    },
  });
  manager.start().catch(() => undefined);
  running.push(manager);
}

const create = (name: string, spec: Partial<Topic['spec']> = {}) =>
  admin.create<Topic>(Kind, {
    apiVersion: KafkaTopic.apiVersion,
    kind: 'KafkaTopic',
    metadata: { name, namespace: ns },
    spec: { providerProfileRef: { name: 'events' }, partitions: 3, ...spec },
  } as Topic);
const read = (name: string) => admin.get<Topic>(Kind, name, ns);
const patchSpec = (name: string, spec: Record<string, unknown>) =>
  admin.mergePatch<Topic>(Kind, name, ns, { spec });
/** Lets this test's namespace adopt topics through the profile (`spec.adoption.namespaces`). */
const allowAdoption = () =>
  admin.mergePatch<Profile>(Profiles, 'events', undefined, {
    spec: { adoption: { namespaces: [ns] } },
  });
const condition = async (name: string, type: string) =>
  findCondition((await read(name)).status?.conditions, type);
const ready = (name: string) =>
  eventually(async () => (await condition(name, 'Ready'))?.status === 'True', {
    description: `${name} Ready`,
    timeoutMs: 60_000,
  });
const reason = (name: string, expected: string, type = 'Ready') =>
  eventually(async () => (await condition(name, type))?.reason === expected, {
    description: `${name} ${type} reason ${expected}`,
    timeoutMs: 60_000,
  });
const gone = (name: string) =>
  eventually(
    () =>
      read(name).then(
        () => false,
        (e: unknown) => e instanceof NotFoundError,
      ),
    { description: `${name} deleted`, timeoutMs: 30_000 },
  );

/** A topic as the brokers see it, or undefined. */
async function topicAt(name: string) {
  const metadata = await kafkaAdmin.fetchTopicMetadata({ topics: [name] }).catch((e: unknown) => {
    if ((e as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return undefined;
    throw e;
  });
  const topic = metadata?.topics.find((t) => t.name === name);
  if (!topic) return undefined;
  return {
    partitions: topic.partitions.length,
    replicas: Math.min(...topic.partitions.map((p) => p.replicas.length)),
    overrides: await overridesOf(name),
  };
}

async function overridesOf(name: string): Promise<Record<string, string>> {
  const described = await kafkaAdmin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name }],
    includeSynonyms: false,
  });
  return Object.fromEntries(
    described.resources[0]!.configEntries.filter(
      (e) => e.configSource === ConfigSource.TOPIC_CONFIG,
    ).map((e) => [e.configName, e.configValue]),
  );
}

/** Changes a topic's config outside Steward, as `kafka-configs.sh --alter` would (keeping the rest). */
async function alterOutside(name: string, changes: Record<string, string>): Promise<void> {
  const next = { ...(await overridesOf(name)), ...changes };
  await kafkaAdmin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: ConfigResourceTypes.TOPIC,
        name,
        configEntries: Object.entries(next).map(([n, value]) => ({ name: n, value })),
      },
    ],
  });
}

describe('kafkaTopicController against a real Kafka broker', () => {
  it('creates a topic with its partitions, replication factor and config, and publishes them in status', async () => {
    run();
    await create('orders', {
      partitions: 3,
      replicationFactor: 1,
      config: { 'retention.ms': '3600000', 'cleanup.policy': 'compact,delete' },
    });
    await ready('orders');
    expect(await topicAt('orders')).toEqual({
      partitions: 3,
      replicas: 1,
      overrides: { 'retention.ms': '3600000', 'cleanup.policy': 'compact,delete' },
    });
    const obj = await eventually(
      async () => {
        const o = await read('orders');
        return o.status?.partitions === 3 ? o : undefined;
      },
      { description: 'status.partitions' },
    );
    expect(obj.metadata.finalizers).toContain(KafkaTopicFinalizer);
    expect(obj.metadata.annotations?.[A.externalName]).toBe('orders');
    expect(obj.status).toMatchObject({
      topicName: 'orders',
      externalName: 'orders',
      partitions: 3,
      replicationFactor: 1,
      config: { 'retention.ms': '3600000', 'cleanup.policy': 'compact,delete' },
      providerState: 'available',
      observedGeneration: obj.metadata.generation,
    });
    expect(findCondition(obj.status?.conditions, 'Synced')?.status).toBe('True');
    expect(calls).toContain('CreateTopics/success');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    // Ready in at most four writes of the KafkaTopic: the pending record (finalizer, name, mark),
    // create-succeeded, status Creating, status Available.
    const writes = requests.filter(
      (r) => !/^(get|list|watch) /.test(r) && r.includes('/kafkatopics/orders'),
    );
    expect(writes.length, writes.join('\n')).toBeLessThanOrEqual(4);
  });

  it('costs no API writes once converged, and keeps one connection per profile across reconciles', async () => {
    run();
    await create('quiet', { partitions: 1, config: { 'retention.ms': '3600000' } });
    await ready('quiet');
    await eventually(async () => (await read('quiet')).status?.partitions === 1, {
      description: 'status complete',
    });
    // The baseline: once the controller's cache holds the object as the API server has it, the
    // echo of its last write has arrived (and been filtered).
    const cache = running.at(-1)!.informers.informerFor<Topic>(Kind, { namespace: ns });
    await eventually(
      async () =>
        cache.store.get(`${ns}/quiet`)?.metadata.resourceVersion ===
        (await read('quiet')).metadata.resourceVersion,
      { description: 'the cache caught up' },
    );
    const writes = () =>
      requests.filter((r) => !/^(get|list|watch) /.test(r) && r.includes('/kafkatopics'));
    const before = writes().length;
    const polls = () => calls.filter((c) => c === 'Metadata/success').length;
    const start = polls();
    await eventually(() => polls() >= start + 3, { description: 'three more polls' });
    expect(writes().slice(before)).toEqual([]);
    expect(calls.filter((c) => c.startsWith('Connect'))).toEqual(['Connect/success']);
  });

  it('names the topic after spec.topicName, with the broker’s default replication factor', async () => {
    run();
    await create('payments', { topicName: 'Payments_v2.EU', partitions: 1 });
    await ready('payments');
    expect(await topicAt('Payments_v2.EU')).toMatchObject({ partitions: 1, replicas: 1 });
    expect(await topicAt('payments')).toBeUndefined();
    expect((await read('payments')).status?.topicName).toBe('Payments_v2.EU');
  });

  it('adds partitions when spec.partitions grows', async () => {
    run();
    await create('clicks', { partitions: 2 });
    await ready('clicks');
    await patchSpec('clicks', { partitions: 5 });
    await eventually(async () => (await topicAt('clicks'))?.partitions === 5, {
      description: 'clicks has 5 partitions',
    });
    await eventually(async () => (await read('clicks')).status?.partitions === 5, {
      description: 'status.partitions 5',
    });
    expect(calls).toContain('CreatePartitions/success');
  });

  it('changes only the managed keys: a key set outside Steward survives, a key removed from the spec is reset', async () => {
    run();
    await create('audit', {
      partitions: 1,
      config: { 'retention.ms': '3600000', 'cleanup.policy': 'compact' },
    });
    await ready('audit');
    await alterOutside('audit', { 'segment.ms': '7200000' });
    await patchSpec('audit', { config: { 'retention.ms': '7200000', 'cleanup.policy': null } });
    await eventually(async () => (await overridesOf('audit'))['retention.ms'] === '7200000', {
      description: 'retention.ms changed',
    });
    expect(await overridesOf('audit')).toEqual({
      'retention.ms': '7200000',
      'segment.ms': '7200000', // not Steward's: left alone
    });
    await eventually(
      async () => {
        const config = (await read('audit')).status?.config;
        return JSON.stringify(config) === JSON.stringify({ 'retention.ms': '7200000' });
      },
      { description: 'status.config holds only the managed key' },
    );
  });

  it('corrects drift made outside Kubernetes on a managed key, and leaves the others', async () => {
    run();
    await create('ledger', { partitions: 1, config: { 'retention.ms': '3600000' } });
    await ready('ledger');
    await alterOutside('ledger', { 'retention.ms': '1000', 'max.message.bytes': '2000000' });
    await eventually(async () => (await overridesOf('ledger'))['retention.ms'] === '3600000', {
      description: 'retention.ms back to the spec',
    });
    expect((await overridesOf('ledger'))['max.message.bytes']).toBe('2000000');
  });

  it('reports a replication factor change as NotSupported and changes nothing', async () => {
    run();
    await create('metrics', { partitions: 2, replicationFactor: 1 });
    await ready('metrics');
    await patchSpec('metrics', { replicationFactor: 3, partitions: 4 });
    await reason('metrics', 'NotSupported');
    const obj = await read('metrics');
    // The refusal is observed: generation 2 everywhere, Synced=False with the reason — Failed.
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect(findCondition(obj.status?.conditions, 'Synced')).toMatchObject({
      status: 'False',
      reason: 'NotSupported',
    });
    expect(findCondition(obj.status?.conditions, 'Ready')?.message).toContain(
      "spec.replicationFactor is 3 but topic metrics has 1 replica per partition: the Kafka admin API cannot change a topic's replication factor",
    );
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await topicAt('metrics')).toMatchObject({ partitions: 2, replicas: 1 });
    // putting the replication factor back lets the partition increase through
    await patchSpec('metrics', { replicationFactor: 1 });
    await eventually(async () => (await topicAt('metrics'))?.partitions === 4, {
      description: 'metrics has 4 partitions',
    });
    await ready('metrics');
    await eventually(
      async () => (await gitOpsReading(await read('metrics'))).kstatus === 'Current',
      { description: 'kstatus Current after the revert' },
    );
    expect((await gitOpsReading(await read('metrics'))).unobserved).toEqual([]);
  });

  it('stops an invalid config with InvalidConfig before any call to Kafka, and never retries it', async () => {
    run();
    await create('typo', {
      partitions: 1,
      config: { 'retention.msx': '1000', 'segment.bytes': '10' },
    });
    await reason('typo', 'InvalidConfig');
    const message = (await condition('typo', 'Ready'))?.message;
    expect(message).toContain(
      'spec.config.retention.msx ("1000"): retention.msx is not a topic-level config of Kafka 4.1 (did you mean retention.ms?)',
    );
    expect(message).toContain(
      'spec.config.segment.bytes: "10" is not valid; expected an integer (int) at least 1048576',
    );
    expect((await condition('typo', 'Stalled'))?.status).toBe('True');
    await sleep(3_000); // fifteen busy poll intervals
    expect(calls).toEqual([]);
    expect(await topicAt('typo')).toBeUndefined();
    console.log(`admin calls for a config Steward refuses: ${calls.length}`);
  });

  it('stops a config the brokers refuse with InvalidConfig after one create, without a retry storm', async () => {
    run();
    // A valid value the broker refuses: tiered storage is not enabled on this cluster.
    await create('tiered', { partitions: 1, config: { 'remote.storage.enable': 'true' } });
    await reason('tiered', 'InvalidConfig');
    expect((await condition('tiered', 'Ready'))?.message).toContain(
      'Kafka refused to create topic tiered with spec.config {remote.storage.enable=true}: INVALID_CONFIG',
    );
    const atStall = [...calls];
    await sleep(3_000);
    expect(calls).toEqual(atStall);
    expect(calls.filter((c) => c.startsWith('CreateTopics'))).toEqual(['CreateTopics/error']);
    console.log(
      `admin calls for a config the broker refuses: ${calls.length} (${calls.join(', ')})`,
    );
    expect(await topicAt('tiered')).toBeUndefined();
  });

  it('gives a topic claimed twice to the older KafkaTopic; the newer gets ResourceConflict until the older goes', async () => {
    run();
    await create('shared', { partitions: 1 });
    await ready('shared');
    await sleep(1_100); // creationTimestamp has one-second resolution
    await create('shared-copy', { partitions: 1, topicName: 'shared' });
    await reason('shared-copy', 'ResourceConflict');
    expect((await condition('shared-copy', 'Ready'))?.message).toContain(
      `topic shared on ProviderProfile events is already managed by KafkaTopic ${ns}/shared`,
    );
    expect((await condition('shared', 'Ready'))?.status).toBe('True');
    // The older one goes (Retain: the topic stays); the newer one is reconciled at once, and the
    // topic it finds is not its own: AlreadyExists, until it adopts it.
    await admin.delete(Kind, 'shared', ns);
    await gone('shared');
    await reason('shared-copy', 'AlreadyExists');
    await patchSpec('shared-copy', { adopt: true });
    await reason('shared-copy', 'AdoptionNotAllowed');
    await allowAdoption();
    await ready('shared-copy');
    expect(await topicAt('shared')).toBeDefined();
  });

  it('refuses an existing topic it did not create (AlreadyExists) until spec.adopt, then manages only its keys', async () => {
    await kafkaAdmin.createTopics({
      topics: [
        {
          topic: 'legacy',
          numPartitions: 2,
          configEntries: [
            { name: 'retention.ms', value: '1000' },
            { name: 'segment.ms', value: '7200000' },
          ],
        },
      ],
    });
    run();
    await create('legacy', { partitions: 2, config: { 'retention.ms': '3600000' } });
    await reason('legacy', 'AlreadyExists');
    expect((await condition('legacy', 'Ready'))?.message).toContain(
      'legacy already exists at kafka and was not created by this object; set spec.adopt: true',
    );
    expect((await overridesOf('legacy'))['retention.ms']).toBe('1000');
    await patchSpec('legacy', { adopt: true });
    // spec.adopt alone takes nothing over: the profile must allow it for the namespace.
    await reason('legacy', 'AdoptionNotAllowed');
    expect((await condition('legacy', 'Ready'))?.message).toContain(
      'does not allow adoption from namespace',
    );
    expect((await overridesOf('legacy'))['retention.ms']).toBe('1000');
    await allowAdoption();
    await ready('legacy');
    await eventually(async () => (await overridesOf('legacy'))['retention.ms'] === '3600000', {
      description: 'the adopted topic takes the spec',
    });
    expect((await overridesOf('legacy'))['segment.ms']).toBe('7200000');
  });

  it('keeps the topic with deletionPolicy Retain and deletes it with Delete', async () => {
    run();
    await create('kept', { partitions: 1 });
    await create('dropped', { partitions: 1, deletionPolicy: 'Delete' });
    await ready('kept');
    await ready('dropped');
    await admin.delete(Kind, 'kept', ns);
    await admin.delete(Kind, 'dropped', ns);
    await gone('kept');
    await gone('dropped');
    expect(await topicAt('kept')).toBeDefined();
    await eventually(async () => (await topicAt('dropped')) === undefined, {
      description: 'the topic dropped deleted',
    });
    expect(calls).toContain('DeleteTopics/success');
  });

  // Stops the shared broker: keep it last.
  it('pauses before anything else — even an invalid config — touches nothing at Kafka, and resumes when unpaused', async () => {
    run();
    await admin.create<Topic>(Kind, {
      apiVersion: KafkaTopic.apiVersion,
      kind: 'KafkaTopic',
      metadata: { name: 'held', namespace: ns, annotations: { [A.paused]: 'true' } },
      spec: {
        providerProfileRef: { name: 'events' },
        partitions: 2,
        config: { 'retention.ms': 'forever' },
      },
    } as Topic);
    await reason('held', 'ReconcilePaused', 'Synced');
    const held = await read('held');
    expect(findCondition(held.status?.conditions, 'Stalled')).toBeUndefined(); // config not judged
    expect(held.metadata.finalizers ?? []).toEqual([]);
    expect(await topicAt('held')).toBeUndefined();
    expect(calls.some((c) => c.startsWith('CreateTopics'))).toBe(false);

    await admin.mergePatch(Kind, 'held', ns, {
      metadata: { annotations: { [A.paused]: null } },
      spec: { config: { 'retention.ms': '3600000' } },
    });
    await ready('held');
    expect(await topicAt('held')).toMatchObject({ partitions: 2 });
  });

  it('reports unreachable brokers as Ready=False with a reason, and recovers once they are back', async () => {
    run();
    await create('survivor', { partitions: 1, config: { 'retention.ms': '3600000' } });
    await ready('survivor');
    await kafka.stop();
    try {
      // the next poll finds no broker
      await reason('survivor', 'BrokersUnreachable');
      const down = await read('survivor');
      expect(findCondition(down.status?.conditions, 'Ready')?.message).toMatch(
        /the Kafka brokers of ProviderProfile events \(127\.0\.0\.1:\d+\) are unreachable/,
      );
      expect(findCondition(down.status?.conditions, 'Synced')).toMatchObject({
        status: 'False',
        reason: 'ReconcileError',
      });
      expect(findCondition(down.status?.conditions, 'Stalled')).toBeUndefined(); // retried
      expect(await gitOpsReading(down)).toMatchObject({ kstatus: 'InProgress', unobserved: [] });
      // a topic asked for meanwhile waits too
      await create('latecomer', { partitions: 2 });
      await reason('latecomer', 'BrokersUnreachable');
    } finally {
      await kafka.start();
    }
    kafkaAdmin = await kafka.admin();
    await ready('survivor');
    await ready('latecomer');
    expect(await topicAt('latecomer')).toMatchObject({ partitions: 2 });
    expect((await condition('survivor', 'Synced'))?.status).toBe('True');
  });
});
