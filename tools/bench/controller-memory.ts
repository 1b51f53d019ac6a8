/**
 * What a workload controller process holds in memory (issue 24, item 6): the idle process, the
 * same with 10,000 of its objects in its cache, and what the baseline is made of (the packages
 * it loads). Not a test: it prints figures (markdown for BENCHMARKS.md) and never passes or fails.
 * Run from the repository root:
 *
 *   npx tsx tools/bench/controller-memory.ts [--objects=10000] [--apps=cache-cluster-controller,postgres-cluster-controller]
 *     [--skip-modules] [--skip-apps] [--skip-variants] [--leader-window=60]
 *
 * Every process measured is its own `node --expose-gc --import <probe>`: the probe (written to
 * dist/bench/, a plain ES module so that no TypeScript loader is in the process) answers a
 * message on the IPC channel by running `gc()` four times and replying with
 * `process.memoryUsage()`, `v8.getHeapStatistics()`, the heap spaces, /proc/self/status' RSS
 * lines and, when asked, a heap snapshot file. The channel is unref'd: it keeps nothing alive.
 *
 * 1. Modules: a process that imports one set of packages (those the app bundles leave to
 *    node_modules) and nothing else; RSS and heap after GC, median of 3.
 * 2. Apps: the app bundles (built as the image builds them, into dist/bench/<app>) against a
 *    control plane of this script's own (etcd + kube-apiserver, the charts' CRDs), with the
 *    chart's environment (info logs, watch all namespaces, manage profiles). Per app:
 *    idle leader (0 objects; without and with `--enable-source-maps`, which the image sets),
 *    idle standby (leader election on, the Lease held by another identity: informers only), then
 *    N objects of its kind created (10 namespaces; their ProviderProfile does not allow those
 *    namespaces, so the controller refuses them with ProfileNotAllowedInNamespace and creates no
 *    pod), the standby again (N objects in its cache, nothing reconciled), and a leader after
 *    `--leader-window` seconds of reconciling them. The two standby runs take heap snapshots,
 *    summarised by constructor and diffed.
 * 3. Variants (what could be cut): each app idle (leader, 0 objects) from its image bundle and from
 *    bundles built differently — @kubernetes/client-node bundled and tree-shaken instead of loaded
 *    whole from node_modules; source maps without `sourcesContent` — with and without
 *    `--enable-source-maps`; plus what the idle image bundle's heap holds (a snapshot's largest
 *    node types and constructors).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Leases, Namespaces, type KubeObject } from '@steward/kube';
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { ProviderProfile } from '@steward/provider-profile-api';
// A benchmark runs on the test harness, as the integration tests do.
import { boundedAll, freePort, startControlPlane, type ControlPlane } from '@steward/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleApp } from '../scripts/bundle-app.js';

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
}
const objects = Number(arg('objects') ?? 10_000);
const apps = (arg('apps') ?? 'cache-cluster-controller,postgres-cluster-controller').split(',');
const leaderWindowMs = Number(arg('leader-window') ?? 60) * 1000;
const namespacesPerApp = 10;

const root = join(import.meta.dirname, '..', '..');
const benchDir = join(root, 'dist', 'bench');
const probePath = join(benchDir, 'memory-probe.mjs');

const log = (message: string): void => void process.stderr.write(`[memory] ${message}\n`);
const out: string[] = [];
const print = (line = ''): void => void out.push(line);
const mib = (bytes: number, digits = 1): string => (bytes / 2 ** 20).toFixed(digits);

// --- the probe inside each measured process ------------------------------------------------------

const probeSource = `// Written by tools/bench/controller-memory.ts: answers { probe: 'measure' } on the IPC channel.
import v8 from 'node:v8';
import { readFileSync } from 'node:fs';
const settle = () => new Promise((resolve) => setImmediate(resolve));
process.on('message', async (message) => {
  if (!message || message.probe !== 'measure') return;
  for (let i = 0; i < 4; i++) { globalThis.gc?.(); await settle(); }
  const status = Object.fromEntries(
    readFileSync('/proc/self/status', 'utf8').split('\\n')
      .filter((l) => /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem):/.test(l))
      .map((l) => [l.split(':')[0], Number(l.split(/\\s+/)[1]) * 1024]),
  );
  const result = {
    probe: 'result',
    memory: process.memoryUsage(),
    heap: v8.getHeapStatistics(),
    spaces: v8.getHeapSpaceStatistics().map((s) => ({ name: s.space_name, used: s.space_used_size, size: s.space_size })),
    status,
    modules: Object.keys(globalThis.require?.cache ?? {}).length,
  };
  if (message.snapshot) result.snapshot = v8.writeHeapSnapshot(message.snapshot);
  process.send(result);
});
process.channel?.unref();
`;

interface Measurement {
  memory: NodeJS.MemoryUsage;
  heap: { total_heap_size: number; used_heap_size: number; malloced_memory: number };
  spaces: { name: string; used: number; size: number }[];
  status: Record<string, number>;
  snapshot?: string;
}

function measure(child: ChildProcess, snapshot?: string): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { probe?: string } & Measurement): void => {
      if (message?.probe !== 'result') return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the measured process exited with ${code}`)));
    child.send({ probe: 'measure', ...(snapshot ? { snapshot } : {}) });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// --- 1. the packages the apps load ---------------------------------------------------------------

const otel = [
  '@opentelemetry/api',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-prometheus',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/semantic-conventions',
];
const small = ['pino', 'reflect-metadata', 'tsyringe', 'typebox', 'undici', 'js-yaml'];
const moduleSets: [string, string[]][] = [
  ['node alone', []],
  ['@kubernetes/client-node', ['@kubernetes/client-node']],
  [
    '@kubernetes/client-node: only KubeConfig and RequestContext (deep imports)',
    ['@kubernetes/client-node/dist/config.js', '@kubernetes/client-node/dist/gen/http/http.js'],
  ],
  ['OpenTelemetry (the 10 packages @steward/telemetry imports)', otel],
  ['pino, reflect-metadata, tsyringe, typebox, undici, js-yaml', small],
  ['undici', ['undici']],
  ['typebox', ['typebox']],
  ['js-yaml', ['js-yaml']],
  ['pino', ['pino']],
  ['tsyringe + reflect-metadata', ['reflect-metadata', 'tsyringe']],
  ['ioredis', ['ioredis']],
  ['pg', ['pg']],
  ['croner', ['croner']],
  ['@aws-sdk/client-s3', ['@aws-sdk/client-s3']],
  ['@aws-sdk/client-rds', ['@aws-sdk/client-rds']],
  ['@google-cloud/sql', ['@google-cloud/sql']],
  ['kafkajs', ['kafkajs']],
  [
    'cache-cluster-controller: all its packages',
    ['@kubernetes/client-node', ...otel, ...small, 'ioredis'],
  ],
  [
    'postgres-cluster-controller: all its packages',
    ['@kubernetes/client-node', ...otel, ...small, 'pg', 'croner', '@aws-sdk/client-s3'],
  ],
  [
    'cache-cluster-controller: all its packages but @kubernetes/client-node',
    [...otel, ...small, 'ioredis'],
  ],
  [
    'cache-cluster-controller without the OTLP exporters',
    ['@kubernetes/client-node', ...otel.filter((m) => !m.includes('otlp')), ...small, 'ioredis'],
  ],
];

async function moduleSet(modules: string[]): Promise<Measurement> {
  const script = join(benchDir, `load-${process.pid}.mjs`);
  writeFileSync(
    script,
    modules.map((m) => `await import(${JSON.stringify(m)});`).join('\n') +
      `\nprocess.send({ probe: 'loaded' });\nsetInterval(() => undefined, 1 << 30);\n`,
  );
  const child = spawn(process.execPath, ['--expose-gc', '--import', probePath, script], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.on('message', (m: { probe?: string }) => m?.probe === 'loaded' && resolve());
      child.once('exit', (code) => reject(new Error(`${modules.join(' ')}: exited ${code}`)));
    });
    return await measure(child);
  } finally {
    child.kill('SIGKILL');
    rmSync(script, { force: true });
  }
}

async function modulesPhase(): Promise<void> {
  print('### The packages the apps load (a process that imports them and nothing else)');
  print();
  print('| loaded | RSS after GC (median of 3) | + over node alone | heap used | external |');
  print('|---|---|---|---|---|');
  let base = NaN;
  for (const [label, modules] of moduleSets) {
    const runs: Measurement[] = [];
    try {
      for (let i = 0; i < 3; i++) runs.push(await moduleSet(modules));
    } catch (error) {
      print(`| ${label} | not loadable here: ${(error as Error).message} | | | |`);
      continue;
    }
    const rss = median(runs.map((r) => r.memory.rss));
    if (modules.length === 0) base = rss;
    const heap = median(runs.map((r) => r.memory.heapUsed));
    const external = median(runs.map((r) => r.memory.external));
    log(`${label}: RSS ${mib(rss)} MiB`);
    print(
      `| ${label} | ${mib(rss)} MiB | ${modules.length ? `+${mib(rss - base)} MiB` : '—'} | ${mib(heap)} MiB | ${mib(external)} MiB |`,
    );
  }
  print();
}

// --- 2. the apps -----------------------------------------------------------------------------------

interface AppRun {
  label: string;
  m: Measurement;
}

const leaseNamespace = 'bench-system';

async function startApp(
  plane: ControlPlane,
  app: string,
  main: string,
  options: { leader: boolean; sourceMaps: boolean },
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const logFile = join(benchDir, `${app}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--expose-gc', '--import', probePath, main], {
    cwd: dirname(main),
    stdio: ['ignore', fd, fd, 'ipc'],
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      NODE_ENV: 'production',
      NODE_OPTIONS: options.sourceMaps ? '--enable-source-maps' : '',
      KUBECONFIG: plane.kubeconfigPath,
      STEWARD_PROBE_PORT: String(port),
      STEWARD_PROBE_HOST: '127.0.0.1',
      STEWARD_LEADER_ELECT: String(!options.leader),
      POD_NAMESPACE: leaseNamespace,
      POD_NAME: `${app}-bench`,
      STEWARD_LOG_LEVEL: 'info',
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited; see ${logFile}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`${app} not ready; see ${logFile}`);
    await sleep(200);
  }
  return {
    child,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Heap snapshot: self size and count by constructor (objects) or by node type (the rest). */
