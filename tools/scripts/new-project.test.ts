// The names `new-project.ts controller <Kind>` derives and the kinds it refuses; that its output
// passes the whole pipeline is new-project.int.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindFromChartName } from '../charts/controller-chart.js';
import { controllerFiles } from './new-controller.js';
import { existingFamily, parseControllerArgs } from './new-project.js';
import {
  controllerNames,
  familyPaths,
  InvalidControllerNameError,
  MAX_FAMILY_LENGTH,
  pluralOf,
} from './scaffold-names.js';

const root = join(import.meta.dirname, '..', '..');
const versions = { typebox: '1.0.0', 'reflect-metadata': '0.2.2', tsyringe: '4.10.0' };

describe('controllerNames', () => {
  it.each([
    {
      kind: 'Widget',
      names: {
        family: 'widget',
        camel: 'widget',
        controllerName: 'widget',
        group: 'widget.steward.dev',
        plural: 'widgets',
        shortName: 'wid',
        apiLib: 'widget-api',
        app: 'widget-controller',
        e2e: 'widget-controller-e2e',
      },
    },
    {
      kind: 'CacheCluster',
      names: {
        family: 'cache-cluster',
        camel: 'cacheCluster',
        controllerName: 'cachecluster',
        group: 'cachecluster.steward.dev',
        plural: 'cacheclusters',
        shortName: 'cc',
        apiLib: 'cache-cluster-api',
        app: 'cache-cluster-controller',
        e2e: 'cache-cluster-controller-e2e',
      },
    },
    {
      kind: 'S3Bucket',
      names: { family: 's3-bucket', group: 's3bucket.steward.dev', shortName: 'sb' },
    },
  ])('names the family of $kind', ({ kind, names }) => {
    expect(controllerNames(kind)).toMatchObject({ kind, ...names });
  });

  it.each(['Widget', 'CacheCluster', 'S3Bucket', 'PostgresClusterBackup'])(
    'names the chart of %s so that the chart generator reads the kind back',
    (kind) => {
      expect(kindFromChartName(controllerNames(kind).app)).toBe(kind);
    },
  );

  it('takes the group, plural and short name it is given', () => {
    expect(
      controllerNames('Widget', { group: 'toys.example.com', plural: 'widgetry', shortName: 'wg' }),
    ).toMatchObject({ group: 'toys.example.com', plural: 'widgetry', shortName: 'wg' });
  });

  it.each([
    ['box', 'boxes'],
    ['policy', 'policies'],
    ['gateway', 'gateways'],
    ['cachecluster', 'cacheclusters'],
  ])('pluralises %s as %s', (singular, plural) => {
    expect(pluralOf(singular)).toBe(plural);
  });

  it.each([
    ['a lower-case kind', 'widget', {}, 'is not a PascalCase kind'],
    ['a run of capitals', 'HTTPRoute', {}, 'is not a PascalCase kind'],
    ['an underscore', 'Cache_Cluster', {}, 'is not a PascalCase kind'],
    ['no kind at all', '', {}, 'is not a PascalCase kind'],
    [
      'a family too long for the chart’s object names',
      'Very'.repeat(MAX_FAMILY_LENGTH / 4 + 1),
      {},
      `longer than ${MAX_FAMILY_LENGTH} characters`,
    ],
    ['a group without a dot', 'Widget', { group: 'widgets' }, 'is not an API group'],
    ['a group with capitals', 'Widget', { group: 'Toys.example.com' }, 'is not an API group'],
    ['a plural with a dash', 'Widget', { plural: 'wid-gets' }, 'is not a resource name'],
    ['a short name equal to the kind', 'Widget', { shortName: 'widget' }, 'is not a short name'],
  ])('refuses %s', (_case, kind, options, message) => {
    expect(() => controllerNames(kind, options)).toThrow(InvalidControllerNameError);
    expect(() => controllerNames(kind, options)).toThrow(message);
  });
});

describe('parseControllerArgs', () => {
  it('reads the kind and the flags', () => {
    expect(
      parseControllerArgs(['Widget', '--group', 'toys.example.com', '--short-name', 'wg']),
    ).toMatchObject({ kind: 'Widget', group: 'toys.example.com', shortName: 'wg' });
  });

  it('reads --workload, a flag without a value, anywhere after the kind', () => {
    expect(parseControllerArgs(['Widget'])).toMatchObject({ workload: false });
    expect(parseControllerArgs(['Widget', '--workload'])).toMatchObject({ workload: true });
    expect(
      parseControllerArgs(['Widget', '--workload', '--plural', 'widgetry', '--short-name', 'wg']),
    ).toMatchObject({ workload: true, plural: 'widgetry', shortName: 'wg' });
    expect(
      parseControllerArgs(['Widget', '--group', 'toys.example.com', '--workload']),
    ).toMatchObject({ workload: true, group: 'toys.example.com' });
  });

  it.each([
    [['Widget', '--colour', 'blue']],
    [['Widget', '--group']],
    [[]],
    [['Widget', '--workload', '--workload']],
    [['Widget', '--workload', 'yes']],
    [['Widget', '--group', '--workload']],
  ])('refuses %j with the usage', (args) => {
    expect(() => parseControllerArgs(args)).toThrow(/usage: new-project.ts/);
  });
});

