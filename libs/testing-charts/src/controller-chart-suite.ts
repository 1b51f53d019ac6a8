/**
 * What every Steward controller chart promises, as one vitest suite each chart's test file runs
 * (`describeControllerChart`): helm lint and rendering with the chart's value sets, schema
 * refusals, the Grafana dashboard and the metric names it queries, the Pod's secure defaults and
 * environment contract, least-privilege RBAC, and — on a real control plane with the chart's CRDs
 * — a server-side dry run of every rendered object, the restricted Pod Security Standard, the
 * RBAC bound to the chart's ServiceAccount, and `helm install` itself.
 *
 * The charts share their templates (charts/steward-common), so they share these promises; what a
 * chart decides for itself — which objects each value set renders, the exact rules, its own
 * environment, which verbs it needs, what it does to Secrets, the options it passes
 * steward-common's RBAC templates — is the spec it passes, each choice with the default most
 * charts take. Its test file adds the checks only it needs.
 */
import { type KubeConfig } from '@kubernetes/client-node';
import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { load as loadYaml } from 'js-yaml';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyNamespace,
  bindChartRbac,
  chartRbac,
  defaultReleaseNamespace,
  dryRunCreate,
  HelmError,
  manifestOf,
  readChartMetadata,
  renderChart,
  resourcePath,
  runHelm,
  runHelmWithValues,
  type AccessRequest,
  type ApiRequester,
  type ChartRbac,
  type ChartValues,
  type Manifest,
  type ObjectManifest,
  type PolicyRule,
  type ScopedRule,
  type ServedResource,
} from './helm.js';

/** A value set the rendering tests run with, and the kinds it renders (sorted). */
export interface ChartVariation {
  name: string;
  values: ChartValues;
  kinds: string[];
}

/** A client of one API server as one identity, e.g. a `KubeClient` of @steward/kube. */
export interface ChartTestClient extends ApiRequester {
  close(): Promise<void>;
}

/** A value set helm must refuse, with (part of) helm's message. */
export interface ChartRejection {
  name: string;
  values: ChartValues;
  message: string;
}

/** A request to the API server and whether the chart's RBAC lets the controller make it. */
export type ChartAccess = AccessRequest & { allowed: boolean };

/**
 * Every rule a value set grants, by role — `ClusterRole <name>` or `Role <namespace>/<name>` —
 * each role's rules in rendered order.
 */
export interface ChartGrants {
  name: string;
  values: ChartValues;
  grants: Record<string, PolicyRule[]>;
}

/** The variables only this chart sets, or sets otherwise than every chart. */
export interface ChartEnvironment {
  /**
   * With the default values: the chart's own variables, and any variable every chart sets at
   * this chart's default (e.g. `STEWARD_POLL_INTERVAL_SECONDS`).
   */
  defaults: Record<string, string>;
  /** Values of the chart's own, rendered with every chart's, and the variables they set. */
  configured?: { values: ChartValues; env: Record<string, string> };
}

export interface ControllerChartSpec {
  /**
   * The chart's directory name under charts/; also its app's name, its image
   * (`ghcr.io/steward-dev/<chart>`), its dashboard (`dashboards/<chart>.json`) and, with the
   * default release name, its objects' names.
   */
  chart: string;
  /** The namespaced kind the controller reconciles, e.g. `KafkaTopic.resourceType`. */
  kind: ServedResource;
  /**
   * Connects to the API server of `kubeConfig` as its identity. A refusal must reject with an
   * error carrying the HTTP status as `code` and the API's Status message as `message`.
   */
  connect(kubeConfig: KubeConfig): ChartTestClient;
  /** Value sets every rendering, lint, least-privilege and dry-run test runs with. */
  variations: ChartVariation[];
  /** Every rule the default values grant, in the rendered order, without the role names. */
  defaultRules: Omit<ScopedRule, 'roleName'>[];
  /**
   * With `watchNamespace: team-a` (and `rbac.credentialsSecretNamespaces: [provider-credentials]`
   * unless `readsProfileSecrets` is false): requests the chart grants (`allowed: true`) or refuses
   * besides those every chart does. Checked against the rendered rules and the real authorizer.
   */
  watchNamespaceAccess: ChartAccess[];
  /**
   * The same with `watchNamespaces: [team-a, team-b]` (and the credentials namespace as above),
   * besides those every chart's are checked for (its kind reachable in team-a and team-b only, no
   * Secret readable in team-c or cluster-wide). Default: none.
   */
  watchNamespacesAccess?: ChartAccess[];
  /** The same with the default values (every namespace). Default: none. */
  defaultAccess?: ChartAccess[];
  /** Value sets helm must refuse besides those every chart refuses. Default: none. */
  rejections?: ChartRejection[];
  /**
   * Further value sets whose rules are pinned exactly, by role (role names included). Default:
   * none; `defaultRules` pins the default values'.
   */
  exactGrants?: ChartGrants[];
  /**
   * The verbs a rule may grant, each on any resource (`'*'`) or only on the resources listed.
   * Default: get, list, watch, create, update and patch on any resource; never delete.
   */
  grantableVerbs?: Record<string, '*' | string[]>;
  /**
   * The verbs any value set may grant on Secrets; the others are refused everywhere. With `list`
   * among them the Secrets are the controller's children: it lists them wherever it watches its
   * kind, and nowhere else. Default: get, create, update and patch — Secrets read and written by
   * name, never listed, watched or deleted.
   */
  secretVerbs?: string[];
  /**
   * As the chart passes it to steward-common's RBAC templates. Default true: the Secrets
   * ProviderProfiles name are readable, cluster-wide unless `rbac.credentialsSecretNamespaces`
   * narrows them. false: the controller reads none, the chart refuses that value, and with
   * watchNamespace it may touch no Secret outside the watched namespace; with
   * `watchRulesReadSecrets` false as well it reads no Secret at all (even by name).
   */
  readsProfileSecrets?: boolean;
  /**
   * As the chart passes it to steward-common's RBAC templates. Default true: with the deprecated
   * watchNamespace and no `rbac.credentialsSecretNamespaces`, a chart that reads profile Secrets
   * keeps cluster-wide `get` on Secrets (as before watchNamespaces). false: it gets none there.
   */
  legacyWatchNamespaceSecrets?: boolean;
  /**
   * As the chart passes it to steward-common's RBAC templates. Default false. true: the chart's
   * watch rules grant `get` (and create) on Secrets — it writes Secrets next to its objects — so
   * watching every namespace it reads any Secret, whatever `rbac.credentialsSecretNamespaces` says,
   * and it may own a Secret by its kind with `blockOwnerDeletion`.
   */
  watchRulesReadSecrets?: boolean;
  /**
   * As the chart passes it to steward-common's RBAC templates. Default false: the ProviderProfile
   * controller's permissions (patch on profiles and their status, Events in `default`) are granted
   * whether it runs or not. true: only when it runs; the ClusterRole then grants only get, list and
   * watch on ProviderProfiles.
   */
  profileRulesWhenManaged?: boolean;
  /** As the chart passes it to steward-common's RBAC templates: it reads nodes (cluster-scoped). */
  /**
   * The controller manages Leases of its workloads in the namespaces it watches (PostgresCluster's
   * fence): leases everywhere it watches, beside its own leader-election Lease.
   */
  managesWorkloadLeases?: boolean;
  readsNodes?: boolean;
  /** The chart's own environment. Default: none, every chart's variables with a poll of 60 s. */
  env?: ChartEnvironment;
  /** What `helm install` prints (NOTES.txt) besides every chart's lines. Default: nothing. */
  notes?: string[];
}

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

