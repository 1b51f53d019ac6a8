/**
 * The primary's node cut off (the multi-node tier's `partitionNode`: the API server, the
 * controller, the other nodes and the host all unreachable from it; its pods keep running) while
 * two clients write numbered keys: one on the primary's side of the partition (a `testClient`
 * address the partition lets through) straight to the primary's pod IP, one through the
 * read-write Service's ClusterIP. A Replicated CacheCluster of three pods on three nodes with
 * `spec.fencing` (minReplicas 1, maxLag 2s: bound 4 s) and `failover.after: 3s`, the
 * cache-cluster-controller process under its chart's RBAC.
 *
 * Measured and asserted:
 * - the split-brain window — the time during which both the old and the new primary acknowledged
 *   writes (the old primary's last acknowledgement after the new one's first) — is 0, and the old
 *   primary acknowledged nothing after `status.failover.primaryFencedBy`;
 * - every acknowledged write the new primary lacks is within what status published: acknowledged
 *   by `primaryLastSeenAt` within `bytesPossiblyLost`, or later but before `primaryFencedBy`;
 * - healed, the old primary's dataset is salvaged before it resyncs (`status.failover.salvage`
 *   Saved, its offsets cover the lost writes' bytes) and the file is where `location` says;
 * - writable again through the Service within the published bound + 3 s of the cut (a figure,
 *   printed; asserted with a margin — timing on shared 2-core machines is a figure, not a test).
 *
 * Runs once (the tier is shared); `CC_PARTITION_RUNS=n` repeats it. The distribution over five
 * runs is libs/cache-cluster/bench/nodes.ts --only=partition (BENCHMARKS.md).
 */
import { findCondition } from '@steward/conditions';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { KubeClient, Pods, Secrets, Services, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import {
  acquireNodeTier,
  localImages,
  type MultiNodeTier,
  type TestClient,
} from '@steward/testing-node-tier';
import { execFile } from 'node:child_process';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingAt, seenAt, startWriter, streamBytes, type Ack } from './redis-client.js';

const app = 'cache-cluster-controller';
const Kind = CacheCluster.resourceType;
const chartDir = join(repoRoot(), 'charts', app);
const runs = Number(process.env['CC_PARTITION_RUNS'] ?? 1);
const execFileAsync = promisify(execFile);

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { podIP?: string };
}

let tier: MultiNodeTier;
let admin: KubeClient;
let ns = '';
let harness: ChartedController | undefined;
let direct: TestClient;

beforeAll(async () => {
  tier = await acquireNodeTier({ nodes: 3 });
  for (const image of Object.values(await localImages('redis-7.0'))) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  ns = await tier.createNamespace('cc-part');
  const releaseNamespace = await tier.createNamespace('cc-part-sys');
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: `ccp-${releaseNamespace.split('-').slice(-2).join('-')}`,
    releaseNamespace,
    watchNamespace: ns,
  });
  direct = await tier.testClient('cc-partition-direct');
}, 15 * 60_000);

afterAll(async () => {
  if (admin) {
    for (const c of (await admin.list<CacheCluster>(Kind, { namespace: ns })).items)
      await admin.delete(Kind, c.metadata.name!, ns).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 5 * 60_000);

const spec: CacheClusterSpec = {
  engine: 'redis',
  version: '7.0',
  mode: 'Replicated',
  replicas: 3,
  failover: { after: '3s' },
  fencing: { minReplicas: 1, maxLag: '2s' },
  resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '256Mi' } },
};

const resp = (args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * Numbered `SET`s straight to `host` from the test client's address (so that the partition lets
 * them through), one at a time over plain RESP (ioredis cannot bind a local address), each
 * answered within 500 ms or the connection is dropped and opened again. Every `+OK` is an
 * acknowledgement; `-NOREPLICAS` (fenced), `-READONLY` (made a replica) are refusals.
 */
