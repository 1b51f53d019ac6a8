import { findCondition } from '@steward/conditions';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { KubeClient, Namespaces } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import {
  bindChartRbac,
  renderChart,
  startControllerProcess,
  type ControllerProcess,
} from '@steward/testing-charts';
import { type Admin } from 'kafkajs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Topic = KafkaTopic;
const Topics = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
const RELEASE_NAMESPACE = 'steward-system';
const ns = 'orders';

/**
 * The kafka-topic-controller's bundle as a process, under exactly the RBAC its chart renders, with
 * leader election, against a real API server and a real Kafka broker.
 */
describe('the kafka-topic-controller process', () => {
  let plane: ControlPlane;
  let kafka: Kafka;
  let admin: KubeClient;
  let kafkaAdmin: Admin;
  let controller: ControllerProcess | undefined;

  beforeAll(async () => {
    [plane, kafka] = await Promise.all([
      startControlPlane({ crds: [join(repoRoot(), 'charts/kafka-topic-controller/crds')] }),
      startKafka(),
    ]);
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
    kafkaAdmin = await kafka.admin();
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await admin.create<ProviderProfile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: 'events' },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: kafka.bootstrapServers, topicNamePolicy: 'Any' },
      },
    } as ProviderProfile);
    const chart = join(repoRoot(), 'charts/kafka-topic-controller');
    const identity = await bindChartRbac(plane, await renderChart(chart), RELEASE_NAMESPACE);
    controller = await startControllerProcess({
      app: 'kafka-topic-controller',
      kubeConfig: identity,
      env: { STEWARD_LEADER_ELECT: 'true', POD_NAMESPACE: RELEASE_NAMESPACE },
    });
    await controller.ready();
  });
  afterAll(async () => {
    await controller?.kill();
    await admin?.close();
    await kafka?.[Symbol.asyncDispose]();
    await plane?.stop();
  });

  const topic = (name: string, spec: Partial<Topic['spec']> = {}): Topic =>
    ({
      apiVersion: KafkaTopic.apiVersion,
      kind: 'KafkaTopic',
      metadata: { name, namespace: ns },
      spec: {
        providerProfileRef: { name: 'events' },
        partitions: 3,
        replicationFactor: 1,
        ...spec,
      },
    }) as Topic;
  const read = (name: string) => admin.get<Topic>(Topics, name, ns);
  const ready = (name: string, timeoutMs = 60_000) =>
    eventually(
      async () => {
        const t = await read(name);
        return findCondition(t.status?.conditions, 'Ready')?.status === 'True' ? t : undefined;
      },
      { description: `${name} Ready`, timeoutMs },
    );
  const partitionsInKafka = async (name: string) =>
    (await kafkaAdmin.fetchTopicMetadata({ topics: [name] })).topics[0]?.partitions.length;
  const configInKafka = async (name: string, key: string) => {
    const { resources } = await kafkaAdmin.describeConfigs({
      resources: [{ type: 2, name, configNames: [key] }],
      includeSynonyms: false,
    });
    return resources[0]?.configEntries.find((e) => e.configName === key)?.configValue;
  };

  it('creates a topic with its partitions and config, grows it, and keeps its profile verified and counted', async () => {
    await admin.create<Topic>(
      Topics,
      topic('payments', { partitions: 3, config: { 'retention.ms': '3600000' } }),
    );
    const created = await ready('payments');
    expect(created.status).toMatchObject({ topicName: 'payments', partitions: 3 });
    expect(await partitionsInKafka('payments')).toBe(3);
    expect(await configInKafka('payments', 'retention.ms')).toBe('3600000');

    await admin.update<Topic>(Topics, { ...created, spec: { ...created.spec, partitions: 6 } });
    await eventually(async () => (await partitionsInKafka('payments')) === 6, {
      description: 'six partitions in Kafka',
    });
    await eventually(async () => (await read('payments')).status?.partitions === 6, {
      description: 'status.partitions 6',
    });

    const profile = await eventually(
      async () => {
        const p = await admin.get<ProviderProfile>(Profiles, 'events');
        return p.status?.usedBy === 1 &&
          findCondition(p.status.conditions, 'Ready')?.status === 'True'
          ? p
          : undefined;
      },
      { description: 'profile Ready, used by 1' },
    );
    expect(findCondition(profile.status?.conditions, 'Ready')?.reason).toBe('CredentialsVerified');
    expect(profile.metadata.finalizers).toContain('steward.dev/in-use-by-kafkatopics');
  });

  it('reports an invalid config key as InvalidConfig without creating the topic', async () => {
    await admin.create<Topic>(Topics, topic('typo', { config: { 'retention.msx': '1' } }));
    const condition = await eventually(
      async () => {
        const c = findCondition((await read('typo')).status?.conditions, 'Ready');
        return c?.reason === 'InvalidConfig' ? c : undefined;
      },
      { description: 'typo InvalidConfig' },
    );
    expect(condition.message).toContain('retention.msx');
    expect(await kafkaAdmin.listTopics()).not.toContain('typo');
  });

  it('goes Ready=False while the broker is down and recovers on its own when it is back', async () => {
    await admin.create<Topic>(Topics, topic('audit'));
    await ready('audit');
    await kafka.stop();
    try {
      // a spec change makes the controller talk to the broker now, not at its next poll
      const current = await read('audit');
      await admin.update<Topic>(Topics, { ...current, spec: { ...current.spec, partitions: 4 } });
      const down = await eventually(
        async () => {
          const c = findCondition((await read('audit')).status?.conditions, 'Ready');
          return c?.status === 'False' ? c : undefined;
        },
        { description: 'audit Ready=False while the broker is down', timeoutMs: 90_000 },
      );
      expect(down.reason).toBe('BrokersUnreachable');
      expect(findCondition((await read('audit')).status?.conditions, 'Stalled')).toBeUndefined();
    } finally {
      await kafka.start();
    }
    kafkaAdmin = await kafka.admin();
    await ready('audit', 120_000);
    expect(await partitionsInKafka('audit')).toBe(4);
  });

  it('keeps the topic with deletionPolicy Retain and deletes it with Delete; exits 0 on SIGTERM with no forbidden call', async () => {
    await admin.create<Topic>(Topics, topic('kept'));
    await admin.create<Topic>(Topics, topic('dropped', { deletionPolicy: 'Delete' }));
    await ready('kept');
    await ready('dropped');
    await admin.delete(Topics, 'kept', ns);
    await admin.delete(Topics, 'dropped', ns);
    const gone = (name: string) =>
      read(name).then(
        () => false,
        () => true,
      );
    await eventually(async () => (await gone('kept')) && (await gone('dropped')), {
      description: 'both objects gone',
    });
    await eventually(async () => !(await kafkaAdmin.listTopics()).includes('dropped'), {
      description: 'dropped deleted in Kafka',
    });
    expect(await kafkaAdmin.listTopics()).toContain('kept');

    const log = controller!.process.logFile;
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
    expect(readFileSync(log, 'utf8')).not.toMatch(/forbidden/i);
  });
});
