import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Leases, Secrets, type ResourceType } from '@steward/kube';
import {
  applyNamespace,
  bindChartRbac,
  chartRbac,
  defaultReleaseNamespace as releaseNamespace,
  dryRunCreate,
  HelmError,
  manifestOf,
  readChartMetadata,
  renderChart,
  repoRoot,
  resourcePath,
  runHelm,
  runHelmWithValues,
  startControlPlane,
  type AccessRequest,
  type ApiRequester,
  type ChartRbac,
  type ChartValues,
  type ChartVariation,
  type ControlPlane,
  type Manifest,
  type ObjectManifest,
  type PolicyRule,
} from '@steward/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
//
// The other charts get these checks from describeControllerChart (@steward/testing), which also
// hard-codes promises that are true of controllers that call an external system and false of this
// one, which runs workloads in the cluster: its environment is exactly the common variables with
// a poll of 60 s; no rule grants `delete`; Secrets are never listed, watched or deleted; with
// watchNamespace the ClusterRole keeps `patch` on ProviderProfiles and `get` on Secrets
// everywhere. The CacheCluster controller manages its auth Secrets and prunes its children, and
// reads no Secret a kubernetes ProviderProfile names, so those checks are stated here as this
// chart's truth instead, until that suite takes them as parameters.

const chart = 'cache-cluster-controller';
const chartDir = join(repoRoot(), 'charts', chart);
const metadata = readChartMetadata(chartDir);
const Kind = CacheCluster.resourceType;
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

// ---------------------------------------------------------------------------------------------
// The rules, exactly

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

/** Every rule granted, by `ClusterRole <name>` or `Role <namespace>/<name>`, in rendered order. */
function grantsByRole(rbac: ChartRbac): Record<string, PolicyRule[]> {
  const grants: Record<string, PolicyRule[]> = {};
  for (const { roleKind, roleName, namespace, ...rule } of rbac.rules) {
    const key =
      roleKind === 'ClusterRole' ? `ClusterRole ${roleName}` : `Role ${namespace}/${roleName}`;
    (grants[key] ??= []).push(rule);
  }
  return grants;
}

