/**
 * Two failovers in a row, on the node tier: the primary's pod deleted, then — right after that
 * failover — the new primary crashed (PostgreSQL SIGKILLed, its pod replaced at once). The second
 * failover must happen like the first: a standby that followed the first promotion is a candidate
 * although its last restartpoint is from before it (regression: the plan's timeline floor read the
 * restartpoint's timeline, excluded every standby, and waited for the crashed primary instead).
 */
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Pods } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresClusterController, type Pod } from '../src/index.js';

const Kind = PostgresCluster.resourceType;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let manager: Manager;

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
  ns = await tier.createNamespace('pgc-twice');
  manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'postgres-cluster-controller' });
  postgresClusterController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 1000,
    busyPollIntervalMs: 300,
  });
  manager.start().catch(() => undefined);
}, 600_000);
afterAll(async () => {
  await manager?.stop();
  await admin?.close();
  await tier?.release();
});

const read = () => admin.get<PostgresCluster>(Kind, 'twice', ns);
const readyAgain = () =>
  eventually(
    async () => {
      const obj = await read();
      return findCondition(obj.status?.conditions, 'Ready')?.status === 'True' ? obj : undefined;
    },
    { description: 'twice Ready', timeoutMs: 180_000 },
  );
const failedOver = (count: number) =>
  eventually(
    async () => {
      const obj = await read();
      return (obj.status?.failoverCount ?? 0) >= count &&
        obj.status?.failover?.phase === 'Completed'
        ? obj
        : undefined;
    },
    { description: `failover ${count} completed`, timeoutMs: 60_000 },
  );

describe('two failovers in a row (PostgresCluster)', () => {
  it('fails over a crashed primary right after a failover, as it did the first', async () => {
    await admin.create<PostgresCluster>(Kind, {
      apiVersion: PostgresCluster.apiVersion,
      kind: 'PostgresCluster',
      metadata: { name: 'twice', namespace: ns },
      spec: { version: '17', replicas: 3, failover: { after: '2s' } } as PostgresClusterSpec,
    } as PostgresCluster);
    const first = (await readyAgain()).status!.primary!;
    await admin.delete(Pods, first, ns);
    const afterFirst = await failedOver(1);
    const second = afterFirst.status!.primary!;
    expect(second).not.toBe(first);
    await readyAgain();

    const pod = await admin.get<Pod>(Pods, second, ns);
    await tier.containerTask(pod.status!.containerStatuses![0]!.containerID!, 'kill');
    await admin.delete(Pods, second, ns, { gracePeriodSeconds: 0 });
    const afterSecond = await failedOver(2);
    expect(afterSecond.status!.primary).not.toBe(second);
    expect(afterSecond.status!.failover).toMatchObject({ from: second, dataLossRisk: 'Bounded' });
  });
});
