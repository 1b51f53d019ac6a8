import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient } from '@steward/kube';
import { describeWorkloadControllerChart } from '@steward/testing-charts';

// What every Steward controller chart promises, with the truths of a controller that runs
// workloads on pods (describeWorkloadControllerChart: exact rules in every mode, Secrets in the
// watched scope only, its pods' labels, a dashboard without an external-API row). This one
// observes and labels its pods, and deletes them one at a time for its own rolling update (the
// StatefulSet's updateStrategy is OnDelete). See templates/_helpers.tpl.
describeWorkloadControllerChart({
  chart: 'cache-cluster-controller',
  kind: CacheCluster.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  podVerbs: ['get', 'list', 'watch', 'patch', 'delete'],
  // Its primary is switched over off a node being drained: it follows the nodes' cordons.
  readsNodes: true,
  pollIntervalSeconds: '5',
  dashboardTags: ['cache', 'redis'],
  notes: ['It looks at every server every 5s (1s while something moves)'],
});
