/**
 * Controller-runtime benchmark on a real control plane (etcd + kube-apiserver, no
 * controller-manager). Not a test: it prints figures (a markdown table for BENCHMARKS.md) and never
 * passes or fails on time. Run from the repository root:
 *
 *   npx tsx libs/controller/bench/runtime.ts [--quick]
 *
 * Options: `--quick` (N=200, 2,000 ConfigMaps, short windows; < 2 min), `--pool=<n>` (Gizmos
 * patched in the latency phase; default 200, 100 with --quick), `--rate=<n>` (updates/s in the
 * latency phase; default 200). Type-check: `npx tsc --noEmit -p libs/controller/bench/tsconfig.json`.
 * Progress goes to stderr, the table to stdout.
 *
 * Phases, in this order, all in one process (re-executed with `--expose-gc` when needed):
 * 1. work queue: add → get → done cycles/s over one key space of 10,000 keys (the scenarios of
 *    libs/workqueue/bench/throughput.ts), before the control plane starts;
 * 2. convergence: N Gizmos (1000) created at once (20 in flight, admin client without a rate
 *    limit) → all Ready=True with observedGeneration 1 in the manager's own cache; wall time, and
 *    the manager's API requests (client qps 200 / burst 400, 4 workers) split into reads and writes;
 * 3. idle cost: the manager's requests per minute while the N Gizmos stay converged (60 s);
 * 4. event → reconcile-start latency: `spec.message` patches at a steady rate (200/s for 20 s)
 *    round-robin over a pool of Gizmos, from the first unreconciled update of a key to the start of
 *    the reconcile that reads its latest message from the cache; coalesced updates counted; then
 *    an unsaturated reference run at 20/s;
 * 5. informer memory: heap per cached ConfigMap (10,000), with and without managedFields
 *    stripping, as (heapUsed after − before) / N around `global.gc()`.
 */
import { findCondition } from '@steward/conditions';
import { InformerFactory } from '@steward/informer';
import {
  ConfigMaps,
  KubeClient,
  Namespaces,
  resourceOfPath,
  type KubeObject,
  type RequestInfo,
} from '@steward/kube';
// A benchmark runs on the test harness, as the integration tests do.
import { boundedAll, startControlPlane, type ControlPlane } from '@steward/testing';
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Manager } from '../src/index.js';
import { Gizmos, sampleController, type Gizmo } from '../tests/support/sample-controller.js';

