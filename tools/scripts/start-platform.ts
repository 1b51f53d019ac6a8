// `npm start`: the local platform. Brings up the machine's node tier (a real control plane and a
// Ready node: kubelet, containerd, kube-proxy, scheduler, the workload controllers), the providers'
// APIs on the node's bridge address where pods reach them (moto for RDS, the local Cloud SQL Admin
// API, an Apache Kafka broker), builds each controller's image from apps/Dockerfile and installs
// its chart (the controllers run as pods, under their charts' ServiceAccounts and RBAC), then
// applies examples/ and shows the resources converging. The kubeconfig is written to
// .steward/kubeconfig. Ctrl-C (SIGINT) or SIGTERM uninstalls the charts, stops the backends and —
// unless a test run is sharing it — the node tier, and exits 0.
//
//   --exit-when-ready   exit 0 once every example resource is Ready (1 after 5 minutes): a check
//                       that the README's first command works end to end.
import { findCondition, type Condition } from '@steward/conditions';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { type CacheCluster } from '@steward/cache-cluster-api';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { type PostgresCluster } from '@steward/postgres-cluster-api';
import {
  KubeClient,
  Namespaces,
  Secrets,
  type ApplyConfiguration,
  type KubeObject,
} from '@steward/kube';
import { type ProviderProfile } from '@steward/provider-profile-api';
import {
  startKafka,
  startMoto,
  startOtelCollector,
  startPrometheus,
} from '@steward/testing-backends';
import { installControllerChart } from '@steward/testing-charts';
import { startCloudSqlApi } from '@steward/testing-cloudsql';
import {
  acquireNodeTier,
  appImage,
  localImages,
  stopMultiNodeTier,
} from '@steward/testing-node-tier';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { allKinds, controllers } from './controllers.js';
import { loadExamples, withLocalEndpoint } from './examples.js';

const root = join(import.meta.dirname, '..', '..');
const exitWhenReady = process.argv.includes('--exit-when-ready');
const log = (line: string): boolean => process.stdout.write(`${line}\n`);
/** Every kind a controller serves (the registry): what the table shows and `kubectl get` lists. */
const kinds = await allKinds();

/** Everything started, in reverse order of stopping. */
const stops: (() => Promise<void>)[] = [];
let stopping = false;
async function shutdown(signal: string, code = 0): Promise<never> {
  if (!stopping) {
    stopping = true;
    log(`\nsteward: ${signal}; stopping everything...`);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    log('steward: stopped cleanly.');
  }
  process.exit(code);
}
process.on('SIGINT', () => void shutdown('SIGINT received'));
process.on('SIGTERM', () => void shutdown('SIGTERM received'));

const stateDir = join(root, '.steward');
await mkdir(stateDir, { recursive: true });

log(
  'steward: starting the node tier (control plane + three nodes in three zones, NetworkPolicy enforced; seconds when cached)...',
);
const tier = await acquireNodeTier({ nodes: 3, networkPolicy: true });
stops.push(async () => {
  await tier.release();
  await stopMultiNodeTier();
});
const kubeconfig = join(stateDir, 'kubeconfig');
await copyFile(tier.kubeconfigPath, kubeconfig);
log(
  `steward: nodes ${tier.nodes.map((n) => `${n.name} (${n.zone}, ${n.address})`).join(', ')} Ready; API server ${tier.server}`,
);

log(
  `steward: starting moto (RDS API), the local Cloud SQL Admin API and a Kafka broker on ${tier.hostAddress}, where pods reach this machine...`,
);
const host = tier.hostAddress;
const [moto, cloudSql, kafka] = await Promise.all([
  startMoto({ region: 'eu-west-1', host }),
  startCloudSqlApi({ operationStepMs: 1_000, verifyCredentials: true, host }),
  startKafka({ host }),
]);
stops.push(
  () => moto.stop(),
  () => cloudSql.stop(),
  () => kafka[Symbol.asyncDispose](),
);
log(`steward: RDS API (moto) at ${moto.endpoint}; Cloud SQL Admin API at ${cloudSql.baseUrl}`);
log(`steward: Kafka ${kafka.clusterId} at ${kafka.bootstrapServers.join(',')}`);

// Telemetry: the controllers export metrics and traces over OTLP to an OpenTelemetry Collector on
// the node's bridge address; Prometheus scrapes the collector, with every chart's alerting rules.
const collector = await startOtelCollector({ host });
stops.push(() => collector.stop());
const prometheus = await startPrometheus({
  host,
  jobs: [{ name: 'otel-collector', targets: [collector.prometheusTarget], honorLabels: true }],
  ruleFiles: controllers().map(({ app }) =>
    join(root, 'charts', app, 'alerts', `${app}.rules.yaml`),
  ),
  intervalSeconds: 5,
});
stops.push(() => prometheus.stop());
log(
  `steward: OpenTelemetry Collector at ${collector.otlpEndpoint} (OTLP/HTTP); Prometheus at ${prometheus.url}`,
);
/** What every chart gets besides its own values: OTLP to the collector, exported every 10 s. */
const telemetryValues = {
  otel: { endpoint: collector.otlpEndpoint },
  extraEnv: [{ name: 'OTEL_METRIC_EXPORT_INTERVAL', value: '10000' }],
};