function podSpecOf(manifests: Manifest[]): PodSpec {
  return manifestOf<Deployment>(manifests, 'Deployment').spec.template.spec;
}

/** A container's environment; a variable from the downward API reads `fieldRef:<path>`. */
function envOf(container: Container): Record<string, string> {
  return Object.fromEntries(
    container.env.map((e) => [e.name, e.value ?? `fieldRef:${e.valueFrom?.fieldRef?.fieldPath}`]),
  );
}

/**
 * The controller container's environment in a rendering of a chart; a variable from the downward
 * API reads `fieldRef:<path>`.
 */
export function controllerEnv(manifests: Manifest[]): Record<string, string> {
  return envOf(podSpecOf(manifests).containers[0]!);
}

/** Every rule of `rbac`, by `ClusterRole <name>` or `Role <namespace>/<name>`, in rendered order. */
function grantsByRole(rbac: ChartRbac): Record<string, PolicyRule[]> {
  const grants: Record<string, PolicyRule[]> = {};
  for (const { roleKind, roleName, namespace, ...rule } of rbac.rules) {
    const key =
      roleKind === 'ClusterRole' ? `ClusterRole ${roleName}` : `Role ${namespace}/${roleName}`;
    (grants[key] ??= []).push(rule);
  }
  return grants;
}

/**
 * Every (group, resource, verb, name) `rbac` grants more than once where its grants overlap: in
 * one namespace, or in a ClusterRole, which covers every namespace.
 */
function grantedTwice(rbac: ChartRbac): string[] {
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
  return grants
    .filter((a, i) =>
      grants.some(
        (b, j) =>
          j < i &&
          a.grant === b.grant &&
          (a.where === '*' || b.where === '*' || a.where === b.where),
      ),
    )
    .map(({ grant, where }) => `${grant} in ${where}`);
}

/** Whether the API server's authorizer lets the caller of `identity` make `request`. */
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

/**
 * The metric names Steward's libraries define: instruments created by name
 * (`meter.createCounter('name', …)` and the like, libs/telemetry) and the per-namespace gauges a
 * kind declares as data (`{ name: 'steward_…', … }`, a `NamespaceGauge`: libs/telemetry's health
 * metrics, libs/workload's failover gauges, a domain lib's own).
 */
