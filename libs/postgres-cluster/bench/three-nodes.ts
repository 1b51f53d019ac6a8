// What the PostgresCluster benches on the three-node tier share: the tier with PostgreSQL 17
// imported and the CRDs installed, a namespace, the controller in-process on a Manager with the
// chart's defaults (poll 5 s, busy poll 1 s), the 3-instance spec they measure, how they wait for
// 3 of 3 Ready, and the teardown (every cluster gone before the controller stops: its finalizer
// would hold the namespace).
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient } from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { postgresClusterController } from '../src/index.js';

export const Kind = PostgresCluster.resourceType;

/** Three instances, async, `failover.after: 5s`, deleted with the cluster. */
export const threeInstances: PostgresClusterSpec = {
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  failover: { after: '5s' },
  deletionPolicy: 'Delete',
};

export async function threeNodeBench(namespace: string) {
  const tier = await acquireNodeTier({ nodes: 3 });
  for (const image of Object.values(await localImages('postgres-17')))
    await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
  const admin = new KubeClient(tier.kubeConfig, { fieldManager: 'bench-admin' });
  const ns = await tier.createNamespace(namespace);
  const manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'postgres-cluster-controller' });
  postgresClusterController(manager, {
    selection: { namespace: ns },
    fieldManager: 'postgres-cluster-controller',
    pollIntervalMs: 5000,
    busyPollIntervalMs: 1000,
  });
  manager.start().catch((e: unknown) => console.error(e));
  const read = (name: string) => admin.get<PostgresCluster>(Kind, name, ns);
  return {
    tier,
    admin,
    ns,
    read,
    /** Ready at its generation, 3 of 3 instances ready. */
    ready: (name: string) =>
      eventually(
        async () => {
          const obj = await read(name);
          const c = findCondition(obj.status?.conditions, 'Ready');
          return c?.status === 'True' &&
            c.observedGeneration === obj.metadata.generation &&
            obj.status?.readyReplicas === 3 &&
            (obj.status.instances ?? []).every((i) => i.ready)
            ? obj
            : undefined;
        },
        { description: `${name} Ready, 3 of 3`, timeoutMs: 300_000, intervalMs: 200 },
      ).catch(async (error: unknown) => {
        // What the cluster said when it did not get there (a bench run is not repeated lightly).
        const obj = await read(name).catch(() => undefined);
        console.error(
          `${name} not Ready: ${JSON.stringify({ conditions: obj?.status?.conditions, instances: obj?.status?.instances, failover: obj?.status?.failover }, null, 1)}`,
        );
        throw error;
      }),
    async finish() {
      await eventually(
        async () => (await admin.list<PostgresCluster>(Kind, { namespace: ns })).items.length === 0,
        { description: 'every PostgresCluster of the bench deleted', timeoutMs: 180_000 },
      );
      await manager.stop();
      await admin.close();
      await tier.release();
    },
  };
}