const exactGrants: { name: string; values: ChartValues; grants: Record<string, PolicyRule[]> }[] = [
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

// ---------------------------------------------------------------------------------------------
// The schema and the dashboard

/** Value sets helm must refuse, with (part of) helm's message: every chart's, then this one's. */
const rejections: { name: string; values: ChartValues; message: string }[] = [
  {
    name: 'replicas "two"',
    values: { replicas: 'two' },
    message: "at '/replicas': got string, want integer",
  },
  {
    name: 'an unknown top-level key',
    values: { replica: 2 },
    message: "at '': additional properties 'replica' not allowed",
  },
  {
    name: 'a bad image.pullPolicy',
    values: { image: { pullPolicy: 'Sometimes' } },
    message: "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'",
  },
  {
    name: 'two replicas without leader election',
    values: { replicas: 2, leaderElection: { enabled: false } },
    message: "at '/leaderElection/enabled': value must be true",
  },
  {
    name: 'a watchNamespace that is no namespace name',
    values: { watchNamespace: 'Team_A' },
    message: "at '/watchNamespace': 'Team_A' does not match pattern",
  },
  {
    name: 'zero concurrent reconciles',
    values: { maxConcurrentReconciles: 0 },
    message: "at '/maxConcurrentReconciles': minimum: got 0, want 1",
  },
  {
    name: 'manageProviderProfiles "yes"',
    values: { manageProviderProfiles: 'yes' },
    message: "at '/manageProviderProfiles': got string, want null or boolean",
  },
  {
    name: 'an unknown key in a nested block',
    values: { serviceMonitor: { enable: true } },
    message: "at '/serviceMonitor': additional properties 'enable' not allowed",
  },
  {
    name: 'a value for the steward-common library chart',
    values: { 'steward-common': { image: 'x' } },
    message: "at '/steward-common': additional properties 'image' not allowed",
  },
  {
    name: 'serviceAccount.create false without a name',
    values: { serviceAccount: { create: false } },
    message: 'serviceAccount.name is required when serviceAccount.create is false',
  },
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
  {
    // kubernetes ProviderProfiles name no Secrets: the list would be silently ignored.
    name: 'rbac.credentialsSecretNamespaces, which this chart does not use',
    values: { watchNamespace: 'team-a', rbac: { credentialsSecretNamespaces: ['credentials'] } },
    message:
      'rbac.credentialsSecretNamespaces is not used by cache-cluster-controller: its controller reads no Secret that a ProviderProfile names; leave it empty',
  },
];

/** The metric names libs/telemetry creates (`meter.createCounter('name', …)` and the like). */
function telemetryMetricNames(): Set<string> {
  const telemetrySrc = join(repoRoot(), 'libs', 'telemetry', 'src');
  const defined = new Set<string>();
  for (const file of readdirSync(telemetrySrc).filter((f) => !f.endsWith('.test.ts'))) {
    const source = readFileSync(join(telemetrySrc, file), 'utf8');
    for (const match of source.matchAll(/\.create\w+\(\s*'([a-z_:]+)'/g)) defined.add(match[1]!);
  }
  return defined;
}

/** The metric names a dashboard queries, histogram series reduced to their metric. */
function dashboardMetricNames(dashboard: string): Set<string> {
  return new Set(
    [
      ...dashboard.matchAll(
        /\b((?:controller_runtime|workqueue|rest_client|leader_election|steward)_[a-z_]+)/g,
      ),
    ].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')),
  );
}

// ---------------------------------------------------------------------------------------------
// The Pod

interface Container {
  name: string;
  image: string;
  imagePullPolicy: string;
  env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
}

interface PodSpec {
  serviceAccountName: string;
  automountServiceAccountToken: boolean;
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; emptyDir?: Record<string, unknown> }[];
  [field: string]: unknown;
}

interface Deployment extends Manifest {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const podSpecOf = (manifests: Manifest[]): PodSpec =>
  manifestOf<Deployment>(manifests, 'Deployment').spec.template.spec;

/** A container's environment; a variable from the downward API reads `fieldRef:<path>`. */
const envOf = (container: Container): Record<string, string> =>
  Object.fromEntries(
    container.env.map((e) => [e.name, e.value ?? `fieldRef:${e.valueFrom?.fieldRef?.fieldPath}`]),
  );

/** `k=v,k=v` as the app's settings read STEWARD_CONTROLLER_POD_LABELS. */
const labelsOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]));

// ---------------------------------------------------------------------------------------------
// The real API server

/** A minimal ServiceMonitor CRD (monitoring.coreos.com/v1), so the API server can dry-run one. */
const serviceMonitorCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'servicemonitors.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: {
      kind: 'ServiceMonitor',
      listKind: 'ServiceMonitorList',
      plural: 'servicemonitors',
      singular: 'servicemonitor',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};

/** Whether the API server's authorizer lets the caller of `identity` do `request`. */
async function authorizerAllows(identity: ApiRequester, request: AccessRequest): Promise<boolean> {
  const [resource, subresource] = request.resource.split('/');
  const review = await identity.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          verb: request.verb,
          group: request.group,
          resource,
          ...(subresource ? { subresource } : {}),
          ...(request.namespace ? { namespace: request.namespace } : {}),
          ...(request.name ? { name: request.name } : {}),
        },
      },
    },
  });
  return review.status?.allowed === true;
}

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
const profiles = (verb: string, resource = 'providerprofiles'): AccessRequest => ({
  verb,
  group: 'steward.dev',
  resource,
});

/**
 * Requests and whether the chart grants them, with the default values (every namespace, the
 * ProviderProfile controller on): checked against the rendered rules and the real authorizer.
 */
