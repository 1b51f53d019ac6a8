/**
 * One tenant's flood against everyone else's latency, end to end on a real API server: FIFO vs
 * the fair queue, side by side in one run (issue 24). Not a test: it prints figures (a markdown
 * table for BENCHMARKS.md) and never passes or fails on time. Run from the repository root:
 *
 *   npx tsx libs/controller/bench/tenant-flood.ts [--workers=2,4] [--modes=fifo,fair]
 *     [--flood=5000] [--in-flight=50] [--repeat=1] [--cost-scale=1] [--quick]
 *     [--scenarios=live,restart]
 *
 * Its own control plane (etcd + kube-apiserver), the Gizmo CRD of the runtime's tests, and per run
 * a fresh `Manager` with one controller built by `controllerFor(...)` (predicate
 * `generationChanged`, `withOptions({ maxConcurrentReconciles, fairness })`) whose reconcile
 * reads the Gizmo from the cache and then "works" for 2–8 ms (a fixed pseudo-random sequence, mean
 * 5 ms, the same for every run; a sleep, so the cost is wall time and the shared cores do not
 * stretch it). Each run has five fresh namespaces `<run>-a` … `<run>-e` and a label of its own
 * (the manager watches only its run's objects):
 *
 * - `live` (the flood while the controller runs): 5 Gizmos in each of b–e are created and
 *   reconciled (the manager started, caches synced); then at t = 0, 5,000 Gizmos are created in `a`
 *   by a child process (as a GitOps tool would: an admin client without a rate limit,
 *   `--in-flight` creates at a time, so encoding them does not take the controller's event loop)
 *   while, every second, each of the 20 Gizmos of b–e gets a new `spec.message` (a client of its
 *   own in this process, a merge patch: a new generation);
 * - `restart` (the flood is there when the controller starts: a restart, an upgrade or a new
 *   leader during a sync): the 5,000 Gizmos of `a` and the 20 of b–e exist, t = 0 is
 *   `manager.start()` (its initial list holds them all), the changes of b–e start at t = 0;
 * - either way the changes go on until every Gizmo of `a` has been reconciled once, plus 2 s (at
 *   least 10 s); then the run waits for the last change to be reconciled and stops the manager.
 *
 * Also every second, a ConfigMap in b controlled by a Gizmo of b that nothing else changes is
 * patched (the controller `owns(ConfigMaps)`, so its owner is enqueued at high priority, as a
 * workload controller's owner is when its pod is lost): the time from that patch being sent to
 * the start of the owner's next reconcile.
 *
 * Per b–e change: the time from the patch being sent to the start of the first reconcile that
 * reads that generation (or a later one) from the cache, split into sent → in the manager's cache
 * (the API server and the watch) and in cache → reconcile start (the queue). The flood's drain:
 * t = 0 → the last Gizmo of `a` reconciled once. Progress goes to stderr, the table to
 * stdout.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigMaps, KubeClient, Namespaces, type KubeObject } from '@steward/kube';
// A benchmark runs on the test harness, as the integration tests do.
import { boundedAll, startControlPlane, type ControlPlane } from '@steward/testing';
import { type Fairness } from '@steward/workqueue';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cpus, loadavg, totalmem } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { controllerFor, generationChanged, Manager } from '../src/index.js';
import { Gizmos, type Gizmo } from '../tests/support/sample-controller.js';

const quick = process.argv.includes('--quick');
function listArg(name: string, fallback: string[]): string[] {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  return raw ? raw.split(',').filter(Boolean) : fallback;
}
function numberArg(name: string, fallback: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const config = {
  scenarios: listArg('scenarios', ['live', 'restart']) as Scenario[],
  workers: listArg('workers', ['2', '4']).map(Number),
  modes: listArg('modes', ['fifo', 'fair']) as Fairness[],
  flood: numberArg('flood', quick ? 1000 : 5000),
  inFlight: numberArg('in-flight', 50),
  repeat: numberArg('repeat', 1),
  /** Multiplies every reconcile's cost (1: 2–8 ms; 4: 8–32 ms). */
  costScale: numberArg('cost-scale', 1),
  others: ['b', 'c', 'd', 'e'],
  perOther: 5,
  changeEveryMs: 1000,
  minChangeMs: 10_000,
  tailMs: 2000,
  maxRunMs: 5 * 60_000,
  managerQps: 200,
  managerBurst: 400,
};

