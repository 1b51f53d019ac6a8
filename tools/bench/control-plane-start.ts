// Benchmark: warm start-to-ready and stop time of the test control plane (binaries already cached).
// Not a test: it prints figures for BENCHMARKS.md.
//
//   npx tsx tools/bench/control-plane-start.ts [runs=5]
import { startControlPlane } from '@steward/testing';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const crds = join(import.meta.dirname, '../../libs/testing/tests/fixtures/crds');

interface Sample {
  ready: number;
  stop: number;
}

async function measure(options: Parameters<typeof startControlPlane>[0]): Promise<Sample> {
  const t0 = performance.now();
  const plane = await startControlPlane(options);
  const t1 = performance.now();
  await plane.stop();
  return { ready: t1 - t0, stop: performance.now() - t1 };
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `median ${(median / 1000).toFixed(2)} s (min ${(sorted[0]! / 1000).toFixed(2)}, max ${(sorted.at(-1)! / 1000).toFixed(2)})`;
}

const variants: [string, Parameters<typeof startControlPlane>[0]][] = [
  ['etcd + kube-apiserver', {}],
  ['etcd + kube-apiserver + 1 CRD Established', { crds: [crds] }],
  [
    'etcd + kube-apiserver + 1 CRD + kube-controller-manager',
    { crds: [crds], controllerManager: true },
  ],
];

await measure({}); // warm-up: page cache, binary resolution
process.stdout.write(
  `control plane start-to-ready, ${runs} runs each; node ${process.version}, ${cpus().length} cpus, ${Math.round(totalmem() / 2 ** 30)} GiB\n`,
);
for (const [name, options] of variants) {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await measure(options));
  process.stdout.write(
    `${name.padEnd(58)} ready: ${stats(samples.map((s) => s.ready))}; stop: ${stats(samples.map((s) => s.stop))}\n`,
  );
}