const clusterWideAccess: (AccessRequest & { allowed: boolean })[] = [
  { ...cache('list', 'cacheclusters'), allowed: true },
  { ...cache('patch', 'cacheclusters', 'team-a'), allowed: true },
  { ...cache('update', 'cacheclusters', 'team-a'), allowed: false },
  { ...cache('delete', 'cacheclusters', 'team-a'), allowed: false },
  { ...cache('create', 'cacheclusters', 'team-a'), allowed: false },
  { ...cache('patch', 'cacheclusters/status', 'team-a'), allowed: true },
  { ...cache('update', 'cacheclusters/status', 'team-a'), allowed: false },
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
  { ...core('create', 'pods/exec', 'team-a'), allowed: false },
  { ...core('create', 'pods/eviction', 'team-a'), allowed: false },
  { ...core('delete', 'persistentvolumeclaims', 'team-a'), allowed: true },
  { ...core('create', 'persistentvolumeclaims', 'team-a'), allowed: false },
  { ...core('list', 'persistentvolumes'), allowed: false },
  { ...core('create', 'serviceaccounts/token', 'team-a'), allowed: false },
  { ...profiles('patch'), allowed: true },
  { ...profiles('patch', 'providerprofiles/status'), allowed: true },
  { ...profiles('delete'), allowed: false },
  { ...profiles('update'), allowed: false },
  { verb: 'create', group: 'events.k8s.io', resource: 'events', namespace: 'x', allowed: true },
  { verb: 'create', group: '', resource: 'events', namespace: 'team-a', allowed: false },
  {
    verb: 'create',
    group: 'rbac.authorization.k8s.io',
    resource: 'roles',
    namespace: 'team-a',
    allowed: false,
  },
  {
    verb: 'update',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'team-a',
    allowed: false,
  },
];

/** The same with watchNamespace team-a (the ProviderProfile controller then off by default). */
const watchNamespaceAccess: (AccessRequest & { allowed: boolean })[] = [
  { ...cache('list', 'cacheclusters', 'team-a'), allowed: true },
  { ...cache('list', 'cacheclusters'), allowed: false },
  { ...cache('list', 'cacheclusters', 'team-b'), allowed: false },
  { ...cache('update', 'cacheclusters/finalizers', 'team-a'), allowed: true },
  { ...cache('update', 'cacheclusters/finalizers', 'team-b'), allowed: false },
  { ...core('list', 'secrets', 'team-a'), allowed: true },
  { ...core('delete', 'secrets', 'team-a'), allowed: true },
  { ...core('get', 'secrets', 'team-b'), allowed: false },
  { ...core('get', 'secrets', 'default'), allowed: false },
  { ...core('list', 'secrets'), allowed: false },
  { ...core('patch', 'pods', 'team-b'), allowed: false },
  { ...core('delete', 'persistentvolumeclaims', 'team-b'), allowed: false },
  { verb: 'list', group: 'apps', resource: 'statefulsets', allowed: false },
  { ...profiles('list'), allowed: true },
  { ...profiles('patch'), allowed: false },
  { ...profiles('patch', 'providerprofiles/status'), allowed: false },
  {
    verb: 'create',
    group: 'events.k8s.io',
    resource: 'events',
    namespace: 'team-a',
    allowed: true,
  },
  // Nothing in this process reports on ProviderProfiles when their controller does not run.
  {
    verb: 'create',
    group: 'events.k8s.io',
    resource: 'events',
    namespace: 'default',
    allowed: false,
  },
  {
    verb: 'create',
    group: 'events.k8s.io',
    resource: 'events',
    namespace: 'team-b',
    allowed: false,
  },
];

// ---------------------------------------------------------------------------------------------

