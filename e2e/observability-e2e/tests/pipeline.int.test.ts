/**
 * A controller's telemetry through the real pipeline: the kafka-topic-controller's bundle as a
 * process (under its chart's RBAC, leader election on) exports metrics and traces over OTLP to the
 * OpenTelemetry Collector (tools/otel-collector); Prometheus (Debian's) scrapes the collector's
 * Prometheus exporter and the controller's own /metrics. A workload with a failing object (a
 * ProviderProfile whose brokers do not exist) and a throttled API (an API Priority and Fairness
 * level with one seat that rejects) runs; then:
 * - every panel query of the chart's generated dashboard, its variables filled in as Grafana
 *   would, is evaluated by that Prometheus and must answer at least one series;
 * - both paths name the same series (job steward/<chart>, the same metric names);
 * - a reconcile's trace is read back out of the collector: the reconcile span with the object's
 *   kind, namespace, name and result, its API and Kafka calls as child spans.
 */
import { KubeClient, Namespaces, type KubeObject, type ResourceType } from '@steward/kube';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import {
  startKafka,
  startOtelCollector,
  startPrometheus,
  type Kafka,
  type OtelCollector,
  type Prometheus,
} from '@steward/testing-backends';
import {
  bindChartRbac,
  renderChart,
  startControllerProcess,
  type ControllerProcess,
} from '@steward/testing-charts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorJob, otlpEnv, panelsWithoutData, Profiles, stewardKind } from './support.js';

const chart = 'kafka-topic-controller';
const job = `steward/${chart}`;
const RELEASE_NAMESPACE = 'steward-system';
const ns = 'shop';

const Topics = stewardKind('kafka.steward.dev', 'KafkaTopic', 'kafkatopics');
const flowControl = (kind: string, plural: string): ResourceType => ({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced: false,
});
const FlowSchemas = flowControl('FlowSchema', 'flowschemas');
const PriorityLevels = flowControl('PriorityLevelConfiguration', 'prioritylevelconfigurations');

let plane: ControlPlane;
let kafka: Kafka;
let collector: OtelCollector;
let prometheus: Prometheus;
let admin: KubeClient;
let controller: ControllerProcess | undefined;
let identity: Awaited<ReturnType<typeof bindChartRbac>>;
/** The chart's ServiceAccount: the identity the controller runs as, in RELEASE_NAMESPACE. */
let serviceAccount = '';

beforeAll(async () => {
  [plane, kafka, collector] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts', chart, 'crds')] }),
    startKafka(),
    startOtelCollector(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const [name, servers] of [
    ['events', kafka.bootstrapServers],
    ['nowhere', ['127.0.0.1:1']],
  ] as const)
    await admin.create(Profiles, {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'ProviderProfile',
      metadata: { name },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: servers, topicNamePolicy: 'Any' },
      },
    } as KubeObject);
  // a profile of another provider: this process's ProviderProfile controller leaves it alone, and
  // its health metrics must not count it
  await admin.create(Profiles, {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'rds' },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: {
        region: 'eu-west-1',
        credentialsSecretRef: { namespace: 'steward-credentials', name: 'rds' },
      },
      sizeClasses: { small: 'db.t3.micro' },
    },
  } as KubeObject);
  const manifests = await renderChart(join(repoRoot(), 'charts', chart));
  serviceAccount = manifests.find((m) => m.kind === 'ServiceAccount')!.metadata.name!;
  identity = await bindChartRbac(plane, manifests, RELEASE_NAMESPACE);
  controller = await startControllerProcess({
    app: chart,
    kubeConfig: identity,
    name: `${chart}-0`,
    env: {
      STEWARD_LEADER_ELECT: 'true',
      POD_NAMESPACE: RELEASE_NAMESPACE,
      ...otlpEnv(collector),
    },
  });
  await controller.ready();
  prometheus = await startPrometheus({
    jobs: [
      // the collector's exporter names the series job="steward/<chart>" (service.namespace/name)
      collectorJob(collector),
      // as the chart's ServiceMonitor does: the job relabelled, the objects' namespace label kept
      { name: job, targets: [`127.0.0.1:${controller.probePort}`], honorLabels: true },
    ],
  });
}, 900_000);