interface SnapshotSummary {
  byName: Map<string, { size: number; count: number }>;
  /** Property edges of this name: objects that still carry managedFields. */
  managedFields: number;
  total: number;
}

async function summarise(file: string): Promise<SnapshotSummary> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(file)) chunks.push(chunk as Buffer);
  const snap = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    snapshot: {
      meta: {
        node_fields: string[];
        node_types: [string[]];
        edge_fields: string[];
        edge_types: [string[]];
      };
    };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  rmSync(file, { force: true });
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];
  const byName = new Map<string, { size: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += nf) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    total += size;
    const key =
      type === 'object' || type === 'closure'
        ? `${type === 'closure' ? 'closure ' : ''}${snap.strings[snap.nodes[i + nameAt]!]}`
        : `(${type})`;
    const entry = byName.get(key) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count++;
    byName.set(key, entry);
  }
  const ef = meta.edge_fields.length;
  const edgeTypeAt = meta.edge_fields.indexOf('type');
  const edgeNameAt = meta.edge_fields.indexOf('name_or_index');
  const property = meta.edge_types[0].indexOf('property');
  const managedFieldsName = snap.strings.indexOf('managedFields');
  let managedFields = 0;
  if (managedFieldsName >= 0)
    for (let i = 0; i < snap.edges.length; i += ef)
      if (
        snap.edges[i + edgeTypeAt] === property &&
        snap.edges[i + edgeNameAt] === managedFieldsName
      )
        managedFields++;
  return { byName, managedFields, total };
}

