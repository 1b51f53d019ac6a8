// `npm start`: the local platform. Brings up a real control plane (etcd, kube-apiserver,
// kube-controller-manager) on loopback with every CRD under charts/*/crds, the providers' APIs
// (moto for RDS, the local Cloud SQL Admin API, an Apache Kafka broker), every controller as its own process (the bundle
// the container image runs), then applies examples/ and shows the resources converging. The
// kubeconfig is written to .steward/kubeconfig, controller logs to .steward/logs/. Ctrl-C (SIGINT)
// or SIGTERM stops every process it started and exits 0.
//
//   --exit-when-ready   exit 0 once every example resource is Ready (1 after 5 minutes): a check
//                       that the README's first command works end to end.
import { findCondition, type Condition } from '@steward/conditions';
import { DatabaseInstance } from '@steward/database-instance-api';
import { KafkaTopic } from '@steward/kafka-topic-api';
import {
  KubeClient,
  Secrets,
  type ApplyConfiguration,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  freePort,
  ManagedProcess,
  startCloudSqlApi,
  startControlPlane,
  startKafka,
  startMoto,
} from '@steward/testing';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleApp } from './bundle-app.js';
import { loadExamples, withLocalEndpoint } from './examples.js';

const root = join(import.meta.dirname, '..', '..');
const exitWhenReady = process.argv.includes('--exit-when-ready');
const log = (line: string): boolean => process.stdout.write(`${line}\n`);

async function crdDirectories(): Promise<string[]> {
  const charts = join(root, 'charts');
  if (!existsSync(charts)) return [];
  const dirs: string[] = [];
  for (const chart of await readdir(charts, { withFileTypes: true })) {
    const crds = join(charts, chart.name, 'crds');
    if (chart.isDirectory() && existsSync(crds) && (await readdir(crds)).length > 0)
      dirs.push(crds);
  }
  return dirs;
}

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
const logDir = join(stateDir, 'logs');
await mkdir(logDir, { recursive: true });

const crds = await crdDirectories();
log(
  'steward: starting the control plane, moto (RDS API), the local Cloud SQL Admin API and a Kafka broker...',
);
const [plane, moto, cloudSql, kafka] = await Promise.all([
  startControlPlane({ crds, controllerManager: true }),
  startMoto({ region: 'eu-west-1' }),
  startCloudSqlApi({ operationStepMs: 1_000, verifyCredentials: true }),
  startKafka(),
]);
stops.push(
  () => plane.stop(),
  () => moto.stop(),
  () => cloudSql.stop(),
  () => kafka[Symbol.asyncDispose](),
);
const kubeconfig = join(stateDir, 'kubeconfig');
await copyFile(plane.kubeconfigPath, kubeconfig);
log(`steward: control plane ready at ${plane.server}`);
log(`steward: CRDs installed from ${crds.map((d) => relative(root, d)).join(', ') || '(none)'}`);
log(`steward: RDS API (moto) at ${moto.endpoint}; Cloud SQL Admin API at ${cloudSql.baseUrl}`);
log(`steward: Kafka ${kafka.clusterId} at ${kafka.bootstrapServers.join(',')}`);

// Controllers: each app's bundle as its own process, as its container would run it.
const controllers = ['database-instance-controller', 'kafka-topic-controller'];
for (const app of controllers) {
  const main = await bundleApp(app);
  const probePort = await freePort();
  const child = ManagedProcess.start(app, process.execPath, [main], join(logDir, `${app}.log`), {
    env: {
      ...process.env,
      KUBECONFIG: kubeconfig,
      STEWARD_LEADER_ELECT: 'false',
      STEWARD_PROBE_HOST: '127.0.0.1',
      STEWARD_PROBE_PORT: String(probePort),
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '2',
      STEWARD_POLL_INTERVAL_SECONDS: '30',
      NODE_OPTIONS: '--enable-source-maps --no-deprecation',
    },
  });
  stops.push(() => child.stop());
  log(
    `steward: ${app} running (metrics http://127.0.0.1:${probePort}/metrics, log ${relative(process.cwd(), join(logDir, `${app}.log`))})`,
  );
}

// The examples, as a platform team and an application team would apply them.
const admin = new KubeClient(plane.kubeConfig, { fieldManager: 'steward-examples' });
stops.push(() => admin.close());
const examples = await loadExamples(join(root, 'examples'));
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
log(`    ${plane.binaries.kubectl} get providerprofiles,databaseinstances,kafkatopics -A`);
log(
  `    ${plane.binaries.kubectl} -n shop get secret orders-db-connection -o jsonpath='{.data.host}' | base64 -d`,
);
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

/** How each kind shows in the table: what is in its PROVIDER, STATE and DETAIL columns. */
interface View<T extends KubeObject> {
  resourceType: ResourceType;
  name: string;
  provider(o: T): string;
  state(o: T): string;
  detail(o: T): string;
}
type Conditioned = KubeObject & { status?: { conditions?: Condition[] } };
const views: View<Conditioned>[] = [
  {
    resourceType: ProviderProfile.resourceType,
    name: 'providerprofile',
    provider: (p) => (p as ProviderProfile).spec.provider,
    state: (p) => `used by ${(p as ProviderProfile).status?.usedBy ?? 0}`,
    detail: () => '',
  },
  {
    resourceType: DatabaseInstance.resourceType,
    name: 'databaseinstance',
    provider: (d) => (d as DatabaseInstance).spec.providerProfileRef.name,
    state: (d) => (d as DatabaseInstance).status?.providerState ?? '-',
    detail: (d) => {
      const endpoint = (d as DatabaseInstance).status?.endpoint;
      return endpoint ? `${endpoint.host}:${endpoint.port}` : '';
    },
  },
  {
    resourceType: KafkaTopic.resourceType,
    name: 'kafkatopic',
    provider: (t) => (t as KafkaTopic).spec.providerProfileRef.name,
    state: (t) => {
      const status = (t as KafkaTopic).status;
      return status?.partitions ? `${status.partitions} partitions` : '-';
    },
    detail: (t) => (t as KafkaTopic).status?.topicName ?? '',
  },
];

async function rows(): Promise<{ rows: Row[]; allReady: boolean }> {
  const out: Row[] = [];
  let allReady = true;
  let resources = 0;
  for (const view of views) {
    const list = await admin.list<Conditioned>(view.resourceType);
    for (const o of list.items) {
      if (view.name !== 'providerprofile') resources++;
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
      await shutdown('done');
    }
  }
  if (exitWhenReady && Date.now() > deadline) {
    log('\nsteward: not every example became Ready within 5 minutes; see .steward/logs/.');
    await shutdown('timed out', 1);
  }
  await sleep(2_000);
}
