import { CacheCluster } from '@steward/cache-cluster-api';
import { Manager } from '@steward/controller';
import { KubeClient } from '@steward/kube';
import { workloadUnderTest } from '@steward/testing-node-tier';
import { cacheClusterController } from '../src/index.js';

/** The CacheCluster controller as the node-tier suites run it in process. */
export const cacheClusters = workloadUnderTest({
  kind: CacheCluster,
  chart: 'cache-cluster-controller',
  controller: cacheClusterController,
  runtime: { Manager, KubeClient },
});
