import { PostgresCluster } from '@steward/postgres-cluster-api';
import { KubeClient } from '@steward/kube';
import { describeWorkloadControllerChart } from '@steward/testing-charts';

// What every Steward controller chart promises, with the truths of a controller that runs
// workloads on pods (describeWorkloadControllerChart: exact rules in every mode, Secrets in the
// watched scope only, its pods' labels, a dashboard without an external-API row). This one also
// deletes its pods, one at a time: its StatefulSet rolls OnDelete, standbys first and the primary
// last; and it creates its base backups' Jobs and reports PostgresBackups. See templates/_helpers.tpl.
describeWorkloadControllerChart({
  chart: 'postgres-cluster-controller',
  kind: PostgresCluster.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  podVerbs: ['get', 'list', 'watch', 'patch', 'delete'],
  // Its primary is switched over off a node being drained: it follows the nodes' cordons.
  readsNodes: true,
  pollIntervalSeconds: '5',
  dashboardTags: ['postgres', 'postgresql'],
  notes: ['It looks at every instance every 5s (1s while'],
  // A kubernetes profile's backup.credentialsSourceSecretRef (copied into workload namespaces).
  readsProfileSecrets: true,
  extraWatchRules: [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create'] },
    {
      apiGroups: ['postgres.steward.dev'],
      resources: ['postgresbackups'],
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    {
      apiGroups: ['postgres.steward.dev'],
      resources: ['postgresbackups/status'],
      verbs: ['patch'],
    },
    // The instances' own account (they renew the fence's Lease), and that Lease.
    {
      apiGroups: [''],
      resources: ['serviceaccounts'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'rolebindings'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
    },
  ],
  extraDeletes: ['serviceaccounts', 'roles', 'rolebindings'],
  managesWorkloadLeases: true,
});
