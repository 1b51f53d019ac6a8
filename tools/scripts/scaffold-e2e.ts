// The e2e project of a scaffolded family (e2e/<f>-controller-e2e), as both kinds of family have it:
// the chart's test on the shared chart suite (`describeControllerChart`) and the app's bundle as a
// process under exactly its chart's RBAC against a real API server. What the kind's chart grants
// and what its process does are its generator's.
import { apiServerTestImports, objectHelpers } from './scaffold-libs.js';
import { type ControllerNames } from './scaffold-names.js';
import { packageJson, project } from './scaffold-project.js';

/** A rule of the default values' ClusterRole, as the chart test pins it. */
export interface ClusterRule {
  group: string;
  resources: string[];
  verbs: string[];
}

/** What a kind's chart test checks besides what every chart's does. */
export interface ChartTestSpec {
  /** Why the chart grants what it grants (a comment above `describeControllerChart`). */
  about: string;
  /** Kinds every value set renders besides ClusterRole(Binding), Deployment and Service. */
  alwaysKinds?: string[];
  /** What `watchNamespace: team-a` renders besides the usual kinds (its Roles and bindings). */
  watchNamespaceKinds: string[];
  /** Value sets after `watchNamespace set` (TypeScript, with `kinds(…)` and `usual`). */
  variations?: string;
  /** The default values' ClusterRole rules between the Namespaces' and the Events'. */
  rules: ClusterRule[];
  /** `watchNamespaceAccess` (TypeScript array items). */
  watchNamespaceAccess: string;
  /** Further options of `describeControllerChart` (TypeScript properties). */
  options?: string;
  /** A promise only this chart makes, for every value set: its title and body (with `rbac`). */
  promise: { title: string; body: string };
}

/** What a kind's app test does with the process, besides starting and stopping it. */
export interface AppTestSpec {
  /** Names from @steward/kube besides KubeClient and Namespaces. */
  kubeImports?: string[];
  /** Constants after `ns` (and types). */
  constants?: string;
  /** What the process's tests see, for the suite's doc comment (may be empty). */
  about?: string;
  /** The process's variables besides leader election and its namespace. */
  env?: Record<string, string>;
  /** `create(name, spec)`: the type of `spec`, and the spec it sends. */
  create: { spec: string; sent: string };
  /** The cases (`it(…)` blocks) before the process is stopped, indented two spaces. */
  cases: string;
}

const quoted = (words: string[]) => words.map((w) => `'${w}'`).join(', ');

/** `{ roleKind, namespace, apiGroups, resources, verbs }` of `defaultRules`. */
function ruleText(
  roleKind: 'ClusterRole' | 'Role',
  rule: ClusterRule,
  resourceNames?: string[],
): string {
  return `    {
      roleKind: '${roleKind}',
      namespace: ${roleKind === 'Role' ? 'releaseNamespace' : 'undefined'},
      apiGroups: ['${rule.group}'],
      resources: [${quoted(rule.resources)}],${resourceNames ? `\n      resourceNames: [${quoted(resourceNames)}],` : ''}
      verbs: [${quoted(rule.verbs)}],
    },`;
}

