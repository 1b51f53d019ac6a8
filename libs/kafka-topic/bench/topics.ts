/**
 * KafkaTopic benchmark on a real control plane (etcd + kube-apiserver) and a real Kafka 4.1 broker
 * (single node, KRaft). Not a test: it prints figures (a markdown table for BENCHMARKS.md) and
 * never passes or fails on time. Run from the repository root:
 *
 *   npx tsx libs/kafka-topic/bench/topics.ts [--quick] [--topics=<n>] [--only=app|tuned]
 *     [--send-when-idle]
 *
 * Type-check: `npx tsc -p libs/kafka-topic/tsconfig.json`. Progress goes to stderr, the table to
 * stdout.
 *
 * One scenario, four runs side by side in one process, each on a fresh namespace, fresh topic
 * names, a fresh Manager and a fresh admin-client cache: N KafkaTopics (500; partitions 3,
 * replicationFactor 1, one config key) created at once (20 in flight, admin client without a rate
 * limit) → all Ready=True for generation 1 in the manager's own cache. The KafkaTopic controller
 * runs in-process, wired as the kafka-topic-controller app wires it (Event recorder on its own
 * client, poll 60 s, busy poll 10 s), under two configurations —
 * - `app`: the app's defaults: maxConcurrentReconciles 4, the manager client's default limiter
 *   (qps 20 / burst 30);
 * - `tuned`: maxConcurrentReconciles 32, manager client qps 200 / burst 400 —
 * each with admin-call batching off, then on (`KafkaAdminCache({ batching })`: the default 10 ms
 * window, or with `--send-when-idle` a lone call sent at once, see `BatcherOptions`). A warm-up
 * run of 20 topics comes first and is not reported. After each run: Kafka is asked (its own admin)
 * whether every topic is there with 3 partitions and its config; then the controller stops, the
 * KafkaTopics lose their finalizers and are deleted, and the topics are deleted from Kafka.
 *
 * Counted per run, from the first create to all Ready: the admin requests the cache sent
 * (`KafkaAdminCache.counts()`: a batched request counts once) and the calls reconciles made; the
 * Kafka protocol requests under them (kafkajs' `admin.network.request` instrumentation events,
 * which also show kafkajs' own metadata refreshes); the manager's API requests (the `onRequest`
 * hook of its client) and the Event recorder's.
 */
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import { KafkaTopic } from '@steward/kafka-topic-api';
import {
  KubeClient,
  Namespaces,
  NotFoundError,
  resourceOfPath,
  type RequestInfo,
} from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
// A benchmark runs on the test harness, as the integration tests do.
import { boundedAll, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import kafkajs, { type Admin, type KafkaConfig } from 'kafkajs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaAdminCache, kafkaTopicController } from '../src/index.js';

const quick = process.argv.includes('--quick');
const sendWhenIdle = process.argv.includes('--send-when-idle');
function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
}

interface Configuration {
  name: string;
  workers: number;
  /** The manager client's limiter; unset: KubeClient's default (qps 20 / burst 30), as the app. */
  qps?: number;
  burst?: number;
}

const configurations: Configuration[] = [
  { name: 'app', workers: 4 },
  { name: 'tuned', workers: 32, qps: 200, burst: 400 },
].filter((c) => !arg('only') || arg('only') === c.name);

const config = {
  topics: Number(arg('topics') ?? (quick ? 100 : 500)),
  warmupTopics: 20,
  partitions: 3,
  topicConfig: { 'retention.ms': '86400000' },
  createConcurrency: 20,
  pollIntervalMs: 60_000,
  busyPollIntervalMs: 10_000,
  convergenceTimeoutMs: 15 * 60_000,
};

const Kind = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
const profileName = 'bench-kafka';

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

// --- counting ----------------------------------------------------------------------------------

const readVerbs = new Set(['get', 'list', 'watch']);

/** Counts by key, with a switch to stop counting at a moment. */
class Tally {
  readonly counts = new Map<string, number>();
  readonly sums = new Map<string, number>();
  frozen = false;

  add(key: string, amount = 1, sumKey?: string, sum = 0): void {
    if (this.frozen) return;
    this.counts.set(key, (this.counts.get(key) ?? 0) + amount);
    if (sumKey) this.sums.set(sumKey, (this.sums.get(sumKey) ?? 0) + sum);
  }

  total(filter: (key: string) => boolean = () => true): number {
    let n = 0;
    for (const [k, v] of this.counts) if (filter(k)) n += v;
    return n;
  }

