/**
 * A rolling update of a Replicated CacheCluster on real pods, with the app as shipped: the
 * cache-cluster-controller's bundle as a process under exactly the RBAC its chart renders
 * (startChartedController), against the node tier's API server; the Redis pods run by the tier's
 * kubelet and containerd.
 *
 * A client writes numbered keys through the read-write Service's ClusterIP the whole time while
 * the pod template changes (new resources): the replicas are re-created first, one at a time,
 * then the primary role moves to an updated replica with FAILOVER TO (status.switchover, reason
 * Rollout, the write pause recorded), and only then is the old primary re-created, rejoining as a
 * replica. No failover happens, and every write the client saw acknowledged is on the primary at
 * the end — on redis 7.0 and on valkey 8.1. For comparison, the same change with
 * `spec.rollout.primary: Restart`: the primary restarted in place, a failover (what every
 * rollout cost before), its losses within the bound it records.
 */
import { findCondition } from '@steward/conditions';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { KubeClient, Pods, Secrets, Services, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  longestGap,
  missingAt,
  seenAt,
  startWriter,
  streamBytes,
  withRedis,
  type Ack,
} from './redis-client.js';

const app = 'cache-cluster-controller';
const Kind = CacheCluster.resourceType;
const chartDir = join(repoRoot(), 'charts', app);

interface Pod extends KubeObject {
  spec?: { containers: { name: string; resources?: { requests?: Record<string, string> } }[] };
  status?: { podIP?: string };
}
interface Event extends KubeObject {
  reason?: string;
  note?: string;
  regarding?: { kind?: string; name?: string };
}
const EventsV1 = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
} as const;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let harness: ChartedController | undefined;

beforeAll(async () => {
  tier = await acquireNodeTier();
  for (const engine of ['redis-7.0', 'valkey-8.1'] as const)
    for (const image of Object.values(await localImages(engine))) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  ns = await tier.createNamespace('cc-rollout');
  const releaseNamespace = await tier.createNamespace('cc-rollout-sys');
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: `ccr-${releaseNamespace.split('-').slice(-2).join('-')}`,
    releaseNamespace,
    watchNamespace: ns,
  });
}, 15 * 60_000);

afterAll(async () => {
  if (admin) {
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
  // A failover would show: the primary lost for 2 s is failed over.
  failover: { after: '2s' },
  resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '256Mi' } },
};