afterAll(async () => {
  await controller?.kill();
  await prometheus?.stop();
  await collector?.stop();
  await admin?.close();
  await kafka?.[Symbol.asyncDispose]();
  await plane?.stop();
});

const topic = (name: string, profile: string): KubeObject =>
  ({
    apiVersion: 'kafka.steward.dev/v1alpha1',
    kind: 'KafkaTopic',
    metadata: { name, namespace: ns },
    spec: { providerProfileRef: { name: profile }, partitions: 1, replicationFactor: 1 },
  }) as KubeObject;

/** Sends a burst of lists as the controller's own identity while its level has one seat. */
async function throttleController(): Promise<void> {
  await admin.apply(PriorityLevels, {
    metadata: { name: 'e2e-one-seat' },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 1,
        lendablePercent: 0,
        borrowingLimitPercent: 0,
        limitResponse: { type: 'Reject' },
      },
    },
  });
  await admin.apply(FlowSchemas, {
    metadata: { name: 'e2e-throttle-controller' },
    spec: {
      priorityLevelConfiguration: { name: 'e2e-one-seat' },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [
            {
              kind: 'ServiceAccount',
              serviceAccount: { namespace: RELEASE_NAMESPACE, name: serviceAccount },
            },
          ],
          resourceRules: [
            {
              verbs: ['*'],
              apiGroups: ['*'],
              resources: ['*'],
              namespaces: ['*'],
              clusterScope: true,
            },
          ],
        },
      ],
    },
  });
  const flood = new KubeClient(identity, { qps: Infinity, maxRetries: 0 });
  // Kafka only adds partitions: each round asks for one more
  let partitions = 1;
  let rejected = 0;
  try {
    await eventually(
      async () => {
        // the controller reconciles as the flood runs: a spec change of each topic
        partitions++;
        for (const name of ['orders', 'payments'])
          await admin.mergePatch(Topics, name, ns, { spec: { partitions } });
        const results = await Promise.allSettled(
          Array.from({ length: 40 }, () => flood.list(Topics, { namespace: ns })),
        );
        rejected += results.filter(
          (r) => r.status === 'rejected' && (r.reason as { code?: number }).code === 429,
        ).length;
        const series = await prometheus.query(
          `rest_client_requests_total{job="${job}", code="429"}`,
        );
        if (series.length === 0)
          console.log(`flood: ${rejected} rejected so far; the controller has had no 429`);
        return series.length > 0 ? true : undefined;
      },
      {
        description: "the controller's own requests answered 429",
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
  } finally {
    await flood.close();
    await admin.delete(FlowSchemas, 'e2e-throttle-controller');
    await admin.delete(PriorityLevels, 'e2e-one-seat');
  }
}

describe(`the ${chart} telemetry through the OpenTelemetry Collector into Prometheus`, () => {
  it(
    'answers every panel query of its dashboard with data, after a workload with an error and 429s',
    { timeout: 600_000 },
    async () => {
      await admin.create(Topics, topic('orders', 'events'));
      await admin.create(Topics, topic('payments', 'events'));
      await admin.create(Topics, topic('lost', 'nowhere'));
      await eventually(
        async () =>
          (await prometheus.query(`steward_external_requests_total{job="${job}", result="error"}`))
            .length > 0,
        { description: 'a failed Kafka call counted', timeoutMs: 120_000 },
      );
      console.log('a failed Kafka call counted; throttling the controller');
      await throttleController();
      console.log('429s counted; evaluating the panels');

      expect(await panelsWithoutData(prometheus, chart)).toEqual([]);
    },
  );

  it('names the series alike through the collector and through /metrics', async () => {
    const byInstance = async (metric: string) =>
      new Set(
        (await prometheus.query(`count by (instance) (${metric}{job="${job}"})`)).map(
          (s) => s.metric['instance'],
        ),
      );
    for (const metric of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'workqueue_depth',
      'rest_client_requests_total',
      'leader_election_master_status',
      'steward_external_requests_total',
      'steward_objects',
      'steward_objects_max_consecutive_failures',
    ]) {
      // one instance is the process as the collector names it (service.instance.id), the other
      // the scrape target
      const instances = await eventually(
        async () => {
          const seen = await byInstance(metric);
          return seen.size === 2 ? seen : undefined;
        },
        { description: `${metric} by both paths`, timeoutMs: 30_000 },
      );
      expect([...instances].sort()).toEqual(
        [`127.0.0.1:${controller!.probePort}`, expect.any(String)].sort(),
      );
    }
    // the kafka profiles only, through each path
    const profiles = await prometheus.query(
      `sum by (instance) (steward_objects{job="${job}", kind="ProviderProfile"})`,
    );
    expect(profiles.map((s) => s.value[1])).toEqual(['2', '2']);
    const failing = await prometheus.query(
      `steward_objects_failing{job="${job}", kind="KafkaTopic", namespace="${ns}"}`,
    );
    // "lost" fails on every try, through both paths
    expect(failing).toHaveLength(2);
    for (const s of failing) expect(Number(s.value[1])).toBeGreaterThanOrEqual(1);
  });

  it('hands the collector one trace per reconcile: the reconcile span and its API and Kafka calls', async () => {
    const trace = await eventually(
      async () => {
        const spans = await collector.spans();
        const root = spans.find(
          (s) =>
            s.name === 'reconcile KafkaTopic' &&
            s.attributes['k8s.resource.name'] === 'orders' &&
            spans.some((c) => c.parentSpanId === s.spanId && c.name.startsWith('kafka ')) &&
            spans.some((c) => c.parentSpanId === s.spanId && c.name.startsWith('PATCH ')),
        );
        return root
          ? { root, children: spans.filter((c) => c.parentSpanId === root.spanId) }
          : undefined;
      },
      {
        description: 'a reconcile of orders with its calls, in the traces file',
        timeoutMs: 60_000,
      },
    );
    expect(trace.root.parentSpanId).toBe('');
    expect(trace.root.attributes).toMatchObject({
      'k8s.resource.kind': 'KafkaTopic',
      'k8s.resource.namespace': ns,
      'k8s.resource.name': 'orders',
      controller: 'kafkatopic',
      'reconcile.result': expect.stringMatching(/^(success|requeue_after|requeue|error)$/),
    });
    expect(trace.root.resource).toMatchObject({
      'service.name': chart,
      'service.namespace': 'steward',
    });
    // Within the reconcile, give or take the SDK's per-span clock anchoring (each span corrects
    // its start by Date.now() - performance.now() as it is then: a fraction of a millisecond).
    const slack = 5_000_000n;
    for (const child of trace.children) {
      expect(child.traceId).toBe(trace.root.traceId);
      expect(
        BigInt(child.startTimeUnixNano) + slack,
        `${child.name} starts before its reconcile`,
      ).toBeGreaterThanOrEqual(BigInt(trace.root.startTimeUnixNano));
      expect(
        BigInt(child.endTimeUnixNano),
        `${child.name} ends after its reconcile`,
      ).toBeLessThanOrEqual(BigInt(trace.root.endTimeUnixNano) + slack);
    }
    expect(trace.children.find((c) => c.name.startsWith('kafka '))!.attributes).toMatchObject({
      'steward.provider': 'kafka',
    });
    expect(trace.children.find((c) => c.name.startsWith('PATCH '))!.attributes).toMatchObject({
      'http.request.method': 'PATCH',
    });
    // a failed reconcile's log line carries its trace's id: the failure leads to its trace
    const failures = readFileSync(controller!.process.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"key":"shop/lost"') && l.includes('reconcile failed'))
      .map((l) => JSON.parse(l) as { trace_id?: string });
    expect(failures.length).toBeGreaterThan(0);
    const lostTraces = new Set(
      (await collector.spans())
        .filter(
          (s) => s.name === 'reconcile KafkaTopic' && s.attributes['k8s.resource.name'] === 'lost',
        )
        .map((s) => s.traceId),
    );
    expect(failures.filter((f) => f.trace_id && lostTraces.has(f.trace_id)).length).toBeGreaterThan(
      0,
    );
  });
});