function directWriter(host: string, password: string, from: TestClient, prefix: string) {
  const acks: Ack[] = [];
  const refusals: { at: number; error: string }[] = [];
  let stopped = false;
  let n = 0;
  const request = (socket: Socket, args: string[]) =>
    new Promise<string>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(() => done(new Error('timeout')), 500);
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const end = buffer.indexOf('\r\n');
        if (end >= 0) done(undefined, buffer.slice(0, end));
      };
      const onClose = () => done(new Error('closed'));
      const done = (error?: Error, line?: string) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        if (error) reject(error);
        else resolve(line!);
      };
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.write(resp(args));
    });
  const done = (async () => {
    let socket: Socket | undefined;
    while (!stopped) {
      try {
        if (!socket) {
          const s = netConnect({ host, port: 6379, localAddress: from.address });
          s.on('error', () => undefined);
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('connect timeout')), 500);
            s.once('connect', () => (clearTimeout(timer), resolve()));
            s.once('error', (e) => (clearTimeout(timer), reject(e)));
          });
          socket = s;
          const auth = await request(socket, ['AUTH', password]);
          if (auth !== '+OK') throw new Error(auth);
        }
        const key = `${prefix}:${String(n).padStart(7, '0')}`;
        const value = `${key}:${'d'.repeat(40)}`;
        const reply = await request(socket, ['SET', key, value]);
        n++;
        if (reply === '+OK') acks.push({ key, value, at: Date.now(), runId: 'old' });
        else refusals.push({ at: Date.now(), error: reply });
        await sleep(reply === '+OK' ? 2 : 50);
      } catch {
        socket?.destroy();
        socket = undefined;
        await sleep(50);
      }
    }
    socket?.destroy();
  })();
  return { acks, refusals, stop: () => ((stopped = true), done) };
}

const bytes = (list: Ack[]) => list.reduce((sum, a) => sum + streamBytes(a.key, a.value), 0);