function chartTest(n: ControllerNames, t: ChartTestSpec): string {
  const { kind: K, app } = n;
  const cluster = (group: string, resource: string, verbs: string[]) =>
    ruleText('ClusterRole', { group, resources: [resource], verbs });
  const lease = (verbs: string[], names?: string[]) =>
    ruleText('Role', { group: 'coordination.k8s.io', resources: ['leases'], verbs }, names);
  const always = [
    'ClusterRole',
    'ClusterRoleBinding',
    'Deployment',
    'NetworkPolicy',
    'Service',
    ...(t.alwaysKinds ?? []),
  ];
  return `import { ${K} } from '@steward/${n.apiLib}';
import { KubeClient } from '@steward/kube';
import { repoRoot } from '@steward/testing';
import {
  chartRbac,
  defaultReleaseNamespace as releaseNamespace,
  describeControllerChart,
  renderChart,
  type ChartVariation,
} from '@steward/testing-charts';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const chart = '${app}';
const chartDir = join(repoRoot(), 'charts', chart);
/** The kinds of a value set: those every value set renders, and \`extra\`, sorted. */
const kinds = (...extra: string[]) => [${quoted(always)}].concat(extra).sort();
/** The dashboard's ConfigMap, the Lease's Role and its binding, the ServiceAccount. */
const usual = ['ConfigMap', 'Role', 'RoleBinding', 'ServiceAccount'];

const variations: ChartVariation[] = [
  { name: 'default values', values: {}, kinds: kinds(...usual) },
  {
    name: 'watchNamespace set',
    values: { watchNamespace: 'team-a' },
    kinds: kinds(...usual, ${quoted(t.watchNamespaceKinds)}),
  },${t.variations ?? ''}
  {
    name: 'two replicas',
    values: { replicas: 2 },
    kinds: kinds(...usual, 'PodDisruptionBudget'),
  },
  {
    name: 'ServiceMonitor on',
    values: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
    kinds: kinds(...usual, 'ServiceMonitor'),
  },
  {
    name: 'existing ServiceAccount, no leader election, no dashboard, extras',
    values: {
      serviceAccount: { create: false, name: 'platform-${n.family}' },
      leaderElection: { enabled: false },
      dashboard: { enabled: false },
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=384' }],
      image: { digest: \`sha256:\${'b'.repeat(64)}\` },
      podAnnotations: { 'example.com/team': 'platform' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
    kinds: kinds(),
  },
];

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
// ${t.about}
describeControllerChart({
  chart,
  kind: ${K}.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations,
  defaultRules: [
${cluster('steward.dev', 'providerprofiles', ['get', 'list', 'watch', 'patch'])}
${cluster('steward.dev', 'providerprofiles/status', ['patch'])}
${cluster('', 'namespaces', ['get', 'list', 'watch'])}
${t.rules.map((rule) => ruleText('ClusterRole', rule)).join('\n')}
${cluster('events.k8s.io', 'events', ['create', 'patch'])}
${lease(['create'])}
${lease(['get', 'update'], [`${app}-leader`])}
  ],
  watchNamespaceAccess: [
${t.watchNamespaceAccess}
  ],${t.options ?? ''}
});

describe('the ${app} chart’s own promises', () => {
  it.each(variations)('${t.promise.title}, with $name', async ({ values }) => {
    const rbac = chartRbac(await renderChart(chartDir, values));
${t.promise.body}
  });
});
`;
}

function appTest(n: ControllerNames, t: AppTestSpec): string {
  const { kind: K, app } = n;
  return `${apiServerTestImports(n, t.kubeImports)}
import {
  bindChartRbac,
  defaultReleaseNamespace as releaseNamespace,
  renderChart,
  startControllerProcess,
  type ControllerProcess,
} from '@steward/testing-charts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const Kind = ${K}.resourceType;
const ns = 'team-a';
${t.constants ?? ''}
/**
 * The ${app}'s bundle as a process, under exactly the RBAC its chart renders, with leader
 * election, against a real API server.${t.about ? ` ${t.about}` : ''}
 */
describe('the ${app} process', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  let controller: ControllerProcess | undefined;

  beforeAll(async () => {
    const chart = join(repoRoot(), 'charts', '${app}');
    plane = await startControlPlane({ crds: [join(chart, 'crds')] });
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const identity = await bindChartRbac(plane, await renderChart(chart), releaseNamespace);
    controller = await startControllerProcess({
      app: '${app}',
      kubeConfig: identity,
      env: {
        STEWARD_LEADER_ELECT: 'true',
        POD_NAMESPACE: releaseNamespace,${Object.entries(t.env ?? {})
          .map(([name, value]) => `\n        ${name}: '${value}',`)
          .join('')}
      },
    });
    await controller.ready();
  });
  afterAll(async () => {
    await controller?.kill();
    await admin?.close();
    await plane?.stop();
  });

${objectHelpers(n, t.create, '  ')}
${t.cases}

  it('stops cleanly on SIGTERM', async () => {
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
  });
});
`;
}

/** e2e/<f>-controller-e2e: the chart's test and the app's. */
export function e2eFiles(
  n: ControllerNames,
  chart: ChartTestSpec,
  app: AppTestSpec,
): Record<string, string> {
  return project('e2e', `e2e/${n.e2e}`, n.e2e, ['type:e2e', `scope:${n.family}`], {
    'package.json': packageJson(n.e2e, './src/index.ts'),
    'tests/chart.int.test.ts': chartTest(n, chart),
    'tests/app.int.test.ts': appTest(n, app),
  });
}