const crds = join(import.meta.dirname, '../tests/fixtures/crds');
const runLabel = 'bench.steward.dev/run';

const log = (message: string): void => void process.stderr.write(`[flood] ${message}\n`);
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
const ms = (v: number): string => (Number.isFinite(v) ? fmt(v, Math.abs(v) < 100 ? 1 : 0) : '—');

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** A fixed sequence of reconcile costs, 2–8 ms (xorshift, as libs/workqueue/bench/fairness.ts). */
function costs(): () => number {
  let x = 0x2545f491;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return 2 + ((x >>> 0) % 7);
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const gizmo = (namespace: string, name: string, run: string): Gizmo => ({
  apiVersion: `${Gizmos.group}/${Gizmos.version}`,
  kind: Gizmos.kind,
  metadata: { name, namespace, labels: { [runLabel]: run } },
  spec: { message: 'initial' },
});

/**
 * The flood runs in a child process of its own (as a GitOps tool would), so that encoding the
 * creates and parsing their responses does not take the controller's event loop. The child says
 * `ready` once its client exists, floods on the first line it reads, and says `done` at the end.
 */
async function floodChild(args: string[]): Promise<void> {
  const [kubeconfigPath, namespace, run, count, inFlight] = args as [
    string,
    string,
    string,
    string,
    string,
  ];
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kubeConfig, {
    qps: Infinity,
    burst: 1,
    fieldManager: 'bench-flood',
  });
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  await boundedAll(Number(count), Number(inFlight), (i) =>
    client.create<Gizmo>(Gizmos, gizmo(namespace, `f-${String(i).padStart(5, '0')}`, run)),
  );
  process.stdout.write('done\n');
  lines.close();
  await client.close();
}

/** Starts a flood child; resolves once it is ready, with `go()` (resolves when all are created). */
async function startFlood(
  plane: ControlPlane,
  namespace: string,
  run: string,
): Promise<{ go: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--flood-child',
      plane.kubeconfigPath,
      namespace,
      run,
      String(config.flood),
      String(config.inFlight),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      lines.once('line', resolve);
      void exited.then((code) => reject(new Error(`the flood child exited with ${code}`)));
    });
  const ready = await next();
  if (ready !== 'ready') throw new Error(`the flood child said ${ready}`);
  return {
    go: async () => {
      child.stdin.write('go\n');
      await next();
      await exited;
    },
  };
}

interface Change {
  key: string;
  sentAt: number;
  /** The generation the patch produced (from its response). */
  generation?: number;
}

type Scenario = 'live' | 'restart';

