// Benchmark: the node tier's start-to-Ready (warm: binaries and images cached), pod create → Ready
// for each local image, and the resident memory of the node's components. Not a test: it prints
// figures for BENCHMARKS.md. It stops a running tier first, so run it alone on the machine.
//
//   node --import tsx tools/bench/node-tier.ts [starts=3] [pods=5]
//   node --import tsx tools/bench/node-tier.ts [starts=3] [pods=5] --nodes 3
//       the multi-node tier instead (it stops only that one, and only while holding it: the single
//       tier and other holders may keep running): start → three nodes Ready, stop, redis pod
//       create → Ready on each node, node faults' timings, idle CPU, RSS per process, per node
//       and shared
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { eventually, repoRoot } from '@steward/testing';
import {
  acquireNodeTier,
  localImages,
  multiNodeTierLayout,
  nodeTierLayout,
  stopMultiNodeTier,
  type MultiNodeTier,
  type NodeTier,
} from '@steward/testing-node-tier';

const nodesFlag = process.argv.indexOf('--nodes');
const nodeCount = nodesFlag >= 0 ? Number(process.argv[nodesFlag + 1]) : 1;
const positional = process.argv
  .slice(2)
  .filter((_, i, all) => all[i] !== '--nodes' && all[i - 1] !== '--nodes');
const starts = Number(positional[0] ?? 3);
const podsPerImage = Number(positional[1] ?? 5);
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const layout = nodeTierLayout();
const script = join(repoRoot(), 'tools/scripts/node-tier.ts');
const stopTier = (): void =>
  void execFileSync(process.execPath, ['--import', 'tsx', script, 'stop'], { stdio: 'inherit' });

function stats(values: number[], unit = 's', scale = 1000): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number): string => (v / scale).toFixed(2);
  return `median ${f(sorted[Math.floor(sorted.length / 2)]!)} ${unit} (min ${f(sorted[0]!)}, max ${f(sorted.at(-1)!)}, n=${sorted.length})`;
}

const rssMiB = (pid: number): number =>
  Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

if (nodeCount === 3) {
  await benchMultiNode();
  process.exit(0);
}
if (nodeCount !== 1) throw new Error(`--nodes ${nodeCount}: only 1 and 3 exist`);

async function benchMultiNode(): Promise<void> {
  const multi = multiNodeTierLayout();
  const { 'redis-7.0': redis } = await localImages('redis-7.0');
  const startTimes: number[] = [];
  const supervisorTimes: number[] = [];
  const stopTimes: number[] = [];
  let tier: MultiNodeTier | undefined;
  const readState = () =>
    JSON.parse(readFileSync(join(multi.runDir, 'state.json'), 'utf8')) as {
      pids: Record<string, number>;
      startMs: number;
    };
  const holdAndStop = async (held: MultiNodeTier): Promise<void> => {
    const t1 = performance.now();
    await stopMultiNodeTier();
    stopTimes.push(performance.now() - t1);
    await held.release();
  };
  // The tier is stopped only while this process holds it (others may be using it: acquiring
  // waits for them); one already running is stopped first, so every start measured is a new one.
  {
    const first = await acquireNodeTier({ nodes: 3 });
    await stopMultiNodeTier();
    await first.release();
  }
  for (let i = 0; i < starts; i++) {
    const t0 = performance.now();
    tier = await acquireNodeTier({ nodes: 3, lingerMs: 600_000 });
    startTimes.push(performance.now() - t0);
    supervisorTimes.push(readState().startMs);
    if (i === starts - 1) break;
    await holdAndStop(tier);
  }
  const live = tier!;
  await live.importImage(redis!);
  const core = live.kubeConfig.makeApiClient(CoreV1Api);
  const ns = await live.createNamespace('bench');
  const podTimes: number[] = [];
  for (let i = 0; i < podsPerImage * 3; i++) {
    const node = multi.nodes[i % 3]!;
    const name = `redis-${i}`;
    const t0 = performance.now();
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': node.name },
          containers: [
            {
              name: 'main',
              image: redis!.ref,
              imagePullPolicy: 'Never',
              command: ['redis-server', '--save', '', '--protected-mode', 'no'],
              readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    await eventually(
      async () =>
        (await core.readNamespacedPod({ name, namespace: ns })).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      { timeoutMs: 120_000, intervalMs: 50, description: `${name} Ready` },
    );
    podTimes.push(performance.now() - t0);
    await core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0 });
  }
  // idle again before measuring memory
  await eventually(async () => !(await core.listNamespacedPod({ namespace: ns })).items.length, {
    timeoutMs: 60_000,
    description: 'bench pods gone',
  });
  const { pids } = readState();
  // idle CPU of the tier's processes over 30 s (utime + stime, clock ticks of 10 ms)
  const ticks = (): number =>
    Object.values(pids).reduce((sum, pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return sum + Number(fields[11]) + Number(fields[12]);
    }, 0);
  const ticks0 = ticks();
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  const idleCpu = ((ticks() - ticks0) * 10) / 30_000;
  const rss = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, rssMiB(pid)]));
  const perNode = multi.nodes.map((node) =>
    Object.entries(rss)
      .filter(([n]) => n.endsWith(`-${node.short}`))
      .reduce((sum, [, v]) => sum + v, 0),
  );
  const shared = ['kube-scheduler', 'provisioner', 'kube-proxy-gateway'].reduce(
    (sum, n) => sum + (rss[n] ?? 0),
    0,
  );
  // fault timings on node b (the supervisor's waits included)
  const b = multi.nodes[1]!.name;
  const notReady = async (): Promise<unknown> =>
    eventually(
      async () =>
        (await core.readNode({ name: b })).status?.conditions?.find((c) => c.type === 'Ready')
          ?.status !== 'True',
      { timeoutMs: 120_000, intervalMs: 100, description: `${b} NotReady` },
    );
  const faults: Record<string, number[]> = {
    'stopNode → NotReady': [],
    'startNode → Ready': [],
    'partitionNode → NotReady': [],
    'healNode → Ready': [],
  };
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    await live.stopNode(b);
    await notReady();
    faults['stopNode → NotReady']!.push(performance.now() - t);
    t = performance.now();
    await live.startNode(b);
    faults['startNode → Ready']!.push(performance.now() - t);
    t = performance.now();
    await live.partitionNode(b);
    await notReady();
    faults['partitionNode → NotReady']!.push(performance.now() - t);
    t = performance.now();
    await live.healNode(b);
    faults['healNode → Ready']!.push(performance.now() - t);
  }
  await holdAndStop(live);
  for (const [what, times] of Object.entries(faults)) say(`${what}: ${stats(times)}`);
  say(
    `idle CPU of the tier's processes (30 s, no pods): ${(idleCpu * 100).toFixed(1)} % of one core`,
  );
  say(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
  say(`3-node tier acquire → three nodes Ready (warm): ${stats(startTimes)}`);
  say(`  of which the supervisor's start → Ready: ${stats(supervisorTimes)}`);
  say(`3-node tier stop (pods torn down, host cleaned): ${stats(stopTimes)}`);
  say(`pod create → Ready, redis-7.0, round-robin over the nodes: ${stats(podTimes)}`);
  say(
    `RSS MiB (idle, no pods): ${Object.entries(rss)
      .map(([n, v]) => `${n} ${v.toFixed(0)}`)
      .join(', ')}`,
  );
  say(
    `per node (containerd, kubelet, kube-proxy): ${perNode.map((v) => v.toFixed(0)).join(' / ')} MiB; ` +
      `shared node-side (scheduler, provisioner, gateway kube-proxy): ${shared.toFixed(0)} MiB; ` +
      `node components in all: ${(perNode.reduce((a, b) => a + b, 0) + shared).toFixed(0)} MiB`,
  );
}

