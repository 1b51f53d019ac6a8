/**
 * Helm charts as tests see them: rendered by the project's helm binary (`renderChart`), their
 * RBAC read back as rules (`chartRbac`) and bound on a real API server to an identity that RBAC
 * treats exactly like the chart's ServiceAccount (`bindChartRbac`), and each rendered object sent
 * to a real API server as a dry-run create (`dryRunCreate`).
 *
 * Every function takes the chart's directory or what the chart rendered; nothing here knows a
 * particular chart. Requests that must surface the project's typed API errors go through an
 * {@link ApiRequester} the caller passes (a `KubeClient` of @steward/kube is one); the rest use
 * @kubernetes/client-node. This library cannot import @steward/kube: that library's own tests use
 * this one.
 */
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { controlPlaneBinaries, eventually, type ControlPlane } from '@steward/testing';
import { load, loadAll } from 'js-yaml';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The release namespace `renderChart` uses unless told otherwise. */
export const defaultReleaseNamespace = 'steward-system';

/** The metadata of a rendered object that these helpers read. */
export interface ManifestMetadata {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An object to send to the API server: what `dryRunCreate` needs of it. */
export interface ObjectManifest {
  apiVersion: string;
  kind: string;
  metadata: ManifestMetadata;
}

/** One rendered object, as helm printed it (plain JSON, no defaults filled in by a server). */
export interface Manifest extends ObjectManifest {
  [field: string]: unknown;
}

/** Values for a chart; checked by helm against the chart's values.schema.json. */
export type ChartValues = Record<string, unknown>;

/** What Chart.yaml says about a chart. */
export interface ChartMetadata {
  name: string;
  version: string;
  appVersion: string;
}

/** Reads `<chartDir>/Chart.yaml`. */
export function readChartMetadata(chartDir: string): ChartMetadata {
  const chart = load(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Partial<ChartMetadata>;
  if (!chart?.name || !chart.version) {
    throw new Error(`${chartDir}/Chart.yaml names no chart and version`);
  }
  return { name: chart.name, version: chart.version, appVersion: String(chart.appVersion ?? '') };
}

export interface RenderOptions {
  /** Default: the chart's name (the object names are then the chart name). */
  releaseName?: string;
  /** Default {@link defaultReleaseNamespace}. */
  namespace?: string;
}

export interface HelmResult {
  /** Exit code; 0 on success. */
  code: number;
  stdout: string;
  stderr: string;
}

/** helm exited with an error; `stderr` carries helm's own message (e.g. a schema violation). */
export class HelmError extends Error {
  override name = 'HelmError';
  constructor(
    readonly args: readonly string[],
    readonly result: HelmResult,
  ) {
    super(`helm ${args.join(' ')} exited with ${result.code}: ${result.stderr.trim()}`);
  }
}

/**
 * Runs the project's helm binary (built by tools/control-plane/build.sh) with `args` and answers
 * its exit code and output; never throws for a non-zero exit. Helm's home, cache, config and data
 * directories are a temporary directory, removed afterwards, so nothing outside it is touched and
 * no repository index is consulted.
 */
export async function runHelm(args: readonly string[]): Promise<HelmResult> {
  const { helm } = await controlPlaneBinaries();
  const home = await mkdtemp(join(tmpdir(), 'steward-helm-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  try {
    return await new Promise<HelmResult>((resolve, reject) => {
      execFile(
        helm,
        [...args],
        { env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== 'number') reject(error);
          else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
        },
      );
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * Runs `helm <command> <chartDir> -f <values> <extraArgs>` with `values` written to a temporary
 * file (JSON is YAML), and answers helm's result without throwing. `command` is e.g.
 * `['template', 'my-release']` or `['lint', '--strict']`.
 */
export async function runHelmWithValues(
  chartDir: string,
  command: readonly string[],
  values: ChartValues = {},
  extraArgs: readonly string[] = [],
): Promise<HelmResult> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-chart-values-'));
  try {
    const valuesFile = join(dir, 'values.json');
    await writeFile(valuesFile, JSON.stringify(values));
    return await runHelm([...command, chartDir, '-f', valuesFile, ...extraArgs]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `helm template` of the chart in `chartDir` with `values` (merged over its values.yaml by helm),
 * parsed into one object per YAML document, in helm's install order. Throws a `HelmError`
 * carrying helm's message when helm refuses (a values.schema.json violation, a `required` value,
 * a template error).
 */
export async function renderChart(
  chartDir: string,
  values: ChartValues = {},
  options: RenderOptions = {},
): Promise<Manifest[]> {
  const releaseName = options.releaseName ?? readChartMetadata(chartDir).name;
  const namespace = options.namespace ?? defaultReleaseNamespace;
  const command = ['template', releaseName];
  const extra = ['--namespace', namespace];
  const result = await runHelmWithValues(chartDir, command, values, extra);
  if (result.code !== 0) throw new HelmError([...command, chartDir, ...extra], result);
  return loadAll(result.stdout).filter(
    (doc): doc is Manifest => typeof doc === 'object' && doc !== null,
  );
}

/** The rendered objects of one kind (and name, when given). */
export function manifestsOf(manifests: readonly Manifest[], kind: string, name?: string) {
  return manifests.filter(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
}

/** The one rendered object of `kind` (and `name`); throws when there is none or more than one. */
export function manifestOf<T extends Manifest = Manifest>(
  manifests: readonly Manifest[],
  kind: string,
  name?: string,
): T {
  const found = manifestsOf(manifests, kind, name);
  if (found.length !== 1) {
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, rendered ${found.length}`);
  }
  return found[0] as T;
}

/** An RBAC PolicyRule as written in a Role or ClusterRole. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** One rule of a rendered role, with where it applies. */
export interface ScopedRule extends PolicyRule {
  roleKind: 'ClusterRole' | 'Role';
  roleName: string;
  /** The Role's namespace; undefined for a ClusterRole (every namespace and cluster scope). */
  namespace: string | undefined;
}

export interface RoleManifest extends Manifest {
  rules?: PolicyRule[];
}

export interface BindingManifest extends Manifest {
  roleRef: { apiGroup: string; kind: 'ClusterRole' | 'Role'; name: string };
  subjects?: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
}

/** A question for `ChartRbac.allows`, as a SubjectAccessReview asks it. */
export interface AccessRequest {
  verb: string;
  /** API group; `''` for the core group. */
  group: string;
  /** Plural resource, with a subresource as `kafkatopics/status`. */
  resource: string;
  /** Omitted: the request is cluster-wide (a list across namespaces, a cluster-scoped object). */
  namespace?: string;
  name?: string;
}

/** A chart's RBAC objects and what they grant its ServiceAccount. */
export interface ChartRbac {
  serviceAccounts: Manifest[];
  clusterRoles: RoleManifest[];
  clusterRoleBindings: BindingManifest[];
  roles: RoleManifest[];
  roleBindings: BindingManifest[];
  /** `namespace/name` of the ServiceAccount the bindings name. */
  subject: { namespace: string; name: string };
  /** Every rule of every role that a rendered binding grants to the subject. */
  rules: ScopedRule[];
  /** Whether those rules grant `request`, evaluated as the RBAC authorizer does (wildcards too). */
  allows(request: AccessRequest): boolean;
}

/**
 * Reads the RBAC a rendering of a chart grants: the roles bound (by the rendered bindings) to the
 * one ServiceAccount they name. Throws when the bindings name no ServiceAccount or several, or
 * reference a role that was not rendered.
 */
export function chartRbac(manifests: readonly Manifest[]): ChartRbac {
  const clusterRoles = manifestsOf(manifests, 'ClusterRole') as RoleManifest[];
  const roles = manifestsOf(manifests, 'Role') as RoleManifest[];
  const clusterRoleBindings = manifestsOf(manifests, 'ClusterRoleBinding') as BindingManifest[];
  const roleBindings = manifestsOf(manifests, 'RoleBinding') as BindingManifest[];
  const bindings = [...clusterRoleBindings, ...roleBindings];

  const subjects = new Set(
    bindings.flatMap((b) =>
      (b.subjects ?? [])
        .filter((s) => s.kind === 'ServiceAccount')
        .map((s) => `${s.namespace ?? b.metadata.namespace ?? ''}/${s.name}`),
    ),
  );
  if (subjects.size !== 1) {
    throw new Error(`expected bindings to one ServiceAccount, found [${[...subjects].join(', ')}]`);
  }
  const [subjectNamespace = '', subjectName = ''] = [...subjects][0]!.split('/');

  const rules: ScopedRule[] = [];
  for (const binding of bindings) {
    const { kind, name } = binding.roleRef;
    // A RoleBinding may reference a ClusterRole: its rules then apply in the binding's namespace.
    const namespace = binding.kind === 'RoleBinding' ? binding.metadata.namespace : undefined;
    const role =
      kind === 'ClusterRole'
        ? clusterRoles.find((r) => r.metadata.name === name)
        : roles.find((r) => r.metadata.name === name && r.metadata.namespace === namespace);
    if (!role) {
      throw new Error(
        `${binding.kind} ${binding.metadata.name} references ${kind} ${name}, which was not rendered`,
      );
    }
    for (const rule of role.rules ?? []) {
      rules.push({ ...rule, roleKind: kind, roleName: name, namespace });
    }
  }

  return {
    serviceAccounts: manifestsOf(manifests, 'ServiceAccount'),
    clusterRoles,
    clusterRoleBindings,
    roles,
    roleBindings,
    subject: { namespace: subjectNamespace, name: subjectName },
    rules,
    allows: (request) => rules.some((rule) => ruleAllows(rule, request)),
  };
}

function ruleAllows(rule: ScopedRule, request: AccessRequest): boolean {
  const matches = (list: string[] | undefined, value: string): boolean =>
    (list ?? []).some((item) => item === '*' || item === value);
  if (rule.namespace !== undefined && rule.namespace !== request.namespace) return false;
  if (!matches(rule.verbs, request.verb)) return false;
  if (!matches(rule.apiGroups, request.group)) return false;
  const subresource = request.resource.split('/')[1];
  const resourceMatches = (rule.resources ?? []).some(
    (r) =>
      r === '*' ||
      r === request.resource ||
      (subresource !== undefined && r === `*/${subresource}`),
  );
  if (!resourceMatches) return false;
  if (rule.resourceNames?.length) {
    return request.name !== undefined && rule.resourceNames.includes(request.name);
  }
  return true;
}

/** The field manager of what these helpers apply as the control plane's admin. */
const fieldManager = 'steward-chart-test';

/** The kinds `bindChartRbac` applies. */
const rbacKinds = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

/**
 * Server-side applies `object` to `plane` as its admin (forcing ownership of conflicting fields);
 * a namespaced object without a namespace goes to `namespace`.
 */
export async function applyAsAdmin(
  plane: Pick<ControlPlane, 'client'>,
  object: ObjectManifest,
  namespace?: string,
): Promise<void> {
  const metadata =
    object.metadata.namespace || !namespace ? object.metadata : { ...object.metadata, namespace };
  await plane.client.patch(
    { ...object, metadata } as KubernetesObject,
    undefined,
    undefined,
    fieldManager,
    true,
    PatchStrategy.ServerSideApply,
  );
}

/** Applies the Namespace `name` (with `labels`, when given) to `plane` as its admin. */
export async function applyNamespace(
  plane: Pick<ControlPlane, 'client'>,
  name: string,
  labels?: Record<string, string>,
): Promise<void> {
  await applyAsAdmin(plane, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, ...(labels ? { labels } : {}) },
  });
}

/**
 * What binding chart RBAC needs of a cluster: an admin client and kubeconfig — a test control plane
 * or the node tier. With `kubeConfigFor` (a control plane's CA), a ServiceAccount identity whose
 * name fits a certificate is a client certificate; otherwise it is a TokenRequest token, as a pod
 * gets.
 */
export type ClusterAdmin = Pick<ControlPlane, 'client' | 'kubeConfig'> &
  Partial<Pick<ControlPlane, 'kubeConfigFor'>>;

/**
 * Applies the rendered ServiceAccount, ClusterRoles, ClusterRoleBindings, Roles and RoleBindings
 * to `plane` (as its admin, server-side apply; missing namespaces are created, and the
 * ServiceAccount too when the chart did not render one), waits until the API server's authorizer
 * grants every rendered rule (a SubjectAccessReview per rule), and returns a KubeConfig for the
 * ServiceAccount's identity. That is a client certificate for
 * `system:serviceaccount:<namespace>:<name>` in the groups `system:serviceaccounts`,
 * `system:serviceaccounts:<namespace>` and `system:authenticated` (from `plane.kubeConfigFor`),
 * which RBAC treats exactly like the ServiceAccount's token; when that user name is longer than a
 * certificate's common name may be (64 characters, e.g. `steward-system` +
 * `database-instance-controller`), it is a token for the ServiceAccount from the TokenRequest API.
 * `namespace` is the release namespace the manifests were rendered for.
 */
export async function bindChartRbac(
  plane: ClusterAdmin,
  manifests: readonly Manifest[],
  namespace: string,
): Promise<KubeConfig> {
  const rbac = chartRbac(manifests);
  if (rbac.subject.namespace !== namespace) {
    throw new Error(
      `the chart binds ServiceAccount ${rbac.subject.namespace}/${rbac.subject.name}, not one in ${namespace}`,
    );
  }
  const objects = manifests.filter((m) => rbacKinds.has(m.kind));
  const namespaces = new Set([
    namespace,
    ...objects.map((m) => m.metadata.namespace).filter((ns): ns is string => Boolean(ns)),
  ]);
  for (const ns of namespaces) await applyNamespace(plane, ns);
  if (!objects.some((m) => m.kind === 'ServiceAccount')) {
    // serviceAccount.create=false names a ServiceAccount the installer provides; provide it.
    await applyAsAdmin(plane, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: rbac.subject.name, namespace },
    });
  }
  for (const object of objects) {
    const clusterScoped = object.kind === 'ClusterRole' || object.kind === 'ClusterRoleBinding';
    await applyAsAdmin(plane, object, clusterScoped ? undefined : namespace);
  }

  const user = `system:serviceaccount:${namespace}:${rbac.subject.name}`;
  const groups = [
    'system:serviceaccounts',
    `system:serviceaccounts:${namespace}`,
    'system:authenticated',
  ];
  // The authorizer reads RBAC objects from its informer cache: wait until it sees every rule.
  const authorization = plane.kubeConfig.makeApiClient(AuthorizationV1Api);
  for (const rule of rbac.rules) {
    const [resource = '', subresource] = (rule.resources ?? [''])[0]!.split('/');
    const resourceAttributes = {
      verb: rule.verbs[0],
      group: rule.apiGroups?.[0] ?? '',
      resource,
      subresource,
      namespace: rule.namespace,
      name: rule.resourceNames?.[0],
    };
    await eventually(
      async () => {
        const review = await authorization.createSubjectAccessReview({
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user, groups, resourceAttributes },
          },
        });
        return review.status?.allowed === true;
      },
      {
        description: `RBAC to allow ${user} ${JSON.stringify(resourceAttributes)}`,
        timeoutMs: 30_000,
      },
    );
  }
  if (user.length <= maxCommonNameLength && plane.kubeConfigFor)
    return plane.kubeConfigFor({ name: user, groups });
  return serviceAccountTokenKubeConfig(plane, namespace, rbac.subject.name);
}

/** X.509's upper bound on a certificate's common name (RFC 5280 `ub-common-name`). */
const maxCommonNameLength = 64;

/**
 * A KubeConfig that authenticates with a token the TokenRequest API issued for the ServiceAccount
 * (which must exist): for names too long for a client certificate's common name.
 */
async function serviceAccountTokenKubeConfig(
  plane: Pick<ControlPlane, 'kubeConfig'>,
  namespace: string,
  name: string,
): Promise<KubeConfig> {
  const answer = await plane.kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccountToken({
      name,
      namespace,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: [], expirationSeconds: 3600 },
      },
    });
  const cluster = plane.kubeConfig.getCurrentCluster()!;
  const user = `system:serviceaccount:${namespace}:${name}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token: answer.status?.token }],
    contexts: [{ name: 'steward', cluster: cluster.name, user, namespace }],
    currentContext: 'steward',
  });
  return kubeConfig;
}

/** A raw request to the API server, as {@link ApiRequester.request} takes it. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path without query, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
}

/**
 * Sends raw requests to one API server, as one identity, and rejects with the client's typed
 * error when the server refuses. A `KubeClient` of @steward/kube is one.
 */
export interface ApiRequester {
  request<R = unknown>(request: ApiRequest): Promise<R>;
}

/** A resource as the API server serves it: what a request path is built from. */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

const discovered = new WeakMap<ApiRequester, Map<string, Promise<ApiResourceList>>>();

/**
 * The resource of `apiVersion`/`kind` as the API server behind `client` serves it, from its
 * discovery document (cached per client). Rejects with the client's error when the
 * group/version is not served (404), and with an `Error` when it does not serve the kind.
 */
export async function resourceTypeFor(
  client: ApiRequester,
  apiVersion: string,
  kind: string,
): Promise<ServedResource> {
  let cache = discovered.get(client);
  if (!cache) discovered.set(client, (cache = new Map()));
  let list = cache.get(apiVersion);
  if (!list) {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    list = client.request<ApiResourceList>({ method: 'GET', path });
    list.catch(() => cache.delete(apiVersion));
    cache.set(apiVersion, list);
  }
  const resource = (await list).resources.find((r) => r.kind === kind && !r.name.includes('/'));
  if (!resource) throw new Error(`the API server does not serve ${kind} in ${apiVersion}`);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return {
    group: group!,
    version: version!,
    kind,
    plural: resource.name,
    namespaced: resource.namespaced,
  };
}

/**
 * The collection path of `resource` (in `namespace` when it is namespaced and one is given; every
 * namespace otherwise), or the path of the object `name` in it.
 */
export function resourcePath(resource: ServedResource, namespace?: string, name?: string): string {
  const segments = resource.group === '' ? ['api'] : ['apis', resource.group];
  segments.push(resource.version);
  if (resource.namespaced && namespace !== undefined) segments.push('namespaces', namespace);
  segments.push(resource.plural);
  if (name !== undefined) segments.push(name);
  return '/' + segments.map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join('/');
}

/**
 * Sends `manifest` to the API server behind `client` as a create with `dryRun=All` and
 * `fieldValidation=Strict`: validated, defaulted and admitted (admission webhooks and Pod Security
 * included), persisted nowhere, and an unknown or duplicate field is an error rather than a
 * warning. Answers the object as the server would have stored it; rejects with the client's typed
 * error (for a `KubeClient`: `InvalidError`, `BadRequestError`, `ForbiddenError`, …) when the
 * server refuses. A namespaced object without a namespace goes to `namespace`.
 */
export async function dryRunCreate(
  client: ApiRequester,
  manifest: ObjectManifest,
  namespace?: string,
): Promise<Manifest> {
  const resource = await resourceTypeFor(client, manifest.apiVersion, manifest.kind);
  const target = resource.namespaced ? (manifest.metadata.namespace ?? namespace) : undefined;
  if (resource.namespaced && !target) {
    throw new TypeError(`${manifest.kind} ${manifest.metadata.name} has no namespace`);
  }
  return client.request<Manifest>({
    method: 'POST',
    path: resourcePath(resource, target),
    query: { dryRun: 'All', fieldValidation: 'Strict' },
    body: manifest,
  });
}