interface RunResult {
  scenario: Scenario;
  mode: Fairness;
  workers: number;
  /** sent → reconcile start of each b–e change, ms, sorted. */
  waits: number[];
  /** An owned ConfigMap's change sent → its owner's reconcile start, ms, sorted. */
  urgentWaits: number[];
  /** sent → the generation in the manager's cache. */
  toCache: number[];
  /** in the cache → reconcile start (the queue). */
  queued: number[];
  changes: number;
  unobserved: number;
  createdMs: number;
  drainedMs: number;
  reconciles: number;
  loadAtStart: string;
  /** The controller process's event-loop delay during the flood, ms. */
  loopDelayP99: number;
  loopDelayMax: number;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function run(
  plane: ControlPlane,
  admin: KubeClient,
  changer: KubeClient,
  id: string,
  scenario: Scenario,
  mode: Fairness,
  workers: number,
): Promise<RunResult> {
  const loadAtStart = load();
  const ns = (letter: string): string => `${id}-${letter}`;
  for (const letter of ['a', ...config.others])
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns(letter) },
    });
  const otherKeys: string[] = [];
  for (const letter of config.others)
    for (let i = 0; i < config.perOther; i++) {
      const name = `g-${i}`;
      await admin.create<Gizmo>(Gizmos, gizmo(ns(letter), name, id));
      otherKeys.push(`${ns(letter)}/${name}`);
    }
  // The urgent path: a Gizmo of b that no one changes, and a ConfigMap it controls that changes
  // every second (as an owned pod does when a primary is lost): `owns(...)` enqueues the owner at
  // high priority.
  const owner = await admin.create<Gizmo>(Gizmos, gizmo(ns('b'), 'owner', id));
  const ownerKey = `${ns('b')}/owner`;
  const childName = 'owner-child';
  await admin.create(ConfigMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: childName,
      namespace: ns('b'),
      labels: { [runLabel]: id },
      ownerReferences: [
        {
          apiVersion: `${Gizmos.group}/${Gizmos.version}`,
          kind: Gizmos.kind,
          name: 'owner',
          uid: owner.metadata.uid!,
          controller: true,
        },
      ],
    },
    data: { tick: '0' },
  } as KubeObject);

  // The controller under test.
  const cost = costs();
  /** Per key: each reconcile start, with the generation it read from the cache. */
  const starts = new Map<string, { at: number; generation: number }[]>();
  /** Per key and generation: when the manager's informer first held it. */
  const cachedAt = new Map<string, number>();
  const floodDone = new Set<string>();
  let floodDrainedAt = NaN;
  let reconciles = 0;
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: `bench-flood-${id}`,
    probePort: false,
    client: { qps: config.managerQps, burst: config.managerBurst },
  });
  const selection = { labelSelector: `${runLabel}=${id}` };
  const gizmos = manager.informers.informerFor<Gizmo>(Gizmos, selection);
  const seen = (g: Gizmo): void => {
    const key = `${g.metadata.namespace}/${g.metadata.name}/${g.metadata.generation ?? 0}`;
    if (!cachedAt.has(key)) cachedAt.set(key, performance.now());
  };
  gizmos.addEventHandler({ onAdd: seen, onUpdate: (_old, g) => seen(g) });
  const floodNamespace = ns('a');
  controllerFor(manager, Gizmos, { selection, predicates: [generationChanged] })
    .named('flood-gizmo')
    .owns(ConfigMaps, { selection })
    .withOptions({ maxConcurrentReconciles: workers, fairness: mode })
    .complete(async (_ctx, request) => {
      const at = performance.now();
      reconciles++;
      const obj = gizmos.store.get(request.key);
      if (!obj) return;
      let list = starts.get(request.key);
      if (!list) starts.set(request.key, (list = []));
      list.push({ at, generation: obj.metadata.generation ?? 0 });
      await sleep(cost() * config.costScale);
      if (request.namespace === floodNamespace && !floodDone.has(request.key)) {
        floodDone.add(request.key);
        if (floodDone.size === config.flood) floodDrainedAt = performance.now();
      }
    });
  let running: Promise<void> | undefined;
  try {
    const changes: Change[] = [];
    const flood = await startFlood(plane, floodNamespace, id);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    let t0: number;
    let createdAt = NaN;
    let flooding: Promise<void>;
    if (scenario === 'live') {
      running = manager.start();
      running.catch((error: unknown) => log(`manager stopped with an error: ${String(error)}`));
      await manager.informers.waitForSync();
      await waitFor(
        () => [...otherKeys, ownerKey].every((k) => starts.has(k)),
        60_000,
        'the first reconciles of b–e',
      );
      await sleep(500);
      log(`${id}: ${scenario}, ${mode}, ${workers} workers: flooding ${config.flood} Gizmos`);
      loop.enable();
      t0 = performance.now();
      flooding = flood.go().then(() => void (createdAt = performance.now()));
    } else {
      // The flood is there before the manager starts: its initial list holds all of it.
      log(`${id}: ${scenario}: creating ${config.flood} Gizmos before the manager starts`);
      await flood.go();
      await sleep(1000);
      log(`${id}: ${scenario}, ${mode}, ${workers} workers: starting the manager`);
      loop.enable();
      t0 = performance.now();
      running = manager.start();
      running.catch((error: unknown) => log(`manager stopped with an error: ${String(error)}`));
      flooding = Promise.resolve();
    }
    flooding.catch(() => undefined);
    const urgent: number[] = [];
    let tick = 0;
    const acks: Promise<unknown>[] = [];
    while (true) {
      const elapsed = performance.now() - t0;
      const drained = Number.isFinite(floodDrainedAt);
      if (
        drained &&
        performance.now() - floodDrainedAt >= config.tailMs &&
        elapsed >= config.minChangeMs
      )
        break;
      if (elapsed > config.maxRunMs) {
        log(`${id}: the flood did not drain within ${config.maxRunMs / 1000} s`);
        break;
      }
      tick++;
      for (const key of otherKeys) {
        const [namespace, name] = key.split('/') as [string, string];
        const change: Change = { key, sentAt: performance.now() };
        changes.push(change);
        acks.push(
          changer
            .mergePatch<Gizmo>(Gizmos, name, namespace, {
              spec: { message: `tick-${tick}` },
            })
            .then((updated) => void (change.generation = updated.metadata.generation)),
        );
      }
      urgent.push(performance.now());
      acks.push(
        changer.mergePatch(ConfigMaps, childName, ns('b'), { data: { tick: String(tick) } }),
      );
      await sleep(Math.max(0, t0 + tick * config.changeEveryMs - performance.now()));
    }
    await Promise.all(acks);
    await flooding;
    loop.disable();
    const loopDelayP99 = loop.percentile(99) / 1e6;
    const loopDelayMax = loop.max / 1e6;

    // Each change: the first reconcile start at or after it was sent that read its generation.
    const observed = (c: Change): number | undefined =>
      starts.get(c.key)?.find((s) => s.at >= c.sentAt && s.generation >= (c.generation ?? Infinity))
        ?.at;
    await waitFor(
      () => changes.every((c) => observed(c) !== undefined),
      60_000,
      'the last changes',
    ).catch((error: unknown) => log(String(error)));
    const ownerStart = (sentAt: number): number | undefined =>
      starts.get(ownerKey)?.find((s) => s.at >= sentAt)?.at;
    const urgentWaits = urgent
      .map((sentAt) => (ownerStart(sentAt) ?? NaN) - sentAt)
      .filter(Number.isFinite);
    const waits: number[] = [];
    const toCache: number[] = [];
    const queued: number[] = [];
    let unobserved = 0;
    for (const c of changes) {
      const at = observed(c);
      if (at === undefined) {
        unobserved++;
        continue;
      }
      waits.push(at - c.sentAt);
      const cached = cachedAt.get(`${c.key}/${c.generation}`);
      if (cached !== undefined) {
        toCache.push(cached - c.sentAt);
        queued.push(at - cached);
      }
    }
    const sorted = (v: number[]): number[] => v.sort((a, b) => a - b);
    return {
      mode,
      workers,
      waits: sorted(waits),
      urgentWaits: sorted(urgentWaits),
      toCache: sorted(toCache),
      queued: sorted(queued),
      changes: changes.length,
      unobserved,
      scenario,
      createdMs: scenario === 'live' ? createdAt - t0 : NaN,
      drainedMs: floodDrainedAt - t0,
      reconciles,
      loadAtStart,
      loopDelayP99,
      loopDelayMax,
    };
  } finally {
    if (running) {
      await manager.stop();
      await running.catch(() => undefined);
    }
    await manager.client.close();
  }
}

