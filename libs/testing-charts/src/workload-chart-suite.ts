/**
 * The chart promises of a Steward controller that runs workloads on pods (CacheCluster,
 * PostgresCluster), as one suite (`describeWorkloadControllerChart`) on top of
 * `describeControllerChart`. Such a controller calls no external system: it applies a StatefulSet,
 * Services, Secrets, a ConfigMap, a PDB and a NetworkPolicy per object, observes and patches the
 * pods, grows and (with deletionPolicy Delete) deletes the volumes, and resolves kubernetes
 * ProviderProfiles (whose controller runs in the same process unless told otherwise). So the
 * charts share their truths: the value sets and the kinds each renders, the exact rules in every
 * mode (every namespace, watchNamespace or watchNamespaces, the ProviderProfile controller on or
 * off), the authorizer's answers, the verbs (`update` only on the finalizers subresource and the
 * Lease; `delete` only on children, volumes and — where the chart says so — pods), Secrets in the
 * watched scope only, the environment (busy poll, default profile, its own pods' labels for the
 * NetworkPolicies it renders) and its dashboard (no external-API row). What differs is the spec.
 */
import { repoRoot } from '@steward/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  controllerEnv,
  describeControllerChart,
  type ChartAccess,
  type ChartGrants,
  type ChartTestClient,
  type ChartVariation,
} from './controller-chart-suite.js';
import {
  defaultReleaseNamespace as releaseNamespace,
  manifestOf,
  renderChart,
  type AccessRequest,
  type ChartValues,
  type Manifest,
  type PolicyRule,
  type ServedResource,
} from './helm.js';
import { type KubeConfig } from '@kubernetes/client-node';

/** What a workload controller's chart decides for itself. */
export interface WorkloadChartSpec {
  /** The chart's directory under charts/, e.g. `postgres-cluster-controller`. */
  chart: string;
  /** The kind it serves (its CRD ships in crds/). */
  kind: ServedResource;
  connect: (kubeConfig: KubeConfig) => ChartTestClient;
  /** Verbs on pods: observed and labelled always; `delete` for a controller that rolls them itself. */
  podVerbs: string[];
  /** STEWARD_POLL_INTERVAL_SECONDS with the default values. */
  pollIntervalSeconds: string;
  /** The dashboard's tags after the common ones, e.g. `['postgres', 'postgresql']`. */
  dashboardTags: string[];
  /** A line of NOTES.txt with the default values. */
  notes: string[];
  /** Rules of this controller only, after the common watch rules (e.g. backup Jobs). */
  extraWatchRules?: PolicyRule[];
  /** Further children it prunes (delete), e.g. its instances' ServiceAccount, Role, RoleBinding. */
  extraDeletes?: string[];
  /** It manages Leases of its workloads where it watches (see ControllerChartSpec). */
  managesWorkloadLeases?: boolean;
  /**
   * Whether it reads Secrets its kubernetes profiles name (PostgresCluster: the backup
   * credentials it copies into workload namespaces), so `rbac.credentialsSecretNamespaces` is
   * honoured; false (default): it reads none and the chart refuses that list.
   */
  readsProfileSecrets?: boolean;
  /**
   * Whether it follows its pods' nodes (a primary on a cordoned node is switched over before a
   * drain may evict it): get/list/watch nodes in the ClusterRole, in every mode.
   */
  readsNodes?: boolean;
}

const all = ['get', 'list', 'watch', 'create', 'patch', 'delete'];
const eventRules: PolicyRule[] = [
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
/** The workload controller resolves profiles from its cache. */
const profileReadRules: PolicyRule[] = [
  { apiGroups: ['steward.dev'], resources: ['providerprofiles'], verbs: ['get', 'list', 'watch'] },
];
/** Namespaces, cluster-scoped: their labels, which a ProviderProfile's namespaceSelector reads. */
const namespaceRules: PolicyRule[] = [
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
];
/** Nodes, cluster-scoped: whether one is cordoned (a drain), read from the cache, never written. */
const nodeRules: PolicyRule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
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

/** The kinds a value set renders: the common ones plus `extra`, sorted as the suite compares them. */
const kindsWith = (...extra: string[]): string[] =>
  [
    'ClusterRole',
    'ClusterRoleBinding',
    'ConfigMap',
    'Deployment',
    'NetworkPolicy',
    'Role',
    'RoleBinding',
    'Service',
    'ServiceAccount',
    // The profile-namespace admission policy and its binding (steward-common's _admission-policy.tpl).
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    ...extra,
  ].sort();

/** `k=v,k=v` as the app's settings read STEWARD_CONTROLLER_POD_LABELS. */
const labelsOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]));