const images = await localImages('redis-7.0', 'postgres-15', 'node-24');
stopTier();
const startTimes: number[] = [];
const stopTimes: number[] = [];
let tier: NodeTier | undefined;
for (let i = 0; i < starts; i++) {
  const t0 = performance.now();
  tier = await acquireNodeTier({ lingerMs: 600_000 });
  startTimes.push(performance.now() - t0);
  if (i === starts - 1) break;
  await tier.release();
  const t1 = performance.now();
  stopTier();
  stopTimes.push(performance.now() - t1);
}
const live = tier!;
for (const image of Object.values(images)) await live.importImage(image);
const core = live.kubeConfig.makeApiClient(CoreV1Api);
const ns = await live.createNamespace('bench');

const commands: Record<string, string[]> = {
  'redis-7.0': ['redis-server', '--save', '', '--protected-mode', 'no'],
  'postgres-15': [],
  'node-24': ['node', '-e', 'require("http").createServer((q, s) => s.end("ok")).listen(8080)'],
};
const readiness: Record<string, object> = {
  'redis-7.0': { tcpSocket: { port: 6379 } },
  'postgres-15': { exec: { command: ['pg_isready', '-h', '127.0.0.1'] } },
  'node-24': { tcpSocket: { port: 8080 } },
};
const podTimes: Record<string, number[]> = {};
for (const [name, image] of Object.entries(images)) {
  podTimes[name] = [];
  for (let i = 0; i < podsPerImage; i++) {
    const podName = `${name.replace('.', '-')}-${i}`;
    const t0 = performance.now();
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: podName },
        spec: {
          containers: [
            {
              name: 'main',
              image: image.ref,
              imagePullPolicy: 'Never',
              ...(commands[name]!.length ? { command: commands[name] } : {}),
              ...(name === 'postgres-15'
                ? { env: [{ name: 'POSTGRES_PASSWORD', value: 'bench' }] }
                : {}),
              readinessProbe: { ...readiness[name], periodSeconds: 1 },
            },
          ],
        },
      } as V1Pod,
    });
    await eventually(
      async () =>
        (await core.readNamespacedPod({ name: podName, namespace: ns })).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      { timeoutMs: 120_000, intervalMs: 50, description: `${podName} Ready` },
    );
    podTimes[name]!.push(performance.now() - t0);
    await core.deleteNamespacedPod({ name: podName, namespace: ns, gracePeriodSeconds: 0 });
  }
}

const state = JSON.parse(readFileSync(join(layout.runDir, 'state.json'), 'utf8')) as {
  pids: Record<string, number>;
};
const memory = Object.entries(state.pids)
  .map(([name, pid]) => `${name} ${rssMiB(pid).toFixed(0)}`)
  .join(', ');
const node = ['containerd', 'kubelet', 'kube-scheduler', 'kube-proxy', 'provisioner'];
const nodeTotal = node.reduce((sum, name) => sum + rssMiB(state.pids[name] ?? 0), 0);
await live.release();
const t1 = performance.now();
stopTier();
stopTimes.push(performance.now() - t1);

say(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
say(`tier start → node Ready (warm, images in the store): ${stats(startTimes)}`);
say(`tier stop (pods torn down, host cleaned): ${stats(stopTimes)}`);
for (const [name, times] of Object.entries(podTimes))
  say(`pod create → Ready, ${name}: ${stats(times)}`);
say(`RSS MiB (idle, no pods): ${memory}`);
say(
  `node components (containerd, kubelet, scheduler, kube-proxy, provisioner): ${nodeTotal.toFixed(0)} MiB`,
);
