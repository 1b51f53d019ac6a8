import { PostgresCluster } from '@steward/postgres-cluster-api';
import { Manager } from '@steward/controller';
import { KubeClient } from '@steward/kube';
import { workloadUnderTest } from '@steward/testing-node-tier';
import { postgresClusterController } from '../src/index.js';

/** The PostgresCluster controller as the node-tier suites run it in process (initdb included). */
export const postgresClusters = workloadUnderTest({
  kind: PostgresCluster,
  chart: 'postgres-cluster-controller',
  controller: postgresClusterController,
  runtime: { Manager, KubeClient },
  readyTimeoutMs: 180_000,
});
