/**
 * A failover in one namespace while another namespace floods the controller (issue 24): how long a
 * Replicated CacheCluster's primary loss takes to be writable again, idle vs under a flood with
 * client-go's FIFO queue vs the fair queue, side by side in one run. Not a test: it prints figures
 * (a Markdown table for BENCHMARKS.md) and never passes or fails on time. Run it from the
 * repository root on a machine where nothing else uses the node tier:
 *
 *   npx tsx libs/cache-cluster/bench/failover-under-flood.ts [--runs=3] [--flood=5000]
 *     [--in-flight=50] [--loss-after=10] [--modes=idle,fifo,fair] [--fifo-runs=1]
 *
 * On the node tier (real kubelet + containerd, real Redis pods), the controller in-process on a
 * `Manager` as the app wires it: the manager's client at its defaults (qps 20, burst 30), Events on
 * a client of their own, 4 workers, poll 5 s and busy poll 1 s (the chart's defaults),
 * `fairness` per mode. One Replicated CacheCluster (3 pods, `failover.after: 2s`) in namespace B
 * serves every run. Per run and mode:
 *
 * - a fresh manager watching B and (flood modes) a fresh flood namespace A; the cluster Ready at
 *   its generation, a client process of its own writing numbered keys through the read-write
 *   Service (each connection asks its server's run id, so each acknowledgement names the server
 *   that gave it), acknowledged by the primary for 2 s;
 * - flood modes: a child process (as a GitOps tool would: an admin client without a rate limit,
 *   `--in-flight` creates at a time) creates `--flood` CacheClusters in A that name a
 *   ProviderProfile that does not exist (no pods: each costs the controller two reconciles, a
 *   finalizer patch, a status write and an Event — the reconciles a sync of refused objects costs);
 * - `--loss-after` seconds after the flood starts (idle: at once), the primary's pod is deleted;
 *   "writable" is the first write acknowledged by another server after that, "completed" the
 *   failover's `completedAt` in status; the backlog at the loss is the flood objects created by
 *   then minus those whose status the controller had written.
 *
 * Then the manager stops; the flood's finalizers are removed and its namespace deleted (by the
 * admin, not timed). Progress goes to stderr, the table to stdout.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { findCondition } from '@steward/conditions';
import { Manager, type Fairness } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import { KubeClient, Namespaces, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { boundedAll, eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cacheClusterController } from '../src/index.js';

type Mode = 'idle' | Fairness;
const Kind = CacheCluster.resourceType;

function arg(name: string, fallback: string): string {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
}
const config = {
  runs: Number(arg('runs', '3')),
  flood: Number(arg('flood', '5000')),
  inFlight: Number(arg('in-flight', '50')),
  lossAfterMs: Number(arg('loss-after', '10')) * 1000,
  modes: arg('modes', 'idle,fifo,fair').split(',') as Mode[],
  /** FIFO under a flood waits for the backlog (minutes at 5,000): fewer runs of it. */
  fifoRuns: Number(arg('fifo-runs', '1')),
};

const floodName = (i: number) => `f-${String(i).padStart(5, '0')}`;

/**
 * The child: `create <kubeconfig> <ns> <count> <in-flight>` says `ready`, floods on the first
 * line it reads and says `created <n>` every 250 creates and `done` at the end;
 * `strip <kubeconfig> <ns> <count> <in-flight>` removes the finalizers of the flood's objects.
 */
async function child(args: string[]): Promise<void> {
  if (args[0] === 'write') return writeChild(args[1]!, args[2]!, args[3]!);
  const [what, kubeconfigPath, namespace, count, inFlight] = args as [
    'create' | 'strip',
    string,
    string,
    string,
    string,
  ];
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kubeConfig, { qps: Infinity, burst: 1, fieldManager: 'flood' });
  if (what === 'strip') {
    await boundedAll(Number(count), Number(inFlight), (i) =>
      client
        .mergePatch(Kind, floodName(i), namespace, { metadata: { finalizers: null } })
        .catch(() => undefined),
    );
    await client.close();
    return;
  }
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  let created = 0;
  await boundedAll(Number(count), Number(inFlight), async (i) => {
    await client.create<CacheCluster>(Kind, {
      apiVersion: CacheCluster.apiVersion,
      kind: 'CacheCluster',
      metadata: { name: floodName(i), namespace },
      spec: { version: '7.0', providerProfileRef: { name: 'not-there' } },
    } as CacheCluster);
    if (++created % 250 === 0) process.stdout.write(`created ${created}\n`);
  });
  process.stdout.write('done\n');
  lines.close();
  await client.close();
}

