// `npm start`: the local platform. Brings up a real control plane (etcd, kube-apiserver,
// kube-controller-manager) on loopback with every CRD under charts/*/crds, the providers' APIs
// (moto for RDS, the local Cloud SQL Admin API), every controller as its own process (the bundle
// the container image runs), then applies examples/ and shows the resources converging. The
// kubeconfig is written to .steward/kubeconfig, controller logs to .steward/logs/. Ctrl-C (SIGINT)
// or SIGTERM stops every process it started and exits 0.
//
//   --exit-when-ready   exit 0 once every example resource is Ready (1 after 5 minutes): a check
//                       that the README's first command works end to end.
import { findCondition, type Condition } from '@steward/conditions';
import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeClient, Secrets, type ApplyConfiguration, type KubeObject } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  freePort,
  ManagedProcess,
  startCloudSqlApi,
  startControlPlane,
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
log('steward: starting the control plane, moto (RDS API) and the local Cloud SQL Admin API...');
const [plane, moto, cloudSql] = await Promise.all([
  startControlPlane({ crds, controllerManager: true }),
  startMoto({ region: 'eu-west-1' }),
  startCloudSqlApi({ operationStepMs: 1_000, verifyCredentials: true }),
]);
stops.push(
  () => plane.stop(),
  () => moto.stop(),
  () => cloudSql.stop(),
);
const kubeconfig = join(stateDir, 'kubeconfig');
await copyFile(plane.kubeconfigPath, kubeconfig);
log(`steward: control plane ready at ${plane.server}`);
log(`steward: CRDs installed from ${crds.map((d) => relative(root, d)).join(', ') || '(none)'}`);
log(`steward: RDS API (moto) at ${moto.endpoint}; Cloud SQL Admin API at ${cloudSql.baseUrl}`);

// Controllers: each app's bundle as its own process, as its container would run it.
const controllers = ['database-instance-controller'];
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
    withLocalEndpoint(object, { aws: moto.endpoint, gcp: cloudSql.baseUrl }) as ApplyConfiguration,
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
log(`    ${plane.binaries.kubectl} get providerprofiles,databaseinstances -A`);
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
async function rows(): Promise<{ rows: Row[]; allReady: boolean }> {
  const out: Row[] = [];
  let allReady = true;
  const profiles = await admin.list<ProviderProfile>(ProviderProfile.resourceType);
  for (const p of profiles.items) {
    const ready = findCondition(p.status?.conditions, 'Ready');
    if (ready?.status !== 'True') allReady = false;
    out.push([
      `providerprofile/${p.metadata.name}`,
      p.spec.provider,
      conditionText(ready),
      `used by ${p.status?.usedBy ?? 0}`,
      ready?.status === 'True' ? '' : (ready?.message ?? ''),
    ]);
  }
  const instances = await admin.list<DatabaseInstance>(DatabaseInstance.resourceType);
  for (const d of instances.items) {
    const ready = findCondition(d.status?.conditions, 'Ready');
    if (ready?.status !== 'True') allReady = false;
    const endpoint = d.status?.endpoint
      ? `${d.status.endpoint.host}:${d.status.endpoint.port}`
      : '';
    out.push([
      `${d.metadata.namespace}/databaseinstance/${d.metadata.name}`,
      d.spec.providerProfileRef.name,
      conditionText(ready),
      d.status?.providerState ?? '-',
      endpoint || (ready?.status === 'True' ? '' : (ready?.message ?? '')),
    ]);
  }
  return { rows: out, allReady: allReady && instances.items.length > 0 };
}

function table(data: Row[]): string {
  const header: Row = ['RESOURCE', 'PROVIDER', 'READY', 'STATE', 'ENDPOINT / MESSAGE'];
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
    const text = table(view.rows);
    if (text !== shown) {
      shown = text;
      log(`\n${new Date().toISOString()}\n${text}`);
    }
    if (exitWhenReady && view.allReady) {
      log('\nsteward: every example ProviderProfile and DatabaseInstance is Ready.');
      await shutdown('done');
    }
  }
  if (exitWhenReady && Date.now() > deadline) {
    log('\nsteward: not every example became Ready within 5 minutes; see .steward/logs/.');
    await shutdown('timed out', 1);
  }
  await sleep(2_000);
}