const read = (name: string) => admin.get<CacheCluster>(Kind, name, ns);
const ready = (name: string, timeoutMs = 240_000) =>
  eventually(
    async () => {
      const obj = await read(name);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'True' && cond.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    { description: `${name} Ready`, timeoutMs },
  );
const passwordOf = async (name: string) => {
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-auth`,
    ns,
  );
  return Buffer.from(secret.data['password']!, 'base64').toString('utf8');
};
const podsOf = async (name: string) =>
  (
    await admin.list<Pod>(Pods, {
      namespace: ns,
      labelSelector: `cache.steward.dev/cluster=${name}`,
    })
  ).items;
const podIp = async (pod: string) => (await admin.get<Pod>(Pods, pod, ns)).status?.podIP ?? '';

/** A Ready cluster of `spec`, a client writing through its read-write Service, and the template changed. */
async function rollingUnderWrites(name: string, clusterSpec: CacheClusterSpec) {
  await admin.create<CacheCluster>(Kind, {
    apiVersion: CacheCluster.apiVersion,
    kind: 'CacheCluster',
    metadata: { name, namespace: ns },
    spec: clusterSpec,
  } as CacheCluster);
  const before = await ready(name);
  const created = Object.fromEntries(
    (await podsOf(name)).map((p) => [p.metadata.name!, p.metadata.uid!]),
  );
  expect(Object.keys(created).sort()).toEqual([0, 1, 2].map((i) => `${name}-${i}`));
  const password = await passwordOf(name);
  const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ns,
  );
  const writer = startWriter(rw.spec.clusterIP, password, name);
  const oldRunId = before.status!.primaryRunId!;
  await eventually(() => writer.acks.filter((a) => a.runId === oldRunId).length >= 200, {
    description: `writes through ${name}-rw acknowledged by ${before.status!.primary}`,
    timeoutMs: 60_000,
  });
  const changedAt = Date.now();
  await admin.mergePatch(Kind, name, ns, {
    spec: { resources: { requests: { cpu: '30m', memory: '64Mi' } } },
  });
  return { before, created, password, rw: rw.spec.clusterIP, writer, changedAt };
}

/** Every pod re-created on the StatefulSet's update revision, with the new resources. */
async function everyPodRolled(name: string, created: Record<string, string>) {
  const rolled = await eventually(
    async () => {
      const sts = await admin.get<KubeObject & { status?: { updateRevision?: string } }>(
        StatefulSets,
        name,
        ns,
      );
      const pods = await podsOf(name);
      const revision = sts.status?.updateRevision;
      return pods.length === 3 &&
        pods.every(
          (p) =>
            p.metadata.labels?.['controller-revision-hash'] === revision &&
            !p.metadata.deletionTimestamp &&
            p.metadata.uid !== created[p.metadata.name!],
        )
        ? pods
        : undefined;
    },
    { description: `${name}: every pod re-created on the new revision`, timeoutMs: 300_000 },
  );
  for (const p of rolled)
    expect(p.spec?.containers[0]?.resources?.requests).toMatchObject({ cpu: '30m' });
  return rolled;
}

describe('CacheCluster rolling update, the cache-cluster-controller process on the node tier', () => {
  it.for([
    { name: 'rolling', engine: 'redis', version: '7.0' },
    { name: 'rolling-valkey', engine: 'valkey', version: '8.1' },
  ] as const)(
    '$engine $version: rolls a template change replicas first, then switches the primary over with FAILOVER and re-creates the old primary as a replica: no failover, nothing acknowledged lost, the write pause in status',
    { timeout: 900_000 },
    async ({ name, engine, version }, { annotate }) => {
      const { before, created, password, rw, writer, changedAt } = await rollingUnderWrites(name, {
        ...spec,
        engine,
        version,
      });
      const old = before.status!.primary!;
      const oldRunId = before.status!.primaryRunId!;
      const moved = await eventually(
        async () => {
          const obj = await read(name);
          const record = obj.status?.switchover;
          if (record?.phase === 'Failed') throw new Error(`switchover failed: ${record.message}`);
          return record?.reason === 'Rollout' && record.phase === 'Completed' ? obj : undefined;
        },
        {
          description: `${name}: the rolling update switched the primary over`,
          timeoutMs: 300_000,
        },
      );
      const record = moved.status!.switchover!;
      expect(record.from).toBe(old);
      expect(record.to).not.toBe(old);
      expect(moved.status!.primary).toBe(record.to);
      expect(moved.status!.switchoverCount).toBe(1);
      expect(moved.status!.failoverCount ?? 0).toBe(0);
      expect(record.promotedOffset).toBeGreaterThanOrEqual(record.primaryLastOffset!);
      const stoppedAt = Date.parse(record.writesStoppedAt!);
      const resumedAt = Date.parse(record.writesResumedAt!);
      expect(resumedAt).toBeGreaterThanOrEqual(stoppedAt);
      expect(record.message).toMatch(/nothing acknowledged is lost; writes paused for/);

      // Every pod on the new template, the old primary re-created last (after the switchover).
      const rolled = await everyPodRolled(name, created);
      const createdAt = (pod: string) =>
        Date.parse(rolled.find((p) => p.metadata.name === pod)!.metadata.creationTimestamp!);
      const completedAt = Date.parse(record.completedAt!);
      // creationTimestamp has whole seconds: a second of slack either way.
      const order = `pods created ${rolled.map((p) => `${p.metadata.name} ${p.metadata.creationTimestamp}`).join(', ')}; writes stopped ${record.writesStoppedAt}, switchover completed ${record.completedAt}`;
      for (const p of rolled.map((r) => r.metadata.name!))
        if (p === old) expect(createdAt(p), order).toBeGreaterThanOrEqual(completedAt - 1000);
        else expect(createdAt(p), order).toBeLessThanOrEqual(stoppedAt + 1000);

      const after = await ready(name);
      expect(after.status!.primary).toBe(record.to);
      expect(after.status!.failoverCount ?? 0).toBe(0);
      expect(after.status!.switchoverCount).toBe(1);
      // The old primary, re-created, is a replica of the new one.
      const newIp = await podIp(record.to);
      const rejoined = await eventually(
        async () => {
          const s = await seenAt(await podIp(old), password);
          return s.role === 'slave' && s.masterHost === newIp && s.linkUp ? s : undefined;
        },
        { description: `${old} a replica of ${record.to}`, timeoutMs: 60_000 },
      );
      expect(rejoined.runId).not.toBe(oldRunId);

      // Writes go on on the new primary; then nothing the client saw acknowledged is missing.
      const promotedRunId = after.status!.primaryRunId!;
      await eventually(() => writer.acks.filter((a) => a.runId === promotedRunId).length >= 200, {
        description: `writes acknowledged by ${record.to}`,
        timeoutMs: 60_000,
      });
      await writer.stop();
      const missing = await missingAt(newIp, password, writer.acks);
      expect(missing).toEqual([]);
      expect(writer.acks.filter((a) => a.runId === oldRunId).length).toBeGreaterThan(200);

      // Events: replicas restarted first (two Restarting), then the switchover, then the old primary.
      const events = (await admin.list<Event>(EventsV1, { namespace: ns })).items.filter(
        (e) => e.regarding?.kind === 'CacheCluster' && e.regarding.name === name,
      );
      const restarting = events.filter((e) => e.reason === 'Restarting').map((e) => e.note ?? '');
      expect(restarting.filter((n) => n.startsWith(`${old} `))).toHaveLength(1);
      expect(restarting).toHaveLength(3);
      expect(events.map((e) => e.reason)).toContain('SwitchoverCompleted');
      expect(events.map((e) => e.reason)).not.toContain('FailoverStarted');

      // A write after the roll reaches the re-created old primary.
      await withRedis(rw, password, async (c) => {
        expect(await c.set(`${name}:after`, 'rolled')).toBe('OK');
      });
      const oldIp = await podIp(old);
      await eventually(
        () => withRedis(oldIp, password, async (c) => (await c.get(`${name}:after`)) === 'rolled'),
        { description: `${old} replicates the new writes` },
      );

      const figures = {
        statusPauseMs: resumedAt - stoppedAt,
        clientLongestGapMs: longestGap(writer.acks),
        changeToCompletedMs: completedAt - changedAt,
        acknowledged: writer.acks.length,
        failedAttempts: writer.failures(),
        missing: missing.length,
        primaryLastOffset: record.primaryLastOffset,
        promotedOffset: record.promotedOffset,
      };
      console.log(`${name} rollout (${engine} ${version}):`, JSON.stringify(figures));
      await annotate(
        `${engine} ${version} rolling update: ${figures.acknowledged} acked, 0 lost; status: writes paused ${figures.statusPauseMs} ms (${record.writesStoppedAt} → ${record.writesResumedAt}); the client saw no acknowledgement for ${figures.clientLongestGapMs} ms at most (${figures.failedAttempts} failed attempts)`,
      );
    },
  );

  it('with spec.rollout.primary Restart: the primary restarted in place after the replicas, a failover follows (what every rollout cost before), its losses within the bound it records', async ({
    annotate,
  }) => {
    const name = 'restarting';
    const { before, created, password, writer, changedAt } = await rollingUnderWrites(name, {
      ...spec,
      rollout: { primary: 'Restart' },
    });
    const old = before.status!.primary!;
    const failedOver = await eventually(
      async () => {
        const obj = await read(name);
        return obj.status?.failover?.phase === 'Completed' ? obj : undefined;
      },
      { description: `${name}: the restarted primary failed over`, timeoutMs: 300_000 },
    );
    const failover = failedOver.status!.failover!;
    expect(failover.from).toBe(old);
    expect(failedOver.status!.failoverCount).toBe(1);
    expect(failedOver.status!.switchoverCount ?? 0).toBe(0);
    await everyPodRolled(name, created);
    const after = await ready(name);
    const promotedRunId = after.status!.primaryRunId!;
    await eventually(() => writer.acks.filter((a) => a.runId === promotedRunId).length >= 200, {
      description: `writes acknowledged by ${after.status!.primary}`,
      timeoutMs: 60_000,
    });
    await writer.stop();
    const lost = await missingAt(await podIp(after.status!.primary!), password, writer.acks);
    const bytes = (acks: Ack[]) => acks.reduce((sum, a) => sum + streamBytes(a.key, a.value), 0);
    const figures = {
      reason: failover.reason,
      clientLongestGapMs: longestGap(writer.acks),
      changeToCompletedMs: Date.parse(failover.completedAt!) - changedAt,
      acknowledged: writer.acks.length,
      failedAttempts: writer.failures(),
      lostWrites: lost.length,
      dataLossRisk: failover.dataLossRisk,
      bytesPossiblyLost: failover.bytesPossiblyLost,
    };
    console.log(`${name} rollout (Restart):`, JSON.stringify(figures));
    // What the failover claims: writes acknowledged by the time the old primary was last seen
    // are lost by at most the bound (later ones are not covered; a restart of an idle-enough
    // primary usually loses none).
    if (failover.dataLossRisk === 'Bounded') {
      const lastSeenAt = Date.parse(failover.primaryLastSeenAt!);
      expect(bytes(lost.filter((a) => a.at <= lastSeenAt))).toBeLessThanOrEqual(
        failover.bytesPossiblyLost!,
      );
    }
    await annotate(
      `Restart: a failover (${failover.reason}); ${figures.acknowledged} acked, ${figures.lostWrites} lost (bound ${failover.bytesPossiblyLost ?? 'unknown'} bytes); the client saw no acknowledgement for ${figures.clientLongestGapMs} ms at most (${figures.failedAttempts} failed attempts)`,
    );
  }, 900_000);
});
