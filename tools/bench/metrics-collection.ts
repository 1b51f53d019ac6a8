// Benchmark: what one Prometheus scrape of /metrics costs a controller whose objects' gauges are
// computed at collection (the per-object health metrics, and a kind's own gauges: the
// PostgresCluster controller's 11), by number of objects — time per scrape, the scrape's size and
// series, and heap. Side by side in one run: health gauges alone vs health + PostgresCluster
// gauges, at 1,000 and 10,000 objects in 100 namespaces. Not a test: it prints figures for
// BENCHMARKS.md.
//
//   node --expose-gc --import tsx tools/bench/metrics-collection.ts [scrapes=30]
import { postgresClusterGauges } from '@steward/postgres-cluster';
import { type PostgresCluster } from '@steward/postgres-cluster-api';
import {
  createTelemetry,
  namespaceGauges,
  objectHealthMetrics,
  type ObjectHealthFacts,
} from '@steward/telemetry';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';

const scrapes = Number(process.argv[2] ?? 30);
if (!global.gc) throw new Error('run with node --expose-gc: the heap figures need a collection');
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const now = Date.now();

function clusters(n: number): PostgresCluster[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: {
      name: `c-${i}`,
      namespace: `team-${i % 100}`,
      creationTimestamp: new Date(now - 86_400_000).toISOString(),
    },
    spec: {
      version: '17',
      replicas: 3,
      ...(i % 2 ? { backup: { schedule: i % 4 === 1 ? '0 3 * * *' : '0 * * * *' } } : {}),
    } as PostgresCluster['spec'],
    status: {
      failoverCount: i % 5,
      instances: [
        { name: `c-${i}-0`, role: 'primary', ready: true },
        { name: `c-${i}-1`, role: 'standby', ready: true, lagBytes: i * 37 },
        { name: `c-${i}-2`, role: 'standby', ready: true, lagBytes: i * 11 },
      ],
      backup: {
        lastSuccessful: {
          id: 'b',
          startedAt: new Date(now - (i % 48) * 3_600_000).toISOString(),
          completedAt: new Date(now - (i % 48) * 3_600_000 + 60_000).toISOString(),
          sizeBytes: 1,
          startLsn: '0/1',
          stopLsn: '0/2',
          timeline: 1,
          systemIdentifier: '1',
          serverVersion: 170000,
        },
      },
      conditions: [],
    },
  }));
}

const facts = (objects: PostgresCluster[]): ObjectHealthFacts[] =>
  objects.map((o, i) => ({
    namespace: o.metadata.namespace!,
    ready: i % 7 ? 'true' : 'false',
    ...(i % 7 ? {} : { notReadySince: now - 60_000 }),
    lastSuccessAt: now - (i % 600) * 1000,
    consecutiveFailures: i % 13,
  }));

async function measure(n: number, withKindGauges: boolean) {
  const telemetry = createTelemetry({
    serviceName: 'bench',
    registerGlobal: false,
    log: { level: 'silent' },
  });
  const objects = clusters(n);
  const healthFacts = facts(objects);
  objectHealthMetrics(telemetry.meter).observe('PostgresCluster', () => healthFacts);
  if (withKindGauges)
    namespaceGauges(telemetry.meter).observe(
      'PostgresCluster',
      postgresClusterGauges,
      () => objects,
      (c) => c.metadata.namespace!,
    );
  const server = createServer(telemetry.metricsHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  const scrape = async () => (await fetch(url)).text();
  await scrape(); // warm-up
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < scrapes; i++) {
    const started = performance.now();
    body = await scrape();
    times.push(performance.now() - started);
  }
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  await new Promise((resolve) => server.close(resolve));
  await telemetry.shutdown();
  times.sort((a, b) => a - b);
  const series = body.split('\n').filter((l) => l && !l.startsWith('#')).length;
  return {
    p50: times[Math.floor(times.length / 2)]!,
    p95: times[Math.floor(times.length * 0.95)]!,
    series,
    kib: Buffer.byteLength(body) / 1024,
    heapMiB: (heapAfter - heapBefore) / 2 ** 20,
  };
}

say(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
say(`${scrapes} scrapes each, after one warm-up; objects in 100 namespaces`);
say(
  '| objects | gauges | scrape p50 | scrape p95 | series | body | heap retained by the scrapes (after GC) |',
);
say('|---|---|---|---|---|---|---|');
for (const n of [1_000, 10_000])
  for (const withKindGauges of [false, true]) {
    const r = await measure(n, withKindGauges);
    say(
      `| ${n.toLocaleString('en')} | ${withKindGauges ? 'health + PostgresCluster' : 'health'} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.series} | ${r.kib.toFixed(0)} KiB | ${r.heapMiB.toFixed(1)} MiB |`,
    );
  }
