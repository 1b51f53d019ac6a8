/**
 * PostgresCluster on three nodes in three zones (the multi-node tier), the
 * postgres-cluster-controller process under its chart's RBAC, a client committing numbered rows
 * through the read-write Service the whole time:
 *
 * - placement: the three instances on three nodes, in three zones (the default spread);
 * - a rolling update: standbys first, the primary switched over, nothing acknowledged lost, the
 *   write pause in status;
 * - `kubectl drain` of the primary's node: the primary's PodDisruptionBudget holds the eviction
 *   until the controller has switched over (NodeDrain) to a standby on another node; nothing
 *   acknowledged lost; uncordoned, the instance comes back as a standby;
 * - the primary's node stopped (kubelet gone, every process frozen): a standby in another zone
 *   promoted within `failover.after` and a few seconds, every acknowledged row that is missing
 *   within the bound status published; the instance stuck on the lost node blocks nothing; the
 *   node back, the old primary rejoins as a standby.
 */
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type MultiNodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Kind,
  long,
  lsnBytes,
  postgresHelpers,
  type FullPod,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const name = 'spread';

let tier: MultiNodeTier;
let admin: KubeClient;
let harness: ChartedController | undefined;
const ctx = {} as SuiteContext;
const { read, eventNamed, readyWithLedger, settledOn, lostRows } = postgresHelpers(ctx);

beforeAll(async () => {
  tier = await acquireNodeTier({ nodes: 3 });
  for (const image of Object.values(await localImages('postgres-17')))
    await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-nodes') });
  harness = await startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: 'pgc-nodes-e2e',
    releaseNamespace: await tier.createNamespace('pgc-nodes-sys'),
    watchNamespace: ctx.ns,
  });
}, 600_000);