const quick = process.argv.includes('--quick');
function numberArg(name: string, fallback: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const config = {
  gizmos: quick ? 200 : 1000,
  configMaps: quick ? 2000 : 10_000,
  idleMs: quick ? 10_000 : 60_000,
  latencyMs: quick ? 5_000 : 20_000,
  latencyRate: numberArg('rate', 200),
  latencyPool: numberArg('pool', quick ? 100 : 200),
  /** A second, unsaturated run for reference. */
  referenceRate: 20,
  referenceMs: quick ? 3_000 : 10_000,
  createConcurrency: 20,
  managerQps: 200,
  managerBurst: 400,
  workers: 4,
  convergenceTimeoutMs: 5 * 60_000,
};

const gizmoNamespace = 'bench-gizmos';
const memoryNamespace = 'bench-informer-memory';
const crds = join(import.meta.dirname, '../tests/fixtures/crds');

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

// --- the table -------------------------------------------------------------------------------

const rows: [string, string, string][] = [];
const row = (measure: string, figure: string, notes = ''): void => {
  rows.push([measure, figure, notes]);
  log(`${measure}: ${figure}${notes ? ` (${notes})` : ''}`);
};
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (v: number): string => fmt(v, Math.abs(v) < 100 ? 1 : 0);

function printTable(): void {
  const cpuList = cpus();
  const machine =
    `node ${process.version}, ${process.platform}/${process.arch}, ${cpuList.length} cpus ` +
    `(${cpuList[0]?.model.trim() ?? 'unknown'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM; ` +
    `load average at start ${startLoad}. Shared machine: other jobs (tests, builds) may have been ` +
    `running on the same cores, so figures are indicative.`;
  const lines = [
    `## Controller runtime${quick ? ' (--quick)' : ''}`,
    '',
    `Command: \`npx tsx libs/controller/bench/runtime.ts${quick ? ' --quick' : ''}\``,
    '',
    `Machine: ${machine}`,
    '',
    '| measure | figure | notes |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

// --- helpers ---------------------------------------------------------------------------------

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

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

const readVerbs = new Set(['get', 'list', 'watch']);

/** Counts a client's HTTP requests by verb and resource. */
class RequestCounter {
  private counts = new Map<string, number>();

  /** Round-trip times of the write requests, in order. */
  readonly writeDurations: number[] = [];

  record = (info: RequestInfo): void => {
    const key = `${info.verb} ${resourceOfPath(info.path)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (!readVerbs.has(info.verb)) this.writeDurations.push(info.durationMs);
  };

  snapshot(): Map<string, number> {
    return new Map(this.counts);
  }

  static since(now: Map<string, number>, then: Map<string, number>): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, v] of now) if (v - (then.get(k) ?? 0) > 0) out.set(k, v - (then.get(k) ?? 0));
    return out;
  }

  static total(counts: Map<string, number>, reads: boolean): number {
    let sum = 0;
    for (const [k, v] of counts) if (readVerbs.has(k.split(' ')[0]!) === reads) sum += v;
    return sum;
  }

  static describe(counts: Map<string, number>): string {
    const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${fmt(v)}`);
    return parts.length ? parts.join(', ') : 'none';
  }
}

async function gcSettle(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    globalThis.gc!();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// --- phase 1: work queue -------------------------------------------------------------------

/**
 * The work-queue scenarios live in one place, libs/workqueue/bench/throughput.ts; this runs that
 * script in a child process (before the control plane starts) and folds its figures into the table.
 */
async function workqueuePhase(): Promise<void> {
  log('work queue throughput');
  const script = join(import.meta.dirname, '../../workqueue/bench/throughput.ts');
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${script} exited with ${code}`)),
    );
  });
  for (const line of output.split('\n')) {
    const match = /^(.*\S)\s+([\d,]+) cycles\/s$/.exec(line);
    if (match)
      row(
        `work queue: ${match[1]}`,
        `${match[2]} cycles/s`,
        '10,000 keys; see libs/workqueue/bench/throughput.ts',
      );
  }
}

// --- phases 2–5: on a real control plane -----------------------------------------------------

const gizmoName = (i: number): string => `gizmo-${String(i).padStart(5, '0')}`;

interface PendingUpdate {
  message: string;
  sentAt: number;
  /** When the admin client's patch returned. */
  ackAt?: number;
  /** When the manager's Gizmo informer first cached this message. */
  cachedAt?: number;
}

interface ObservedUpdate {
  first: PendingUpdate;
  reconcileStartedAt: number;
}

let cleanup: (() => Promise<void>) | undefined;

async function main(): Promise<void> {
  let plane: ControlPlane | undefined;
  let admin: KubeClient | undefined;
  let manager: Manager | undefined;
  let running: Promise<void> | undefined;
  let memoryClient: KubeClient | undefined;
  let cleaned: Promise<void> | undefined;
  cleanup = () =>
    (cleaned ??= (async () => {
      log('cleaning up');
      if (manager) {
        await manager.stop();
        await running?.catch(() => undefined);
        await manager.client.close();
      }
      await admin?.close();
      await memoryClient?.close();
      await plane?.stop();
    })());

  try {
    await workqueuePhase();

    log('starting the control plane');
    plane = await startControlPlane({ crds: [crds], controllerManager: false });
    admin = new KubeClient(plane.kubeConfig, {
      qps: Infinity,
      burst: 1,
      fieldManager: 'bench-admin',
    });
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: gizmoNamespace },
    });

    // The manager under test, with a request counter on its client.
    const counter = new RequestCounter();
    let lastRequestAt = performance.now();
    let reconciles = 0;
    let onReconcile: (key: string) => void = () => undefined;
    manager = new Manager({
      kubeConfig: plane.kubeConfig,
      name: 'bench-gizmo-controller',
      probePort: false,
      client: {
        qps: config.managerQps,
        burst: config.managerBurst,
        onRequest: (info) => {
          lastRequestAt = performance.now();
          counter.record(info);
        },
      },
    });
    sampleController(manager, {
      maxConcurrentReconciles: config.workers,
      onReconcile: (request) => {
        reconciles++;
        onReconcile(request.key);
      },
    });
    const gizmos = manager.informers.informerFor<Gizmo>(Gizmos);
    const ready = new Set<string>();
    let lastReadyAt = 0;
    const track = (g: Gizmo): void => {
      if (g.metadata.namespace !== gizmoNamespace) return;
      const key = `${gizmoNamespace}/${g.metadata.name}`;
      const condition = findCondition(g.status?.conditions, 'Ready');
      if (
        !ready.has(key) &&
        g.status?.observedGeneration === 1 &&
        condition?.status === 'True' &&
        condition.observedGeneration === 1
      ) {
        ready.add(key);
        lastReadyAt = performance.now();
      }
    };
    gizmos.addEventHandler({ onAdd: (g) => track(g), onUpdate: (_old, g) => track(g) });
    const byMessage = new Map<string, PendingUpdate>();
    gizmos.addEventHandler({
      onUpdate: (_old, g) => {
        const update = byMessage.get(g.spec?.message ?? '');
        if (update && update.cachedAt === undefined) update.cachedAt = performance.now();
      },
    });
    running = manager.start();
    running.catch((error: unknown) => log(`manager stopped with an error: ${String(error)}`));
    await manager.informers.waitForSync();
    const atSync = counter.snapshot();
    const waitQuiet = (quietMs: number, maxMs: number): Promise<void> =>
      waitFor(() => performance.now() - lastRequestAt >= quietMs, maxMs, 'a quiet manager', 100);
    await waitQuiet(1000, 10_000);

    // --- convergence
    const n = config.gizmos;
    log(`convergence: creating ${n} Gizmos, ${config.createConcurrency} in flight`);
    const beforeCreate = counter.snapshot();
    const reconcilesBefore = reconciles;
    const t0 = performance.now();
    await boundedAll(n, config.createConcurrency, (i) =>
      admin!.create<Gizmo>(Gizmos, {
        apiVersion: `${Gizmos.group}/${Gizmos.version}`,
        kind: Gizmos.kind,
        metadata: { name: gizmoName(i), namespace: gizmoNamespace },
        spec: { message: `initial-${i}` },
      }),
    );
    const createdMs = performance.now() - t0;
    await waitFor(() => ready.size >= n, config.convergenceTimeoutMs, `${n} Gizmos Ready`);
    const convergedMs = lastReadyAt - t0;
    const atReady = RequestCounter.since(counter.snapshot(), beforeCreate);
    const reconcilesAtReady = reconciles - reconcilesBefore;
    await waitQuiet(3000, 60_000);
    const settled = RequestCounter.since(counter.snapshot(), beforeCreate);
    const reconcilesSettled = reconciles - reconcilesBefore;

    const workerNote = `manager client qps ${config.managerQps} / burst ${config.managerBurst}, maxConcurrentReconciles ${config.workers}`;
    row(
      `convergence: ${fmt(n)} Gizmos created at once → all Ready (observedGeneration 1, manager cache)`,
      `${fmt(convergedMs / 1000, 2)} s (${fmt((n / convergedMs) * 1000)} Gizmos/s)`,
      `creates took ${fmt(createdMs / 1000, 2)} s (${config.createConcurrency} in flight, admin qps ∞); ${workerNote}`,
    );
    const writesAtReady = RequestCounter.total(atReady, false);
    const writesSettled = RequestCounter.total(settled, false);
    row(
      'convergence: manager API writes, first create → all Ready',
      `${fmt(writesAtReady)} (${fmt(writesAtReady / n, 2)} per Gizmo)`,
      RequestCounter.describe(
        new Map([...atReady].filter(([k]) => !readVerbs.has(k.split(' ')[0]!))),
      ),
    );
    row(
      'convergence: manager API reads, first create → all Ready',
      `${fmt(RequestCounter.total(atReady, true))}`,
      `${RequestCounter.describe(new Map([...atReady].filter(([k]) => readVerbs.has(k.split(' ')[0]!))))}; start-up before the first create: ${RequestCounter.describe(atSync)}`,
    );
    row(
      'convergence: reconciles',
      `${fmt(reconcilesAtReady)} at all Ready, ${fmt(reconcilesSettled)} once quiet (${fmt(reconcilesSettled / n, 2)} per Gizmo)`,
      `writes once quiet (3 s without a request): ${fmt(writesSettled)} (${fmt(writesSettled / n, 2)} per Gizmo): ${RequestCounter.describe(new Map([...settled].filter(([k]) => !readVerbs.has(k.split(' ')[0]!))))}`,
    );

    // --- idle cost
    log(`idle: ${config.idleMs / 1000} s with ${n} converged Gizmos`);
    const idleBefore = counter.snapshot();
    const idleReconciles = reconciles;
    await sleep(config.idleMs);
    const idle = RequestCounter.since(counter.snapshot(), idleBefore);
    const perMinute = (count: number): string => fmt((count * 60_000) / config.idleMs, 1);
    const idleWrites = RequestCounter.total(idle, false);
    const idleReads = RequestCounter.total(idle, true);
    row(
      `idle: manager API writes with ${fmt(n)} converged Gizmos (target 0)`,
      `${perMinute(idleWrites)} /min`,
      `${fmt(idleWrites)} in a ${fmt(config.idleMs / 1000)} s window; reconciles ${fmt(reconciles - idleReconciles)}`,
    );
    row(
      'idle: manager API reads',
      `${perMinute(idleReads)} /min`,
      `${fmt(idleReads)} in the window: ${RequestCounter.describe(idle)}`,
    );

    // --- event → reconcile-start latency
    const latencyPhase = async (rate: number, durationMs: number, label: string): Promise<void> => {
      const pool = Math.min(config.latencyPool, n);
      const total = Math.round((rate * durationMs) / 1000);
      log(`latency (${label}): ${total} spec.message patches at ${rate}/s over ${pool} Gizmos`);
      const pending = new Map<string, PendingUpdate[]>();
      const observed: ObservedUpdate[] = [];
      let coalesced = 0;
      byMessage.clear();
      onReconcile = (key) => {
        const list = pending.get(key);
        if (!list?.length) return;
        const message = gizmos.store.get(key)?.spec?.message;
        const index = list.findIndex((p) => p.message === message);
        if (index < 0) return; // an echo (e.g. of its own child) or an older state
        observed.push({ first: list[0]!, reconcileStartedAt: performance.now() });
        coalesced += index;
        list.splice(0, index + 1);
      };
      const before = counter.snapshot();
      const writeDurationsFrom = counter.writeDurations.length;
      const reconcilesFrom = reconciles;
      const maxInFlight = 100;
      let inFlight = 0;
      let sent = 0;
      let failed = 0;
      let peakInFlight = 0;
      const acks: Promise<void>[] = [];
      const sendStart = performance.now();
      while (sent < total) {
        const due = Math.min(
          total,
          Math.floor(((performance.now() - sendStart) * rate) / 1000) + 1,
        );
        while (sent < due && inFlight < maxInFlight) {
          const seq = sent++;
          const name = gizmoName(seq % pool);
          const key = `${gizmoNamespace}/${name}`;
          const update: PendingUpdate = { message: `${label}-${seq}`, sentAt: performance.now() };
          byMessage.set(update.message, update);
          let list = pending.get(key);
          if (!list) pending.set(key, (list = []));
          list.push(update);
          inFlight++;
          peakInFlight = Math.max(peakInFlight, inFlight);
          acks.push(
            admin!
              .mergePatch(Gizmos, name, gizmoNamespace, { spec: { message: update.message } })
              .then(
                () => void (update.ackAt = performance.now()),
                () => void failed++,
              )
              .finally(() => inFlight--),
          );
        }
        await sleep(1);
      }
      const sendMs = performance.now() - sendStart;
      await Promise.all(acks);
      const unobserved = (): number => [...pending.values()].reduce((s, l) => s + l.length, 0);
      await waitFor(() => unobserved() === 0, 60_000, 'every update to be reconciled').catch(
        () => undefined,
      );
      onReconcile = () => undefined;
      await waitQuiet(1000, 30_000); // count the writes of the last reconciles too
      const during = RequestCounter.since(counter.snapshot(), before);
      const sorted = (values: number[]): number[] => values.sort((a, b) => a - b);
      const p = (values: readonly number[]): string =>
        `p50 ${ms(percentile(values, 0.5))} ms, p99 ${ms(percentile(values, 0.99))} ms`;
      const fromSend = sorted(observed.map((o) => o.reconcileStartedAt - o.first.sentAt));
      const sendToAck = sorted(
        observed
          .filter((o) => o.first.ackAt !== undefined)
          .map((o) => o.first.ackAt! - o.first.sentAt),
      );
      const ackToCache = sorted(
        observed
          .filter((o) => o.first.ackAt !== undefined && o.first.cachedAt !== undefined)
          .map((o) => o.first.cachedAt! - o.first.ackAt!),
      );
      const cacheToStart = sorted(
        observed
          .filter((o) => o.first.cachedAt !== undefined)
          .map((o) => o.reconcileStartedAt - o.first.cachedAt!),
      );
      const writeLatency = sorted(counter.writeDurations.slice(writeDurationsFrom));
      const writes = RequestCounter.total(during, false);
      row(
        `latency: patch sent → reconcile start, ${label} (${fmt(rate)} updates/s, ${fmt(durationMs / 1000)} s)`,
        p(fromSend),
        `max ${ms(fromSend.at(-1) ?? NaN)} ms; ${fmt(total)} spec.message patches round-robin over ${fmt(pool)} Gizmos (each ${fmt(rate / pool, 2)}/s), sent at ${fmt((total / sendMs) * 1000)}/s achieved (admin client, ≤ ${maxInFlight} in flight, peak ${peakInFlight}, ${failed} failed); from the FIRST unreconciled update of a key to the start of the reconcile that sees its latest message`,
      );
      row(
        `latency breakdown, ${label} (first update of each reconcile)`,
        `sent → acknowledged ${p(sendToAck)}; acknowledged → in manager cache ${p(ackToCache)}; in cache → reconcile start ${p(cacheToStart)}`,
        `manager write round trips during the phase: ${p(writeLatency)} (${fmt(writeLatency.length)} writes); a reconcile is 2 sequential writes when the message changed`,
      );
      row(
        `latency: coalescing, ${label}`,
        `${fmt(total - failed - unobserved())} updates → ${fmt(observed.length)} reconciles (${fmt(coalesced)} updates coalesced)`,
        `${fmt(unobserved())} never observed; ${fmt(reconciles - reconcilesFrom)} reconciles in all during the phase (${fmt(((reconciles - reconcilesFrom) / (performance.now() - sendStart)) * 1000)}/s until quiet); manager writes ${fmt(writes)} (${RequestCounter.describe(new Map([...during].filter(([k]) => !readVerbs.has(k.split(' ')[0]!))))})`,
      );
    };
    await latencyPhase(config.latencyRate, config.latencyMs, 'steady');
    await waitQuiet(2000, 30_000);
    await latencyPhase(config.referenceRate, config.referenceMs, 'reference');

    log('stopping the manager');
    await manager.stop();
    await running.catch(() => undefined);

    // --- informer memory
    const m = config.configMaps;
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: memoryNamespace },
    });
    log(`informer memory: creating ${m} ConfigMaps, ${config.createConcurrency} in flight`);
    const createStart = performance.now();
    await boundedAll(m, config.createConcurrency, (i) =>
      admin!.create(ConfigMaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace: memoryNamespace },
        data: { key: `value-${i}` },
      } as KubeObject),
    );
    const createMs = performance.now() - createStart;
    memoryClient = new KubeClient(plane.kubeConfig, { qps: Infinity, burst: 1 });
    const measureInformer = async (
      strip: boolean,
    ): Promise<{ bytes: number; count: number; jsonBytes: number; syncMs: number }> => {
      const factory = new InformerFactory(memoryClient!, { stripManagedFields: strip });
      await gcSettle();
      const before = process.memoryUsage().heapUsed;
      const syncStart = performance.now();
      const informer = factory.informerFor<KubeObject>(ConfigMaps, { namespace: memoryNamespace });
      factory.start();
      await factory.waitForSync();
      const syncMs = performance.now() - syncStart;
      await gcSettle();
      const after = process.memoryUsage().heapUsed;
      const count = informer.store.size;
      const sample = informer.store.list().slice(0, 500);
      const jsonBytes = sample.reduce((s, o) => s + JSON.stringify(o).length, 0) / sample.length;
      await factory.stop();
      return { bytes: after - before, count, jsonBytes, syncMs };
    };
    // Warm-up: the client's first connection and TLS session, and the informer's code paths, are
    // one-time costs that would otherwise land on whichever variant runs first.
    await measureInformer(true);
    const runs = new Map<boolean, Awaited<ReturnType<typeof measureInformer>>[]>([
      [true, []],
      [false, []],
    ]);
    for (const strip of [false, true, false, true])
      runs.get(strip)!.push(await measureInformer(strip));
    for (const [strip, results] of runs) {
      const perObject = results.map((r) => r.bytes / r.count / 1024);
      const mean = perObject.reduce((s, v) => s + v, 0) / perObject.length;
      row(
        `informer memory: heap per cached ConfigMap, managedFields ${strip ? 'stripped (default)' : 'kept'} (target ≤ 10 KiB)`,
        `${fmt(mean, 2)} KiB`,
        `${fmt(results[0]!.count)} objects; mean of ${results.length} alternating runs after a warm-up (${perObject.map((v) => fmt(v, 2)).join(', ')} KiB; heapUsed +${results.map((r) => fmt(r.bytes / 2 ** 20, 1)).join(', ')} MiB after gc); ~${fmt(results[0]!.jsonBytes)} B of JSON per cached object; list+sync ${fmt(results[0]!.syncMs / 1000, 2)} s (${fmt(m)} creates took ${fmt(createMs / 1000, 1)} s, ${config.createConcurrency} in flight)`,
      );
    }
  } finally {
    await cleanup();
  }
}

/** Runs this script again in a child Node with `--expose-gc` (and tsx), forwarding signals. */
async function reexecWithGc(): Promise<number> {
  if (process.env['STEWARD_BENCH_REEXEC']) throw new Error('--expose-gc did not take effect');
  let tsx = 'tsx';
  try {
    tsx = import.meta.resolve('tsx');
  } catch {
    // resolved from the working directory instead
  }
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', tsx, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, STEWARD_BENCH_REEXEC: '1' } },
  );
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1))),
  );
}

const startLoad = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');

if (typeof globalThis.gc !== 'function') process.exit(await reexecWithGc());

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping`);
    void (cleanup?.() ?? Promise.resolve()).finally(() => {
      if (rows.length) printTable();
      process.exit(130);
    });
  });
}

try {
  await main();
  printTable();
} catch (error) {
  if (rows.length) printTable();
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
}