function definedMetricNames(): Set<string> {
  const libs = join(repoRoot(), 'libs');
  const defined = new Set<string>();
  for (const lib of readdirSync(libs)) {
    const src = join(libs, lib, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const source = readFileSync(join(src, file), 'utf8');
      for (const match of source.matchAll(/\.create\w+\(\s*'([a-z_:]+)'/g)) defined.add(match[1]!);
      for (const match of source.matchAll(/\bname: '(steward_[a-z_]+)'/g)) defined.add(match[1]!);
    }
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

/** Value sets helm must refuse, with (part of) helm's message. The same for every chart. */
const rejections: ChartRejection[] = [
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
    name: 'an image.digest that is no sha256 digest',
    values: { image: { digest: 'sha256:abc' } },
    message: "at '/image/digest': 'sha256:abc' does not match pattern",
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
    name: 'watchNamespaces with an item that is no namespace name',
    values: { watchNamespaces: ['team-a', 'Team_B'] },
    message: "at '/watchNamespaces/1': 'Team_B' does not match pattern",
  },
  {
    name: 'watchNamespaces as a string',
    values: { watchNamespaces: 'team-a' },
    message: "at '/watchNamespaces': got string, want array",
  },
  {
    name: 'watchNamespaces naming a namespace twice',
    values: { watchNamespaces: ['team-a', 'team-a'] },
    message: "at '/watchNamespaces': items at 0 and 1 are equal",
  },
  {
    name: 'both the deprecated watchNamespace and watchNamespaces',
    values: { watchNamespace: 'team-a', watchNamespaces: ['team-b'] },
    message:
      'watchNamespace is deprecated and replaced by watchNamespaces: set watchNamespaces only',
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
];

/** A minimal Prometheus Operator CRD (monitoring.coreos.com/v1), so the API server can dry-run one. */
const monitoringCrd = (kind: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.monitoring.coreos.com` },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: {
      kind,
      listKind: `${kind}List`,
      plural: `${kind.toLowerCase()}s`,
      singular: kind.toLowerCase(),
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
});

const Secrets: ServedResource = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
};
const Leases: ServedResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};

/** Every verb an RBAC rule on a resource can grant. */
const resourceVerbs = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

/** What every chart's values render into the controller's environment, by default. */
const commonDefaultEnv: Record<string, string> = {
  STEWARD_WATCH_NAMESPACES: '',
  STEWARD_PROBE_PORT: '8080',
  STEWARD_LEADER_ELECT: 'true',
  STEWARD_LOG_LEVEL: 'info',
  STEWARD_MAX_CONCURRENT_RECONCILES: '4',
  STEWARD_POLL_INTERVAL_SECONDS: '60',
  POD_NAMESPACE: 'fieldRef:metadata.namespace',
  POD_NAME: 'fieldRef:metadata.name',
};

/**
 * Registers the suite for the chart `spec.chart` (four `describe` blocks: rendering, Pod spec,
 * RBAC, real API server). Call it at the top level of the chart's test file.
 */
export function describeControllerChart(spec: ControllerChartSpec): void {
  const {
    chart,
    kind,
    variations,
    grantableVerbs = Object.fromEntries(
      ['get', 'list', 'watch', 'create', 'update', 'patch'].map((verb) => [verb, '*' as const]),
    ),
    secretVerbs = ['get', 'create', 'update', 'patch'],
    readsProfileSecrets = true,
    legacyWatchNamespaceSecrets = true,
    profileRulesWhenManaged = false,
    watchRulesReadSecrets = false,
    readsNodes = false,
  } = spec;
  const chartDir = join(repoRoot(), 'charts', chart);
  const metadata = readChartMetadata(chartDir);
  const releaseNamespace = defaultReleaseNamespace;
  const leaseName = `${chart}-leader`;
  const render = (values?: ChartValues, options?: { releaseName?: string; namespace?: string }) =>
    renderChart(chartDir, values, options);
  const listsSecrets = secretVerbs.includes('list');
  /** Whether it reads a Secret by name anywhere (a profile's, or a child's); a chart may read none. */
  const readsSecrets = readsProfileSecrets || watchRulesReadSecrets;

  const chartRejections: ChartRejection[] = [
    ...rejections,
    ...(readsProfileSecrets
      ? []
      : [
          {
            name: 'rbac.credentialsSecretNamespaces, which this chart does not use',
            values: {
              watchNamespace: 'team-a',
              rbac: { credentialsSecretNamespaces: ['credentials'] },
            },
            message: `rbac.credentialsSecretNamespaces is not used by ${chart}: its controller reads no Secret that a ProviderProfile names; leave it empty`,
          },
        ]),
    ...(spec.rejections ?? []),
  ];

  // The requests every chart's RBAC grants or refuses, with the default values and with
  // watchNamespace, then the chart's own: checked against the rendered rules and the authorizer.
  const watched = { group: kind.group, resource: kind.plural };
  const status = { group: kind.group, resource: `${kind.plural}/status` };
  const secret = { group: '', resource: 'secrets' };
  const profiles = { group: 'steward.dev', resource: 'providerprofiles' };
  const profileStatus = { group: 'steward.dev', resource: 'providerprofiles/status' };
  const namespaces = { group: '', resource: 'namespaces' };
  const events = { group: 'events.k8s.io', resource: 'events', verb: 'create' };
  const defaultAccess: ChartAccess[] = [
    { ...watched, verb: 'list', allowed: true },
    { ...watched, verb: 'list', namespace: 'team-a', allowed: true },
    // The objects users declare: the controller never creates, updates or deletes one.
    { ...watched, verb: 'create', namespace: 'team-a', allowed: false },
    { ...watched, verb: 'update', namespace: 'team-a', allowed: false },
    { ...watched, verb: 'delete', namespace: 'team-a', allowed: false },
    { ...status, verb: 'patch', namespace: 'team-a', allowed: true },
    { ...status, verb: 'update', namespace: 'team-a', allowed: false },
    // A Secret read by name: one a ProviderProfile names, or one of the controller's children.
    { ...secret, verb: 'get', namespace: 'team-a', allowed: readsSecrets },
    { ...secret, verb: 'list', allowed: listsSecrets },
    // The ProviderProfile controller runs by default without watchNamespace.
    { ...profiles, verb: 'patch', allowed: true },
    { ...profileStatus, verb: 'patch', allowed: true },
    { ...profiles, verb: 'update', allowed: false },
    { ...profiles, verb: 'delete', allowed: false },
    // Namespaces: read for their labels, never written.
    { ...namespaces, verb: 'list', allowed: true },
    { ...namespaces, verb: 'watch', allowed: true },
    { ...namespaces, verb: 'patch', allowed: false },
    { ...namespaces, verb: 'delete', allowed: false },
    { ...events, namespace: 'team-a', allowed: true },
    { ...events, group: '', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'pods/exec', namespace: 'team-a', allowed: false },
    {
      verb: 'create',
      group: '',
      resource: 'serviceaccounts/token',
      namespace: 'team-a',
      allowed: false,
    },
    // A controller managing its workloads' Leases (PostgresCluster's fence) also makes its
    // instances' Role granting them, and may update those Leases where it watches.
    {
      verb: 'create',
      group: 'rbac.authorization.k8s.io',
      resource: 'roles',
      namespace: 'team-a',
      allowed: spec.managesWorkloadLeases ?? false,
    },
    {
      verb: 'update',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'team-a',
      allowed: spec.managesWorkloadLeases ?? false,
    },
    ...(spec.defaultAccess ?? []),
  ];
  const watchNamespaceValues: ChartValues = readsProfileSecrets
    ? { watchNamespace: 'team-a', rbac: { credentialsSecretNamespaces: ['provider-credentials'] } }
    : { watchNamespace: 'team-a' };
  // With watchNamespace the ProviderProfile controller is off by default.
  const profileControllerGranted = !profileRulesWhenManaged;
  const watchNamespaceAccess: ChartAccess[] = [
    { ...watched, verb: 'list', namespace: 'team-a', allowed: true },
    { ...watched, verb: 'list', allowed: false },
    { ...watched, verb: 'list', namespace: 'team-b', allowed: false },
    { ...status, verb: 'patch', namespace: 'team-a', allowed: true },
    { ...status, verb: 'patch', namespace: 'team-b', allowed: false },
    { ...secret, verb: 'get', namespace: 'provider-credentials', allowed: readsProfileSecrets },
    { ...secret, verb: 'create', namespace: 'provider-credentials', allowed: false },
    { ...secret, verb: 'get', namespace: 'team-b', allowed: false },
    { ...secret, verb: 'list', allowed: false },
    { ...profiles, verb: 'list', allowed: true },
    { ...profiles, verb: 'patch', allowed: profileControllerGranted },
    { ...profileStatus, verb: 'patch', allowed: profileControllerGranted },
    { ...events, namespace: 'team-a', allowed: true },
    // Events about cluster-scoped ProviderProfiles are written to `default`, as client-go does.
    { ...events, namespace: 'default', allowed: profileControllerGranted },
    { ...events, namespace: 'team-b', allowed: false },
    ...spec.watchNamespaceAccess,
  ];

  // With a list of watched namespaces: a Role in each, nothing in any other namespace, and no
  // Secret readable cluster-wide — the credentials only where rbac.credentialsSecretNamespaces says.
  const watched2 = ['team-a', 'team-b'];
  const watchNamespacesValues: ChartValues = readsProfileSecrets
    ? { watchNamespaces: watched2, rbac: { credentialsSecretNamespaces: ['provider-credentials'] } }
    : { watchNamespaces: watched2 };
  const watchNamespacesAccess: ChartAccess[] = [
    ...watched2.flatMap((namespace) => [
      { ...watched, verb: 'list', namespace, allowed: true },
      { ...watched, verb: 'watch', namespace, allowed: true },
      { ...status, verb: 'patch', namespace, allowed: true },
      { ...events, namespace, allowed: true },
    ]),
    { ...watched, verb: 'list', allowed: false },
    { ...watched, verb: 'list', namespace: 'team-c', allowed: false },
    { ...status, verb: 'patch', namespace: 'team-c', allowed: false },
    { ...secret, verb: 'get', namespace: 'team-c', allowed: false },
    { ...secret, verb: 'get', allowed: false },
    { ...secret, verb: 'list', allowed: false },
    { ...secret, verb: 'get', namespace: 'provider-credentials', allowed: readsProfileSecrets },
    { ...secret, verb: 'create', namespace: 'provider-credentials', allowed: false },
    { ...profiles, verb: 'list', allowed: true },
    { ...profiles, verb: 'patch', allowed: profileControllerGranted },
    { ...namespaces, verb: 'list', allowed: true },
    { ...namespaces, verb: 'update', allowed: false },
    { ...events, namespace: 'default', allowed: profileControllerGranted },
    { ...events, namespace: 'team-c', allowed: false },
    ...(spec.watchNamespacesAccess ?? []),
  ];

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

    it.each(chartRejections)('refuses $name with helm’s message', async ({ values, message }) => {
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

    it('ships its alerting rules as a PrometheusRule when prometheusRule.enabled, each for its job', async () => {
      expect((await render()).map((m) => m.kind)).not.toContain('PrometheusRule');
      const manifests = await render({
        prometheusRule: { enabled: true, labels: { release: 'kp' } },
      });
      const rule = manifestOf<Manifest & { spec: { groups: { rules: { expr: string }[] }[] } }>(
        manifests,
        'PrometheusRule',
      );
      expect(rule.metadata.labels).toMatchObject({ release: 'kp' });
      const file = loadYaml(
        readFileSync(join(chartDir, 'alerts', `${chart}.rules.yaml`), 'utf8'),
      ) as { groups: unknown[] };
      expect(rule.spec.groups).toEqual(file.groups);
      const rules = rule.spec.groups.flatMap((g) => g.rules);
      expect(rules.length).toBeGreaterThanOrEqual(9);
      for (const r of rules) expect(r.expr).toContain(`job="steward/${chart}"`);
    });

    it('queries only metrics that Steward’s libraries define', async () => {
      const defined = definedMetricNames();
      const used = dashboardMetricNames(
        readFileSync(join(chartDir, 'dashboards', `${chart}.json`), 'utf8'),
      );
      expect(used.size).toBeGreaterThan(8);
      expect([...used].filter((name) => !defined.has(name))).toEqual([]);
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

    it('pulls the image by tag (the appVersion by default), and by digest when image.digest is set', async () => {
      const imageOf = async (values?: ChartValues) =>
        podSpecOf(await render(values)).containers[0]!.image;
      const repository = `ghcr.io/steward-dev/${chart}`;
      expect(await imageOf()).toBe(`${repository}:${metadata.appVersion}`);
      expect(await imageOf({ image: { tag: '1.4.0' } })).toBe(`${repository}:1.4.0`);
      const digest = `sha256:${'d'.repeat(64)}`;
      // the digest wins over the tag: the release pins its charts with both set
      expect(await imageOf({ image: { tag: '1.4.0', digest } })).toBe(`${repository}@${digest}`);
      expect(
        await imageOf({ image: { repository: 'registry.example/mirror/controller', digest } }),
      ).toBe(`registry.example/mirror/controller@${digest}`);
    });

    it('passes the controller its configuration in the environment', async () => {
      const defaults = controllerEnv(await render());
      expect(defaults).toEqual({ ...commonDefaultEnv, ...spec.env?.defaults });
      const configured = podSpecOf(
        await render({
          watchNamespaces: ['team-b', 'team-a'],
          probePort: 9090,
          leaderElection: { enabled: false },
          logLevel: 'debug',
          maxConcurrentReconciles: 8,
          pollIntervalSeconds: 300,
          manageProviderProfiles: true,
          otel: { endpoint: 'http://otel-collector:4318' },
          extraEnv: [{ name: 'EXTRA', value: 'yes' }],
          ...spec.env?.configured?.values,
        }),
      ).containers[0]!;
      expect(envOf(configured)).toMatchObject({
        STEWARD_WATCH_NAMESPACES: 'team-a,team-b',
        STEWARD_PROBE_PORT: '9090',
        STEWARD_LEADER_ELECT: 'false',
        STEWARD_LOG_LEVEL: 'debug',
        STEWARD_MAX_CONCURRENT_RECONCILES: '8',
        STEWARD_POLL_INTERVAL_SECONDS: '300',
        STEWARD_MANAGE_PROVIDER_PROFILES: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
        EXTRA: 'yes',
        ...spec.env?.configured?.env,
      });
      expect(configured.ports).toEqual([{ name: 'http', containerPort: 9090, protocol: 'TCP' }]);
      // extraEnv comes last: an operator's variable is the one the process sees.
      expect(configured.env.at(-1)).toEqual({ name: 'EXTRA', value: 'yes' });
      expect(
        configured.env.map((e) => e.name).filter((n, i, names) => names.indexOf(n) !== i),
      ).toEqual([]);
      // The deprecated single namespace reaches the process as a list of one.
      const deprecated = controllerEnv(await render({ watchNamespace: 'team-a' }));
      expect(deprecated).toMatchObject({ STEWARD_WATCH_NAMESPACES: 'team-a' });
      expect(Object.keys(deprecated)).not.toContain('STEWARD_WATCH_NAMESPACE');
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
      // the job and instance the OpenTelemetry Collector gives the same metrics
      expect(monitor.spec.endpoints).toEqual([
        expect.objectContaining({
          port: 'metrics',
          path: '/metrics',
          honorLabels: true,
          relabelings: [
            { targetLabel: 'job', replacement: `steward/${chart}` },
            { sourceLabels: ['__meta_kubernetes_pod_name'], targetLabel: 'instance' },
          ],
        }),
      ]);
    });
  });

  describe('the rendered RBAC', () => {
    it.each(variations)('is least privilege with $name', async ({ values }) => {
      const rbac = chartRbac(await render(values));
      for (const rule of rbac.rules) {
        expect(rule.verbs).not.toContain('*');
        expect(rule.resources).not.toContain('*');
        expect(rule.apiGroups).not.toContain('*');
        expect(rule.nonResourceURLs).toBeUndefined();
        expect(Object.keys(grantableVerbs)).toEqual(expect.arrayContaining(rule.verbs));
        for (const verb of rule.verbs) {
          const only = grantableVerbs[verb];
          if (only !== '*' && only !== undefined) {
            expect(only, `${verb} on ${rule.resources}`).toEqual(
              expect.arrayContaining(rule.resources ?? []),
            );
          }
        }
      }
      const watchNamespace = values['watchNamespace'] as string | undefined;
      for (const verb of resourceVerbs.filter((v) => !secretVerbs.includes(v))) {
        for (const namespace of [
          undefined,
          'team-a',
          'provider-credentials',
          releaseNamespace,
          watchNamespace,
        ]) {
          expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace })).toBe(false);
        }
      }
      // The Lease: made in the release namespace, then read and renewed by its name only.
      const leaseRules = rbac.rules.filter(
        (r) =>
          r.resources?.includes('leases') &&
          // The workloads' Leases (managesWorkloadLeases) are the watch rules' concern.
          !(
            spec.managesWorkloadLeases &&
            !r.resourceNames?.includes(leaseName) &&
            r.verbs.some((v) => v !== 'create')
          ),
      );
      for (const rule of leaseRules) {
        expect(rule).toMatchObject({ roleKind: 'Role', namespace: releaseNamespace });
        if (rule.verbs.some((v) => v !== 'create')) expect(rule.resourceNames).toEqual([leaseName]);
      }
    });

    it.each(variations)('grants nothing twice with $name', async ({ values }) => {
      // A controller managing its workloads' Leases holds leases `create` where it watches, which
      // may include its leader-election Role's namespace.
      const twice = grantedTwice(chartRbac(await render(values))).filter(
        (g) => !(spec.managesWorkloadLeases && g.startsWith('coordination.k8s.io/leases ')),
      );
      expect(twice).toEqual([]);
    });

    it('grants exactly these rules with default values', async () => {
      const rbac = chartRbac(await render());
      expect(rbac.subject).toEqual({ namespace: releaseNamespace, name: chart });
      expect(rbac.rules.map(({ roleName: _roleName, ...rule }) => rule)).toEqual(spec.defaultRules);
    });

    if (spec.exactGrants?.length) {
      it.each(spec.exactGrants)(
        'grants exactly these rules, by role, with $name',
        async ({ values, grants }) => {
          const rbac = chartRbac(await render(values));
          expect(rbac.subject).toEqual({ namespace: releaseNamespace, name: chart });
          expect(grantsByRole(rbac)).toEqual(grants);
        },
      );
    }

    it('grants and refuses these requests with default values', async () => {
      const rbac = chartRbac(await render());
      expect(defaultAccess.map(({ allowed: _a, ...request }) => rbac.allows(request))).toEqual(
        defaultAccess.map((a) => a.allowed),
      );
    });

    it('moves the namespaced permissions into Roles when watchNamespace is set', async () => {
      const rbac = chartRbac(await render(watchNamespaceValues));
      const clusterWide = rbac.rules.filter((r) => r.roleKind === 'ClusterRole');
      // Only what is cluster-scoped: ProviderProfiles, Namespaces (their labels), Nodes (cordons).
      expect(clusterWide.flatMap((r) => r.resources)).toEqual([
        ...(profileControllerGranted
          ? ['providerprofiles', 'providerprofiles/status']
          : ['providerprofiles']),
        'namespaces',
        ...(readsNodes ? ['nodes'] : []),
      ]);
      expect(
        watchNamespaceAccess.map(({ allowed: _a, ...request }) => rbac.allows(request)),
      ).toEqual(watchNamespaceAccess.map((a) => a.allowed));
    });

    it('with watchNamespaces, grants the namespaced rules by one Role in each listed namespace and keeps only cluster-scoped rules in the ClusterRole', async () => {
      const rbac = chartRbac(await render(watchNamespacesValues));
      const clusterWide = rbac.rules.filter((r) => r.roleKind === 'ClusterRole');
      // Only what is cluster-scoped: ProviderProfiles, Namespaces (their labels), Nodes (cordons).
      expect(clusterWide.flatMap((r) => r.resources)).toEqual([
        ...(profileControllerGranted
          ? ['providerprofiles', 'providerprofiles/status']
          : ['providerprofiles']),
        'namespaces',
        ...(readsNodes ? ['nodes'] : []),
      ]);
      const grants = grantsByRole(rbac);
      // The same rules in each watched namespace, under the same Role name.
      expect(grants[`Role team-a/${chart}`]).toBeDefined();
      expect(grants[`Role team-b/${chart}`]).toEqual(grants[`Role team-a/${chart}`]);
      expect(rbac.roles.map((r) => r.metadata.namespace)).not.toContain('team-c');
      expect(
        watchNamespacesAccess.map(({ allowed: _a, ...request }) => rbac.allows(request)),
      ).toEqual(watchNamespacesAccess.map((a) => a.allowed));
    });

    if (readsProfileSecrets) {
      it('reads the profiles’ Secrets only in rbac.credentialsSecretNamespaces, in every mode that names them', async () => {
        const credentials = { rbac: { credentialsSecretNamespaces: ['provider-credentials'] } };
        const modes: [string, ChartValues][] = [
          ['every namespace', {}],
          ['watchNamespace', { watchNamespace: 'team-a' }],
          ['watchNamespaces', { watchNamespaces: watched2 }],
        ];
        for (const [mode, values] of modes) {
          const rbac = chartRbac(await render({ ...values, ...credentials }));
          const get = (namespace?: string) => rbac.allows({ ...secret, verb: 'get', namespace });
          expect(get('provider-credentials'), mode).toBe(true);
          // A chart that writes Secrets next to every namespace's objects reads any Secret there.
          const everywhere = mode === 'every namespace' && watchRulesReadSecrets;
          expect(get('team-c'), mode).toBe(everywhere);
          expect(get(undefined), mode).toBe(everywhere);
        }
      });

      it('reads no Secret outside the watched namespaces with watchNamespaces and no credentials namespaces', async () => {
        const rbac = chartRbac(await render({ watchNamespaces: watched2 }));
        for (const namespace of [undefined, 'team-c', 'default', 'provider-credentials']) {
          expect(rbac.allows({ ...secret, verb: 'get', namespace })).toBe(false);
        }
        // The deprecated single namespace keeps its cluster-wide `get`, as before (unless the
        // chart never had it).
        const deprecated = chartRbac(await render({ watchNamespace: 'team-a' }));
        expect(deprecated.allows({ ...secret, verb: 'get', namespace: 'team-c' })).toBe(
          legacyWatchNamespaceSecrets,
        );
      });
    }

    it(
      profileRulesWhenManaged
        ? 'grants the ProviderProfile controller’s permissions only when it runs'
        : 'grants the ProviderProfile controller’s permissions whether it runs or not',
      async () => {
        const profileEvents = { ...events, namespace: 'default' };
        const cases: [ChartValues, boolean][] = [
          [{}, true],
          [{ manageProviderProfiles: false }, false],
          [{ watchNamespace: 'team-a' }, false],
          [{ watchNamespace: 'team-a', manageProviderProfiles: true }, true],
          [{ watchNamespaces: watched2 }, false],
          [{ watchNamespaces: watched2, manageProviderProfiles: true }, true],
        ];
        for (const [values, runs] of cases) {
          const rbac = chartRbac(await render(values));
          const granted = runs || !profileRulesWhenManaged;
          const answers = [
            rbac.allows({ ...profiles, verb: 'list' }),
            rbac.allows({ ...profiles, verb: 'patch' }),
            rbac.allows({ ...profileStatus, verb: 'patch' }),
            // Without watched namespaces, the ClusterRole lets it write Events everywhere anyway.
            rbac.allows(profileEvents),
          ];
          const namespaced = Boolean(values['watchNamespace'] ?? values['watchNamespaces']);
          expect(answers, JSON.stringify(values)).toEqual([
            true,
            granted,
            granted,
            granted || !namespaced,
          ]);
        }
      },
    );

    if (readsProfileSecrets && legacyWatchNamespaceSecrets) {
      it('keeps cluster-wide `get` on Secrets with watchNamespace but no credentials namespaces', async () => {
        const rbac = chartRbac(await render({ watchNamespace: 'team-a' }));
        expect(rbac.allows({ ...secret, verb: 'get', namespace: 'any' })).toBe(true);
        expect(rbac.allows({ ...secret, verb: 'create', namespace: 'any' })).toBe(false);
      });
    } else {
      it('touches no Secret outside the watched namespace with watchNamespace', async () => {
        const rbac = chartRbac(await render({ watchNamespace: 'team-a' }));
        const elsewhere = [
          undefined,
          'team-b',
          'default',
          releaseNamespace,
          'provider-credentials',
        ];
        const granted = elsewhere.flatMap((namespace) =>
          resourceVerbs
            .filter((verb) => rbac.allows({ ...secret, verb, namespace }))
            .map((verb) => `${verb} in ${namespace ?? 'every namespace'}`),
        );
        expect(granted).toEqual([]);
      });
    }
  });

  describe('the rendered chart on a real API server', () => {
    let plane: ControlPlane;
    let admin: ChartTestClient;

    beforeAll(async () => {
      plane = await startControlPlane({ crds: [join(chartDir, 'crds')] });
      const dir = await mkdtemp(join(tmpdir(), 'steward-servicemonitor-crd-'));
      try {
        for (const kind of ['ServiceMonitor', 'PrometheusRule'])
          await writeFile(
            join(dir, `${kind.toLowerCase()}.json`),
            JSON.stringify(monitoringCrd(kind)),
          );
        await plane.installCRDs(dir);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      admin = spec.connect(plane.kubeConfig);
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
      await expect(dryRunCreate(admin, pod(template.spec))).resolves.toMatchObject({
        kind: 'Pod',
      });
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
      expect(installed.stdout).toContain(`It reconciles ${kind.kind}s in every namespace`);
      for (const line of spec.notes ?? []) expect(installed.stdout).toContain(line);
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
        use: (identity: ChartTestClient) => Promise<void>,
      ): Promise<void> {
        const identity = spec.connect(await bindChartRbac(plane, manifests, namespace));
        try {
          await use(identity);
        } finally {
          await identity.close();
        }
      }
      const list = (identity: ApiRequester, resource: ServedResource, namespace?: string) =>
        identity.request({ method: 'GET', path: resourcePath(resource, namespace) });

      /** The authorizer's answer to each request of `access`, asked as `identity`. */
      async function authorizerAnswers(identity: ApiRequester, access: ChartAccess[]) {
        const answers: boolean[] = [];
        for (const { allowed: _allowed, ...request } of access) {
          answers.push(await authorizerAllows(identity, request));
        }
        return answers;
      }
      const user = `User "system:serviceaccount:${releaseNamespace}:${chart}"`;

      it(
        listsSecrets
          ? `lists ${kind.kind}s and their Secrets everywhere, and the authorizer agrees with the rendered rules`
          : `lists ${kind.kind}s everywhere but is refused listing Secrets, and the authorizer agrees with the rendered rules`,
        async () => {
          const manifests = await render();
          await asServiceAccount(manifests, releaseNamespace, async (identity) => {
            await expect(list(identity, kind)).resolves.toMatchObject({ items: [] });
            await expect(list(identity, kind, 'team-a')).resolves.toMatchObject({ items: [] });
            if (listsSecrets) {
              await expect(list(identity, Secrets)).resolves.toMatchObject({ kind: 'SecretList' });
              await expect(list(identity, Secrets, releaseNamespace)).resolves.toMatchObject({
                items: expect.any(Array),
              });
            } else {
              await expect(list(identity, Secrets)).rejects.toMatchObject({
                code: 403,
                message: `secrets is forbidden: ${user} cannot list resource "secrets" in API group "" at the cluster scope`,
              });
              await expect(list(identity, Secrets, releaseNamespace)).rejects.toMatchObject({
                code: 403,
              });
            }
            // Reading one Secret by name is allowed (the answer is "not found", not "forbidden")
            // unless the controller reads no Secret at all.
            await expect(
              identity.request({
                method: 'GET',
                path: resourcePath(Secrets, 'default', 'provider-credentials'),
              }),
            ).rejects.toMatchObject({ code: readsSecrets ? 404 : 403 });
            // Deleting one of the objects users declare is refused before it is looked up.
            await expect(
              identity.request({
                method: 'DELETE',
                path: resourcePath(kind, 'team-a', 'anything'),
              }),
            ).rejects.toMatchObject({
              code: 403,
              message: `${kind.plural}.${kind.group} "anything" is forbidden: ${user} cannot delete resource "${kind.plural}" in API group "${kind.group}" in the namespace "team-a"`,
            });
            const rbac = chartRbac(manifests);
            const answers = await authorizerAnswers(identity, defaultAccess);
            expect(answers).toEqual(defaultAccess.map((a) => a.allowed));
            expect(answers).toEqual(defaultAccess.map(({ allowed: _a, ...r }) => rbac.allows(r)));
          });
        },
      );

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
          if (spec.managesWorkloadLeases) {
            // It manages its workloads' Leases wherever it watches (every namespace here).
            await expect(getLease('someone-elses')).rejects.toMatchObject({ code: 404 });
            await expect(createLease('default')).resolves.toMatchObject({ kind: 'Lease' });
          } else {
            await expect(getLease('someone-elses')).rejects.toMatchObject({ code: 403 });
            await expect(createLease('default')).rejects.toMatchObject({ code: 403 });
          }
        });
      });

      it(
        listsSecrets
          ? `with watchNamespace, reaches ${kind.kind}s and Secrets in that namespace only, and the authorizer agrees with the rendered rules`
          : `with watchNamespace, reaches ${kind.kind}s in that namespace only, and the authorizer agrees with the rendered rules`,
        async () => {
          const namespace = 'team-a-system';
          const manifests = await render(watchNamespaceValues, {
            releaseName: 'team-a',
            namespace,
          });
          await asServiceAccount(manifests, namespace, async (identity) => {
            await expect(list(identity, kind, 'team-a')).resolves.toMatchObject({ items: [] });
            await expect(list(identity, kind)).rejects.toMatchObject({ code: 403 });
            await expect(list(identity, kind, 'team-b')).rejects.toMatchObject({ code: 403 });
            if (listsSecrets) {
              await expect(list(identity, Secrets, 'team-a')).resolves.toMatchObject({
                items: [],
              });
            } else {
              await expect(list(identity, Secrets, 'team-a')).rejects.toMatchObject({
                code: 403,
              });
            }
            await expect(list(identity, Secrets, 'team-b')).rejects.toMatchObject({ code: 403 });
            await expect(list(identity, Secrets)).rejects.toMatchObject({ code: 403 });
            const rbac = chartRbac(manifests);
            const answers = await authorizerAnswers(identity, watchNamespaceAccess);
            expect(answers).toEqual(watchNamespaceAccess.map((a) => a.allowed));
            expect(answers).toEqual(
              watchNamespaceAccess.map(({ allowed: _a, ...r }) => rbac.allows(r)),
            );
          });
        },
      );

      if (watchRulesReadSecrets) {
        it(`sets blockOwnerDeletion on a child of its ${kind.kind}s only (OwnerReferencesPermissionEnforcement is on)`, async () => {
          const namespace = 'owners-system';
          const manifests = await render(watchNamespacesValues, {
            releaseName: 'owners',
            namespace,
          });
          await asServiceAccount(manifests, namespace, async (identity) => {
            const createOwnedSecret = (owner: { apiVersion: string; kind: string }) =>
              identity.request({
                method: 'POST',
                path: resourcePath(Secrets, 'team-a'),
                query: { dryRun: 'All' },
                body: {
                  apiVersion: 'v1',
                  kind: 'Secret',
                  metadata: {
                    name: 'owned',
                    namespace: 'team-a',
                    ownerReferences: [
                      {
                        ...owner,
                        name: 'owner',
                        uid: '6b0c8a4e-0000-4000-8000-000000000001',
                        controller: true,
                        blockOwnerDeletion: true,
                      },
                    ],
                  },
                },
              });
            // The admission plugin asks for `update` on the owner's finalizers: granted for its kind…
            await expect(
              createOwnedSecret({
                apiVersion: `${kind.group}/${kind.version}`,
                kind: kind.kind,
              }),
            ).resolves.toMatchObject({ kind: 'Secret' });
            // …and refused for any other owner.
            await expect(
              createOwnedSecret({ apiVersion: 'apps/v1', kind: 'Deployment' }),
            ).rejects.toMatchObject({
              code: 403,
              message: expect.stringContaining('cannot set blockOwnerDeletion'),
            });
          });
        });
      }

      it(`with watchNamespaces [team-a, team-b], reaches ${kind.kind}s in those namespaces only and is forbidden to read a Secret in team-c, and the authorizer agrees with the rendered rules`, async () => {
        const namespace = 'teams-system';
        const manifests = await render(watchNamespacesValues, {
          releaseName: 'teams',
          namespace,
        });
        await applyNamespace(plane, 'team-c');
        const secretInC = {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'not-yours', namespace: 'team-c' },
          stringData: { password: 'team-c only' },
        };
        await admin
          .request({ method: 'POST', path: resourcePath(Secrets, 'team-c'), body: secretInC })
          .catch((error: { code?: number }) => {
            if (error.code !== 409) throw error;
          });
        await asServiceAccount(manifests, namespace, async (identity) => {
          const sa = `User "system:serviceaccount:${namespace}:${chartRbac(manifests).subject.name}"`;
          for (const ns of watched2) {
            await expect(list(identity, kind, ns)).resolves.toMatchObject({ items: [] });
          }
          await expect(list(identity, kind, 'team-c')).rejects.toMatchObject({ code: 403 });
          await expect(list(identity, kind)).rejects.toMatchObject({ code: 403 });
          // The Secret exists: the answer is "forbidden", not "not found".
          await expect(
            identity.request({
              method: 'GET',
              path: resourcePath(Secrets, 'team-c', 'not-yours'),
            }),
          ).rejects.toMatchObject({
            code: 403,
            message: `secrets "not-yours" is forbidden: ${sa} cannot get resource "secrets" in API group "" in the namespace "team-c"`,
          });
          await expect(list(identity, Secrets)).rejects.toMatchObject({ code: 403 });
          const rbac = chartRbac(manifests);
          const answers = await authorizerAnswers(identity, watchNamespacesAccess);
          expect(answers).toEqual(watchNamespacesAccess.map((a) => a.allowed));
          expect(answers).toEqual(
            watchNamespacesAccess.map(({ allowed: _a, ...r }) => rbac.allows(r)),
          );
        });
      });
    });
  });
}
