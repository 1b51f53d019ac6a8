import {
  ApiError,
  ForbiddenError,
  KubeClient,
  Leases,
  Namespaces,
  NotFoundError,
  Secrets,
  type KubeObject,
} from '@steward/kube';
import { DatabaseInstance } from '@steward/database-instance-api';
import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindChartRbac,
  chartCrdsDir,
  chartDir,
  chartRbac,
  defaultReleaseNamespace,
  HelmError,
  manifestOf,
  renderChart,
  dryRunCreate,
  runHelmWithValues,
  type ChartValues,
  type Manifest,
} from './support/chart.js';

const releaseNamespace = defaultReleaseNamespace;
const leaseName = 'database-instance-controller-leader';

/** Value sets every rendering test runs with; `kinds` is what each renders, sorted. */
const variations: { name: string; values: ChartValues; kinds: string[] }[] = [
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
    name: 'watchNamespace set, credentials in their own namespace',
    values: {
      watchNamespace: 'team-a',
      rbac: { credentialsSecretNamespaces: ['provider-credentials'] },
    },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'Role',
      'Role',
      'Role',
      'RoleBinding',
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
      serviceAccount: { create: false, name: 'platform-dbi' },
      leaderElection: { enabled: false },
      dashboard: { enabled: false },
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=384' }],
      image: { digest: `sha256:${'a'.repeat(64)}` },
      podAnnotations: { 'example.com/team': 'platform' },
      podLabels: { team: 'platform' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'platform', effect: 'NoSchedule' },
      ],
      priorityClassName: 'system-cluster-critical',
    },
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service'],
  },
];

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

function envOf(container: Container): Record<string, string> {
  return Object.fromEntries(
    container.env.map((e) => [e.name, e.value ?? `fieldRef:${e.valueFrom?.fieldRef?.fieldPath}`]),
  );
}

describe('the database-instance-controller chart, rendered by helm', () => {
  it.each(variations)('passes helm lint --strict with $name', async ({ values }) => {
    const result = await runHelmWithValues(['lint', '--strict'], values);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it.each(variations)('renders with $name', async ({ values, kinds }) => {
    const manifests = await renderChart(values);
    expect(manifests.map((m) => m.kind).sort()).toEqual(kinds);
    for (const m of manifests) {
      expect(m.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'database-instance-controller',
        'app.kubernetes.io/instance': 'database-instance-controller',
        'app.kubernetes.io/version': '0.1.0',
        'app.kubernetes.io/component': 'controller',
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': 'database-instance-controller-0.1.0',
      });
    }
  });

  it('names objects after the release, and cluster-scoped ones after its namespace too', async () => {
    const manifests = await renderChart({}, { releaseName: 'dbi', namespace: 'platform' });
    expect(manifestOf(manifests, 'Deployment').metadata).toMatchObject({
      name: 'dbi-database-instance-controller',
      namespace: 'platform',
    });
    expect(manifestOf(manifests, 'ClusterRole').metadata.name).toBe(
      'platform-dbi-database-instance-controller',
    );
  });

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
      name: 'an unknown key in a nested block',
      values: { serviceMonitor: { enable: true } },
      message: "at '/serviceMonitor': additional properties 'enable' not allowed",
    },
    {
      name: 'serviceAccount.create false without a name',
      values: { serviceAccount: { create: false } },
      message: 'serviceAccount.name is required when serviceAccount.create is false',
    },
  ];

  it.each(rejections)('refuses $name with helm’s message', async ({ values, message }) => {
    const error = await renderChart(values).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HelmError);
    expect((error as HelmError).result.stderr).toContain(message);
  });

  it('ships the Grafana dashboard as a ConfigMap the Grafana sidecar picks up', async () => {
    const configMap = manifestOf<Manifest & { data: Record<string, string> }>(
      await renderChart(),
      'ConfigMap',
    );
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const files = readdirSync(join(chartDir, 'dashboards')).filter((f) => f.endsWith('.json'));
    expect(Object.keys(configMap.data).sort()).toEqual(files.sort());
    const dashboard = JSON.parse(configMap.data['database-instance-controller.json']!) as {
      uid: string;
      templating: { list: { name: string; type: string }[] };
      panels: { type: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
    };
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(queryPanels.length).toBeGreaterThan(5);
    for (const panel of queryPanels) expect(panel.datasource?.uid).toBe('${datasource}');
  });

  it('queries only metrics that libs/telemetry defines', async () => {
    const telemetrySrc = join(repoRoot(), 'libs', 'telemetry', 'src');
    const defined = new Set<string>();
    for (const file of readdirSync(telemetrySrc).filter((f) => !f.endsWith('.test.ts'))) {
      const source = readFileSync(join(telemetrySrc, file), 'utf8');
      for (const match of source.matchAll(/\.create\w+\(\s*'([a-z_:]+)'/g)) defined.add(match[1]!);
    }
    const dashboard = readFileSync(
      join(chartDir, 'dashboards', 'database-instance-controller.json'),
      'utf8',
    );
    const used = new Set(
      [
        ...dashboard.matchAll(
          /\b((?:controller_runtime|workqueue|rest_client|leader_election|steward)_[a-z_]+)/g,
        ),
      ].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')),
    );
    expect(used.size).toBeGreaterThan(8);
    expect([...used].filter((name) => !defined.has(name))).toEqual([]);
  });
});