// Controllers: each app's image built from apps/Dockerfile, its chart installed as a platform team
// would (default values, the local image), in the namespace a platform team would pick.
const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'steward-examples' });
stops.push(() => admin.close());
const releaseNamespace = 'steward-system';
await admin.apply(
  Namespaces,
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: releaseNamespace },
  } as ApplyConfiguration,
  { force: true },
);
log(
  `steward: building the controllers' images (buildah, apps/Dockerfile; minutes the first time, cached after) and installing their charts in ${releaseNamespace}...`,
);
// The images the workload controllers run (no registry: imported into the node's containerd):
// every engine and version of the examples' kubernetes profile catalogue.
for (const image of Object.values(
  await localImages('redis-7.0', 'redis-8.0', 'valkey-8.1', 'postgres-15', 'postgres-17'),
))
  await tier.importImage(image);
for (const { app } of controllers()) {
  const image = await appImage(app);
  await tier.importImage(image);
  const installed = await installControllerChart(tier, {
    chart: app,
    image,
    namespace: releaseNamespace,
    // one release per chart in the namespace; its objects are then named steward-<chart>
    release: `steward-${app}`,
    values:
      app === 'cache-cluster-controller' || app === 'postgres-cluster-controller'
        ? // Redis and PostgreSQL have no watch: the controller's polls detect a lost primary.
          { ...telemetryValues, pollIntervalSeconds: 5, busyPollIntervalSeconds: 1 }
        : {
            ...telemetryValues,
            // a local platform converges at a pace a person watches
            pollIntervalSeconds: 30,
            extraEnv: [
              ...telemetryValues.extraEnv,
              { name: 'STEWARD_BUSY_POLL_INTERVAL_SECONDS', value: '2' },
            ],
          },
  });
  stops.push(() => installed.uninstall());
  const [pod] = await installed.pods();
  log(
    `steward: ${app} running in the cluster (pod ${releaseNamespace}/${pod?.metadata?.name}, image ${image.ref}; logs: kubectl -n ${releaseNamespace} logs deploy/${installed.fullname})`,
  );
}

// The examples, as a platform team and an application team would apply them.
const examples = await loadExamples(join(root, 'examples'));
// Runs before the charts go (stops run in reverse): the controllers see the examples deleted
// (deletionPolicy Retain: the CRs go, the data would stay), so a tier that outlives this process —
// shared with a test run — keeps nothing of them.
stops.push(async () => {
  for (const { object, resourceType } of [...examples].reverse()) {
    const { name, namespace } = object.metadata;
    await admin.delete(resourceType, name!, namespace).catch(() => undefined);
  }
  const deadline = Date.now() + 60_000;
  for (const { object, resourceType } of examples) {
    const { name, namespace } = object.metadata;
    while (
      Date.now() < deadline &&
      (await admin.get(resourceType, name!, namespace).catch(() => undefined))
    )
      await sleep(500);
  }
});
let credentialsCreated = false;
for (const { file, object, resourceType } of examples) {
  if (object.kind === 'ProviderProfile' && !credentialsCreated) {
    await createLocalCredentials(
      admin,
      examples.map((e) => e.object),
    );
    credentialsCreated = true;
  }
  await admin.apply(
    resourceType,
    withLocalEndpoint(object, {
      aws: moto.endpoint,
      gcp: cloudSql.baseUrl,
      kafka: kafka.bootstrapServers,
    }) as ApplyConfiguration,
    {
      force: true,
    },
  );
  log(
    `steward: applied ${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name} (examples/${file})`,
  );
}