describe('CacheCluster with spec.fencing, the primary’s node partitioned', () => {
  for (let run = 1; run <= runs; run++)
    it(`run ${run}: no split-brain window; lost writes within the published bound; the old primary's data salvaged where status says`, async ({
      annotate,
    }) => {
      const name = `part-${run}`;
      const read = () => admin.get<CacheCluster>(Kind, name, ns);
      const podIp = async (pod: string) =>
        (await admin.get<Pod>(Pods, pod, ns)).status?.podIP ?? '';
      await admin.create<CacheCluster>(Kind, {
        apiVersion: CacheCluster.apiVersion,
        kind: 'CacheCluster',
        metadata: { name, namespace: ns },
        spec,
      } as CacheCluster);
      const ready = await eventually(
        async () => {
          const obj = await read();
          const cond = findCondition(obj.status?.conditions, 'Ready');
          return cond?.status === 'True' && obj.status?.readyReplicas === 3 ? obj : undefined;
        },
        { description: `${name} Ready with 3 pods`, timeoutMs: 420_000 },
      );
      expect(ready.status?.fencing).toMatchObject({ mode: 'MinReplicas', boundSeconds: 4 });
      const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
        Secrets,
        `${name}-auth`,
        ns,
      );
      const password = Buffer.from(secret.data['password']!, 'base64').toString('utf8');
      const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
        Services,
        `${name}-rw`,
        ns,
      );
      const from = ready.status!.primary!;
      const oldRunId = ready.status!.primaryRunId!;
      const oldIp = await podIp(from);
      const oldPod = await admin.get<Pod>(Pods, from, ns);
      const node = oldPod.spec!.nodeName!;
      const viaService = startWriter(rw.spec.clusterIP, password, `${name}-rw`);
      const straight = directWriter(oldIp, password, direct, `${name}-direct`);
      await eventually(
        () =>
          viaService.acks.filter((a) => a.runId === oldRunId).length >= 200 &&
          straight.acks.length >= 200,
        { description: 'both clients acknowledged by the primary', timeoutMs: 60_000 },
      );

      const cutAt = Date.now();
      await tier.partitionNode(node, { allow: [direct] });
      const after = await eventually(
        async () => {
          const obj = await read();
          return obj.status?.failoverCount === 1 && obj.status.failover?.phase === 'Completed'
            ? obj
            : undefined;
        },
        { description: `${name}: failed over off ${node}`, timeoutMs: 180_000 },
      );
      const failover = after.status!.failover!;
      const to = failover.to;
      const promoted = await seenAt(await podIp(to), password);
      await eventually(
        () => viaService.acks.filter((a) => a.runId === promoted.runId).length >= 200,
        { description: `writes through ${name}-rw acknowledged by ${to}`, timeoutMs: 120_000 },
      );
      // The client beside the old primary goes on for a while after the new primary serves.
      await sleep(3000);
      await straight.stop();
      await viaService.stop();

      const newAcks = viaService.acks.filter((a) => a.runId === promoted.runId);
      const oldAcks = [
        ...straight.acks,
        ...viaService.acks.filter((a) => a.runId === oldRunId),
      ].sort((a, b) => a.at - b.at);
      const firstNew = newAcks[0]!.at;
      const lastOld = oldAcks.at(-1)!.at;
      const splitBrainMs = Math.max(0, lastOld - firstNew);
      const fencedBy = Date.parse(failover.primaryFencedBy!);
      const lastSeenAt = Date.parse(failover.primaryLastSeenAt!);
      expect(failover).toMatchObject({ from, dataLossRisk: 'Bounded' });
      expect(Date.parse(failover.startedAt)).toBeGreaterThanOrEqual(fencedBy);
      expect(splitBrainMs, 'both primaries acknowledged writes at once').toBe(0);
      expect(lastOld, 'the old primary acknowledged after primaryFencedBy').toBeLessThanOrEqual(
        fencedBy,
      );
      expect(straight.refusals.some((r) => r.error.startsWith('-NOREPLICAS'))).toBe(true);

      // What the new primary lacks: within the bound published.
      const acked = [...viaService.acks, ...straight.acks];
      const lost = await missingAt(await podIp(to), password, acked);
      const lostCovered = bytes(lost.filter((a) => a.at <= lastSeenAt));
      expect(lostCovered).toBeLessThanOrEqual(failover.bytesPossiblyLost!);
      expect(lost.filter((a) => a.at > fencedBy)).toEqual([]);
      const writableMs = firstNew - cutAt;
      const bound = after.status!.fencing!.boundSeconds!;
      console.log(
        `${name}: cut ${node} (${from}); writable again through -rw after ${writableMs} ms (bound ${bound} s + 3 s = ${(bound + 3) * 1000} ms); failover decided ${Date.parse(failover.startedAt) - cutAt} ms, fenced by ${fencedBy - cutAt} ms; old primary's last ack ${lastOld - cutAt} ms; split-brain window ${splitBrainMs} ms; lost ${lost.length} writes (${bytes(lost)} B; ${lostCovered} B ≤ bytesPossiblyLost ${failover.bytesPossiblyLost} B)`,
      );

      // Healed: the old primary's dataset saved before it resyncs, where status says.
      await tier.healNode(node);
      const healed = await eventually(
        async () => {
          const s = (await read()).status!;
          const seen = await seenAt(await podIp(from), password).catch(() => undefined);
          return s.failover?.salvage?.phase !== 'Pending' && seen?.role === 'slave' ? s : undefined;
        },
        { description: `${from} salvaged and a replica`, timeoutMs: 180_000 },
      );
      const salvage = healed.failover!.salvage!;
      const lostAfterSeen = bytes(lost.filter((a) => a.at > lastSeenAt));
      if (lost.length > 0) {
        expect(salvage.phase).toBe('Saved');
        expect(salvage.bytes!).toBeGreaterThanOrEqual(lostAfterSeen);
      } else expect(['Saved', 'NotNeeded']).toContain(salvage.phase);
      if (salvage.phase === 'Saved') {
        const file = /\/data\/(salvage-[0-9TZ]+\.rdb)/.exec(salvage.location!)![1]!;
        const found = await execFileAsync('find', [
          tier.layout.dataDir,
          '-path',
          `*${oldPod.metadata.uid}*`,
          '-name',
          file,
          '-size',
          '+0',
        ]);
        expect(found.stdout.trim(), `${file} in ${from}'s emptyDir on ${node}`).not.toBe('');
      }
      const message = `run ${run}: cut ${node} (${from}); writable again through -rw after ${writableMs} ms (bound ${bound} s + 3 s = ${(bound + 3) * 1000} ms); failover decided ${Date.parse(failover.startedAt) - cutAt} ms, fenced by ${fencedBy - cutAt} ms; old primary's last ack ${lastOld - cutAt} ms; split-brain window ${splitBrainMs} ms; ${straight.refusals.length} refusals to the direct client; lost ${lost.length} writes (${bytes(lost)} B; ${lostCovered} B ≤ bytesPossiblyLost ${failover.bytesPossiblyLost} B, the rest acknowledged before primaryFencedBy); salvage ${salvage.phase} ${salvage.bytes ?? 0} B at ${salvage.location ?? '-'}`;
      console.log(`${name}: ${message}`);
      await annotate(message);
      // A figure, with a margin for a loaded machine.
      expect(writableMs).toBeLessThan((bound + 3) * 1000 + 10_000);
      await admin.delete(Kind, name, ns);
    }, 900_000);
});
