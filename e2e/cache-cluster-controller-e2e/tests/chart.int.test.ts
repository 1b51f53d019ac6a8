import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient } from '@steward/kube';
import {
  controllerEnv,
  defaultReleaseNamespace as releaseNamespace,
  describeControllerChart,
  manifestOf,
  renderChart,
  repoRoot,
  type AccessRequest,
  type ChartAccess,
  type ChartGrants,
  type ChartValues,
  type ChartVariation,
  type Manifest,
  type PolicyRule,
} from '@steward/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// This controller runs workloads in the cluster rather than calling an external system, so it
// passes describeControllerChart its own truths: its environment (a poll of 5 s, a busy poll,
// a default profile, its pods' labels); `delete`, but only on the children it prunes and their
// volumes; Secrets listed, watched and deleted, being children, in the watched scope only; no
// Secret a kubernetes ProviderProfile names (readsProfileSecrets false); the ProviderProfile
// controller's permissions only where it runs (profileRulesWhenManaged). See templates/_helpers.tpl.

const chart = 'cache-cluster-controller';
const chartDir = join(repoRoot(), 'charts', chart);
const clusterRoleName = `${releaseNamespace}-${chart}`;
const leaseName = `${chart}-leader`;

const render = (values?: ChartValues, options?: { releaseName?: string; namespace?: string }) =>
  renderChart(chartDir, values, options);

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
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ],
  },
  {
    name: 'watchNamespace set, ProviderProfile controller on',
    values: { watchNamespace: 'team-a', manageProviderProfiles: true },
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
    name: 'watchNamespace default, ProviderProfile controller on',
    values: { watchNamespace: 'default', manageProviderProfiles: true },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'Role',
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
      manageProviderProfiles: false,
      defaultProviderProfile: 'standard',
      busyPollIntervalSeconds: 2,
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=384' }],
      image: { digest: `sha256:${'b'.repeat(64)}` },
      podAnnotations: { 'example.com/team': 'platform' },
      podLabels: { team: 'platform' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service'],
  },
];

const all = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