log('');
log('  Try, in another terminal:');
log(`    export KUBECONFIG=${kubeconfig}`);
log(`    ${tier.binaries.kubectl} get ${kinds.map((k) => k.definition.plural).join(',')} -A`);
log(`    ${tier.binaries.kubectl} -n ${releaseNamespace} get pods,leases`);
log(
  `    ${tier.binaries.kubectl} -n shop get secret orders-db-connection -o jsonpath='{.data.host}' | base64 -d`,
);
log(
  `    ${tier.binaries.kubectl} -n shop get secret sessions-auth -o jsonpath='{.data.password}' | base64 -d   # the sessions cache's password (host: status.endpoints)`,
);
log(
  `    ${tier.binaries.kubectl} -n shop exec -it orders-0 -- psql -d orders   # psql on the orders PostgresCluster (instance orders-0, as the superuser)`,
);
log(
  `    psql "postgresql://orders:$(${tier.binaries.kubectl} -n shop get secret orders-app -o jsonpath='{.data.password}' | base64 -d)@$(${tier.binaries.kubectl} -n shop get svc orders-rw -o jsonpath='{.spec.clusterIP}'):5432/orders"   # from this host, as the application user, through the read-write Service`,
);
log('');
log('  Metrics, alerts and traces:');
log(`    ${prometheus.url}/graph   # Prometheus: the controllers' metrics through the collector`);
log(`    ${prometheus.url}/alerts  # every chart's alerting rules (runbooks: docs/runbooks/)`);
log(
  `    Grafana of your own: add a Prometheus data source at ${prometheus.url}, then import charts/<chart>/dashboards/<chart>.json`,
);
log(`    traces (OTLP JSON, one export per line): ${collector.tracesFile}`);
log('');
log(
  exitWhenReady
    ? 'steward: waiting for every example to be Ready...'
    : 'steward: running; press Ctrl-C to stop everything.',
);

/**
 * The credentials Secrets the example profiles name, filled with the local servers' credentials:
 * moto's static keys, and a service-account key the local Cloud SQL API issued.
 */
async function createLocalCredentials(client: KubeClient, objects: KubeObject[]): Promise<void> {
  for (const profile of objects.filter((o): o is ProviderProfile => o.kind === 'ProviderProfile')) {
    const ref = profile.spec.aws?.credentialsSecretRef ?? profile.spec.gcp?.credentialsSecretRef;
    if (!ref) continue;
    let stringData: Record<string, string>;
    if (profile.spec.aws) {
      stringData = {
        aws_access_key_id: moto.credentials.accessKeyId,
        aws_secret_access_key: moto.credentials.secretAccessKey,
      };
    } else {
      // A key the local Cloud SQL API knows: it verifies the JWT the client signs with it, as
      // Google does, so a wrong or deleted key shows as CredentialsInvalid on the profile.
      const project = profile.spec.gcp!.project;
      const key = cloudSql.createServiceAccountKey(`steward@${project}.iam.gserviceaccount.com`);
      stringData = { 'service-account.json': JSON.stringify(key) };
    }
    await client.apply(
      Secrets,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: ref.name, namespace: ref.namespace },
        stringData,
      } as ApplyConfiguration,
      { force: true },
    );
  }
}

// The live view: one line per resource, printed again whenever something changes.
type Row = [string, string, string, string, string];
const conditionText = (c: Condition | undefined): string =>
  c ? `${c.status}${c.reason ? ` ${c.reason}` : ''}` : '-';

/** How a kind shows in the table: what is in its PROFILE, STATE and DETAIL columns. */
interface Columns<T extends KubeObject> {
  provider(o: T): string;
  state(o: T): string;
  detail(o: T): string;
}
type Conditioned = KubeObject & {
  spec?: { providerProfileRef?: { name?: string } };
  status?: { conditions?: Condition[]; providerState?: string };
};
/** What every kind shows: the profile it references and its provider's state. */
const defaultColumns: Columns<Conditioned> = {
  provider: (o) => o.spec?.providerProfileRef?.name ?? '-',
  state: (o) => o.status?.providerState ?? '-',
  detail: () => '',
};
/** What some kinds show instead; a kind not named here shows the default columns. */
const kindColumns: Record<string, Partial<Columns<Conditioned>>> = {
  ProviderProfile: {
    provider: (p) => (p as ProviderProfile).spec.provider,
    state: (p) => `used by ${(p as ProviderProfile).status?.usedBy ?? 0}`,
  },
  DatabaseInstance: {
    detail: (d) => {
      const endpoint = (d as DatabaseInstance).status?.endpoint;
      return endpoint ? `${endpoint.host}:${endpoint.port}` : '';
    },
  },
  CacheCluster: {
    state: (c) => {
      const status = (c as CacheCluster).status;
      return status?.phase
        ? `${status.phase} ${status.readyReplicas ?? 0}/${status.replicas ?? 0}`
        : '-';
    },
    detail: (c) => {
      const status = (c as CacheCluster).status;
      const rw = status?.endpoints?.readWrite;
      return rw ? `primary ${status?.primary ?? '-'}, ${rw.host}:${rw.port}` : '';
    },
  },
  PostgresCluster: {
    state: (c) => {
      const status = (c as PostgresCluster).status;
      return status?.phase
        ? `${status.phase} ${status.readyReplicas ?? 0}/${status.replicas ?? 0}`
        : '-';
    },
    detail: (c) => {
      const status = (c as PostgresCluster).status;
      const rw = status?.endpoints?.readWrite;
      return rw
        ? `primary ${status?.primary ?? '-'}, ${rw.host}:${rw.port}, PostgreSQL ${status?.version ?? '?'}`
        : '';
    },
  },
  KafkaTopic: {
    state: (t) => {
      const status = (t as KafkaTopic).status;
      return status?.partitions ? `${status.partitions} partitions` : '-';
    },
    detail: (t) => (t as KafkaTopic).status?.topicName ?? '',
  },
};
/** One table section per kind a controller serves (the registry), cluster-scoped kinds first. */
const views = kinds.map((kind) => ({
  resourceType: kind.resourceType,
  name: kind.definition.singular ?? kind.definition.kind.toLowerCase(),
  ...defaultColumns,
  ...kindColumns[kind.definition.kind],
}));