/**
 * The writer child: numbered keys through `host` (the read-write Service), one after another,
 * reconnecting on any error; each connection first asks its server's run id. Prints `ack <ms>
 * <runId>` (Date.now()) for the first acknowledgement on each connection and then one a second.
 */
async function writeChild(host: string, password: string, prefix: string): Promise<void> {
  let stopped = false;
  process.on('SIGTERM', () => (stopped = true));
  let client: Redis | undefined;
  let runId = '';
  let reported = 0;
  let n = 0;
  while (!stopped) {
    try {
      if (!client) {
        client = new Redis({
          host,
          port: 6379,
          password,
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
          connectTimeout: 500,
          commandTimeout: 500,
        });
        client.on('error', () => undefined);
        await client.connect();
        runId = /^run_id:(\S+)/m.exec(await client.info('server'))?.[1] ?? '';
        reported = 0;
      }
      await client.set(`${prefix}:${n++}`, 'x'.repeat(40));
      const at = Date.now();
      if (at - reported >= 1000) {
        process.stdout.write(`ack ${at} ${runId}\n`);
        reported = at;
      }
      await sleep(10);
    } catch {
      client?.disconnect();
      client = undefined;
      await sleep(10);
    }
  }
  client?.disconnect();
}

function runChild(args: string[]) {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number>((resolve) => proc.on('exit', (code) => resolve(code ?? 1)));
  return { proc, exited, lines: createInterface({ input: proc.stdout }) };
}