describe('the rendered Pod spec', () => {
  it('carries the secure defaults', async () => {
    const spec = podSpecOf(await renderChart());
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.automountServiceAccountToken).toBe(true);
    expect(spec.terminationGracePeriodSeconds).toBe(40);
    expect(spec.serviceAccountName).toBe('database-instance-controller');
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
    expect(container!.image).toBe('ghcr.io/steward-dev/database-instance-controller:0.1.0');
    expect(container!.imagePullPolicy).toBe('IfNotPresent');
  });

  it('passes the controller its configuration in the environment', async () => {
    const defaults = envOf(podSpecOf(await renderChart()).containers[0]!);
    expect(defaults).toEqual({
      STEWARD_WATCH_NAMESPACE: '',
      STEWARD_PROBE_PORT: '8080',
      STEWARD_LEADER_ELECT: 'true',
      STEWARD_LOG_LEVEL: 'info',
      STEWARD_MAX_CONCURRENT_RECONCILES: '4',
      STEWARD_POLL_INTERVAL_SECONDS: '60',
      POD_NAMESPACE: 'fieldRef:metadata.namespace',
      POD_NAME: 'fieldRef:metadata.name',
    });
    const configured = podSpecOf(
      await renderChart({
        watchNamespace: 'team-a',
        probePort: 9090,
        leaderElection: { enabled: false },
        logLevel: 'debug',
        maxConcurrentReconciles: 8,
        pollIntervalSeconds: 300,
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
      STEWARD_POLL_INTERVAL_SECONDS: '300',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      EXTRA: 'yes',
    });
    expect(configured.ports).toEqual([{ name: 'http', containerPort: 9090, protocol: 'TCP' }]);
  });

  it('spreads two replicas over nodes and keeps one up through disruptions', async () => {
    const manifests = await renderChart({ replicas: 2 });
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
    const manifests = await renderChart({ serviceMonitor: { enabled: true } });
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
  const allowedVerbs = ['get', 'list', 'watch', 'create', 'update', 'patch'];

  it.each(variations)('is least privilege with $name', async ({ values }) => {
    const rbac = chartRbac(await renderChart(values));
    for (const rule of rbac.rules) {
      expect(rule.verbs).not.toContain('*');
      expect(rule.resources).not.toContain('*');
      expect(rule.apiGroups).not.toContain('*');
      expect(rule.nonResourceURLs).toBeUndefined();
      expect(allowedVerbs).toEqual(expect.arrayContaining(rule.verbs));
    }
    for (const verb of ['list', 'watch', 'delete', 'deletecollection']) {
      expect(rbac.allows({ verb, group: '', resource: 'secrets' })).toBe(false);
      expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(
        false,
      );
    }
    const leaseRules = rbac.rules.filter((r) => r.resources?.includes('leases'));
    for (const rule of leaseRules) {
      expect(rule).toMatchObject({ roleKind: 'Role', namespace: releaseNamespace });
    }
  });

  it('grants exactly these rules with default values', async () => {
    const rbac = chartRbac(await renderChart());
    expect(rbac.subject).toEqual({
      namespace: releaseNamespace,
      name: 'database-instance-controller',
    });
    expect(rbac.rules.map(({ roleName: _roleName, ...rule }) => rule)).toEqual([
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
        apiGroups: ['database.steward.dev'],
        resources: ['databaseinstances'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      {
        roleKind: 'ClusterRole',
        namespace: undefined,
        apiGroups: ['database.steward.dev'],
        resources: ['databaseinstances/status'],
        verbs: ['patch'],
      },
      {
        roleKind: 'ClusterRole',
        namespace: undefined,
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'create', 'update', 'patch'],
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
        resourceNames: [leaseName],
        verbs: ['get', 'update'],
      },
    ]);
  });

  it('moves the namespaced permissions into Roles when watchNamespace is set', async () => {
    const rbac = chartRbac(
      await renderChart({
        watchNamespace: 'team-a',
        rbac: { credentialsSecretNamespaces: ['provider-credentials'] },
      }),
    );
    const clusterWide = rbac.rules.filter((r) => r.roleKind === 'ClusterRole');
    expect(clusterWide.flatMap((r) => r.resources)).toEqual([
      'providerprofiles',
      'providerprofiles/status',
    ]);
    const dbi = { group: 'database.steward.dev', resource: 'databaseinstances' };
    expect(rbac.allows({ ...dbi, verb: 'list', namespace: 'team-a' })).toBe(true);
    expect(rbac.allows({ ...dbi, verb: 'list' })).toBe(false);
    expect(rbac.allows({ ...dbi, verb: 'list', namespace: 'team-b' })).toBe(false);
    const secret = { group: '', resource: 'secrets' };
    expect(rbac.allows({ ...secret, verb: 'create', namespace: 'team-a' })).toBe(true);
    expect(rbac.allows({ ...secret, verb: 'get', namespace: 'provider-credentials' })).toBe(true);
    expect(rbac.allows({ ...secret, verb: 'create', namespace: 'provider-credentials' })).toBe(
      false,
    );
    expect(rbac.allows({ ...secret, verb: 'get', namespace: 'team-b' })).toBe(false);
    const events = { group: 'events.k8s.io', resource: 'events', verb: 'create' };
    expect(rbac.allows({ ...events, namespace: 'team-a' })).toBe(true);
    // Events about cluster-scoped ProviderProfiles are written to `default`, as client-go does.
    expect(rbac.allows({ ...events, namespace: 'default' })).toBe(true);
    expect(rbac.allows({ ...events, namespace: 'team-b' })).toBe(false);
  });

  it('keeps cluster-wide `get` on Secrets with watchNamespace but no credentials namespaces', async () => {
    const rbac = chartRbac(await renderChart({ watchNamespace: 'team-a' }));
    expect(rbac.allows({ verb: 'get', group: '', resource: 'secrets', namespace: 'any' })).toBe(
      true,
    );
    expect(rbac.allows({ verb: 'create', group: '', resource: 'secrets', namespace: 'any' })).toBe(
      false,
    );
  });
});

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
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

describe('the rendered chart on a real API server', () => {
  let plane: ControlPlane;
  let admin: KubeClient;

  beforeAll(async () => {
    plane = await startControlPlane({ crds: [chartCrdsDir] });
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

  async function ensureNamespace(name: string, labels?: Record<string, string>): Promise<void> {
    await admin.apply(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, ...(labels ? { labels } : {}) },
    });
  }

  it.each(variations)(
    'accepts every object rendered with $name in a server-side dry run',
    async ({ values }) => {
      const manifests = await renderChart(values);
      for (const ns of new Set(manifests.map((m) => m.metadata.namespace ?? releaseNamespace))) {
        await ensureNamespace(ns);
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
    await ensureNamespace(releaseNamespace);
    const deployment = manifestOf<Deployment>(await renderChart(), 'Deployment');
    const [container] = deployment.spec.template.spec.containers;
    container!.securityContext = { ...container!.securityContext, readOnlyRootFileSystem: true };
    const refused = await dryRunCreate(admin, deployment).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).message).toContain(
      'unknown field "spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem"',
    );
  });

  it('runs its Pod under the restricted Pod Security Standard', async () => {
    const restricted = 'restricted-pods';
    await ensureNamespace(restricted, {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
    const template = manifestOf<Deployment>(await renderChart(), 'Deployment').spec.template;
    const pod = (spec: PodSpec): KubeObject & { spec: PodSpec } => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'database-instance-controller', namespace: restricted },
      spec,
    });
    await expect(dryRunCreate(admin, pod(template.spec))).resolves.toMatchObject({
      kind: 'Pod',
    });
    // The namespace does enforce the standard: the same Pod without its security contexts is refused.
    const container = template.spec.containers[0]!;
    const { securityContext: _container, ...insecureContainer } = container;
    const { securityContext: _pod, ...insecureSpec } = template.spec;
    const refused = await dryRunCreate(
      admin,
      pod({ ...insecureSpec, containers: [insecureContainer] } as PodSpec),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect((refused as ForbiddenError).message).toContain(
      'violates PodSecurity "restricted:latest"',
    );
  });

  describe('as the chart’s ServiceAccount, bound by the chart’s RBAC', () => {
    it('lists DatabaseInstances everywhere but is refused listing Secrets', async () => {
      const manifests = await renderChart();
      const identity = new KubeClient(await bindChartRbac(plane, manifests, releaseNamespace));
      try {
        await expect(identity.list(DatabaseInstance.resourceType)).resolves.toMatchObject({
          items: [],
        });
        await expect(
          identity.list(DatabaseInstance.resourceType, { namespace: 'team-a' }),
        ).resolves.toMatchObject({ items: [] });

        const listSecrets = await identity.list(Secrets).catch((e: unknown) => e);
        expect(listSecrets).toBeInstanceOf(ForbiddenError);
        expect((listSecrets as ForbiddenError).code).toBe(403);
        expect((listSecrets as ForbiddenError).message).toBe(
          `secrets is forbidden: User "system:serviceaccount:${releaseNamespace}:database-instance-controller" cannot list resource "secrets" in API group "" at the cluster scope`,
        );
        await expect(
          identity.list(Secrets, { namespace: releaseNamespace }),
        ).rejects.toBeInstanceOf(ForbiddenError);
        // Reading one Secret by name is allowed: the answer is "not found", not "forbidden".
        await expect(identity.get(Secrets, 'aws-credentials', 'default')).rejects.toBeInstanceOf(
          NotFoundError,
        );
      } finally {
        await identity.close();
      }
    });

    it('may take its Lease in the release namespace only', async () => {
      // A user name short enough for a certificate's common name: bindChartRbac's client-cert path.
      const namespace = 'dbi';
      const manifests = await renderChart({}, { releaseName: 'dbi', namespace });
      const identity = new KubeClient(await bindChartRbac(plane, manifests, namespace));
      const lease = (namespace: string, name = leaseName) => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
      });
      try {
        await expect(
          identity.create(Leases, lease(namespace), { dryRun: true }),
        ).resolves.toMatchObject({ kind: 'Lease' });
        await expect(identity.get(Leases, leaseName, namespace)).rejects.toBeInstanceOf(
          NotFoundError,
        );
        await expect(identity.get(Leases, 'someone-elses', namespace)).rejects.toBeInstanceOf(
          ForbiddenError,
        );
        await expect(
          identity.create(Leases, lease('default'), { dryRun: true }),
        ).rejects.toBeInstanceOf(ForbiddenError);
      } finally {
        await identity.close();
      }
    });

    it('with watchNamespace, reaches DatabaseInstances in that namespace only', async () => {
      const namespace = 'team-a-system';
      const manifests = await renderChart(
        { watchNamespace: 'team-a' },
        { releaseName: 'team-a', namespace },
      );
      const identity = new KubeClient(await bindChartRbac(plane, manifests, namespace));
      try {
        await expect(
          identity.list(DatabaseInstance.resourceType, { namespace: 'team-a' }),
        ).resolves.toMatchObject({ items: [] });
        await expect(identity.list(DatabaseInstance.resourceType)).rejects.toBeInstanceOf(
          ForbiddenError,
        );
        await expect(
          identity.list(DatabaseInstance.resourceType, { namespace: 'team-b' }),
        ).rejects.toBeInstanceOf(ForbiddenError);
        await expect(identity.list(Secrets, { namespace: 'team-a' })).rejects.toBeInstanceOf(
          ForbiddenError,
        );
      } finally {
        await identity.close();
      }
    });
  });
});