  describe(filter: (key: string) => boolean = () => true): string {
    const parts = [...this.counts]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${fmt(v)}`);
    return parts.length ? parts.join(', ') : 'none';
  }
}

const isRead = (key: string): boolean => readVerbs.has(key.split(' ')[0]!);

function apiTally(): { tally: Tally; onRequest: (info: RequestInfo) => void } {
  const tally = new Tally();
  return {
    tally,
    onRequest: (info) =>
      tally.add(`${info.verb} ${resourceOfPath(info.path)}`, 1, 'ms', info.durationMs),
  };
}

// --- one run -------------------------------------------------------------------------------------

interface RunResult {
  label: string;
  topics: number;
  createdMs: number;
  firstPassMs: number;
  readyMs: number;
  adminRequests: Record<string, number>;
  adminCalls: Record<string, number>;
  wire: Tally;
  api: Tally;
  events: Tally;
  verified: string;
}

interface Environment {
  plane: ControlPlane;
  kafka: Kafka;
  admin: KubeClient;
  kafkaAdmin: Admin;
}

let runNumber = 0;

async function run(
  env: Environment,
  configuration: Configuration,
  batching: boolean,
  topics: number,
): Promise<RunResult> {
  const label = `${configuration.name}, batching ${batching ? (sendWhenIdle ? 'on (send when idle)' : 'on') : 'off'}`;
  const ns = `bench-kt-${++runNumber}`;
  const name = (i: number): string => `r${runNumber}-topic-${String(i).padStart(4, '0')}`;
  log(`run ${runNumber} (${label}): ${topics} KafkaTopics in namespace ${ns}`);
  await env.admin.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });

  const api = apiTally();
  const events = apiTally();
  const wire = new Tally();
  const manager = new Manager({
    kubeConfig: env.plane.kubeConfig,
    name: 'kafka-topic-controller',
    probePort: false,
    client: {
      ...(configuration.qps !== undefined ? { qps: configuration.qps } : {}),
      ...(configuration.burst !== undefined ? { burst: configuration.burst } : {}),
      onRequest: api.onRequest,
    },
  });
  const recorder = new KubeEventRecorder(
    new KubeClient(env.plane.kubeConfig, {
      fieldManager: 'kafka-topic-controller',
      onRequest: events.onRequest,
    }),
    { reportingController: 'steward.dev/kafka-topic-controller' },
  );
  /** kafkajs clients whose admin reports every protocol request it answers. */
  const kafkaFor = (kafkaConfig: KafkaConfig) => {
    const kafka = new kafkajs.Kafka(kafkaConfig);
    const makeAdmin = kafka.admin.bind(kafka);
    kafka.admin = (options) => {
      const admin = makeAdmin(options);
      admin.on(admin.events.REQUEST, ({ payload }) =>
        wire.add(payload.apiName, 1, payload.apiName, payload.size),
      );
      return admin;
    };
    return kafka;
  };
  const admins = new KafkaAdminCache({
    client: manager.client,
    kafkaFor,
    batching: batching ? { sendWhenIdle } : false,
  });
  kafkaTopicController(manager, {
    selection: { namespace: ns },
    maxConcurrentReconciles: configuration.workers,
    pollIntervalMs: config.pollIntervalMs,
    busyPollIntervalMs: config.busyPollIntervalMs,
    events: recorder,
    admins,
  });

  const informer = manager.informers.informerFor<KafkaTopic>(Kind, { namespace: ns });
  const firstPass = new Set<string>();
  const ready = new Set<string>();
  let firstPassAt = 0;
  let readyAt = 0;
  const track = (obj: KafkaTopic): void => {
    const key = obj.metadata.name!;
    const condition = findCondition(obj.status?.conditions, 'Ready');
    if (condition?.observedGeneration !== 1) return;
    if (!firstPass.has(key)) {
      firstPass.add(key);
      firstPassAt = performance.now();
    }
    if (!ready.has(key) && condition.status === 'True') {
      ready.add(key);
      readyAt = performance.now();
    }
  };
  informer.addEventHandler({ onAdd: track, onUpdate: (_old, obj) => track(obj) });

  const running = manager.start();
  running.catch((error: unknown) => log(`manager stopped with an error: ${String(error)}`));
  try {
    await manager.informers.waitForSync();
    await sleep(1_000);
    // From here on: the start-up lists and watches are not counted. Nothing has talked to Kafka
    // yet (the admin client connects on the first reconcile's acquire, and is counted).
    api.tally.counts.clear();
    api.tally.sums.clear();

    const t0 = performance.now();
    await boundedAll(topics, config.createConcurrency, (i) =>
      env.admin.create<KafkaTopic>(Kind, {
        apiVersion: KafkaTopic.apiVersion,
        kind: 'KafkaTopic',
        metadata: { name: name(i), namespace: ns },
        spec: {
          providerProfileRef: { name: profileName },
          partitions: config.partitions,
          replicationFactor: 1,
          config: config.topicConfig,
        },
      } as KafkaTopic),
    );
    const createdMs = performance.now() - t0;
    let lastLog = performance.now();
    await waitFor(
      () => {
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`  ${firstPass.size} reconciled once, ${ready.size} Ready`);
        }
        return ready.size >= topics;
      },
      config.convergenceTimeoutMs,
      `${topics} KafkaTopics Ready`,
    );
    api.tally.frozen = events.tally.frozen = wire.frozen = true;
    const counts = admins.counts();
    const result: RunResult = {
      label,
      topics,
      createdMs,
      firstPassMs: firstPassAt - t0,
      readyMs: readyAt - t0,
      adminRequests: counts.requests,
      adminCalls: counts.calls,
      wire,
      api: api.tally,
      events: events.tally,
      verified: await verify(
        env.kafkaAdmin,
        Array.from({ length: topics }, (_, i) => name(i)),
      ),
    };
    log(
      `  all Ready after ${fmt(result.readyMs / 1000, 2)} s; admin requests ${JSON.stringify(counts.requests)}; ${result.verified}`,
    );
    return result;
  } finally {
    await manager.stop();
    await running.catch(() => undefined);
    await recorder.shutdown();
    await admins.close();
    await manager.client.close();
    await cleanUp(
      env,
      ns,
      Array.from({ length: topics }, (_, i) => name(i)),
    );
  }
}

/** Whether Kafka has every topic, with its partitions and its config; a sentence. */
async function verify(admin: Admin, names: string[]): Promise<string> {
  const listed = new Set(await admin.listTopics());
  const missing = names.filter((n) => !listed.has(n));
  if (missing.length) throw new Error(`Kafka lacks ${missing.length} topics, e.g. ${missing[0]}`);
  let wrong = 0;
  for (let i = 0; i < names.length; i += 100) {
    const chunk = names.slice(i, i + 100);
    const { topics } = await admin.fetchTopicMetadata({ topics: chunk });
    wrong += topics.filter((t) => t.partitions.length !== config.partitions).length;
    const { resources } = await admin.describeConfigs({
      resources: chunk.map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name })),
      includeSynonyms: false,
    });
    for (const r of resources) {
      for (const [key, value] of Object.entries(config.topicConfig)) {
        if (r.configEntries.find((e) => e.configName === key)?.configValue !== value) wrong++;
      }
    }
  }
  if (wrong) throw new Error(`${wrong} topics differ from their spec in Kafka`);
  return `Kafka lists all ${fmt(names.length)} topics, each with ${config.partitions} partitions and ${Object.keys(config.topicConfig).join(', ')} set`;
}

/** Removes the run's KafkaTopics (finalizers first: the controller is stopped) and its topics. */
async function cleanUp(env: Environment, ns: string, names: string[]): Promise<void> {
  log(`  cleaning up ${ns}`);
  await boundedAll(names.length, config.createConcurrency, async (i) => {
    const name = names[i]!;
    try {
      await env.admin.mergePatch(Kind, name, ns, { metadata: { finalizers: null } });
      await env.admin.delete(Kind, name, ns);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  });
  const present = new Set(await env.kafkaAdmin.listTopics());
  const ours = names.filter((n) => present.has(n));
  for (let i = 0; i < ours.length; i += 100) {
    await env.kafkaAdmin.deleteTopics({ topics: ours.slice(i, i + 100), timeout: 30_000 });
  }
  const mine = new Set(names);
  const deadline = performance.now() + 60_000;
  for (;;) {
    const left = (await env.kafkaAdmin.listTopics()).filter((t) => mine.has(t));
    if (left.length === 0) return;
    if (performance.now() > deadline) {
      log(`  ${left.length} topics still listed 60 s after DeleteTopics`);
      return;
    }
    await sleep(500);
  }
}

// --- helpers -------------------------------------------------------------------------------------

async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  what: string,
  pollMs = 20,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

// --- the table -----------------------------------------------------------------------------------

function table(results: RunResult[]): string {
  const sum = (r: Record<string, number>, skip: string[] = []): number =>
    Object.entries(r)
      .filter(([k]) => !skip.includes(k))
      .reduce((n, [, v]) => n + v, 0);
  const perTopic = (n: number, r: RunResult): string => `${fmt(n)} (${fmt(n / r.topics, 2)}/topic)`;
  const byOp = (r: Record<string, number>): string =>
    Object.entries(r)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ');
  const rows: [string, (r: RunResult) => string][] = [
    ['all Ready (first create → last Ready=True)', (r) => `**${fmt(r.readyMs / 1000, 1)} s**`],
    ['every topic reconciled once (created in Kafka)', (r) => `${fmt(r.firstPassMs / 1000, 1)} s`],
    ['creating the CRs (20 in flight)', (r) => `${fmt(r.createdMs / 1000, 1)} s`],
    [
      'admin requests (Kafka APIs, a batch counts once)',
      (r) => `**${perTopic(sum(r.adminRequests), r)}**`,
    ],
    ['admin requests by operation', (r) => byOp(r.adminRequests)],
    [
      'topic calls by reconciles',
      (r) => `${perTopic(sum(r.adminCalls), r)}: ${byOp(r.adminCalls)}`,
    ],
    [
      'Kafka protocol requests (kafkajs, incl. its metadata refreshes)',
      (r) => perTopic(r.wire.total(), r),
    ],
    ['protocol requests by API', (r) => r.wire.describe()],
    [
      'Metadata response bytes',
      (r) => `${fmt((r.wire.sums.get('Metadata') ?? 0) / 2 ** 20, 1)} MiB`,
    ],
    [
      'manager API writes',
      (r) =>
        `${perTopic(
          r.api.total((k) => !isRead(k)),
          r,
        )}: ${r.api.describe((k) => !isRead(k))}`,
    ],
    ['manager API reads', (r) => `${fmt(r.api.total(isRead))}: ${r.api.describe(isRead)}`],
    [
      'Event recorder API requests (own client at qps 20, written asynchronously)',
      (r) => `${fmt(r.events.total())}`,
    ],
    ['Kafka afterwards', (r) => r.verified],
  ];
  const header = `| measure | ${results.map((r) => r.label).join(' | ')} |`;
  const rule = `|---|${results.map(() => '---').join('|')}|`;
  const lines = rows.map(([measure, f]) => `| ${measure} | ${results.map(f).join(' | ')} |`);
  return [header, rule, ...lines].join('\n');
}

function machine(): string {
  const cpuList = cpus();
  return (
    `node ${process.version}, ${process.platform}/${process.arch}, ${cpuList.length} cpus ` +
    `(${cpuList[0]?.model.trim() ?? 'unknown'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM; ` +
    `load average at start ${startLoad}`
  );
}

// --- main ----------------------------------------------------------------------------------------

const startLoad = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
let stopAll: (() => Promise<void>) | undefined;

async function main(): Promise<RunResult[]> {
  log('starting the control plane and the Kafka broker');
  const [plane, kafka] = await Promise.all([
    startControlPlane({
      crds: [join(repoRoot(), 'charts/kafka-topic-controller/crds')],
      controllerManager: false,
    }),
    startKafka(),
  ]);
  const admin = new KubeClient(plane.kubeConfig, {
    qps: Infinity,
    burst: 1,
    fieldManager: 'bench-admin',
  });
  const kafkaAdmin = await kafka.admin();
  stopAll = async () => {
    await admin.close();
    await Promise.all([plane.stop(), kafka[Symbol.asyncDispose]()]);
  };
  const env: Environment = { plane, kafka, admin, kafkaAdmin };
  await admin.create<ProviderProfile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: profileName },
    spec: {
      provider: 'kafka',
      namespaceSelector: {},
      kafka: { bootstrapServers: kafka.bootstrapServers, topicNamePolicy: 'Any' },
    },
  } as ProviderProfile);

  log('warm-up run (not reported)');
  await run(env, configurations[0]!, true, config.warmupTopics);
  const results: RunResult[] = [];
  for (const configuration of configurations) {
    for (const batching of [false, true]) {
      results.push(await run(env, configuration, batching, config.topics));
    }
  }
  return results;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    void (stopAll?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

try {
  const results = await main();
  const described = configurations
    .map(
      (c) =>
        `\`${c.name}\`: maxConcurrentReconciles ${c.workers}, manager client ${c.qps ? `qps ${c.qps} / burst ${c.burst}` : 'qps 20 / burst 30 (default)'}`,
    )
    .join('; ');
  process.stdout.write(
    [
      `## KafkaTopic${quick ? ' (--quick)' : ''}`,
      '',
      `Command: \`npx tsx libs/kafka-topic/bench/topics.ts${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\``,
      '',
      `Machine: ${machine()}`,
      '',
      `${fmt(config.topics)} KafkaTopics (partitions ${config.partitions}, RF 1, one config key) created at once → all Ready. ${described}; busy poll ${config.busyPollIntervalMs / 1000} s.`,
      '',
      table(results),
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  await stopAll?.();
}