/** What the controller needs wherever it watches CacheClusters (charts' watchRules). */
const watchRules: PolicyRule[] = [
  {
    apiGroups: ['cache.steward.dev'],
    resources: ['cacheclusters'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  { apiGroups: ['cache.steward.dev'], resources: ['cacheclusters/status'], verbs: ['patch'] },
  { apiGroups: ['cache.steward.dev'], resources: ['cacheclusters/finalizers'], verbs: ['update'] },
  { apiGroups: ['apps'], resources: ['statefulsets'], verbs: all },
  { apiGroups: [''], resources: ['services', 'configmaps', 'secrets'], verbs: all },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: all },
  { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: all },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
  {
    apiGroups: [''],
    resources: ['persistentvolumeclaims'],
    verbs: ['get', 'list', 'watch', 'patch', 'delete'],
  },
];
const eventRules: PolicyRule[] = [
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
/** The CacheCluster controller resolves profiles from its cache. */
const profileReadRules: PolicyRule[] = [
  { apiGroups: ['steward.dev'], resources: ['providerprofiles'], verbs: ['get', 'list', 'watch'] },
];
/** The ProviderProfile controller, when it runs, also writes its finalizer and their status. */
const profileControllerRules: PolicyRule[] = [
  {
    apiGroups: ['steward.dev'],
    resources: ['providerprofiles'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  { apiGroups: ['steward.dev'], resources: ['providerprofiles/status'], verbs: ['patch'] },
];
const leaseRules: PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [leaseName],
    verbs: ['get', 'update'],
  },
];
const leaseRole = { [`Role ${releaseNamespace}/${chart}-leader-election`]: leaseRules };

/** Exactly the rules of each mode, by role: the ProviderProfile controller's only where it runs. */
const exactGrants: ChartGrants[] = [
  {
    name: 'default values (every namespace, ProviderProfile controller on)',
    values: {},
    grants: {
      [`ClusterRole ${clusterRoleName}`]: [...profileControllerRules, ...watchRules, ...eventRules],
      ...leaseRole,
    },
  },
  {
    name: 'every namespace, ProviderProfile controller off',
    values: { manageProviderProfiles: false },
    grants: {
      [`ClusterRole ${clusterRoleName}`]: [...profileReadRules, ...watchRules, ...eventRules],
      ...leaseRole,
    },
  },
  {
    name: 'watchNamespace team-a (ProviderProfile controller off by default)',
    values: { watchNamespace: 'team-a' },
    grants: {
      [`ClusterRole ${clusterRoleName}`]: profileReadRules,
      ...leaseRole,
      [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
    },
  },
  {
    name: 'watchNamespace team-a, ProviderProfile controller on',
    values: { watchNamespace: 'team-a', manageProviderProfiles: true },
    grants: {
      [`ClusterRole ${clusterRoleName}`]: profileControllerRules,
      ...leaseRole,
      [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
      // Events about the cluster-scoped ProviderProfiles go to `default`, as client-go writes them.
      [`Role default/${chart}-events`]: eventRules,
    },
  },
  {
    name: 'watchNamespace default, ProviderProfile controller on',
    values: { watchNamespace: 'default', manageProviderProfiles: true },
    grants: {
      [`ClusterRole ${clusterRoleName}`]: profileControllerRules,
      ...leaseRole,
      [`Role default/${chart}`]: [...watchRules, ...eventRules],
    },
  },
  {
    name: 'no leader election',
    values: { leaderElection: { enabled: false } },
    grants: {
      [`ClusterRole ${clusterRoleName}`]: [...profileControllerRules, ...watchRules, ...eventRules],
    },
  },
];

const inClusterRole = (rules: PolicyRule[]) =>
  rules.map((rule) => ({ roleKind: 'ClusterRole' as const, namespace: undefined, ...rule }));
const inRole = (namespace: string, rules: PolicyRule[]) =>
  rules.map((rule) => ({ roleKind: 'Role' as const, namespace, ...rule }));

const cache = (verb: string, resource: string, namespace?: string): AccessRequest => ({
  verb,
  group: 'cache.steward.dev',
  resource,
  ...(namespace ? { namespace } : {}),
});
const core = (verb: string, resource: string, namespace?: string): AccessRequest => ({
  verb,
  group: '',
  resource,
  ...(namespace ? { namespace } : {}),
});

/**
 * Requests and whether the chart grants them with the default values (every namespace, the
 * ProviderProfile controller on), besides those every chart's are checked for.
 */
const defaultAccess: ChartAccess[] = [
  { ...cache('patch', 'cacheclusters', 'team-a'), allowed: true },
  { ...cache('update', 'cacheclusters/finalizers', 'team-a'), allowed: true },
  { ...core('watch', 'secrets'), allowed: true },
  { ...core('create', 'secrets', 'team-a'), allowed: true },
  { ...core('update', 'secrets', 'team-a'), allowed: false },
  { ...core('deletecollection', 'secrets', 'team-a'), allowed: false },
  { verb: 'delete', group: 'apps', resource: 'statefulsets', namespace: 'team-a', allowed: true },
  { verb: 'update', group: 'apps', resource: 'statefulsets', namespace: 'team-a', allowed: false },
  { verb: 'patch', group: 'apps', resource: 'statefulsets/scale', namespace: 'a', allowed: false },
  { ...core('patch', 'pods', 'team-a'), allowed: true },
  { ...core('create', 'pods', 'team-a'), allowed: false },
  { ...core('delete', 'pods', 'team-a'), allowed: false },
  { ...core('create', 'pods/eviction', 'team-a'), allowed: false },
  { ...core('delete', 'persistentvolumeclaims', 'team-a'), allowed: true },
  { ...core('create', 'persistentvolumeclaims', 'team-a'), allowed: false },
  { ...core('list', 'persistentvolumes'), allowed: false },
];

/** The same with watchNamespace team-a (the ProviderProfile controller then off by default). */
const watchNamespaceAccess: ChartAccess[] = [
  { ...cache('update', 'cacheclusters/finalizers', 'team-a'), allowed: true },
  { ...cache('update', 'cacheclusters/finalizers', 'team-b'), allowed: false },
  // The children's Secrets, in the watched namespace; no other Secret anywhere.
  ...['get', 'list', 'watch', 'create', 'patch', 'delete'].map((verb) => ({
    ...core(verb, 'secrets', 'team-a'),
    allowed: true,
  })),
  { ...core('get', 'secrets', 'default'), allowed: false },
  { ...core('patch', 'pods', 'team-b'), allowed: false },
  { ...core('delete', 'persistentvolumeclaims', 'team-b'), allowed: false },
  { verb: 'list', group: 'apps', resource: 'statefulsets', allowed: false },
];

/** `k=v,k=v` as the app's settings read STEWARD_CONTROLLER_POD_LABELS. */
const labelsOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]));

interface Deployment extends Manifest {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> } };
  };
}

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
describeControllerChart({
  chart,
  kind: CacheCluster.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations,
  defaultRules: [
    ...inClusterRole([...profileControllerRules, ...watchRules, ...eventRules]),
    ...inRole(releaseNamespace, leaseRules),
  ],
  exactGrants,
  defaultAccess,
  watchNamespaceAccess,
  // Updated: only the finalizers subresource (blockOwnerDeletion) and the Lease, by name.
  // Deleted: only the children the controller prunes, and volumes (deletionPolicy Delete).
  grantableVerbs: {
    get: '*',
    list: '*',
    watch: '*',
    create: '*',
    patch: '*',
    update: ['cacheclusters/finalizers', 'leases'],
    delete: [
      'statefulsets',
      'services',
      'configmaps',
      'secrets',
      'poddisruptionbudgets',
      'networkpolicies',
      'persistentvolumeclaims',
    ],
  },
  // The auth Secrets are children: applied, cached, pruned; never updated.
  secretVerbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  readsProfileSecrets: false,
  profileRulesWhenManaged: true,
  env: {
    defaults: {
      STEWARD_POLL_INTERVAL_SECONDS: '5',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
      STEWARD_DEFAULT_PROVIDER_PROFILE: '',
      STEWARD_CONTROLLER_POD_LABELS: `app.kubernetes.io/instance=${chart},app.kubernetes.io/name=${chart}`,
    },
    configured: {
      values: { busyPollIntervalSeconds: 3, defaultProviderProfile: 'standard.redis' },
      env: {
        STEWARD_BUSY_POLL_INTERVAL_SECONDS: '3',
        STEWARD_DEFAULT_PROVIDER_PROFILE: 'standard.redis',
      },
    },
  },
  rejections: [
    {
      name: 'a busy poll of 0 s',
      values: { busyPollIntervalSeconds: 0 },
      message: "at '/busyPollIntervalSeconds': minimum: got 0, want 1",
    },
    {
      name: 'a busy poll longer than the process accepts',
      values: { busyPollIntervalSeconds: 3601 },
      message: "at '/busyPollIntervalSeconds': maximum: got 3,601, want 3,600",
    },
    {
      name: 'busyPollIntervalSeconds "1"',
      values: { busyPollIntervalSeconds: '1' },
      message: "at '/busyPollIntervalSeconds': got string, want integer",
    },
    {
      name: 'a defaultProviderProfile that is no object name',
      values: { defaultProviderProfile: 'Standard_Profile' },
      message: "at '/defaultProviderProfile': 'Standard_Profile' does not match pattern",
    },
  ],
  notes: ['It looks at every server every 5s (1s while something moves)'],
});

