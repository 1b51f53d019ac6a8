/**
 * The database-instance-controller Helm chart, as tests see it: rendered by the real helm binary
 * (`renderChart`), its RBAC read back as rules (`chartRbac`), and that RBAC bound on a real API
 * server to an identity that RBAC treats exactly like the chart's ServiceAccount (`bindChartRbac`).
 */
import { KubeConfig } from '@kubernetes/client-node';
import {
  apiPath,
  KubeClient,
  Namespaces,
  RoleBindings,
  Roles,
  ServiceAccounts,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { controlPlaneBinaries, eventually, repoRoot, type ControlPlane } from '@steward/testing';
import { loadAll } from 'js-yaml';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The chart's directory in the repository. */
export const chartDir = join(repoRoot(), 'charts', 'database-instance-controller');
/** Its generated CRDs (DatabaseInstance, ProviderProfile), for `startControlPlane({ crds })`. */
export const chartCrdsDir = join(chartDir, 'crds');
/** The release name `renderChart` uses unless told otherwise. */
export const defaultReleaseName = 'database-instance-controller';
/** The release namespace `renderChart` uses unless told otherwise. */
export const defaultReleaseNamespace = 'steward-system';

/** One rendered object, as helm printed it (plain JSON, no defaults filled in by a server). */
export interface Manifest extends KubeObject {
  [field: string]: unknown;
}

/** Values for the chart; checked by helm against values.schema.json. */
export type ChartValues = Record<string, unknown>;

export interface RenderOptions {
  /** Default `database-instance-controller` (the object names are then the chart name). */
  releaseName?: string;
  /** Default `steward-system`. */
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
 * directories are a temporary directory, removed afterwards, so nothing outside it is touched.
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
 * Runs `helm <command> <chart> … -f <values>` with `values` written to a temporary file (JSON is
 * YAML), and answers helm's result without throwing. `command` is e.g. `['template', 'my-release']`
 * or `['lint', '--strict']`; the chart directory and the values file are appended.
 */
export async function runHelmWithValues(
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
 * `helm template` of the chart with `values` (merged over values.yaml by helm), parsed into one
 * object per YAML document, in helm's install order. Throws a `HelmError` carrying helm's message
 * when helm refuses (a values.schema.json violation, a `required` value, a template error).
 */
export async function renderChart(
  values: ChartValues = {},
  options: RenderOptions = {},
): Promise<Manifest[]> {
  const releaseName = options.releaseName ?? defaultReleaseName;
  const namespace = options.namespace ?? defaultReleaseNamespace;
  const command = ['template', releaseName];
  const extra = ['--namespace', namespace];
  const result = await runHelmWithValues(command, values, extra);
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
  /** Plural resource, with a subresource as `databaseinstances/status`. */
  resource: string;
  /** Omitted: the request is cluster-wide (a list across namespaces, a cluster-scoped object). */
  namespace?: string;
  name?: string;
}

/** The chart's RBAC objects and what they grant its ServiceAccount. */
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
 * Reads the RBAC a rendering of the chart grants: the roles bound (by the rendered bindings) to the
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

const ClusterRoles: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
};
const ClusterRoleBindings: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
};
const rbacTypes: Record<string, ResourceType> = {
  ServiceAccount: ServiceAccounts,
  ClusterRole: ClusterRoles,
  ClusterRoleBinding: ClusterRoleBindings,
  Role: Roles,
  RoleBinding: RoleBindings,
};

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
  plane: ControlPlane,
  manifests: readonly Manifest[],
  namespace: string,
): Promise<KubeConfig> {
  const rbac = chartRbac(manifests);
  if (rbac.subject.namespace !== namespace) {
    throw new Error(
      `the chart binds ServiceAccount ${rbac.subject.namespace}/${rbac.subject.name}, not one in ${namespace}`,
    );
  }
  const admin = new KubeClient(plane.kubeConfig, { fieldManager: 'steward-chart-test' });
  try {
    const objects = manifests.filter((m) => m.kind in rbacTypes);
    const namespaces = new Set([
      namespace,
      ...objects.map((m) => m.metadata.namespace).filter((ns): ns is string => Boolean(ns)),
    ]);
    for (const ns of namespaces) {
      await admin.apply(Namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
    }
    if (!objects.some((m) => m.kind === 'ServiceAccount')) {
      // serviceAccount.create=false names a ServiceAccount the installer provides; provide it.
      await admin.apply(ServiceAccounts, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: rbac.subject.name, namespace },
      });
    }
    for (const object of objects) {
      const rt = rbacTypes[object.kind]!;
      const metadata = {
        ...object.metadata,
        name: object.metadata.name ?? '',
        ...(rt.namespaced ? { namespace: object.metadata.namespace ?? namespace } : {}),
      };
      await admin.apply(rt, { ...object, metadata }, { force: true });
    }

    const user = `system:serviceaccount:${namespace}:${rbac.subject.name}`;
    const groups = [
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ];
    // The authorizer reads RBAC objects from its informer cache: wait until it sees every rule.
    for (const rule of rbac.rules) {
      const [resource = '', subresource] = (rule.resources ?? [''])[0]!.split('/');
      const attributes = {
        verb: rule.verbs[0],
        group: rule.apiGroups?.[0] ?? '',
        resource,
        subresource,
        namespace: rule.namespace,
        name: rule.resourceNames?.[0],
      };
      await eventually(
        async () => {
          const review = await admin.request<{ status?: { allowed?: boolean } }>({
            method: 'POST',
            path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SubjectAccessReview',
              spec: { user, groups, resourceAttributes: attributes },
            },
          });
          return review.status?.allowed === true;
        },
        { description: `RBAC to allow ${user} ${JSON.stringify(attributes)}`, timeoutMs: 30_000 },
      );
    }
    if (user.length <= maxCommonNameLength)
      return await plane.kubeConfigFor({ name: user, groups });
    return await serviceAccountTokenKubeConfig(plane, admin, namespace, rbac.subject.name);
  } finally {
    await admin.close();
  }
}