describe(`the ${chart} chart, rendered by helm`, () => {
  it.each(variations)('passes helm lint --strict with $name', async ({ values }) => {
    const result = await runHelmWithValues(chartDir, ['lint', '--strict'], values);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it.each(variations)('renders with $name', async ({ values, kinds }) => {
    const manifests = await render(values);
    expect(manifests.map((m) => m.kind).sort()).toEqual(kinds);
    for (const m of manifests) {
      expect(m.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': chart,
        'app.kubernetes.io/instance': chart,
        'app.kubernetes.io/version': metadata.appVersion,
        'app.kubernetes.io/component': 'controller',
        'app.kubernetes.io/part-of': 'steward',
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': `${chart}-${metadata.version}`,
      });
    }
  });

  it('names objects after the release, and cluster-scoped ones after its namespace too', async () => {
    const manifests = await render({}, { releaseName: 'rel', namespace: 'platform' });
    expect(manifestOf(manifests, 'Deployment').metadata).toMatchObject({
      name: `rel-${chart}`,
      namespace: 'platform',
    });
    expect(manifestOf(manifests, 'ClusterRole').metadata.name).toBe(`platform-rel-${chart}`);
  });

  it.each(rejections)('refuses $name with helm’s message', async ({ values, message }) => {
    const error = await render(values).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HelmError);
    expect((error as HelmError).result.stderr).toContain(message);
  });

  it('ships the Grafana dashboard as a ConfigMap the Grafana sidecar picks up', async () => {
    const configMap = manifestOf<Manifest & { data: Record<string, string> }>(
      await render(),
      'ConfigMap',
    );
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const files = readdirSync(join(chartDir, 'dashboards')).filter((f) => f.endsWith('.json'));
    expect(Object.keys(configMap.data).sort()).toEqual(files.sort());
    const dashboard = JSON.parse(configMap.data[`${chart}.json`]!) as {
      uid: string;
      templating: { list: { name: string; type: string }[] };
      panels: { type: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
    };
    expect(dashboard.uid).toBe(`steward-${chart}`);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(queryPanels.length).toBeGreaterThan(5);
    for (const panel of queryPanels) expect(panel.datasource?.uid).toBe('${datasource}');
  });

  it('queries only metrics that libs/telemetry defines', () => {
    const defined = telemetryMetricNames();
    const used = dashboardMetricNames(
      readFileSync(join(chartDir, 'dashboards', `${chart}.json`), 'utf8'),
    );
    expect(used.size).toBeGreaterThan(8);
    expect([...used].filter((name) => !defined.has(name))).toEqual([]);
  });

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
});

describe('the rendered Pod spec', () => {
  it('carries the secure defaults', async () => {
    const spec = podSpecOf(await render());
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.automountServiceAccountToken).toBe(true);
    expect(spec.terminationGracePeriodSeconds).toBe(40);
    expect(spec.serviceAccountName).toBe(chart);
    expect(spec.containers).toHaveLength(1);
    const [container] = spec.containers;
    expect(container!.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container!.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(spec.volumes).toContainEqual(
      expect.objectContaining({ name: 'tmp', emptyDir: expect.any(Object) }),
    );
    expect(container!.resources.requests).toEqual({ cpu: '100m', memory: '128Mi' });
    expect(container!.resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
    expect(container!.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container!.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container!.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(container!.image).toBe(`ghcr.io/steward-dev/${chart}:${metadata.appVersion}`);
    expect(container!.imagePullPolicy).toBe('IfNotPresent');
  });

  it('passes the controller its configuration in the environment', async () => {
    const defaults = envOf(podSpecOf(await render()).containers[0]!);
    expect(defaults).toEqual({
      STEWARD_WATCH_NAMESPACE: '',
      STEWARD_PROBE_PORT: '8080',
      STEWARD_LEADER_ELECT: 'true',
      STEWARD_LOG_LEVEL: 'info',
      STEWARD_MAX_CONCURRENT_RECONCILES: '4',
      STEWARD_POLL_INTERVAL_SECONDS: '5',
      POD_NAMESPACE: 'fieldRef:metadata.namespace',
      POD_NAME: 'fieldRef:metadata.name',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
      STEWARD_DEFAULT_PROVIDER_PROFILE: '',
      STEWARD_CONTROLLER_POD_LABELS: `app.kubernetes.io/instance=${chart},app.kubernetes.io/name=${chart}`,
    });
    const configured = podSpecOf(
      await render({
        watchNamespace: 'team-a',
        probePort: 9090,
        leaderElection: { enabled: false },
        logLevel: 'debug',
        maxConcurrentReconciles: 8,
        pollIntervalSeconds: 30,
        busyPollIntervalSeconds: 3,
        defaultProviderProfile: 'standard.redis',
        manageProviderProfiles: true,
        otel: { endpoint: 'http://otel-collector:4318' },
        extraEnv: [{ name: 'EXTRA', value: 'yes' }],
      }),
    ).containers[0]!;
    expect(envOf(configured)).toMatchObject({
      STEWARD_WATCH_NAMESPACE: 'team-a',
      STEWARD_PROBE_PORT: '9090',
      STEWARD_LEADER_ELECT: 'false',
      STEWARD_LOG_LEVEL: 'debug',
      STEWARD_MAX_CONCURRENT_RECONCILES: '8',
      STEWARD_POLL_INTERVAL_SECONDS: '30',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '3',
      STEWARD_DEFAULT_PROVIDER_PROFILE: 'standard.redis',
      STEWARD_MANAGE_PROVIDER_PROFILES: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      EXTRA: 'yes',
    });
    expect(configured.ports).toEqual([{ name: 'http', containerPort: 9090, protocol: 'TCP' }]);
    // extraEnv comes last: an operator's variable is the one the process sees.
    expect(configured.env.at(-1)).toEqual({ name: 'EXTRA', value: 'yes' });
    expect(
      configured.env.map((e) => e.name).filter((n, i, names) => names.indexOf(n) !== i),
    ).toEqual([]);
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
      const deployment = manifestOf<Deployment>(
        await render(values, { releaseName }),
        'Deployment',
      );
      const env = envOf(deployment.spec.template.spec.containers[0]!);
      const labels = labelsOf(env['STEWARD_CONTROLLER_POD_LABELS']!);
      expect(labels).toEqual(expected);
      // The pods' selector labels: every pod of the Deployment has them, and nothing else does.
      expect(labels).toEqual(deployment.spec.selector.matchLabels);
      expect(deployment.spec.template.metadata.labels).toMatchObject(labels);
    }
  });

  it('spreads two replicas over nodes and keeps one up through disruptions', async () => {
    const manifests = await render({ replicas: 2 });
    const deployment = manifestOf<Deployment>(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.topologySpreadConstraints).toEqual([
      expect.objectContaining({
        topologyKey: 'kubernetes.io/hostname',
        labelSelector: { matchLabels: deployment.spec.selector.matchLabels },
      }),
    ]);
    const pdb = manifestOf<Manifest & { spec: Record<string, unknown> }>(
      manifests,
      'PodDisruptionBudget',
    );
    expect(pdb.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: deployment.spec.selector.matchLabels },
    });
  });

  it('exposes the probe port as the metrics Service port named "metrics"', async () => {
    const manifests = await render({ serviceMonitor: { enabled: true } });
    const service = manifestOf<Manifest & { spec: { ports: unknown[] } }>(manifests, 'Service');
    expect(service.spec.ports).toEqual([
      { name: 'metrics', port: 8080, targetPort: 'http', protocol: 'TCP' },
    ]);
    const monitor = manifestOf<Manifest & { spec: { endpoints: unknown[] } }>(
      manifests,
      'ServiceMonitor',
    );
    expect(monitor.spec.endpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics' }),
    ]);
  });
});