afterAll(async () => {
  if (admin) {
    await admin.delete(Kind, name, ctx.ns).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

const spec: PostgresClusterSpec = {
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  failover: { after: '5s' },
  deletionPolicy: 'Delete',
};

/** The cluster's pods with the node and zone each runs in. */
async function placement(): Promise<{ pod: string; node: string; zone: string }[]> {
  const pods = (
    await admin.list<FullPod & { spec?: { nodeName?: string } }>(Pods, {
      namespace: ctx.ns,
      labelSelector: `postgres.steward.dev/cluster=${name}`,
    })
  ).items;
  return pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => {
      const node = p.spec?.nodeName ?? '';
      return {
        pod: p.metadata.name!,
        node,
        zone: tier.nodes.find((n) => n.name === node)?.zone ?? '',
      };
    })
    .sort((a, b) => a.pod.localeCompare(b.pod));
}

const nodeOf = async (pod: string) => (await placement()).find((p) => p.pod === pod)!.node;

/** The longest time between two consecutive acknowledgements. */
const longestGap = (acked: { at: number }[]) =>
  acked.reduce((gap, r, i) => (i === 0 ? 0 : Math.max(gap, r.at - acked[i - 1]!.at)), 0);

let writer: Awaited<ReturnType<typeof readyWithLedger>>['writer'];

describe('PostgresCluster on three nodes in three zones', () => {
  it('spreads the three instances over three nodes in three zones', async () => {
    const started = await readyWithLedger(name, spec);
    writer = started.writer;
    const placed = await placement();
    expect(placed).toHaveLength(3);
    expect(new Set(placed.map((p) => p.node)).size).toBe(3);
    expect(new Set(placed.map((p) => p.zone))).toEqual(new Set(['zone-a', 'zone-b', 'zone-c']));
  }, 420_000);

  it('rolls a template change across the nodes by switchover: nothing lost, the pause in status', async ({
    annotate,
  }) => {
    const before = await read(name);
    const from = before.status!.primary!;
    const acked = writer.acked.length;
    await admin.mergePatch(Kind, name, ctx.ns, {
      spec: { resources: { ...spec.resources, requests: { cpu: '60m', memory: '128Mi' } } },
    });
    const moved = await eventually(
      async () => {
        const obj = await read(name);
        const r = obj.status?.switchover;
        return r?.reason === 'Rollout' && r.phase === 'Completed' ? obj : undefined;
      },
      { description: `${name}: the rolling update switched the primary over`, ...long },
    );
    const record = moved.status!.switchover!;
    expect(record.from).toBe(from);
    expect(record.writesStoppedAt).toBeDefined();
    expect(record.writesResumedAt).toBeDefined();
    await settledOn(name, record.to, record.newTimeline!);
    expect(await lostRows(name, writer.acked)).toEqual([]);
    const paused = Date.parse(record.writesResumedAt!) - Date.parse(record.writesStoppedAt!);
    await annotate(
      `rolling update on three nodes: status pause ${paused} ms; the client saw no commit for ${longestGap(writer.acked.slice(acked))} ms at most; 0 lost`,
    );
  }, 600_000);

  it('drains the primary’s node: switched over first (NodeDrain), the old primary evicted only then, nothing lost; uncordoned, it returns as a standby', async ({
    annotate,
  }) => {
    const before = await read(name);
    const from = before.status!.primary!;
    const node = await nodeOf(from);
    const acked = writer.acked.length;
    const drained = await tier.drainNode(node, { timeoutMs: 240_000 }).catch(async (error) => {
      // Say where the switchover stood: the record and the conditions.
      const now = await read(name);
      throw new Error(
        `${(error as Error).message}\nswitchover: ${JSON.stringify(now.status?.switchover)}\nconditions: ${JSON.stringify(now.status?.conditions)}\npods: ${JSON.stringify(await placement())}`,
        { cause: error },
      );
    });
    expect(drained.evicted).toContain(`${ctx.ns}/${from}`);
    // The primary's budget refused its eviction until the switchover moved the role.
    expect(drained.refusals).toBeGreaterThan(0);
    const after = await read(name);
    const record = after.status!.switchover!;
    expect(record).toMatchObject({ reason: 'NodeDrain', phase: 'Completed', from });
    expect(record.to).not.toBe(from);
    expect((await placement()).find((p) => p.pod === record.to)!.node).not.toBe(node);
    // No failover: the drain waited for the switchover.
    expect(after.status?.failoverCount ?? 0).toBe(before.status?.failoverCount ?? 0);
    await eventNamed(name, 'SwitchoverCompleted', /\(NodeDrain\)/);
    const resumed = writer.acked.length;
    await eventually(() => writer.acked.length >= resumed + 100, {
      description: 'commits continue after the drain',
      timeoutMs: 60_000,
    });
    expect(await lostRows(name, writer.acked)).toEqual([]);
    // Its volume is on the drained node: it waits there, named, until the node is back.
    const waiting = await eventually(
      async () => {
        const obj = await read(name);
        return (obj.status?.readyReplicas ?? 0) < 3 &&
          findCondition(obj.status?.conditions, 'Degraded')?.status === 'True'
          ? obj
          : undefined;
      },
      { description: `${name}: Degraded while ${from} cannot come back`, timeoutMs: 120_000 },
    );
    expect(waiting.status?.primary).toBe(record.to);
    await tier.uncordonNode(node);
    await settledOn(name, record.to, record.newTimeline!);
    await annotate(
      `drain of ${node}: ${JSON.stringify(drained).slice(0, 200)}; the client saw no commit for ${longestGap(writer.acked.slice(acked))} ms at most; 0 lost`,
    );
  }, 600_000);

  it('loses the primary’s node (stopped): a standby in another zone promoted, every missing row within the published bound; the node back, the old primary a standby', async ({
    annotate,
  }) => {
    const before = await read(name);
    const from = before.status!.primary!;
    const node = await nodeOf(from);
    const count = before.status?.failoverCount ?? 0;
    const ackedBefore = writer.acked.length;
    const stoppedAt = Date.now();
    await tier.stopNode(node);
    const after = await eventually(
      async () => {
        const obj = await read(name);
        return (obj.status?.failoverCount ?? 0) > count &&
          obj.status?.failover?.phase === 'Completed'
          ? obj
          : undefined;
      },
      { description: `${name}: failed over off ${node}`, ...long },
    );
    const failover = after.status!.failover!;
    const to = after.status!.primary!;
    expect(failover.from).toBe(from);
    const zoneOf = async (pod: string) => (await placement()).find((p) => p.pod === pod)?.zone;
    expect(await zoneOf(to)).not.toBe(tier.nodes.find((n) => n.name === node)!.zone);
    const resumed = writer.acked.length;
    await eventually(() => writer.acked.length >= resumed + 100, {
      description: 'commits resume on the new primary',
      timeoutMs: 60_000,
    });
    const writableAfterMs =
      (writer.acked.slice(ackedBefore).find((r, i, all) => i > 0 && r.at - all[i - 1]!.at > 1000)
        ?.at ?? Date.now()) - stoppedAt;
    // Missing rows: only ones the promoted standby had not received, within the bound published.
    const lost = await lostRows(name, writer.acked);
    const promotedAt = lsnBytes(failover.promotedLsn!);
    for (const row of lost) expect(lsnBytes(row.lsn) + 8192n).toBeGreaterThan(promotedAt);
    const span = lost.length ? lsnBytes(lost[lost.length - 1]!.lsn) - promotedAt : 0n;
    expect(span).toBeLessThanOrEqual(BigInt(failover.maxLagBytes!));
    expect(['Bounded', 'None']).toContain(failover.dataLossRisk);
    // The instance on the lost node blocks nothing: the cluster serves, Degraded, with two.
    const degraded = await read(name);
    expect(degraded.status?.primary).toBe(to);
    await tier.startNode(node);
    await settledOn(name, to, failover.newTimeline!);
    const back = await read(name);
    expect(back.status!.instances!.find((i) => i.name === from)?.role).toBe('standby');
    await writer.stop();
    await annotate(
      `node ${node} stopped: writable again after ≈ ${writableAfterMs} ms (failover.after 5 s); ${lost.length} rows lost (WAL span ${span} B), published ${failover.dataLossRisk} ${failover.bytesPossiblyLost ?? 0} B; ${writer.acked.length} acked`,
    );
  }, 600_000);
});
