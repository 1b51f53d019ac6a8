// Benchmark: the node tier's start-to-Ready (warm: binaries and images cached), pod create → Ready
// for each local image, and the resident memory of the node's components. Not a test: it prints
// figures for BENCHMARKS.md. It stops a running tier first, so run it alone on the machine.
//
//   node --import tsx tools/bench/node-tier.ts [starts=3] [pods=5]
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { eventually, repoRoot } from '@steward/testing';
import {
  acquireNodeTier,
  localImages,
  nodeTierLayout,
  type NodeTier,
} from '@steward/testing-node-tier';

const starts = Number(process.argv[2] ?? 3);
const podsPerImage = Number(process.argv[3] ?? 5);
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