describe('the rendered RBAC', () => {
  it.each(exactGrants)('grants exactly these rules with $name', async ({ values, grants }) => {
    const rbac = chartRbac(await render(values));
    expect(rbac.subject).toEqual({ namespace: releaseNamespace, name: chart });
    expect(grantsByRole(rbac)).toEqual(grants);
  });

  it.each(variations)('is least privilege with $name', async ({ values }) => {
    const rbac = chartRbac(await render(values));
    for (const rule of rbac.rules) {
      expect(rule.verbs).not.toContain('*');
      expect(rule.resources).not.toContain('*');
      expect(rule.apiGroups).not.toContain('*');
      expect(rule.nonResourceURLs).toBeUndefined();
      expect(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']).toEqual(
        expect.arrayContaining(rule.verbs),
      );
      // Updated: only the finalizers subresource (blockOwnerDeletion) and the Lease, by name.
      if (rule.verbs.includes('update')) {
        expect(rule.resources).toEqual(
          rule.resources?.[0] === 'leases' ? ['leases'] : ['cacheclusters/finalizers'],
        );
        if (rule.resources?.[0] === 'leases') expect(rule.resourceNames).toEqual([leaseName]);
      }
      // Deleted: only the children the controller prunes, and volumes (deletionPolicy Delete).
      if (rule.verbs.includes('delete')) {
        expect([
          'statefulsets',
          'services',
          'configmaps',
          'secrets',
          'poddisruptionbudgets',
          'networkpolicies',
          'persistentvolumeclaims',
        ]).toEqual(expect.arrayContaining(rule.resources ?? []));
      }
    }
    const leaseRules = rbac.rules.filter((r) => r.resources?.includes('leases'));
    for (const rule of leaseRules) {
      expect(rule).toMatchObject({ roleKind: 'Role', namespace: releaseNamespace });
    }
    for (const namespace of [undefined, 'team-a', releaseNamespace]) {
      expect(rbac.allows({ verb: 'update', group: '', resource: 'secrets', namespace })).toBe(
        false,
      );
      expect(
        rbac.allows({ verb: 'deletecollection', group: '', resource: 'secrets', namespace }),
      ).toBe(false);
    }
  });

  it.each(variations)('grants nothing twice with $name', async ({ values }) => {
    const rbac = chartRbac(await render(values));
    // Each (group, resource, verb, name) with where it applies: a Role's namespace, or `*` for a
    // ClusterRole, which covers every namespace and so overlaps any Role.
    const grants = rbac.rules.flatMap((rule) =>
      (rule.apiGroups ?? []).flatMap((group) =>
        (rule.resources ?? []).flatMap((resource) =>
          rule.verbs.flatMap((verb) =>
            (rule.resourceNames ?? ['*']).map((name) => ({
              grant: `${group}/${resource} ${verb} ${name}`,
              where: rule.namespace ?? '*',
            })),
          ),
        ),
      ),
    );
    const twice = grants.filter((a, i) =>
      grants.some(
        (b, j) =>
          j < i &&
          a.grant === b.grant &&
          (a.where === '*' || b.where === '*' || a.where === b.where),
      ),
    );
    expect(twice).toEqual([]);
  });

  it('keeps Secrets in the watched namespace with watchNamespace: none elsewhere, none for ProviderProfiles', async () => {
    const rbac = chartRbac(await render({ watchNamespace: 'team-a' }));
    for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete']) {
      expect(rbac.allows(core(verb, 'secrets', 'team-a'))).toBe(true);
      for (const elsewhere of [undefined, 'team-b', 'default', releaseNamespace]) {
        expect(rbac.allows(core(verb, 'secrets', elsewhere))).toBe(false);
      }
    }
  });

  it.each([
    ['every namespace', {}, clusterWideAccess],
    ['watchNamespace team-a', { watchNamespace: 'team-a' }, watchNamespaceAccess],
  ] as const)('grants and refuses these requests with %s', async (_name, values, access) => {
    const rbac = chartRbac(await render(values));
    expect(access.map(({ allowed: _allowed, ...request }) => rbac.allows(request))).toEqual(
      access.map((a) => a.allowed),
    );
  });
});