function kindObject(app: string, namespace: string, name: string, profile: string): KubeObject {
  if (app === 'cache-cluster-controller')
    return {
      apiVersion: `${CacheCluster.resourceType.group}/${CacheCluster.resourceType.version}`,
      kind: 'CacheCluster',
      metadata: { name, namespace, labels: { team: 'bench', tier: 'cache' } },
      spec: {
        providerProfileRef: { name: profile },
        engine: 'redis',
        version: '7.0',
        mode: 'Standalone',
        size: 'small',
        evictionPolicy: 'allkeys-lru',
        clients: { podSelector: { app: 'storefront' } },
      },
    } as KubeObject;
  return {
    apiVersion: `${PostgresCluster.resourceType.group}/${PostgresCluster.resourceType.version}`,
    kind: 'PostgresCluster',
    metadata: { name, namespace, labels: { team: 'bench', tier: 'db' } },
    spec: {
      providerProfileRef: { name: profile },
      version: '17',
      replicas: 3,
      size: 'small',
      replication: { mode: 'async' },
      failover: { enabled: true, after: '10s', maxLagBytes: 1048576 },
      bootstrap: { database: 'orders', owner: 'orders' },
      parameters: { max_connections: '100', log_min_duration_statement: '500ms' },
      clients: { podSelector: { app: 'orders-api' } },
    },
  } as KubeObject;
}

