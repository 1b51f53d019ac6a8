import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { CustomResourceDefinitions, KubeClient, Namespaces } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { startKafka, type Kafka } from '@steward/testing-backends';
import {
  installControllerChart,
  awaitLeaderTakeover,
  itRunsAsInstalledController,
  type InstalledControllerChart,
} from '@steward/testing-charts';
import {
  acquireNodeTier,
  appImage,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Topic = KafkaTopic;
const Topics = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
const app = 'kafka-topic-controller';

/**
 * The kafka-topic-controller as it ships: its image built from apps/Dockerfile, its chart
 * `helm install`ed with default values into the node tier (two replicas), its pods running under
 * the chart's ServiceAccount and RBAC against a Kafka broker on this machine. One installation; the
 * tests run in order and build on each other.
 */
describe('the kafka-topic-controller chart, installed and running in a cluster', () => {
  let tier: NodeTier;
  let kafka: Kafka;
  let kafkaAdmin: Admin;
  let admin: KubeClient;
  let core: CoreV1Api;
  let image: LocalImage;
  let chart: InstalledControllerChart;
  let releaseNs: string;
  let topicsNs: string;
  let profile: string;

  beforeAll(async () => {
    tier = await acquireNodeTier();
    // The broker listens on the tier's host address, which pods reach; the image builds meanwhile.
    [image, kafka] = await Promise.all([appImage(app), startKafka({ host: tier.hostAddress })]);
    await tier.importImage(image);
    kafkaAdmin = await kafka.admin();
    admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
    core = tier.kubeConfig.makeApiClient(CoreV1Api);
    releaseNs = await tier.createNamespace('kafka-controller');
    topicsNs = await tier.createNamespace('kafka-topics');
    // The release namespace enforces the restricted Pod Security Standard: a pod the chart renders
    // that did not meet it would be refused by the API server.
    await admin.mergePatch(Namespaces, releaseNs, undefined, {
      metadata: {
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
        },
      },
    });
    // ProviderProfiles are cluster-scoped and the tier is shared: a name of this run's own.
    profile = `events-${topicsNs.split('-').slice(-2).join('-')}`;
    // Default values; only the image (built here, no registry) and a warm standby.
    const installing = Date.now();
    chart = await installControllerChart(tier, {
      chart: app,
      image,
      namespace: releaseNs,
      values: { replicas: 2 },
    });
    console.log(
      `${app}: image ${image.ref}; helm install to two Ready pods and a leader in ${Date.now() - installing} ms`,
    );
  });
  afterAll(async () => {
    await chart?.uninstall().catch(() => undefined);
    // Nothing is left to remove the controller's finalizers once it is uninstalled.
    if (admin) {
      const left = await admin.list<Topic>(Topics, { namespace: topicsNs }).catch(() => undefined);
      for (const t of left?.items ?? []) {
        await admin
          .mergePatch(Topics, t.metadata.name!, topicsNs, { metadata: { finalizers: null } })
          .catch(() => undefined);
      }
      if (profile) {
        await admin
          .mergePatch(Profiles, profile, undefined, { metadata: { finalizers: null } })
          .catch(() => undefined);
        await admin.delete(Profiles, profile).catch(() => undefined);
      }
      await admin.close();
    }
    await kafkaAdmin?.disconnect().catch(() => undefined);
    await kafka?.[Symbol.asyncDispose]();
    await tier?.release();
  });

  const topic = (name: string): Topic =>
    ({
      apiVersion: KafkaTopic.apiVersion,
      kind: 'KafkaTopic',
      metadata: { name, namespace: topicsNs },
      spec: { providerProfileRef: { name: profile }, partitions: 3, replicationFactor: 1 },
    }) as Topic;
  const ready = (name: string) =>
    chart.until(
      async () => {
        const t = await admin.get<Topic>(Topics, name, topicsNs);
        return findCondition(t.status?.conditions, 'Ready')?.status === 'True' ? t : undefined;
      },
      { description: `KafkaTopic ${topicsNs}/${name} Ready`, timeoutMs: 90_000 },
    );
  const partitionsInKafka = async (name: string) =>
    (await kafkaAdmin.fetchTopicMetadata({ topics: [name] })).topics[0]?.partitions.length;
  const name = (pod: V1Pod) => pod.metadata!.name!;

  itRunsAsInstalledController(() => ({ app, tier, image, chart, replicas: 2 }));

  it('brings a KafkaTopic to Ready through a ProviderProfile, and the topic exists in the broker', async () => {
    await admin.create<ProviderProfile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: profile },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: kafka.bootstrapServers, topicNamePolicy: 'Any' },
      },
    } as ProviderProfile);
    await admin.create<Topic>(Topics, topic('payments'));
    const created = await ready('payments');
    expect(created.status).toMatchObject({ topicName: 'payments', partitions: 3 });
    expect(await partitionsInKafka('payments')).toBe(3);
    await chart.until(
      async () => {
        const p = await admin.get<ProviderProfile>(Profiles, profile);
        return findCondition(p.status?.conditions, 'Ready')?.reason === 'CredentialsVerified';
      },
      { description: `ProviderProfile ${profile} Ready (CredentialsVerified)` },
    );
  });

  it('serves controller-runtime’s metrics at the pod IP: the leader counts its KafkaTopic reconciles, the standby reconciles nothing', async () => {
    const leader = await chart.leader();
    const metrics = await chart.metrics(leader);
    expect(metrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="kafkatopic",result="[a-z_]+"\} [1-9]/m,
    );
    expect(metrics).toMatch(/^workqueue_adds_total\{[^}]*name="kafkatopic"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(
      /^leader_election_master_status\{name="kafka-topic-controller-leader"\} 1$/m,
    );
    // Under exactly the chart's RBAC, nothing the controller asked for was refused.
    for (const pod of await chart.pods()) expect(await chart.logs(pod)).not.toMatch(/forbidden/i);
    // The standby serves /metrics too, but runs no controller until it leads.
    const standby = (await chart.pods()).find((p) => name(p) !== name(leader))!;
    const standbyMetrics = await chart.metrics(standby);
    expect(standbyMetrics).not.toMatch(/^leader_election_master_status\{[^}]*\} 1$/m);
    expect(standbyMetrics).not.toMatch(
      /^controller_runtime_reconcile_total\{controller="kafkatopic"/m,
    );
  });

  const takeover = (leader: V1Pod, standby: V1Pod, how: string, since: number) =>
    awaitLeaderTakeover(chart, { app, leader, standby, how, since });

  it('hands the Lease over when the leader pod is deleted with grace period 0, and the new leader reconciles', async () => {
    const leader = await chart.leader();
    const standby = (await chart.readyPods(2)).find((p) => name(p) !== name(leader))!;
    const since = Date.now();
    await core.deleteNamespacedPod({
      name: name(leader),
      namespace: releaseNs,
      gracePeriodSeconds: 0,
    });
    const { successor } = await takeover(leader, standby, 'deleted (grace period 0)', since);

    await admin.create<Topic>(Topics, topic('after-failover'));
    await ready('after-failover');
    expect(await partitionsInKafka('after-failover')).toBe(3);
    // The Deployment replaces the deleted pod with a new standby.
    await chart.readyPods(2);
    expect(await chart.leaseHolder()).toBe(successor);
  });

  it('hands the Lease over once it expires when the leader is killed outright (SIGKILL, no release), and the new leader reconciles', async () => {
    const leader = await chart.leader();
    const standby = (await chart.readyPods(2)).find((p) => name(p) !== name(leader))!;
    const since = Date.now();
    await chart.crash(leader);
    const { ms, released, successor } = await takeover(leader, standby, 'killed (SIGKILL)', since);
    // Nothing ran after the kill: the new leader took the Lease because it expired.
    expect(released, `takeover after ${ms} ms`).toBe(false);

    await admin.create<Topic>(Topics, topic('after-crash'));
    await ready('after-crash');
    expect(await partitionsInKafka('after-crash')).toBe(3);
    await chart.readyPods(2);
    expect(await chart.leaseHolder()).toBe(successor);
  });

  it('leaves the CRDs, the KafkaTopics and the topics in the broker after helm uninstall', async () => {
    await chart.uninstall();
    expect(await chart.pods()).toEqual([]);
    for (const crd of ['kafkatopics.kafka.steward.dev', 'providerprofiles.steward.dev']) {
      await expect(admin.get(CustomResourceDefinitions, crd)).resolves.toMatchObject({
        metadata: { name: crd },
      });
    }
    const { items } = await admin.list<Topic>(Topics, { namespace: topicsNs });
    const topics = items.map((t) => t.metadata.name);
    expect(topics.sort()).toEqual(['after-crash', 'after-failover', 'payments']);
    await expect(admin.get(Profiles, profile)).resolves.toMatchObject({
      metadata: { name: profile },
    });
    expect(await kafkaAdmin.listTopics()).toEqual(
      expect.arrayContaining(['after-crash', 'after-failover', 'payments']),
    );
  });
});
