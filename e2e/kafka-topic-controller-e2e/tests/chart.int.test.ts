import { KafkaTopic } from '@steward/kafka-topic-api';
import { KubeClient } from '@steward/kube';
import { repoRoot } from '@steward/testing';
import {
  chartRbac,
  defaultReleaseNamespace as releaseNamespace,
  describeControllerChart,
  renderChart,
  type ChartGrants,
  type ChartVariation,
  type PolicyRule,
} from '@steward/testing-charts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const chart = 'kafka-topic-controller';
const chartDir = join(repoRoot(), 'charts', chart);

const profileRules: PolicyRule[] = [
  {
    apiGroups: ['steward.dev'],
    resources: ['providerprofiles'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  { apiGroups: ['steward.dev'], resources: ['providerprofiles/status'], verbs: ['patch'] },
  // Namespaces, cluster-scoped: their labels, which a ProviderProfile's namespaceSelector reads.
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
];
const topicRules: PolicyRule[] = [
  {
    apiGroups: ['kafka.steward.dev'],
    resources: ['kafkatopics'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  { apiGroups: ['kafka.steward.dev'], resources: ['kafkatopics/status'], verbs: ['patch'] },
];
const secretRules: PolicyRule[] = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
const eventRules: PolicyRule[] = [
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
const leaseRole = {
  [`Role ${releaseNamespace}/${chart}-leader-election`]: [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: [`${chart}-leader`],
      verbs: ['get', 'update'],
    },
  ],
};
const clusterRole = `ClusterRole ${releaseNamespace}-${chart}`;

/** Exactly the rules of the modes with credentials namespaces, by role. */
const exactGrants: ChartGrants[] = [
  {
    name: 'watchNamespaces team-a, team-b, credentials in provider-credentials and team-b',
    values: {
      watchNamespaces: ['team-a', 'team-b'],
      rbac: { credentialsSecretNamespaces: ['provider-credentials', 'team-b'] },
    },
    grants: {
      // Only what is cluster-scoped: ProviderProfiles; no Secret readable cluster-wide.
      [clusterRole]: profileRules,
      ...leaseRole,
      [`Role team-a/${chart}`]: [...topicRules, ...eventRules],
      [`Role team-b/${chart}`]: [...topicRules, ...secretRules, ...eventRules],
      [`Role default/${chart}-events`]: eventRules,
      [`Role provider-credentials/${chart}-credentials`]: secretRules,
    },
  },
  {
    name: 'watchNamespaces team-a, team-b, no credentials namespace: no Secret readable',
    values: { watchNamespaces: ['team-a', 'team-b'] },
    grants: {
      [clusterRole]: profileRules,
      ...leaseRole,
      [`Role team-a/${chart}`]: [...topicRules, ...eventRules],
      [`Role team-b/${chart}`]: [...topicRules, ...eventRules],
      [`Role default/${chart}-events`]: eventRules,
    },
  },
  {
    name: 'every namespace, credentials in provider-credentials: no cluster-wide `get` on Secrets',
    values: { rbac: { credentialsSecretNamespaces: ['provider-credentials'] } },
    grants: {
      [clusterRole]: [...profileRules, ...topicRules, ...eventRules],
      ...leaseRole,
      [`Role provider-credentials/${chart}-credentials`]: secretRules,
    },
  },
];

const variations: ChartVariation[] = [
  {
    name: 'default values',
    values: {},
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
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
      'NetworkPolicy',
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
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
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
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
  {
    name: 'ServiceMonitor and PrometheusRule on',
    values: {
      serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
      prometheusRule: { enabled: true },
    },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'PrometheusRule',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'ServiceMonitor',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
  {
    name: 'existing ServiceAccount, no leader election, no dashboard, extras',
    values: {
      serviceAccount: { create: false, name: 'platform-kafka' },
      leaderElection: { enabled: false },
      dashboard: { enabled: false },
      manageProviderProfiles: false,
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=384' }],
      image: { digest: `sha256:${'b'.repeat(64)}` },
      podAnnotations: { 'example.com/team': 'platform' },
      podLabels: { team: 'platform' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'platform', effect: 'NoSchedule' },
      ],
      priorityClassName: 'system-cluster-critical',
    },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'NetworkPolicy',
      'Service',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
  {
    name: 'watchNamespaces team-a, team-b, credentials in provider-credentials and team-b',
    values: {
      watchNamespaces: ['team-a', 'team-b'],
      rbac: { credentialsSecretNamespaces: ['provider-credentials', 'team-b'] },
    },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'Role',
      'Role',
      'Role',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
  {
    name: 'every namespace, credentials in their own namespace',
    values: { rbac: { credentialsSecretNamespaces: ['provider-credentials'] } },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
  {
    name: 'watchNamespace set, credentials next to the topics',
    values: {
      watchNamespace: 'team-a',
      rbac: { credentialsSecretNamespaces: ['team-a', 'provider-credentials'] },
    },
    kinds: [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
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
      // Two policies: the profile's namespaces, and its topicNamePolicy.
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicyBinding',
    ],
  },
];

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
describeControllerChart({
  chart,
  kind: KafkaTopic.resourceType,
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
      apiGroups: [''],
      resources: ['namespaces'],
      verbs: ['get', 'list', 'watch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['kafka.steward.dev'],
      resources: ['kafkatopics'],
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    {
      roleKind: 'ClusterRole',
      namespace: undefined,
      apiGroups: ['kafka.steward.dev'],
      resources: ['kafkatopics/status'],
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
      resourceNames: ['kafka-topic-controller-leader'],
      verbs: ['get', 'update'],
    },
  ],
  // The profiles' TLS and SASL Secrets live in provider-credentials; the topics' namespace has none.
  watchNamespaceAccess: [
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
  ],
  watchNamespacesAccess: [
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-b', allowed: false },
  ],
  exactGrants,
  // The controller never writes a Secret: it reads the profiles' by name.
  secretVerbs: ['get'],
});

describe('the kafka-topic-controller chart’s own promises', () => {
  it('lets the controller read Secrets in the watched namespace when profiles name Secrets there', async () => {
    const rbac = chartRbac(
      await renderChart(chartDir, {
        watchNamespace: 'team-a',
        rbac: { credentialsSecretNamespaces: ['team-a', 'provider-credentials'] },
      }),
    );
    const get = { verb: 'get', group: '', resource: 'secrets' };
    expect(rbac.allows({ ...get, namespace: 'team-a' })).toBe(true);
    expect(rbac.allows({ ...get, namespace: 'provider-credentials' })).toBe(true);
    expect(rbac.allows({ ...get, namespace: 'team-b' })).toBe(false);
    // One Role per namespace: team-a's is the watch Role, not a second credentials Role there.
    expect(rbac.roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`).sort()).toEqual([
      'default/kafka-topic-controller-events',
      'provider-credentials/kafka-topic-controller-credentials',
      `${releaseNamespace}/kafka-topic-controller-leader-election`,
      'team-a/kafka-topic-controller',
    ]);
  });

  it('shows the KafkaTopic controller and the Kafka admin API on its dashboard', () => {
    const dashboard = JSON.parse(
      readFileSync(join(chartDir, 'dashboards', `${chart}.json`), 'utf8'),
    ) as {
      templating: { list: { name: string; current?: { value?: string[] } }[] };
      panels: { targets?: { expr: string }[] }[];
    };
    const controller = dashboard.templating.list.find((v) => v.name === 'controller');
    expect(controller?.current?.value).toEqual(['kafkatopic']);
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    const perController = exprs.filter((e) => /controller_runtime_|workqueue_/.test(e));
    expect(perController.length).toBeGreaterThan(5);
    for (const expr of perController) expect(expr).toContain('controller=~"$controller"');
    const external = [...exprs.join('\n').matchAll(/steward_external_requests_total\{([^}]*)\}/g)];
    expect(external.length).toBeGreaterThan(0);
    for (const [, selector] of external) expect(selector).toContain('provider="kafka"');
  });
});