function printRuns(app: string, runs: AppRun[]): void {
  print(`### ${app}`);
  print();
  print(
    '| process | RSS after GC | heap used | heap total | external + arrayBuffers | RssAnon / RssFile | peak RSS (VmHWM) |',
  );
  print('|---|---|---|---|---|---|---|');
  for (const { label, m } of runs)
    print(
      `| ${label} | ${mib(m.memory.rss)} MiB | ${mib(m.memory.heapUsed)} MiB | ${mib(m.memory.heapTotal)} MiB | ` +
        `${mib(m.memory.external)} + ${mib(m.memory.arrayBuffers)} MiB | ${mib(m.status['RssAnon'] ?? NaN)} / ${mib(m.status['RssFile'] ?? NaN)} MiB | ${mib(m.status['VmHWM'] ?? NaN)} MiB |`,
    );
  print();
}

function printSnapshotDiff(idle: SnapshotSummary, loaded: SnapshotSummary): void {
  const rows = [...loaded.byName].map(([name, l]) => {
    const i = idle.byName.get(name) ?? { size: 0, count: 0 };
    return { name, size: l.size - i.size, count: l.count - i.count, loaded: l.size };
  });
  rows.sort((a, b) => b.size - a.size);
  print(
    `Heap snapshot, standby with ${objects.toLocaleString('en-US')} objects minus idle standby (self sizes; ` +
      `total ${mib(idle.total)} → ${mib(loaded.total)} MiB; property edges named managedFields: ${idle.managedFields} → ${loaded.managedFields}):`,
  );
  print();
  print('| constructor / node type | + self size | + count | per object |');
  print('|---|---|---|---|');
  for (const r of rows.slice(0, 12))
    print(
      `| ${r.name.replace(/\|/g, '\\|')} | ${mib(r.size, 2)} MiB | ${r.count.toLocaleString('en-US')} | ${(r.size / objects).toFixed(0)} B |`,
    );
  print();
}