describe('the cache-cluster-controller chart’s own promises', () => {
  it('shows the CacheCluster and kubernetes ProviderProfile controllers, and no external API, on its dashboard', () => {
    const dashboard = JSON.parse(
      readFileSync(join(chartDir, 'dashboards', `${chart}.json`), 'utf8'),
    ) as {
      tags: string[];
      templating: {
        list: { name: string; current?: { value?: string[] }; description?: string }[];
      };
      panels: { targets?: { expr: string }[] }[];
    };
    expect(dashboard.tags).toEqual(['steward', 'kubernetes', 'operator', 'cache', 'redis']);
    const controller = dashboard.templating.list.find((v) => v.name === 'controller');
    expect(controller?.current?.value).toEqual(['cachecluster']);
    expect(controller?.description).toContain('the kubernetes ProviderProfile controller');
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    const perController = exprs.filter((e) => /controller_runtime_|workqueue_/.test(e));
    expect(perController.length).toBeGreaterThan(5);
    for (const expr of perController) expect(expr).toContain('controller=~"$controller"');
    // Its Redis calls are not counted as external requests (yet): no panel for them.
    expect(exprs.join('\n')).not.toContain('steward_external_requests_total');
  });

  it('names its own pods in STEWARD_CONTROLLER_POD_LABELS, for the NetworkPolicies it renders', async () => {
    for (const [values, releaseName, expected] of [
      [{}, chart, { 'app.kubernetes.io/instance': chart, 'app.kubernetes.io/name': chart }],
      [
        { nameOverride: 'cache', podLabels: { team: 'platform' } },
        'rel',
        { 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/name': 'cache' },
      ],
    ] as const) {
      const manifests = await render(values, { releaseName });
      const deployment = manifestOf<Deployment>(manifests, 'Deployment');
      const labels = labelsOf(controllerEnv(manifests)['STEWARD_CONTROLLER_POD_LABELS']!);
      expect(labels).toEqual(expected);
      // The pods' selector labels: every pod of the Deployment has them, and nothing else does.
      expect(labels).toEqual(deployment.spec.selector.matchLabels);
      expect(deployment.spec.template.metadata.labels).toMatchObject(labels);
    }
  });
});