describe('existingFamily', () => {
  it('finds every part of a family that exists, and every Nx project of its names', () => {
    expect(existingFamily(root, controllerNames('KafkaTopic'))).toEqual(
      expect.arrayContaining([
        'libs/kafka-topic-api',
        'libs/kafka-topic',
        'apps/kafka-topic-controller',
        'charts/kafka-topic-controller',
        'e2e/kafka-topic-controller-e2e',
        'examples/kafka-topic',
        'tools/charts/controllers/kafka-topic-controller.ts',
        'Nx project kafka-topic',
      ]),
    );
    // `Tools` would make a domain lib named like the tools project
    expect(existingFamily(root, controllerNames('Tools'))).toEqual(['Nx project tools']);
    expect(existingFamily(root, controllerNames('NoSuchWidgetAnywhere'))).toEqual([]);
  });
});

describe('controllerFiles', () => {
  it('writes only inside the family’s paths (the app’s package.json comes from its imports)', () => {
    const names = controllerNames('Widget');
    const files = Object.keys(controllerFiles(names, versions));
    const outside = files.filter((f) => !familyPaths(names).some((p) => f.startsWith(`${p}/`)));
    expect(outside).toEqual([]);
    expect(files).not.toContain('apps/widget-controller/package.json');
    expect(files).toEqual(
      expect.arrayContaining([
        'libs/widget-api/src/widget.ts',
        'libs/widget/src/plan-widget.ts',
        'libs/widget/src/plan-widget.test.ts',
        'libs/widget/tests/controller.int.test.ts',
        'apps/widget-controller/src/main.ts',
        'charts/widget-controller/Chart.yaml',
        'e2e/widget-controller-e2e/tests/chart.int.test.ts',
        'examples/widget/20-widget.yaml',
      ]),
    );
  });
});