async function appsPhase(): Promise<void> {
  log('bundling the apps as the image does');
  const mains = new Map<string, string>();
  for (const app of apps) mains.set(app, await bundleApp(app, join(benchDir, app)));
  log('starting the control plane');
  const crds = [
    join(root, 'charts/cache-cluster-controller/crds'),
    join(
      root,
      'charts/postgres-cluster-controller/crds/postgresclusters.postgres.steward.dev.yaml',
    ),
    join(root, 'charts/postgres-cluster-controller/crds/postgresbackups.postgres.steward.dev.yaml'),
  ];
  const plane = await startControlPlane({ crds, controllerManager: false });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(plane.kubeconfigPath);
  const admin = new KubeClient(kubeConfig, { qps: Infinity, burst: 1, fieldManager: 'bench' });
  try {
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: leaseNamespace },
    });
    const profile = 'bench-elsewhere';
    await admin.create(ProviderProfile.resourceType, {
      apiVersion: `${ProviderProfile.resourceType.group}/${ProviderProfile.resourceType.version}`,
      kind: 'ProviderProfile',
      metadata: { name: profile },
      spec: {
        provider: 'kubernetes',
        namespaces: ['nowhere'],
        kubernetes: {
          sizeClasses: {
            small: { cpu: '100m', memory: '128Mi', maxMemory: '96Mi', storage: '1Gi' },
          },
          images: [
            { engine: 'redis', version: '7.0', image: 'ghcr.io/steward-dev/redis:7.0.15' },
            { engine: 'postgres', version: '17', image: 'ghcr.io/steward-dev/postgres:17.12' },
          ],
        },
      },
    } as KubeObject);
    for (const app of apps) {
      const main = mains.get(app)!;
      const runs: AppRun[] = [];
      const run = async (
        label: string,
        options: { leader: boolean; sourceMaps: boolean; settleMs?: number; snapshot?: boolean },
      ): Promise<Measurement> => {
        log(`${app}: ${label}`);
        const proc = await startApp(plane, app, main, options);
        try {
          await sleep(options.settleMs ?? 5000);
          const m = await measure(
            proc.child,
            options.snapshot ? join(benchDir, `${app}-${runs.length}.heapsnapshot`) : undefined,
          );
          runs.push({ label, m });
          log(`${app}: ${label}: RSS ${mib(m.memory.rss)} MiB, heap ${mib(m.memory.heapUsed)} MiB`);
          return m;
        } finally {
          await proc.stop();
        }
      };
      const lease = `${app}-leader`;
      const holdLease = async (): Promise<void> => {
        const now = new Date().toISOString().replace('Z', '000Z');
        await admin.create(Leases, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: lease, namespace: leaseNamespace },
          spec: {
            holderIdentity: 'someone-else',
            leaseDurationSeconds: 3600,
            acquireTime: now,
            renewTime: now,
          },
        } as KubeObject);
      };
      const dropLease = (): Promise<unknown> =>
        admin.delete(Leases, lease, leaseNamespace).catch(() => undefined);

      await run('idle leader, 0 objects', { leader: true, sourceMaps: false });
      await run('idle leader, 0 objects, `--enable-source-maps` (as the image)', {
        leader: true,
        sourceMaps: true,
      });
      await holdLease();
      const idle = await run('idle standby, 0 objects', {
        leader: false,
        sourceMaps: false,
        snapshot: true,
      });
      await dropLease();

      log(`${app}: creating ${objects} objects in ${namespacesPerApp} namespaces`);
      const prefix = app.split('-')[0]!;
      for (let n = 0; n < namespacesPerApp; n++)
        await admin.create(Namespaces, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `${prefix}-team-${n}` },
        });
      const rt =
        app === 'cache-cluster-controller'
          ? CacheCluster.resourceType
          : PostgresCluster.resourceType;
      const created = performance.now();
      await boundedAll(objects, 40, (i) =>
        admin.create(
          rt,
          kindObject(
            app,
            `${prefix}-team-${i % namespacesPerApp}`,
            `${prefix}-${String(i).padStart(5, '0')}`,
            profile,
          ),
        ),
      );
      log(`${app}: created in ${((performance.now() - created) / 1000).toFixed(1)} s`);
      const sample = (await admin.get(rt, `${prefix}-00000`, `${prefix}-team-0`)) as KubeObject;
      const { managedFields: _managed, ...metadata } = sample.metadata;
      const jsonBytes = JSON.stringify({ ...sample, metadata }).length;

      await holdLease();
      const loaded = await run(`standby, ${objects.toLocaleString('en-US')} objects in its cache`, {
        leader: false,
        sourceMaps: false,
        snapshot: true,
      });
      await dropLease();
      await run(
        `leader, ${objects.toLocaleString('en-US')} objects, after ${leaderWindowMs / 1000} s of reconciling them`,
        { leader: true, sourceMaps: false, settleMs: leaderWindowMs },
      );
      printRuns(app, runs);
      print(
        `Per object in the cache (standby, ${objects.toLocaleString('en-US')} − 0): heap used ` +
          `${((loaded.memory.heapUsed - idle.memory.heapUsed) / objects / 1024).toFixed(2)} KiB, RSS ` +
          `${((loaded.memory.rss - idle.memory.rss) / objects / 1024).toFixed(2)} KiB; one object as cached ` +
          `(JSON, without managedFields, before any status): ${jsonBytes} B.`,
      );
      print();
      if (idle.snapshot && loaded.snapshot)
        printSnapshotDiff(await summarise(idle.snapshot), await summarise(loaded.snapshot));
    }
  } finally {
    await admin.close();
    await plane.stop();
  }
}

// --- 3. bundle variants ---------------------------------------------------------------------------

/** The variant built as tools/scripts/bundle-app.ts builds the image's bundle. */
const ImageVariant = 'image: client-node inlined, no sourcesContent';

interface Variant {
  name: string;
  /** Bundle @kubernetes/client-node (tree-shaken) instead of leaving it to node_modules. */
  inlineKubeClient: boolean;
  sourcesContent: boolean;
}

/**
 * The app bundle as tools/scripts/bundle-app.ts builds it (`bundleApp`), with the variant's
 * differences: @kubernetes/client-node compiled in or left to node_modules, sourcesContent or not.
 */
