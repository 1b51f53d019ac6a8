// CacheCluster benchmarks on the node tier (real kubelet + containerd, real Redis pods), the
// controller in-process on a Manager as the app wires it (poll 5 s, busy poll 1 s — the chart's
// defaults). Prints a Markdown table for BENCHMARKS.md. Not a test: it asserts nothing but that
// each step happened.
//
//   npx tsx libs/cache-cluster/bench/cache.ts [--runs=3]
//
// Measures, per run, in a namespace of its own:
// - create → Ready (Ready=True at the object's generation) for Standalone and Replicated (3 pods);
// - primary loss → writable again through the read-write Service (a client SETs every 20 ms and
//   reconnects on errors), for the primary pod deleted and for its redis process SIGKILLed, with
//   failover.after 2 s: the time from the loss to the first acknowledged write after it;
// - API writes of the manager's client per converged cluster per minute (three clusters, 60 s).
import { type CacheClusterSpec } from '@steward/cache-cluster-api';
import { Pods } from '@steward/kube';
import { eventually, Timings } from '@steward/testing';
import { startControllerOnNodeTier } from '@steward/testing-node-tier';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { type Pod } from '../src/index.js';
import { cacheClusters } from '../tests/workload-under-test.js';

const run = promisify(execFile);
const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 3);

const suite = await startControllerOnNodeTier(cacheClusters, {
  images: ['redis-7.0'],
  namespace: 'cc-bench',
  pollIntervalMs: 5000,
  busyPollIntervalMs: 1000,
  controller: { fieldManager: 'cache-cluster-controller' },
  lookEveryMs: 50,
  onManagerError: (e) => console.error(e),
});
const { tier, admin, namespace: ns } = suite;
const { create, read } = suite;
const ready = (name: string) => suite.ready(name, 300_000);
const password = async (name: string) => (await suite.secret(`${name}-auth`))['password']!;

async function timeToReady(name: string, spec: CacheClusterSpec): Promise<number> {
  const start = performance.now();
  await create(name, spec);
  await ready(name);
  return (performance.now() - start) / 1000;
}

/** Writes every 20 ms through the read-write Service; resolves the loss → first write after it. */
async function failover(
  name: string,
  how: 'delete' | 'kill',
): Promise<{ seconds: number; bound: string }> {
  const obj = await ready(name);
  const pass = await password(name);
  const client = new Redis({
    host: await suite.serviceIp(`${name}-rw`),
    port: 6379,
    password: pass,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 500,
    retryStrategy: () => 50,
  });
  client.on('error', () => undefined);
  await eventually(async () => (await client.set('warm', '1')) === 'OK', {
    description: 'first write',
  });
  const primary = obj.status!.primary!;
  const count = obj.status?.failoverCount ?? 0;
  let i = 0;
  let lossAt = 0;
  let writableAt = 0;
  let failedSince = false;
  const writer = (async () => {
    while (!writableAt) {
      try {
        await client.set(`k${i++}`, 'x'.repeat(64));
        if (lossAt && failedSince) writableAt = performance.now();
      } catch {
        if (lossAt) failedSince = true;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await new Promise((r) => setTimeout(r, 500));
  lossAt = performance.now();
  if (how === 'delete') await admin.delete(Pods, primary, ns);
  else {
    const pod = await admin.get<Pod & { status: { containerStatuses: { containerID: string }[] } }>(
      Pods,
      primary,
      ns,
    );
    const id = pod.status.containerStatuses[0]!.containerID.replace('containerd://', '');
    await run(tier.binaries.ctr, [
      ...['--address', join(tier.layout.runDir, 'containerd.sock'), '-n', 'k8s.io'],
      ...['tasks', 'kill', '-s', 'SIGKILL', id],
    ]);
  }
  await writer;
  client.disconnect();
  const after = await eventually(
    async () => {
      const o = await read(name);
      return (o.status?.failoverCount ?? 0) > count && o.status?.failover?.phase === 'Completed'
        ? o
        : undefined;
    },
    { description: 'failover completed', timeoutMs: 120_000 },
  );
  const f = after.status!.failover!;
  await ready(name);
  return {
    seconds: (writableAt - lossAt) / 1000,
    bound:
      f.dataLossRisk === 'Bounded'
        ? `${f.bytesPossiblyLost} B (${f.reason})`
        : `unknown (${f.reason})`,
  };
}

const timings = new Timings();
const bounds: string[] = [];
for (let r = 0; r < runs; r++) {
  const standalone = timings.add('standalone', await timeToReady(`solo-${r}`, { version: '7.0' }));
  const replicated = timings.add(
    'replicated',
    await timeToReady(`trio-${r}`, {
      version: '7.0',
      mode: 'Replicated',
      replicas: 3,
      failover: { after: '2s' },
    }),
  );
  const d = await failover(`trio-${r}`, 'delete');
  timings.add('deleted', d.seconds);
  const k = await failover(`trio-${r}`, 'kill');
  timings.add('killed', k.seconds);
  bounds.push(`delete: ${d.bound}; kill: ${k.bound}`);
  console.error(
    `run ${r + 1}/${runs}: standalone ${standalone.toFixed(1)} s, replicated ${replicated.toFixed(1)} s, delete → writable ${d.seconds.toFixed(1)} s, kill → writable ${k.seconds.toFixed(1)} s`,
  );
}
// Converged cost: every cluster of this run is Ready; count writes over a minute.
for (let r = 0; r < runs; r++) {
  await ready(`solo-${r}`);
  await ready(`trio-${r}`);
}
const perMinute = (await suite.writesDuring(60_000, 10_000)).length / (2 * runs);

console.log(`| measure (${runs} runs, median, min–max) | figure |`);
console.log('| --- | --- |');
console.log(`| Standalone create → Ready | ${timings.figure('standalone')} |`);
console.log(`| Replicated (3 pods) create → Ready | ${timings.figure('replicated')} |`);
console.log(
  `| primary pod deleted → writable again (failover.after 2 s) | ${timings.figure('deleted')} |`,
);
console.log(
  `| primary redis SIGKILLed → writable again (failover.after 2 s) | ${timings.figure('killed')} |`,
);
console.log(
  `| API writes per converged CacheCluster per minute (${2 * runs} clusters, 60 s) | ${perMinute} |`,
);
console.log(`\nloss bounds recorded: ${bounds.join(' | ')}`);

await suite.stop();
process.exit(0);