/** X.509's upper bound on a certificate's common name (RFC 5280 `ub-common-name`). */
const maxCommonNameLength = 64;

/**
 * A KubeConfig that authenticates with a token the TokenRequest API issued for the ServiceAccount
 * (which must exist): for names too long for a client certificate's common name.
 */
async function serviceAccountTokenKubeConfig(
  plane: ControlPlane,
  admin: KubeClient,
  namespace: string,
  name: string,
): Promise<KubeConfig> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`;
  const answer = await admin.request<{ status: { token: string } }>({
    method: 'POST',
    path,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  });
  const cluster = plane.kubeConfig.getCurrentCluster()!;
  const user = `system:serviceaccount:${namespace}:${name}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token: answer.status.token }],
    contexts: [{ name: 'steward', cluster: cluster.name, user, namespace }],
    currentContext: 'steward',
  });
  return kubeConfig;
}

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

const discovered = new WeakMap<KubeClient, Map<string, Promise<ApiResourceList>>>();

/**
 * The `ResourceType` of `apiVersion`/`kind` as the API server behind `client` serves it, from its
 * discovery document (cached per client). Throws `NotFoundError` when the group/version is not
 * served, and an `Error` when it does not serve the kind.
 */
export async function resourceTypeFor(
  client: KubeClient,
  apiVersion: string,
  kind: string,
): Promise<ResourceType> {
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
 * Sends `manifest` to the API server behind `client` as a create with `dryRun=All` and
 * `fieldValidation=Strict`: validated, defaulted and admitted (admission webhooks and Pod Security
 * included), persisted nowhere, and an unknown or duplicate field is an error rather than a
 * warning. Answers the object as the server would have stored it; throws the API's typed error
 * (`InvalidError`, `BadRequestError`, `ForbiddenError`, …) when it refuses.
 */
export async function dryRunCreate(
  client: KubeClient,
  manifest: KubeObject,
  namespace?: string,
): Promise<KubeObject> {
  const rt = await resourceTypeFor(client, manifest.apiVersion, manifest.kind);
  const target = rt.namespaced ? (manifest.metadata.namespace ?? namespace) : undefined;
  if (rt.namespaced && !target) {
    throw new TypeError(`${manifest.kind} ${manifest.metadata.name} has no namespace`);
  }
  return client.request<KubeObject>({
    method: 'POST',
    path: apiPath(rt, { namespace: target }),
    query: { dryRun: 'All', fieldValidation: 'Strict' },
    body: manifest,
    verb: 'create',
  });
}