function bundleVariant(app: string, variant: Variant): Promise<string> {
  return bundleApp(app, join(benchDir, 'variants', variant.name, app), {
    inlined: new Set(variant.inlineKubeClient ? ['@kubernetes/client-node'] : []),
    sourcesContent: variant.sourcesContent,
  });
}

function printIdleHeap(summary: SnapshotSummary): void {
  const rows = [...summary.byName].sort((a, b) => b[1].size - a[1].size).slice(0, 10);
  print(
    `What the idle heap holds (the image's bundle, \`--enable-source-maps\`; ${mib(summary.total)} MiB of self sizes):`,
  );
  print();
  print('| constructor / node type | self size | count |');
  print('|---|---|---|');
  for (const [name, r] of rows)
    print(
      `| ${name.replace(/\|/g, '\\|')} | ${mib(r.size, 2)} MiB | ${r.count.toLocaleString('en-US')} |`,
    );
  print();
}

async function variantsPhase(): Promise<void> {
  // The image's bundle (tools/scripts/bundle-app.ts) is the last: client-node inlined, no
  // sourcesContent. The first is what the image shipped before (issue 24).
  const variants: Variant[] = [
    {
      name: 'client-node from node_modules (before)',
      inlineKubeClient: false,
      sourcesContent: true,
    },
    {
      name: 'client-node from node_modules, no sourcesContent',
      inlineKubeClient: false,
      sourcesContent: false,
    },
    {
      name: 'client-node inlined, with sourcesContent',
      inlineKubeClient: true,
      sourcesContent: true,
    },
    { name: ImageVariant, inlineKubeClient: true, sourcesContent: false },
  ];
  log('variants: starting the control plane');
  const crds = [
    join(root, 'charts/cache-cluster-controller/crds'),
    join(
      root,
      'charts/postgres-cluster-controller/crds/postgresclusters.postgres.steward.dev.yaml',
    ),
    join(root, 'charts/postgres-cluster-controller/crds/postgresbackups.postgres.steward.dev.yaml'),
  ];
  const plane = await startControlPlane({ crds, controllerManager: false });
  try {
    for (const app of apps) {
      print(`### ${app}: idle leader (0 objects), bundle variants`);
      print();
      print(
        '| bundle | `--enable-source-maps` | bundle + map size | RSS after GC | heap used | heap total |',
      );
      print('|---|---|---|---|---|---|');
      let idleSnapshot: SnapshotSummary | undefined;
      for (const variant of variants) {
        const main = await bundleVariant(app, variant);
        const size = statSync(main).size + statSync(`${main}.map`).size;
        for (const sourceMaps of [false, true]) {
          if (!variant.sourcesContent && !sourceMaps) continue; // same code as with them
          log(`${app}: ${variant.name}, source maps ${sourceMaps ? 'on' : 'off'}`);
          const proc = await startApp(plane, app, main, { leader: true, sourceMaps });
          try {
            await sleep(5000);
            const snapshot =
              variant.name === ImageVariant && sourceMaps
                ? join(benchDir, `${app}-idle.heapsnapshot`)
                : undefined;
            const m = await measure(proc.child, snapshot);
            if (m.snapshot) idleSnapshot = await summarise(m.snapshot);
            print(
              `| ${variant.name} | ${sourceMaps ? 'on' : 'off'} | ${mib(size, 2)} MiB | ${mib(m.memory.rss)} MiB | ${mib(m.memory.heapUsed)} MiB | ${mib(m.memory.heapTotal)} MiB |`,
            );
          } finally {
            await proc.stop();
          }
        }
      }
      print();
      if (idleSnapshot) printIdleHeap(idleSnapshot);
    }
  } finally {
    await plane.stop();
  }
}

const startLoad = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
mkdirSync(benchDir, { recursive: true });
writeFileSync(probePath, probeSource);
try {
  const cpu = cpus();
  print(
    `Machine: node ${process.version}, ${cpu.length} cpus (${cpu[0]?.model.trim() ?? 'unknown'}), ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; load average at start ${startLoad}.`,
  );
  print();
  if (!process.argv.includes('--skip-modules')) await modulesPhase();
  if (!process.argv.includes('--skip-apps')) await appsPhase();
  if (!process.argv.includes('--skip-variants')) await variantsPhase();
} catch (error) {
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  process.stdout.write(out.join('\n') + '\n');
}