async function rows(): Promise<{ rows: Row[]; allReady: boolean }> {
  const out: Row[] = [];
  let allReady = true;
  let resources = 0;
  for (const view of views) {
    const list = await admin.list<Conditioned>(view.resourceType);
    for (const o of list.items) {
      // cluster-scoped kinds (the profiles) are what the example resources reference
      if (view.resourceType.namespaced) resources++;
      const ready = findCondition(o.status?.conditions, 'Ready');
      if (ready?.status !== 'True') allReady = false;
      const ns = o.metadata.namespace ? `${o.metadata.namespace}/` : '';
      out.push([
        `${ns}${view.name}/${o.metadata.name}`,
        view.provider(o),
        conditionText(ready),
        view.state(o),
        ready?.status === 'True' ? view.detail(o) : (ready?.message ?? ''),
      ]);
    }
  }
  return { rows: out, allReady: allReady && resources > 0 };
}

/**
 * Whether every controller's metrics reached Prometheus through the collector, and traces the
 * collector's file (waits up to a minute: metrics are exported every 10 s). Says which.
 */
let telemetryChecked: boolean | undefined;
async function telemetryArrived(): Promise<boolean> {
  if (telemetryChecked !== undefined) return telemetryChecked;
  const wanted = controllers().map(({ app }) => `steward/${app}`);
  const deadline = Date.now() + 60_000;
  let jobs: string[] = [];
  let traced = 0;
  while (Date.now() < deadline) {
    jobs = (
      await prometheus.query('count by (job) (controller_runtime_reconcile_total)').catch(() => [])
    )
      .map((s) => s.metric['job'] ?? '')
      .sort();
    traced = (await collector.spans()).filter((s) => s.name.startsWith('reconcile ')).length;
    if (wanted.every((j) => jobs.includes(j)) && traced > 0) break;
    await sleep(2_000);
  }
  telemetryChecked = wanted.every((j) => jobs.includes(j)) && traced > 0;
  log(
    telemetryChecked
      ? `steward: Prometheus has every controller's metrics through the OpenTelemetry Collector (${jobs.join(', ')}); ${traced} reconcile spans traced`
      : `steward: telemetry missing: Prometheus has the jobs [${jobs.join(', ')}] of [${wanted.join(', ')}], ${traced} reconcile spans traced`,
  );
  return telemetryChecked;
}

/** What the broker itself lists (not what the CRs say), internal topics left out. */
const kafkaAdmin = await kafka.admin();
async function kafkaTopics(): Promise<string> {
  const names = await kafkaAdmin.listTopics().catch(() => [] as string[]);
  return names
    .filter((n) => !n.startsWith('__'))
    .sort()
    .join(', ');
}

function table(data: Row[]): string {
  const header: Row = ['RESOURCE', 'PROFILE', 'READY', 'STATE', 'DETAIL / MESSAGE'];
  const all = [header, ...data];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

const deadline = Date.now() + 5 * 60_000;
let shown = '';
for (;;) {
  const view = await rows().catch(() => undefined);
  if (view) {
    const topics = await kafkaTopics();
    const text = `${table(view.rows)}\n\ntopics in Kafka (${kafka.bootstrapServers.join(',')}): ${topics || '(none)'}`;
    if (text !== shown) {
      shown = text;
      log(`\n${new Date().toISOString()}\n${text}`);
    }
    if (exitWhenReady && view.allReady) {
      log('\nsteward: every example resource is Ready.');
      const telemetry = await telemetryArrived();
      await shutdown(telemetry ? 'done' : 'no telemetry', telemetry ? 0 : 1);
    }
  }
  if (exitWhenReady && Date.now() > deadline) {
    log(
      `\nsteward: not every example became Ready within 5 minutes; see kubectl -n ${releaseNamespace} logs deploy/<controller>.`,
    );
    await shutdown('timed out', 1);
  }
  await sleep(2_000);
}