describe('controllerFiles with --workload', () => {
  const names = controllerNames('Widget', { workload: true });
  const files = controllerFiles(names, versions);
  const plain = controllerFiles(controllerNames('Widget'), versions);
  const policy = 'charts/widget-controller/templates/validating-admission-policy.yaml';
  /** `text` has every one of `pieces`, and none of `copies` (each named when it fails). */
  const expectPieces = (text: string, pieces: string[], copies: string[] = []) => {
    for (const piece of pieces) expect(text, piece).toContain(piece);
    for (const copy of copies) expect(text, copy).not.toContain(copy);
  };

  it('writes only inside the family’s paths: the default layout with an in-cluster domain and an admission policy', () => {
    const paths = Object.keys(files);
    expect(paths.filter((f) => !familyPaths(names).some((p) => f.startsWith(`${p}/`)))).toEqual([]);
    expect(
      paths
        .filter((f) => f.startsWith('libs/widget/src/') || f.startsWith('libs/widget/tests/'))
        .sort(),
    ).toEqual([
      'libs/widget/src/admission.test.ts',
      'libs/widget/src/admission.ts',
      'libs/widget/src/children.test.ts',
      'libs/widget/src/children.ts',
      'libs/widget/src/controller.ts',
      'libs/widget/src/index.ts',
      'libs/widget/src/status.test.ts',
      'libs/widget/src/status.ts',
      'libs/widget/tests/controller.int.test.ts',
    ]);
    // Every other file of the default family is there, and the ProviderProfile admission policy.
    const others = (list: string[]) =>
      list
        .filter((f) => !f.startsWith('libs/widget/src/') && !f.startsWith('libs/widget/tests/'))
        .sort();
    expect(others(paths)).toEqual(others([...Object.keys(plain), policy]));
  });

  it.each([
    'libs/widget-api/src/widget.ts',
    'libs/widget-api/src/index.ts',
    'libs/widget-api/src/widget.test.ts',
    'apps/widget-controller/src/app.ts',
    'charts/widget-controller/templates/_helpers.tpl',
    'charts/widget-controller/templates/deployment.yaml',
    'charts/widget-controller/templates/rbac-cluster.yaml',
    'charts/widget-controller/templates/rbac-namespaced.yaml',
    'charts/widget-controller/templates/NOTES.txt',
    'charts/widget-controller/values.yaml',
    'charts/widget-controller/README.md',
    'e2e/widget-controller-e2e/tests/chart.int.test.ts',
    'e2e/widget-controller-e2e/tests/app.int.test.ts',
    'examples/widget/20-widget.yaml',
  ])('makes %s that of a workload kind', (file) => {
    expect(files[file]).toBeDefined();
    expect(files[file]).not.toEqual(plain[file]);
  });

  it('leaves the rest as the default family has it', () => {
    for (const file of [
      'apps/widget-controller/src/main.ts',
      'apps/widget-controller/README.md',
      'charts/widget-controller/Chart.yaml',
      'charts/widget-controller/templates/service.yaml',
      'libs/widget/project.json',
      'libs/widget-api/package.json',
      'e2e/widget-controller-e2e/package.json',
    ])
      expect(files[file], file).toEqual(plain[file]);
  });

  it('gives the kind the spec and status every workload kind shares, from @steward/crd', () => {
    const kind = files['libs/widget-api/src/widget.ts']!;
    const fields = [
      'image:',
      'replicas:',
      'resources:',
      'storage:',
      'config:',
      'scheduling:',
      'clients:',
    ];
    const status = ['phase:', 'readyReplicas:', 'endpoint:', 'conditions:'];
    const shared = [
      "ComputeResources('",
      "VolumeClaimFields('storage'",
      "storageClassNameStaysSet('storage')",
      '...requestsWithinLimits',
      "ClientsSpec('pods')",
      "SchedulingSpec('pods')",
      'Type.Optional(ProviderProfileRef)',
      'DeletionPolicyField(',
      'workloadPhases()',
      'ReplicaStatusFields.readyReplicas',
      'Type.Optional(StatusEndpoint)',
      'WorkloadColumns.ready',
    ];
    // No copy of what the shared fragments say.
    const copies = ['quantityBounds', 'isQuantity', 'not a quantity', "'Retain', 'Delete'"];
    expectPieces(kind, [...fields, ...status, ...shared], copies);
  });

  it('stands the domain on the shared wiring, reconciler, children and status', () => {
    const controller = files['libs/widget/src/controller.ts']!;
    expectPieces(
      controller,
      [
        'wireProfiledWorkload<',
        'wired.complete(',
        'WorkloadReconcilerDeps<',
        'WorkloadControllerOptions',
        'new WorkloadProfiles<',
        'profiles.admit(',
        'workloadProfileUsers<',
        'workloadRuntime<',
        'refusalOf(',
        'workloadReconciler<',
        'workloadChanges',
        'syncOwnChildren(',
        'templateStorageOf(',
        'VolumeGrowth',
        'readFailures(',
        'retainVolumes(',
        'deleteOwnVolumes(',
        'volumesOf(',
        'stateWorkloadStatus(',
        'nextLook(',
        'options.controllerIdentity',
      ],
      ['wireWorkload', 'namespaceDirectory', 'new Date()', 'informerFor'],
    );
    expect(controller).toContain("export const WidgetFinalizer = 'widget.steward.dev/cleanup'");

    const children = files['libs/widget/src/children.ts']!;
    expectPieces(
      children,
      [
        'desiredWorkload(',
        'renderPolicies(',
        'renderWorkloadStatefulSet(',
        'renderConfigMap(',
        'renderHeadlessService(',
        'renderClusterIpService(',
        'podSecurityContext(ServerUid, ServerGid)',
        'ContainerSecurityContext',
        'TmpVolume',
        'compactResources(',
        'workloadChildNames(',
        'workloadLabels(',
        'storedName(',
        'obj.spec.clients',
        'scheduling: obj.spec.scheduling',
        'pull: input.pull',
      ],
      ['runAsNonRoot', "kind: 'StatefulSet'", "kind: 'Service'", 'matchLabels'],
    );

    const status = files['libs/widget/src/status.ts']!;
    expectPieces(
      status,
      [
        'conditionsOf(',
        'stated(',
        'missingStatement(',
        'scaling(',
        '...WorkloadReasons',
        'extends WorkloadStatusProblems',
        'WorkloadStatusChange<',
      ],
      ['workloadConditions('],
    );
  });

  it('grants the chart what the controller does: its children, pods observed, no Secret', () => {
    const helpers = files['charts/widget-controller/templates/_helpers.tpl']!;
    expectPieces(helpers, [
      'resources: [widgets/finalizers]\n  verbs: [update]',
      'resources: [statefulsets]\n  verbs: [get, list, watch, create, patch, delete]',
      "- apiGroups: ['']\n  resources: [services, configmaps]\n  verbs: [get, list, watch, create, patch, delete]",
      '- apiGroups: [policy]\n  resources: [poddisruptionbudgets]\n  verbs: [get, list, watch, create, patch, delete]',
      '- apiGroups: [networking.k8s.io]\n  resources: [networkpolicies]\n  verbs: [get, list, watch, create, patch, delete]',
      'resources: [pods]\n  verbs: [get, list, watch]\n',
      'resources: [persistentvolumeclaims]\n  verbs: [get, list, watch, patch, delete]',
      'resources: [events]\n  verbs: [list]',
      '- name: STEWARD_CONTROLLER_POD_LABELS',
    ]);
    expect(helpers).not.toMatch(/resources: \[[^\]]*secrets/);
    expect(files['charts/widget-controller/templates/rbac-cluster.yaml']).toContain(
      '"readsProfileSecrets" false "profileRulesWhenManaged" true',
    );
    expect(files['charts/widget-controller/templates/deployment.yaml']).toContain(
      '"env" (include "widget-controller.env" .)',
    );
    expect(files[policy]).toContain('"resource" "widgets"');
  });
});