describe('the rendered chart on a real API server', () => {
  let plane: ControlPlane;
  let admin: KubeClient;

  beforeAll(async () => {
    plane = await startControlPlane({ crds: [join(chartDir, 'crds')] });
    const dir = await mkdtemp(join(tmpdir(), 'steward-servicemonitor-crd-'));
    try {
      await writeFile(join(dir, 'servicemonitor.json'), JSON.stringify(serviceMonitorCrd));
      await plane.installCRDs(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'steward-chart-test' });
  });

  afterAll(async () => {
    await admin?.close();
    await plane?.stop();
  });

  it.each(variations)(
    'accepts every object rendered with $name in a server-side dry run',
    async ({ values }) => {
      const manifests = await render(values);
      for (const ns of new Set(manifests.map((m) => m.metadata.namespace ?? releaseNamespace))) {
        await applyNamespace(plane, ns);
      }
      const refused: string[] = [];
      for (const manifest of manifests) {
        try {
          await dryRunCreate(admin, manifest);
        } catch (error) {
          refused.push(`${manifest.kind} ${manifest.metadata.name}: ${String(error)}`);
        }
      }
      expect(refused).toEqual([]);
    },
  );

  it('would refuse a rendered object with a misspelt field (strict field validation)', async () => {
    await applyNamespace(plane, releaseNamespace);
    const deployment = manifestOf<Deployment>(await render(), 'Deployment');
    const [container] = deployment.spec.template.spec.containers;
    container!.securityContext = { ...container!.securityContext, readOnlyRootFileSystem: true };
    await expect(dryRunCreate(admin, deployment)).rejects.toMatchObject({
      message: expect.stringContaining(
        'unknown field "spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem"',
      ),
    });
  });

  it('runs its Pod under the restricted Pod Security Standard', async () => {
    const restricted = 'restricted-pods';
    await applyNamespace(plane, restricted, {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
    const template = manifestOf<Deployment>(await render(), 'Deployment').spec.template;
    const pod = (podSpec: PodSpec): ObjectManifest & { spec: PodSpec } => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: chart, namespace: restricted },
      spec: podSpec,
    });
    await expect(dryRunCreate(admin, pod(template.spec))).resolves.toMatchObject({ kind: 'Pod' });
    // The namespace does enforce the standard: the same Pod without its security contexts is refused.
    const container = template.spec.containers[0]!;
    const { securityContext: _container, ...insecureContainer } = container;
    const { securityContext: _pod, ...insecureSpec } = template.spec;
    await expect(
      dryRunCreate(admin, pod({ ...insecureSpec, containers: [insecureContainer] } as PodSpec)),
    ).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('violates PodSecurity "restricted:latest"'),
    });
  });

  it('installs with helm install from the checkout, and uninstalls', async () => {
    // The chart's library (charts/steward-common) is a symbolic link in the checkout: no
    // `helm dependency build`, no network.
    const namespace = 'helm-install';
    const release = ['--kubeconfig', plane.kubeconfigPath, '--namespace', namespace];
    const installed = await runHelm([
      'install',
      'steward',
      chartDir,
      ...release,
      '--create-namespace',
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('STATUS: deployed');
    expect(installed.stdout).toContain('It reconciles CacheClusters in every namespace');
    expect(installed.stdout).toContain(
      'It looks at every server every 5s (1s while something moves)',
    );
    await expect(
      admin.request({
        method: 'GET',
        path: `/apis/apps/v1/namespaces/${namespace}/deployments/steward-${chart}`,
      }),
    ).resolves.toMatchObject({ metadata: { name: `steward-${chart}` } });
    const uninstalled = await runHelm(['uninstall', 'steward', ...release]);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
  });

  describe('as the chart’s ServiceAccount, bound by the chart’s RBAC', () => {
    /** Runs `use` as the ServiceAccount of `manifests`, rendered for `namespace`. */
    async function asServiceAccount(
      manifests: Manifest[],
      namespace: string,
      use: (identity: KubeClient) => Promise<void>,
    ): Promise<void> {
      const identity = new KubeClient(await bindChartRbac(plane, manifests, namespace), {
        fieldManager: 'steward-chart-test',
      });
      try {
        await use(identity);
      } finally {
        await identity.close();
      }
    }
    const list = (identity: ApiRequester, resource: ResourceType, namespace?: string) =>
      identity.request({ method: 'GET', path: resourcePath(resource, namespace) });

    it('lists CacheClusters and their Secrets everywhere, and the authorizer agrees with the rendered rules', async () => {
      const manifests = await render();
      const rbac = chartRbac(manifests);
      await asServiceAccount(manifests, releaseNamespace, async (identity) => {
        await expect(list(identity, Kind)).resolves.toMatchObject({ items: [] });
        await expect(list(identity, Kind, 'team-a')).resolves.toMatchObject({ items: [] });
        await expect(list(identity, Secrets)).resolves.toMatchObject({ kind: 'SecretList' });
        // Deleting a CacheCluster is refused before the object is looked up.
        await expect(
          identity.request({ method: 'DELETE', path: resourcePath(Kind, 'team-a', 'anything') }),
        ).rejects.toMatchObject({
          code: 403,
          message: `cacheclusters.cache.steward.dev "anything" is forbidden: User "system:serviceaccount:${releaseNamespace}:${chart}" cannot delete resource "cacheclusters" in API group "cache.steward.dev" in the namespace "team-a"`,
        });
        const answers = [];
        for (const { allowed: _allowed, ...request } of clusterWideAccess) {
          answers.push(await authorizerAllows(identity, request));
        }
        expect(answers).toEqual(clusterWideAccess.map((a) => a.allowed));
        expect(answers).toEqual(clusterWideAccess.map(({ allowed: _a, ...r }) => rbac.allows(r)));
      });
    });

    it('may take its Lease in the release namespace only', async () => {
      // A user name short enough for a certificate's common name: bindChartRbac's client-cert path.
      const namespace = 'lease';
      const manifests = await render({}, { releaseName: namespace, namespace });
      await asServiceAccount(manifests, namespace, async (identity) => {
        const createLease = (ns: string) =>
          identity.request({
            method: 'POST',
            path: resourcePath(Leases, ns),
            query: { dryRun: 'All' },
            body: {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: { name: leaseName, namespace: ns },
            },
          });
        const getLease = (name: string) =>
          identity.request({ method: 'GET', path: resourcePath(Leases, namespace, name) });
        await expect(createLease(namespace)).resolves.toMatchObject({ kind: 'Lease' });
        await expect(getLease(leaseName)).rejects.toMatchObject({ code: 404 });
        await expect(getLease('someone-elses')).rejects.toMatchObject({ code: 403 });
        await expect(createLease('default')).rejects.toMatchObject({ code: 403 });
      });
    });

    it('with watchNamespace, reaches CacheClusters and Secrets in that namespace only', async () => {
      const namespace = 'team-a-system';
      const manifests = await render(
        { watchNamespace: 'team-a' },
        { releaseName: 'team-a', namespace },
      );
      const rbac = chartRbac(manifests);
      await asServiceAccount(manifests, namespace, async (identity) => {
        await expect(list(identity, Kind, 'team-a')).resolves.toMatchObject({ items: [] });
        await expect(list(identity, Kind)).rejects.toMatchObject({ code: 403 });
        await expect(list(identity, Kind, 'team-b')).rejects.toMatchObject({ code: 403 });
        await expect(list(identity, Secrets, 'team-a')).resolves.toMatchObject({ items: [] });
        await expect(list(identity, Secrets, 'team-b')).rejects.toMatchObject({ code: 403 });
        await expect(list(identity, Secrets)).rejects.toMatchObject({ code: 403 });
        const answers = [];
        for (const { allowed: _allowed, ...request } of watchNamespaceAccess) {
          answers.push(await authorizerAllows(identity, request));
        }
        expect(answers).toEqual(watchNamespaceAccess.map((a) => a.allowed));
        expect(answers).toEqual(
          watchNamespaceAccess.map(({ allowed: _a, ...r }) => rbac.allows(r)),
        );
      });
    });
  });
});