interface Deployment extends Manifest {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> } };
  };
}

/** Runs `describeControllerChart` with a workload controller's truths, and its own promises. */
export function describeWorkloadControllerChart(spec: WorkloadChartSpec): void {
  const { chart, kind } = spec;
  const chartDir = join(repoRoot(), 'charts', chart);
  const clusterRoleName = `${releaseNamespace}-${chart}`;
  const leaseName = `${chart}-leader`;
  const group = kind.group;
  const plural = kind.plural;
  // Cluster-scoped reads in every mode: namespaces, and nodes for a kind that follows drains.
  const clusterScopedRules = [...namespaceRules, ...(spec.readsNodes ? nodeRules : [])];

  const variations: ChartVariation[] = [
    { name: 'default values', values: {}, kinds: kindsWith() },
    {
      name: 'watchNamespace set',
      values: { watchNamespace: 'team-a' },
      kinds: kindsWith('Role', 'RoleBinding'),
    },
    {
      name: 'watchNamespace set, ProviderProfile controller on',
      values: { watchNamespace: 'team-a', manageProviderProfiles: true },
      kinds: kindsWith('Role', 'Role', 'RoleBinding', 'RoleBinding'),
    },
    {
      name: 'watchNamespace default, ProviderProfile controller on',
      values: { watchNamespace: 'default', manageProviderProfiles: true },
      kinds: kindsWith('Role', 'RoleBinding'),
    },
    {
      name: 'watchNamespaces team-a, team-b',
      values: { watchNamespaces: ['team-a', 'team-b'] },
      kinds: kindsWith('Role', 'Role', 'RoleBinding', 'RoleBinding'),
    },
    {
      name: 'watchNamespaces team-a, team-b, default, ProviderProfile controller on',
      values: { watchNamespaces: ['team-a', 'team-b', 'default'], manageProviderProfiles: true },
      kinds: kindsWith('Role', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'RoleBinding'),
    },
    { name: 'two replicas', values: { replicas: 2 }, kinds: kindsWith('PodDisruptionBudget') },
    {
      name: 'ServiceMonitor and PrometheusRule on',
      values: {
        serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
        prometheusRule: { enabled: true },
      },
      kinds: kindsWith('PrometheusRule', 'ServiceMonitor'),
    },
    {
      name: 'existing ServiceAccount, no leader election, no dashboard, extras',
      values: {
        serviceAccount: { create: false, name: `platform-${chart}` },
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
      kinds: [
        'ClusterRole',
        'ClusterRoleBinding',
        'Deployment',
        'NetworkPolicy',
        'Service',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ],
    },
  ];

  /** What the controller needs wherever it watches its kind (the chart's watchRules). */
  const watchRules: PolicyRule[] = [
    { apiGroups: [group], resources: [plural], verbs: ['get', 'list', 'watch', 'patch'] },
    { apiGroups: [group], resources: [`${plural}/status`], verbs: ['patch'] },
    { apiGroups: [group], resources: [`${plural}/finalizers`], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: all },
    { apiGroups: [''], resources: ['services', 'configmaps', 'secrets'], verbs: all },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: all },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: all },
    { apiGroups: [''], resources: ['pods'], verbs: spec.podVerbs },
    {
      apiGroups: [''],
      resources: ['persistentvolumeclaims'],
      verbs: ['get', 'list', 'watch', 'patch', 'delete'],
    },
    // Why a pod or volume is stuck (its Events, listed by involvedObject only then).
    { apiGroups: [''], resources: ['events'], verbs: ['list'] },
    ...(spec.extraWatchRules ?? []),
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
  const clusterRole = `ClusterRole ${clusterRoleName}`;

  /** Exactly the rules of each mode, by role: the ProviderProfile controller's only where it runs. */
  const exactGrants: ChartGrants[] = [
    {
      name: 'default values (every namespace, ProviderProfile controller on)',
      values: {},
      grants: {
        [clusterRole]: [
          ...profileControllerRules,
          ...clusterScopedRules,
          ...watchRules,
          ...eventRules,
        ],
        ...leaseRole,
      },
    },
    {
      name: 'every namespace, ProviderProfile controller off',
      values: { manageProviderProfiles: false },
      grants: {
        [clusterRole]: [...profileReadRules, ...clusterScopedRules, ...watchRules, ...eventRules],
        ...leaseRole,
      },
    },
    {
      name: 'watchNamespace team-a (ProviderProfile controller off by default)',
      values: { watchNamespace: 'team-a' },
      grants: {
        [clusterRole]: [...profileReadRules, ...clusterScopedRules],
        ...leaseRole,
        [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
      },
    },
    {
      name: 'watchNamespace team-a, ProviderProfile controller on',
      values: { watchNamespace: 'team-a', manageProviderProfiles: true },
      grants: {
        [clusterRole]: [...profileControllerRules, ...clusterScopedRules],
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
        [clusterRole]: [...profileControllerRules, ...clusterScopedRules],
        ...leaseRole,
        [`Role default/${chart}`]: [...watchRules, ...eventRules],
      },
    },
    {
      name: 'watchNamespaces team-a, team-b (ProviderProfile controller off by default)',
      values: { watchNamespaces: ['team-b', 'team-a'] },
      grants: {
        // Only what is cluster-scoped: the ProviderProfiles the controller resolves.
        [clusterRole]: [...profileReadRules, ...clusterScopedRules],
        ...leaseRole,
        [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
        [`Role team-b/${chart}`]: [...watchRules, ...eventRules],
      },
    },
    {
      name: 'watchNamespaces team-a, team-b, ProviderProfile controller on',
      values: { watchNamespaces: ['team-a', 'team-b'], manageProviderProfiles: true },
      grants: {
        [clusterRole]: [...profileControllerRules, ...clusterScopedRules],
        ...leaseRole,
        [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
        [`Role team-b/${chart}`]: [...watchRules, ...eventRules],
        [`Role default/${chart}-events`]: eventRules,
      },
    },
    {
      name: 'no leader election',
      values: { leaderElection: { enabled: false } },
      grants: {
        [clusterRole]: [
          ...profileControllerRules,
          ...clusterScopedRules,
          ...watchRules,
          ...eventRules,
        ],
      },
    },
  ];

  const inClusterRole = (rules: PolicyRule[]) =>
    rules.map((rule) => ({ roleKind: 'ClusterRole' as const, namespace: undefined, ...rule }));
  const inRole = (namespace: string, rules: PolicyRule[]) =>
    rules.map((rule) => ({ roleKind: 'Role' as const, namespace, ...rule }));
  const own = (verb: string, resource: string, namespace?: string): AccessRequest => ({
    verb,
    group,
    resource,
    ...(namespace ? { namespace } : {}),
  });
  const core = (verb: string, resource: string, namespace?: string): AccessRequest => ({
    verb,
    group: '',
    resource,
    ...(namespace ? { namespace } : {}),
  });
  const deletesPods = spec.podVerbs.includes('delete');

  /**
   * Requests and whether the chart grants them with the default values (every namespace, the
   * ProviderProfile controller on), besides those every chart's are checked for.
   */
  const defaultAccess: ChartAccess[] = [
    { ...own('patch', plural, 'team-a'), allowed: true },
    { ...own('update', `${plural}/finalizers`, 'team-a'), allowed: true },
    { ...core('watch', 'secrets'), allowed: true },
    { ...core('create', 'secrets', 'team-a'), allowed: true },
    { ...core('update', 'secrets', 'team-a'), allowed: false },
    { ...core('deletecollection', 'secrets', 'team-a'), allowed: false },
    { verb: 'delete', group: 'apps', resource: 'statefulsets', namespace: 'team-a', allowed: true },
    {
      verb: 'update',
      group: 'apps',
      resource: 'statefulsets',
      namespace: 'team-a',
      allowed: false,
    },
    {
      verb: 'patch',
      group: 'apps',
      resource: 'statefulsets/scale',
      namespace: 'a',
      allowed: false,
    },
    { ...core('patch', 'pods', 'team-a'), allowed: true },
    { ...core('create', 'pods', 'team-a'), allowed: false },
    { ...core('delete', 'pods', 'team-a'), allowed: deletesPods },
    { ...core('deletecollection', 'pods', 'team-a'), allowed: false },
    { ...core('create', 'pods/eviction', 'team-a'), allowed: false },
    { ...core('create', 'pods/exec', 'team-a'), allowed: false },
    { ...core('delete', 'persistentvolumeclaims', 'team-a'), allowed: true },
    { ...core('create', 'persistentvolumeclaims', 'team-a'), allowed: false },
    { ...core('list', 'persistentvolumes'), allowed: false },
  ];

  /** The same with watchNamespace team-a (the ProviderProfile controller then off by default). */
  const watchNamespaceAccess: ChartAccess[] = [
    { ...own('update', `${plural}/finalizers`, 'team-a'), allowed: true },
    { ...own('update', `${plural}/finalizers`, 'team-b'), allowed: false },
    // The children's Secrets, in the watched namespace; no other Secret anywhere.
    ...all.map((verb) => ({ ...core(verb, 'secrets', 'team-a'), allowed: true })),
    { ...core('get', 'secrets', 'default'), allowed: false },
    { ...core('patch', 'pods', 'team-b'), allowed: false },
    { ...core('delete', 'pods', 'team-b'), allowed: false },
    { ...core('delete', 'persistentvolumeclaims', 'team-b'), allowed: false },
    { verb: 'list', group: 'apps', resource: 'statefulsets', allowed: false },
  ];

  /** The same with watchNamespaces team-a and team-b. */
  const watchNamespacesAccess: ChartAccess[] = [
    ...['team-a', 'team-b'].flatMap((namespace) => [
      { ...own('update', `${plural}/finalizers`, namespace), allowed: true },
      // The children's Secrets, in the watched namespaces; no other Secret anywhere.
      ...all.map((verb) => ({ ...core(verb, 'secrets', namespace), allowed: true })),
      { ...core('patch', 'pods', namespace), allowed: true },
      { verb: 'create', group: 'apps', resource: 'statefulsets', namespace, allowed: true },
    ]),
    { ...own('update', `${plural}/finalizers`, 'team-c'), allowed: false },
    ...all.map((verb) => ({ ...core(verb, 'secrets', 'team-c'), allowed: false })),
    { ...core('patch', 'pods', 'team-c'), allowed: false },
    { ...core('delete', 'persistentvolumeclaims', 'team-c'), allowed: false },
    {
      verb: 'create',
      group: 'apps',
      resource: 'statefulsets',
      namespace: 'team-c',
      allowed: false,
    },
    { verb: 'list', group: 'apps', resource: 'statefulsets', allowed: false },
  ];

  // What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
  // dry run, Pod Security, RBAC on a real API server, helm install), with a workload's specifics.
  describeControllerChart({
    chart,
    kind,
    connect: spec.connect,
    variations,
    defaultRules: [
      ...inClusterRole([
        ...profileControllerRules,
        ...clusterScopedRules,
        ...watchRules,
        ...eventRules,
      ]),
      ...inRole(releaseNamespace, leaseRules),
    ],
    exactGrants,
    defaultAccess,
    watchNamespaceAccess,
    watchNamespacesAccess,
    // Updated: only the finalizers subresource (blockOwnerDeletion) and the Lease, by name.
    // Deleted: only the children the controller prunes, volumes (deletionPolicy Delete) and, for a
    // controller that rolls its StatefulSet itself, pods.
    grantableVerbs: {
      get: '*',
      list: '*',
      watch: '*',
      create: '*',
      patch: '*',
      update: [`${plural}/finalizers`, 'leases'],
      delete: [
        'statefulsets',
        'services',
        'configmaps',
        'secrets',
        'poddisruptionbudgets',
        'networkpolicies',
        'persistentvolumeclaims',
        ...(deletesPods ? ['pods'] : []),
        ...(spec.extraDeletes ?? []),
      ],
    },
    // The generated Secrets are children: applied, cached, pruned; never updated.
    secretVerbs: all,
    readsProfileSecrets: spec.readsProfileSecrets ?? false,
    // Workload charts never granted cluster-wide Secret reads with watchNamespace.
    legacyWatchNamespaceSecrets: false,
    profileRulesWhenManaged: true,
    watchRulesReadSecrets: true,
    readsNodes: spec.readsNodes ?? false,
    managesWorkloadLeases: spec.managesWorkloadLeases ?? false,
    env: {
      defaults: {
        STEWARD_POLL_INTERVAL_SECONDS: spec.pollIntervalSeconds,
        STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
        STEWARD_DEFAULT_PROVIDER_PROFILE: '',
        STEWARD_CONTROLLER_POD_LABELS: `app.kubernetes.io/instance=${chart},app.kubernetes.io/name=${chart}`,
      },
      configured: {
        values: { busyPollIntervalSeconds: 3, defaultProviderProfile: 'standard.team-a' },
        env: {
          STEWARD_BUSY_POLL_INTERVAL_SECONDS: '3',
          STEWARD_DEFAULT_PROVIDER_PROFILE: 'standard.team-a',
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
    notes: spec.notes,
  });

  describe(`the ${chart} chart’s workload promises`, () => {
    it(`shows the ${kind.kind} and kubernetes ProviderProfile controllers, and no external API, on its dashboard`, () => {
      const dashboard = JSON.parse(
        readFileSync(join(chartDir, 'dashboards', `${chart}.json`), 'utf8'),
      ) as {
        tags: string[];
        templating: {
          list: { name: string; current?: { value?: string[] }; description?: string }[];
        };
        panels: { targets?: { expr: string }[] }[];
      };
      expect(dashboard.tags).toEqual(['steward', 'kubernetes', 'operator', ...spec.dashboardTags]);
      const controller = dashboard.templating.list.find((v) => v.name === 'controller');
      expect(controller?.current?.value).toEqual([kind.kind.toLowerCase()]);
      expect(controller?.description).toContain('the kubernetes ProviderProfile controller');
      const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
      const perController = exprs.filter((e) => /controller_runtime_|workqueue_/.test(e));
      expect(perController.length).toBeGreaterThan(5);
      for (const expr of perController) expect(expr).toContain('controller=~"$controller"');
      // Its calls to the servers it runs are not counted as external requests (yet): no panel.
      expect(exprs.join('\n')).not.toContain('steward_external_requests_total');
    });

    it('names its own pods in STEWARD_CONTROLLER_POD_LABELS, for the NetworkPolicies it renders', async () => {
      const cases: [ChartValues, string, Record<string, string>][] = [
        [{}, chart, { 'app.kubernetes.io/instance': chart, 'app.kubernetes.io/name': chart }],
        [
          { nameOverride: 'workload', podLabels: { team: 'platform' } },
          'rel',
          { 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/name': 'workload' },
        ],
      ];
      for (const [values, releaseName, expected] of cases) {
        const manifests = await renderChart(chartDir, values, { releaseName });
        const deployment = manifestOf<Deployment>(manifests, 'Deployment');
        const labels = labelsOf(controllerEnv(manifests)['STEWARD_CONTROLLER_POD_LABELS']!);
        expect(labels).toEqual(expected);
        // The pods' selector labels: every pod of the Deployment has them, and nothing else does.
        expect(labels).toEqual(deployment.spec.selector.matchLabels);
        expect(deployment.spec.template.metadata.labels).toMatchObject(labels);
      }
    });
  });
}