async function main(): Promise<void> {
  const tier: NodeTier = await acquireNodeTier();
  for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/cache-cluster-controller/crds'));
  const admin = new KubeClient(tier.kubeConfig, {
    fieldManager: 'bench-admin',
    qps: 200,
    burst: 200,
  });
  const b = await tier.createNamespace('ccff-b');
  const cluster = 'orders';
  const spec: CacheClusterSpec = {
    version: '7.0',
    mode: 'Replicated',
    replicas: 3,
    failover: { after: '2s' },
  };
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name: cluster, namespace: b },
    spec,
  } as CacheCluster);
  const read = () => admin.get<CacheCluster>(Kind, cluster, b);
  const ready = () =>
    eventually(
      async () => {
        const obj = await read();
        const c = findCondition(obj.status?.conditions, 'Ready');
        return c?.status === 'True' && c.observedGeneration === obj.metadata.generation
          ? obj
          : undefined;
      },
      { description: `${cluster} Ready`, timeoutMs: 300_000, intervalMs: 100 },
    );

  interface Row {
    mode: Mode;
    run: number;
    writableMs: number;
    completedMs: number;
    createdAtLoss: number;
    backlogAtLoss: number;
    reconciledAtWritable: number;
    bound: string;
  }
  const rows: Row[] = [];
  for (let run = 1; run <= config.runs; run++) {
    for (const mode of config.modes) {
      if (mode === 'fifo' && run > config.fifoRuns) continue;
      const flood = mode === 'idle' ? undefined : await tier.createNamespace(`ccff-a-${mode}`);
      // Which flood objects the controller has written a status for (its reconciles' result).
      const statused = new Set<string>();
      const manager = new Manager({
        kubeConfig: tier.kubeConfig,
        name: 'cache-cluster-controller',
        client: {
          onRequest: (info) => {
            if (!flood || info.verb === 'get' || info.verb === 'list' || info.verb === 'watch')
              return;
            const m = new RegExp(`/namespaces/${flood}/cacheclusters/([^/]+)/status$`).exec(
              info.path,
            );
            if (m && info.code < 300) statused.add(m[1]!);
          },
        },
      });
      const events = new KubeEventRecorder(
        new KubeClient(tier.kubeConfig, { fieldManager: 'cache-cluster-controller' }),
        { reportingController: 'steward.dev/cache-cluster-controller' },
      );
      cacheClusterController(manager, {
        selection: { namespaces: flood ? [b, flood] : [b] },
        fieldManager: 'cache-cluster-controller',
        pollIntervalMs: 5000,
        busyPollIntervalMs: 1000,
        events,
        fairness: mode === 'fifo' ? 'fifo' : 'fair',
      });
      const stopped = manager.start();
      stopped.catch((e: unknown) => console.error('manager:', e));
      const before = await ready();
      const oldPrimary = before.status!.primary!;
      const count = before.status?.failoverCount ?? 0;

      // The writer, through the read-write Service.
      const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
        Services,
        `${cluster}-rw`,
        b,
      );
      const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
        Secrets,
        `${cluster}-auth`,
        b,
      );
      const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
      // The writer is a process of its own (as an application is): the controller's work in this
      // process never delays its writes or their acknowledgements.
      const acks: { at: number; runId: string }[] = [];
      const writer = runChild(['write', rw.spec.clusterIP, password, `${mode}-${run}`]);
      writer.lines.on('line', (line) => {
        const [what, at, runId] = line.split(' ');
        if (what === 'ack') acks.push({ at: Number(at), runId: runId ?? '' });
      });
      await eventually(
        () => {
          const first = acks[0];
          return first !== undefined && acks.at(-1)!.runId === first.runId
            ? Date.now() - first.at > 2000
            : false;
        },
        { description: 'writes acknowledged for 2 s', timeoutMs: 60_000 },
      );
      const oldRunId = acks.at(-1)!.runId;

      // The flood.
      let created = 0;
      let floodDone: Promise<unknown> = Promise.resolve();
      if (flood) {
        const c = runChild([
          'create',
          tier.kubeconfigPath,
          flood,
          String(config.flood),
          String(config.inFlight),
        ]);
        const first = await new Promise<string>((resolve) => c.lines.once('line', resolve));
        if (first !== 'ready') throw new Error(`the flood child said ${first}`);
        c.lines.on('line', (line) => {
          const m = /^created (\d+)/.exec(line);
          if (m) created = Number(m[1]);
          if (line === 'done') created = config.flood;
        });
        c.proc.stdin.write('go\n');
        floodDone = c.exited;
        await sleep(config.lossAfterMs);
      }
      const createdAtLoss = created;
      const backlogAtLoss = created - statused.size;
      const lossWall = Date.now();
      await admin.delete(Pods, oldPrimary, b);
      await eventually(() => acks.some((a) => a.at > lossWall && a.runId !== oldRunId), {
        description: 'a write acknowledged by the new primary',
        timeoutMs: 30 * 60_000,
        intervalMs: 20,
      });
      const writableMs = acks.find((a) => a.at > lossWall && a.runId !== oldRunId)!.at - lossWall;
      const reconciledAtWritable = statused.size;
      writer.proc.kill('SIGTERM');
      await writer.exited;
      const after = await eventually(
        async () => {
          const o = await read();
          return (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed'
            ? o
            : undefined;
        },
        { description: 'the failover Completed', timeoutMs: 30 * 60_000 },
      );
      const f = after.status!.failover!;
      const row: Row = {
        mode,
        run,
        writableMs,
        completedMs: Date.parse(f.completedAt!) - lossWall,
        createdAtLoss,
        backlogAtLoss,
        reconciledAtWritable,
        bound: f.dataLossRisk === 'Bounded' ? `${f.bytesPossiblyLost} B` : String(f.dataLossRisk),
      };
      rows.push(row);
      console.error(`run ${run} ${mode}: ${JSON.stringify(row)}`);
      await ready();
      await floodDone;
      await manager.stop();
      await stopped.catch(() => undefined);
      await events.shutdown();
      if (flood) {
        const s = runChild(['strip', tier.kubeconfigPath, flood, String(config.flood), '50']);
        s.proc.stdin.end();
        await s.exited;
        await admin.delete(Namespaces, flood).catch(() => undefined);
      }
    }
  }

  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const cell = (xs: number[]) => `${s(median(xs))} s (${s(Math.min(...xs))}–${s(Math.max(...xs))})`;
  console.log(
    `| mode | runs | loss → writable, median (min–max) | loss → failover Completed | flood created at the loss | controller's backlog at the loss | flood objects reconciled by writable | loss bounds |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const mode of config.modes) {
    const mine = rows.filter((r) => r.mode === mode);
    const list = (f: (r: Row) => number | string) => mine.map(f).join(', ');
    console.log(
      `| ${mode} | ${mine.length} | ${cell(mine.map((r) => r.writableMs))} | ${cell(mine.map((r) => r.completedMs))} | ${list((r) => r.createdAtLoss)} | ${list((r) => r.backlogAtLoss)} | ${list((r) => r.reconciledAtWritable)} | ${list((r) => r.bound)} |`,
    );
  }
  // No manager runs now: the cluster's finalizer goes by hand (its children follow their owner).
  await admin
    .mergePatch(Kind, cluster, b, { metadata: { finalizers: null } })
    .catch(() => undefined);
  await admin.delete(Kind, cluster, b).catch(() => undefined);
  await admin.close();
  await tier.release();
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  await child(process.argv.slice(childAt + 1));
  process.exit(0);
} else {
  try {
    await main();
  } catch (error) {
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 1;
  }
  process.exit();
}
