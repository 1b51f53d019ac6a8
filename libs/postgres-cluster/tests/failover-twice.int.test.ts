/**
 * Two failovers in a row, on the node tier: the primary's pod deleted, then — right after that
 * failover — the new primary crashed (PostgreSQL SIGKILLed, its pod replaced at once). The second
 * failover must happen like the first: a standby that followed the first promotion is a candidate
 * although its last restartpoint is from before it (regression: the plan's timeline floor read the
 * restartpoint's timeline, excluded every standby, and waited for the crashed primary instead).
 */
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { Pods } from '@steward/kube';
import { controllerOnNodeTier } from '@steward/testing-node-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pod } from '../src/index.js';
import { postgresClusters } from './workload-under-test.js';

const suite = controllerOnNodeTier({ beforeAll, afterAll }, postgresClusters, {
  images: ['postgres-17'],
  namespace: 'pgc-twice',
});

/** Ready=True again (at any generation: a failover changes no spec). */
const readyAgain = () =>
  suite.until(
    'twice',
    (obj) => findCondition(obj.status?.conditions, 'Ready')?.status === 'True',
    'twice Ready',
    180_000,
  );
const failedOver = (count: number) =>
  suite.until(
    'twice',
    (obj) =>
      (obj.status?.failoverCount ?? 0) >= count && obj.status?.failover?.phase === 'Completed',
    `failover ${count} completed`,
    60_000,
  );

describe('two failovers in a row (PostgresCluster)', () => {
  it('fails over a crashed primary right after a failover, as it did the first', async () => {
    const { admin, namespace: ns, tier } = suite;
    await suite.create('twice', {
      version: '17',
      replicas: 3,
      failover: { after: '2s' },
    } as PostgresClusterSpec);
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