function printTable(results: RunResult[], startLoad: string): void {
  const cpuList = cpus();
  const p = (v: readonly number[], q: number): string => ms(percentile(v, q));
  const lines = [
    `## Tenant flood, end to end${quick ? ' (--quick)' : ''}`,
    '',
    `Command: \`${['npx tsx libs/controller/bench/tenant-flood.ts', ...process.argv.slice(2)].join(' ')}\``,
    '',
    `Machine: node ${process.version}, ${cpuList.length} cpus (${cpuList[0]?.model.trim() ?? 'unknown'}), ` +
      `${fmt(totalmem() / 2 ** 30, 1)} GiB RAM; load average at start ${startLoad}.`,
    '',
    `Flood ${fmt(config.flood)} Gizmos in \`a\` (${config.inFlight} creates in flight); ` +
      `${config.others.length * config.perOther} Gizmos of b–e changed every second; reconcile ${2 * config.costScale}–${8 * config.costScale} ms.`,
    '',
    '| flood | queue | workers | b–e change → reconcile start p50 | p99 | max | of which in the queue p50 / p99 | sent → cache p50 / p99 | changes | owned child changed → owner reconcile start p50 / p99 | flood created | flood drained | event-loop delay p99 / max | load at start |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.scenario} | ${r.mode} | ${r.workers} | ${p(r.waits, 0.5)} ms | ${p(r.waits, 0.99)} ms | ${ms(r.waits.at(-1) ?? NaN)} ms | ` +
        `${p(r.queued, 0.5)} / ${p(r.queued, 0.99)} ms | ${p(r.toCache, 0.5)} / ${p(r.toCache, 0.99)} ms | ` +
        `${fmt(r.changes)}${r.unobserved ? ` (${r.unobserved} unobserved)` : ''} | ${p(r.urgentWaits, 0.5)} / ${p(r.urgentWaits, 0.99)} ms | ${Number.isFinite(r.createdMs) ? `${fmt(r.createdMs / 1000, 1)} s` : 'before start'} | ` +
        `${fmt(r.drainedMs / 1000, 1)} s | ${ms(r.loopDelayP99)} / ${ms(r.loopDelayMax)} ms | ${r.loadAtStart} |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

async function main(): Promise<void> {
  const startLoad = load();
  const results: RunResult[] = [];
  let plane: ControlPlane | undefined;
  let admin: KubeClient | undefined;
  let changer: KubeClient | undefined;
  const stopping = async (): Promise<void> => {
    await admin?.close();
    await changer?.close();
    await plane?.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      log(`${signal}: stopping`);
      void stopping().finally(() => process.exit(130));
    });
  try {
    log('starting the control plane');
    plane = await startControlPlane({ crds: [crds], controllerManager: false });
    admin = new KubeClient(plane.kubeConfig, {
      qps: Infinity,
      burst: 1,
      fieldManager: 'bench-flood',
    });
    changer = new KubeClient(plane.kubeConfig, {
      qps: Infinity,
      burst: 1,
      fieldManager: 'bench-changer',
    });
    let n = 0;
    for (let r = 0; r < config.repeat; r++)
      for (const scenario of config.scenarios)
        for (const workers of config.workers)
          for (const mode of config.modes) {
            const result = await run(plane, admin, changer, `r${++n}`, scenario, mode, workers);
            log(
              `${scenario}, ${mode}, ${workers} workers: p50 ${ms(percentile(result.waits, 0.5))} ms, p99 ${ms(percentile(result.waits, 0.99))} ms, ` +
                `max ${ms(result.waits.at(-1) ?? NaN)} ms; flood created ${fmt(result.createdMs / 1000, 1)} s, drained ${fmt(result.drainedMs / 1000, 1)} s`,
            );
            results.push(result);
          }
    printTable(results, startLoad);
  } catch (error) {
    if (results.length) printTable(results, startLoad);
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 1;
  } finally {
    await stopping();
  }
}

const floodArgs = process.argv.indexOf('--flood-child');
if (floodArgs >= 0) await floodChild(process.argv.slice(floodArgs + 1));
else await main();
