import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient } from '@steward/kube';
import {
  chartRbac,
  defaultReleaseNamespace as releaseNamespace,
  describeControllerChart,
  renderChart,
  repoRoot,
  type ChartVariation,
} from '@steward/testing';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const chart = 'cache-cluster-controller';
const chartDir = join(repoRoot(), 'charts', chart);

const variations: ChartVariation[] = [
  {
    name: 'default values',
    values: {},
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ],
  },
  {
    name: 'watchNamespace set',
    values: { watchNamespace: 'team-a' },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ],
  },
  {
    name: 'two replicas',
    values: { replicas: 2 },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ],
  },
  {
    name: 'ServiceMonitor on',
    values: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'ServiceMonitor',
    ],
  },
  {
    name: 'existing ServiceAccount, no leader election, no dashboard, extras',
    values: {
      serviceAccount: { create: false, name: 'platform-cache-cluster' },
      leaderElection: { enabled: false },
      dashboard: { enabled: false },
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=384' }],
      image: { digest: `sha256:${'b'.repeat(64)}` },
      podAnnotations: { 'example.com/team': 'platform' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service'],
  },
];

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
// The ProviderProfile rules and `get` on Secrets come from steward-common, which grants them to
// every controller chart; the CacheCluster controller uses neither.
describeControllerChart({
  chart,
  kind: CacheCluster.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations,
  defaultRules: [
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['steward.dev'],
      resources: ['providerprofiles'],
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['steward.dev'],
      resources: ['providerprofiles/status'],
      verbs: ['patch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['cache.steward.dev'],
      resources: ['cacheclusters'],
      verbs: ['get', 'list', 'watch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['cache.steward.dev'],
      resources: ['cacheclusters/status'],
      verbs: ['patch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['get'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['events.k8s.io'],
      resources: ['events'],
      verbs: ['create', 'patch'],
    },
    {
      roleKind: 'Role',
      namespace: releaseNamespace,
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create'],
    },
    {
      roleKind: 'Role',
      namespace: releaseNamespace,
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['cache-cluster-controller-leader'],
      verbs: ['get', 'update'],
    },
  ],
  watchNamespaceAccess: [
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
  ],
});

describe('the cache-cluster-controller chart’s own promises', () => {
  it.each(variations)(
    'lets the controller read CacheClusters and write nothing but their status, with $name',
    async ({ values }) => {
      const rbac = chartRbac(await renderChart(chartDir, values));
      const own = { group: 'cache.steward.dev', namespace: 'team-a' };
      for (const verb of ['create', 'update', 'patch', 'delete']) {
        expect(rbac.allows({ ...own, verb, resource: 'cacheclusters' })).toBe(false);
        expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(
          false,
        );
      }
      expect(rbac.allows({ ...own, verb: 'patch', resource: 'cacheclusters/status' })).toBe(true);
    },
  );
});
