import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeClient } from '@steward/kube';
import { describeControllerChart, type PolicyRule } from '@steward/testing-charts';
import { defaultReleaseNamespace as releaseNamespace } from './support/chart.js';

const chart = 'database-instance-controller';
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
/** DatabaseInstances and their connection Secrets: wherever the controller watches. */
const watchRules: PolicyRule[] = [
  {
    apiGroups: ['database.steward.dev'],
    resources: ['databaseinstances'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  {
    apiGroups: ['database.steward.dev'],
    resources: ['databaseinstances/status'],
    verbs: ['patch'],
  },
  // A connection Secret's ownerReference sets blockOwnerDeletion (OwnerReferencesPermissionEnforcement).
  {
    apiGroups: ['database.steward.dev'],
    resources: ['databaseinstances/finalizers'],
    verbs: ['update'],
  },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update', 'patch'] },
];
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

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
describeControllerChart({
  chart,
  kind: DatabaseInstance.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations: [
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
        'ValidatingAdmissionPolicy',
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
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ],
    },
    {
      name: 'watchNamespaces team-a, team-b, credentials in their own namespace',
      values: {
        watchNamespaces: ['team-a', 'team-b'],
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
        'Role',
        'RoleBinding',
        'RoleBinding',
        'RoleBinding',
        'RoleBinding',
        'RoleBinding',
        'Service',
        'ServiceAccount',
        'ValidatingAdmissionPolicy',
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
        'ValidatingAdmissionPolicy',
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
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ],
    },
    {
      name: 'existing ServiceAccount, no leader election, no dashboard, extras',
      values: {
        serviceAccount: { create: false, name: 'platform-dbi' },
        leaderElection: { enabled: false },
        dashboard: { enabled: false },
        manageProviderProfiles: false,
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
  ],
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
      apiGroups: ['database.steward.dev'],
      resources: ['databaseinstances/finalizers'],
      verbs: ['update'],
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
      resourceNames: ['database-instance-controller-leader'],
      verbs: ['get', 'update'],
    },
  ],
  // Connection Secrets are written next to the DatabaseInstances, in the watched namespace only.
  watchNamespaceAccess: [
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: true },
    { verb: 'update', group: '', resource: 'secrets', namespace: 'team-a', allowed: true },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-b', allowed: false },
  ],
  watchNamespacesAccess: [
    ...['team-a', 'team-b'].flatMap((namespace) => [
      { verb: 'create', group: '', resource: 'secrets', namespace, allowed: true },
      { verb: 'get', group: '', resource: 'secrets', namespace, allowed: true },
      {
        verb: 'update',
        group: 'database.steward.dev',
        resource: 'databaseinstances/finalizers',
        namespace,
        allowed: true,
      },
    ]),
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-c', allowed: false },
    {
      verb: 'update',
      group: 'database.steward.dev',
      resource: 'databaseinstances/finalizers',
      namespace: 'team-c',
      allowed: false,
    },
  ],
  // Its watch rules read and write the connection Secrets (as templates/rbac-*.yaml pass it).
  watchRulesReadSecrets: true,
  exactGrants: [
    {
      name: 'watchNamespaces team-a, team-b, credentials in provider-credentials',
      values: {
        watchNamespaces: ['team-b', 'team-a'],
        rbac: { credentialsSecretNamespaces: ['provider-credentials'] },
      },
      grants: {
        // Only what is cluster-scoped: ProviderProfiles.
        [clusterRole]: profileRules,
        ...leaseRole,
        [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
        [`Role team-b/${chart}`]: [...watchRules, ...eventRules],
        // Events about the cluster-scoped ProviderProfiles go to `default`, as client-go writes them.
        [`Role default/${chart}-events`]: eventRules,
        [`Role provider-credentials/${chart}-credentials`]: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
        ],
      },
    },
    {
      name: 'watchNamespaces team-a, team-b, no credentials namespace: no Secret read elsewhere',
      values: { watchNamespaces: ['team-a', 'team-b'] },
      grants: {
        [clusterRole]: profileRules,
        ...leaseRole,
        [`Role team-a/${chart}`]: [...watchRules, ...eventRules],
        [`Role team-b/${chart}`]: [...watchRules, ...eventRules],
        [`Role default/${chart}-events`]: eventRules,
      },
    },
    {
      // It writes connection Secrets in every namespace, so it reads any: the list cannot narrow it.
      name: 'every namespace, credentials in provider-credentials',
      values: { rbac: { credentialsSecretNamespaces: ['provider-credentials'] } },
      grants: { [clusterRole]: [...profileRules, ...watchRules, ...eventRules], ...leaseRole },
    },
  ],
});
