// The files of a workload controller family, for `new-project.ts controller <Kind> --workload`: the
// default family (new-controller.ts) with the API lib, the domain lib, the app, the chart's RBAC,
// values notes and README, the e2e tests and the example made those of an in-cluster kind — one
// whose children live in the cluster, on the skeleton CacheCluster and PostgresCluster share
// (@steward/workload, @steward/provider-profile): `wireWorkload`, `workloadReconciler` with
// `workloadChanges`, `WorkloadProfiles`, `syncOwnChildren` over a pure `desiredChildren` (a
// StatefulSet of `spec.image`, a headless and a client Service, a claim template with
// `spec.storage`), `VolumeGrowth`, `readFailures`, a pure status function on `workloadConditions`,
// `stateStatus`, `scalingEvent` and `nextLook`. Pure like new-controller.ts: names in, texts out.
//
// The output passes lint, typecheck, build and every test as written, without the node tier
// (new-project.int.test.ts): on a control plane no pod ever runs, so its tests see the children,
// the finalizer and `Ready=False` (Provisioning), never Ready.
import { type ControllerNames } from './new-controller.js';

/** `text` with `from` replaced by `to`; throws when `from` is not in it (the default scaffold changed). */
function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the default scaffold no longer has: ${from}`);
  return text.replace(from, () => to);
}

/**
 * The workload family of `n`: `base` (the default family's files) with every file that differs
 * replaced, and the default domain's plan files removed.
 */
export function workloadFiles(
  n: ControllerNames,
  base: Record<string, string>,
): Record<string, string> {
  const files = { ...base };
  for (const path of Object.keys(files)) {
    if (path.startsWith(`libs/${n.family}/src/`) || path.startsWith(`libs/${n.family}/tests/`))
      delete files[path];
  }
  return {
    ...files,
    ...apiLibFiles(n),
    ...domainLibFiles(n),
    ...appFiles(n),
    ...chartFiles(n, files),
    ...e2eFiles(n),
    ...exampleFiles(n),
  };
}

/** `CACHE_CLUSTER` for `cache-cluster`: the prefix of the family's constants. */
const constantOf = (n: ControllerNames) => n.family.replaceAll('-', '_').toUpperCase();

function apiLibFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, family, group, plural, shortName } = n;
  const C = constantOf(n);
  const dir = `libs/${n.apiLib}`;
  return {
    [`${dir}/src/index.ts`]: `/**
 * @steward/${n.apiLib} — the \`${K}\` kind (\`${group}/v1alpha1\`, namespaced, short name
 * \`${shortName}\`), a workload run in the cluster: one source of truth for its TypeScript types
 * and its CRD (generated into charts/${n.app}/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - \`spec.image\` is required; \`spec.replicas\` is 1 to MAX_REPLICAS (default 1).
 * - \`spec.storage.size\` is a quantity greater than 0, a whole number of bytes, and only grows;
 *   \`spec.storage\` is set at creation or never (a StatefulSet's claim templates cannot change).
 * - \`metadata.name\` is a DNS label of at most MAX_NAME_LENGTH characters.
 * - Defaults: \`deletionPolicy: Retain\` (the volumes stay without an explicit opt-in).
 *
 * What only the controller can know is a condition with a reason (@steward/${family}).
 *
 * Status: the shared vocabulary of workload kinds — \`phase\`, \`replicas\`, \`readyReplicas\`,
 * \`image\`, the conditions \`Ready\`, \`Progressing\`, \`Degraded\` and \`observedGeneration\`.
 */
export {
  ${K},
  ${K}DeletionPolicies,
  ${K}Phases,
  ${K}Spec,
  ${K}Status,
  ${C}_PORT,
  MAX_NAME_LENGTH,
  MAX_REPLICAS,
  type ${K}DeletionPolicy,
  type ${K}Phase,
} from './${family}.js';
`,
    [`${dir}/src/${family}.ts`]: `import {
  ConditionsSchema,
  defineKind,
  quantityBounds,
  StringEnum,
  withValidations,
} from '@steward/crd';
import Type from 'typebox';

/**
 * What deleting a ${K} does to its volumes: the two policies of every Steward kind, default
 * Retain. Declared here: the API lib of a kind depends on no other kind's.
 */
export const ${K}DeletionPolicies = ['Retain', 'Delete'] as const;
export type ${K}DeletionPolicy = (typeof ${K}DeletionPolicies)[number];

/** What \`status.phase\` can say. */
export const ${K}Phases = ['Provisioning', 'Ready', 'Scaling', 'Updating', 'Degraded'] as const;
export type ${K}Phase = (typeof ${K}Phases)[number];

/**
 * The longest \`metadata.name\`: the StatefulSet's pods carry the label
 * \`controller-revision-hash: <name>-<10 characters>\`, which must stay a 63-character label value.
 */
export const MAX_NAME_LENGTH = 52;
/** Most pods of one ${K}. */
export const MAX_REPLICAS = 9;
/** The port the pods listen on and the Services expose (the placeholder image's: make it yours). */
export const ${C}_PORT = 8080;

const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

export const ${K}Spec = withValidations(
  Type.Object({
    image: Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: '^[^\\\\s]+$',
      description:
        'The container image every pod runs, e.g. registry.example.com/${n.controllerName}:1.0. A placeholder of the scaffold: replace it with what the ${K} runs (a version and an image catalogue).',
    }),
    replicas: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REPLICAS,
        default: 1,
        description: 'Pods of the StatefulSet.',
      }),
    ),
    storage: Type.Optional(
      Type.Object(
        {
          size: withValidations(
            Type.String({
              maxLength: 32,
              description: 'Each pod’s volume, e.g. 1Gi. Grow only.',
            }),
            [
              {
                rule: 'isQuantity(self)',
                message: 'spec.storage.size: not a quantity such as 1Gi or 500Mi',
              },
              ...quantityBounds('spec.storage.size', { bytes: true }),
              {
                rule: '!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0',
                messageExpression:
                  "'spec.storage.size may only grow (from ' + oldSelf + ' to ' + self + '): a PersistentVolumeClaim cannot shrink'",
              },
            ],
          ),
        },
        {
          additionalProperties: false,
          description:
            'One PersistentVolumeClaim per pod, mounted at /data. Absent: no volumes (the pods keep nothing).',
        },
      ),
    ),
    providerProfileRef: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN }) },
        {
          additionalProperties: false,
          description:
            'A kubernetes ProviderProfile: which namespaces may use it, and its guardrails. Default: the controller’s default profile, if it has one.',
        },
      ),
    ),
    deletionPolicy: Type.Optional(
      StringEnum(${K}DeletionPolicies, {
        default: 'Retain',
        description:
          'Retain: deleting the ${K} leaves its volumes in place (an Event says where). Delete: its volumes are deleted too.',
      }),
    ),
  }),
  [
    {
      rule: 'has(self.storage) == has(oldSelf.storage)',
      message:
        'spec.storage may only be set when the ${K} is created: a StatefulSet’s volume claim templates cannot change',
    },
  ],
);

export const ${K}Status = Type.Object({
  phase: Type.Optional(StringEnum(${K}Phases)),
  replicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Pods desired.' })),
  readyReplicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Pods ready.' })),
  image: Type.Optional(Type.String({ description: 'The image the pods run.' })),
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** A ${K}, run in the cluster by Steward's ${K} controller (@steward/${family}). */
export const ${K} = defineKind({
  group: '${group}',
  version: 'v1alpha1',
  kind: '${K}',
  plural: '${plural}',
  shortNames: ['${shortName}'],
  categories: ['steward'],
  scope: 'Namespaced',
  description:
    "A ${K} run in the cluster by Steward's ${K} controller: a StatefulSet, a headless and a client Service, grow-only volumes.",
  spec: ${K}Spec,
  status: ${K}Status,
  validations: [
    {
      rule: \`self.metadata.name.size() <= \${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')\`,
      message: \`metadata.name must be a DNS label of at most \${MAX_NAME_LENGTH} characters starting with a letter: it names the StatefulSet, its pods and the Services <name> and <name>-headless\`,
    },
  ],
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Ready Replicas', type: 'integer', jsonPath: '.status.readyReplicas' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
      priority: 1,
    },
  ],
});

export type ${K} = typeof ${K}.$object;
export type ${K}Spec = ${K}['spec'];
export type ${K}Status = NonNullable<${K}['status']>;
`,
    [`${dir}/src/${family}.test.ts`]: `// What the API server does with the CRD (its admission rules) is seen by libs/${family}/tests
// and e2e/${n.e2e}, with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { ${K} } from './index.js';

interface Property {
  default?: unknown;
  'x-kubernetes-validations'?: { rule: string }[];
  properties?: Record<string, Property>;
}
interface CrdVersion {
  name: string;
  subresources: Record<string, unknown>;
  additionalPrinterColumns: { name: string; jsonPath: string; priority?: number }[];
  schema: { openAPIV3Schema: { properties: { spec: Property & { required?: string[] } } } };
}
const crd = ${K}.crd() as {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[]; categories: string[] };
    versions: CrdVersion[];
  };
};
const version = crd.spec.versions[0]!;
const spec = version.schema.openAPIV3Schema.properties.spec;

describe('the ${K} CRD', () => {
  it('is ${plural}.${group}/v1alpha1, namespaced, short-named ${shortName}, in the steward category, with status', () => {
    expect(crd.metadata.name).toBe('${plural}.${group}');
    expect(crd.spec).toMatchObject({ group: '${group}', scope: 'Namespaced' });
    expect(crd.spec.names).toMatchObject({
      kind: '${K}',
      plural: '${plural}',
      shortNames: ['${shortName}'],
      categories: ['steward'],
    });
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
  });

  it('shows Ready, Phase, the replicas and Age in kubectl get, the image and the reason with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => c.priority === undefined).map((c) => c.name)).toEqual([
      'Ready',
      'Phase',
      'Ready Replicas',
      'Replicas',
      'Age',
    ]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Image',
      'Reason',
    ]);
  });

  it('requires an image, defaults to one replica and deletionPolicy Retain', () => {
    expect(spec.required).toEqual(['image']);
    expect(spec.properties?.['replicas']?.default).toBe(1);
    expect(spec.properties?.['deletionPolicy']?.default).toBe('Retain');
  });

  it('lets the storage size only grow', () => {
    const size = spec.properties?.['storage']?.properties?.['size'];
    expect(size?.['x-kubernetes-validations']?.map((v) => v.rule)).toContain(
      '!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0',
    );
  });
});
`,
  };
}

function domainLibFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, family, camel, group, shortName } = n;
  const C = constantOf(n);
  const dir = `libs/${family}`;
  const statusFn = `${camel}Status`;
  return {
    [`${dir}/src/index.ts`]: `/**
 * @steward/${family} — the ${K} domain: a workload run in the cluster, on the skeleton every
 * in-cluster kind shares (@steward/workload, @steward/provider-profile). What is the ${K}'s own
 * is pure and table-tested; the rest is the shared skeleton's.
 *
 * - \`desiredChildren(obj, templateStorage)\` (pure): the StatefulSet of \`spec.replicas\` pods of
 *   \`spec.image\`, the headless Service it names, the client Service \`<name>\` and — with
 *   \`spec.storage\` — a claim template per pod (keeping a live StatefulSet's size: templates
 *   cannot change, \`VolumeGrowth\` grows the claims one by one).
 * - \`${statusFn}(input)\` (pure): the phase, \`Ready\`/\`Progressing\`/\`Degraded\`
 *   (\`workloadConditions\`) and the status fields, from the StatefulSet's rollout, the pods and
 *   what failed (\`readFailures\`: \`Ready=False\` names an unschedulable pod, a volume not
 *   provisioned, an image that cannot be pulled, a crash loop).
 * - \`${camel}Controller(manager, options)\`: \`wireWorkload\` (informers, pod and claim indexes
 *   by the \`${K}Labels.cluster\` label, the children toolkit, watches) and \`workloadReconciler\`:
 *   pause (\`steward.dev/paused\`), deletion (\`Retain\` detaches nothing and keeps the volumes,
 *   \`Delete\` deletes them; a profile's guardrails may hold it), admission (the ProviderProfile
 *   exists, is a kubernetes profile and allows the namespace), the finalizer
 *   \`${group}/cleanup\`, then \`converge\`: children, volumes, failures, one status write.
 *
 * Make it yours: the spec in @steward/${n.apiLib}, the children in children.ts (configuration,
 * probes, resources, a PodDisruptionBudget, a NetworkPolicy), the phases in status.ts.
 */
export {
  ${K}Finalizer,
  ${camel}Controller,
  ${camel}Reconciler,
  ${camel}Users,
  type ${K}ControllerOptions,
} from './controller.js';
export {
  childNames,
  DataVolumeName,
  desiredChildren,
  desiredReplicas,
  ${K}Labels,
  renderStatefulSet,
} from './children.js';
export {
  ${K}Reasons,
  ${statusFn},
  type ${K}StatusChange,
  type ${K}StatusInput,
} from './status.js';
`,
    [`${dir}/src/children.ts`]: `import { ${C}_PORT, type ${K} } from '@steward/${n.apiLib}';
import { Services, StatefulSets } from '@steward/kube';
import { type ApplyObject, type DesiredChild } from '@steward/workload';

/**
 * The labels the ${K} controller sets and selects on. \`cluster\` (the ${K}'s name) is on every
 * child, pod and claim: the controller's caches select by it and index by its value.
 */
export const ${K}Labels = {
  cluster: '${group}/cluster',
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

/** The claim template's name: claims are \`data-<statefulset>-<ordinal>\`. */
export const DataVolumeName = 'data';

/** The children's names: the StatefulSet and the client Service \`<name>\`, \`<name>-headless\`. */
export function childNames(name: string): {
  statefulSet: string;
  service: string;
  headless: string;
} {
  return { statefulSet: name, service: name, headless: \`\${name}-headless\` };
}

/** Pods desired: \`spec.replicas\` (the API server defaults it to 1). */
export function desiredReplicas(obj: ${K}): number {
  return obj.spec.replicas ?? 1;
}

function labelsOf(obj: ${K}): Record<string, string> {
  const name = obj.metadata.name!;
  return {
    [${K}Labels.cluster]: name,
    [${K}Labels.name]: '${n.controllerName}',
    [${K}Labels.instance]: name,
    [${K}Labels.managedBy]: '${n.app}',
  };
}

/**
 * The StatefulSet \`<name>\` (pure): \`spec.replicas\` pods of \`spec.image\` started in parallel,
 * non-root, read-only root filesystem, no capabilities, no service-account token; with
 * \`spec.storage\` a claim template \`data\` of \`templateStorage\` (a live StatefulSet's, which
 * cannot change) or \`spec.storage.size\`, mounted at /data. Claims outlive it: the controller
 * deletes them per \`spec.deletionPolicy\`.
 */
export function renderStatefulSet(obj: ${K}, templateStorage: string | undefined): ApplyObject {
  const names = childNames(obj.metadata.name!);
  const labels = labelsOf(obj);
  const selector = { [${K}Labels.cluster]: obj.metadata.name! };
  const size = obj.spec.storage ? (templateStorage ?? obj.spec.storage.size) : undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet, namespace: obj.metadata.namespace!, labels },
    spec: {
      serviceName: names.headless,
      replicas: desiredReplicas(obj),
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'main',
              image: obj.spec.image,
              ports: [{ name: 'main', containerPort: ${C}_PORT }],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              ...(size ? { volumeMounts: [{ name: DataVolumeName, mountPath: '/data' }] } : {}),
            },
          ],
        },
      },
      ...(size
        ? {
            volumeClaimTemplates: [
              {
                metadata: { name: DataVolumeName, labels },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: size } },
                },
              },
            ],
          }
        : {}),
    },
  };
}

/** A Service \`name\` selecting the ${K}'s pods on the main port; headless for the StatefulSet. */
function renderService(obj: ${K}, name: string, headless: boolean): ApplyObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: obj.metadata.namespace!, labels: labelsOf(obj) },
    spec: {
      ...(headless ? { clusterIP: 'None', publishNotReadyAddresses: true } : {}),
      selector: { [${K}Labels.cluster]: obj.metadata.name! },
      ports: [{ name: 'main', port: ${C}_PORT, targetPort: 'main', protocol: 'TCP' }],
    },
  };
}

/**
 * The children a ${K} is to have (pure): the headless Service, the client Service and the
 * StatefulSet, whose claim template keeps \`templateStorage\` (a live one's) once it exists.
 */
export function desiredChildren(obj: ${K}, templateStorage: string | undefined): DesiredChild[] {
  const names = childNames(obj.metadata.name!);
  return [
    { resourceType: Services, object: renderService(obj, names.headless, true) },
    { resourceType: Services, object: renderService(obj, names.service, false) },
    { resourceType: StatefulSets, object: renderStatefulSet(obj, templateStorage) },
  ];
}
`,
    [`${dir}/src/children.test.ts`]: `import { type ${K} } from '@steward/${n.apiLib}';
import { describe, expect, it } from 'vitest';
import { desiredChildren } from './children.js';

const obj = (spec: Partial<${K}['spec']> = {}): ${K} =>
  ({
    apiVersion: '${group}/v1alpha1',
    kind: '${K}',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { image: 'registry.example.com/${n.controllerName}:1.0', ...spec },
  }) as ${K};

interface Child {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    replicas?: number;
    clusterIP?: string;
    serviceName?: string;
    selector: Record<string, unknown>;
    template?: { spec: { containers: { image: string; volumeMounts?: unknown[] }[] } };
    volumeClaimTemplates?: { spec: { resources: { requests: { storage: string } } } }[];
  };
}
const render = (o: ${K}, templateStorage?: string): Child[] =>
  desiredChildren(o, templateStorage).map((c) => c.object as unknown as Child);
const statefulSetOf = (children: Child[]) => children.find((c) => c.kind === 'StatefulSet')!;

describe('desiredChildren', () => {
  it('renders a headless Service, a client Service and the StatefulSet, each labelled with the ${K}', () => {
    const children = render(obj());
    expect(children.map((c) => \`\${c.kind}/\${c.metadata.name}\`)).toEqual([
      'Service/web-headless',
      'Service/web',
      'StatefulSet/web',
    ]);
    for (const child of children) expect(child.metadata.labels['${group}/cluster']).toBe('web');
    expect(children[0]!.spec.clusterIP).toBe('None');
    expect(children[1]!.spec.clusterIP).toBeUndefined();
    expect(statefulSetOf(children).spec.serviceName).toBe('web-headless');
  });

  const cases: {
    name: string;
    spec: Partial<${K}['spec']>;
    templateStorage?: string;
    replicas: number;
    claim: string | undefined;
  }[] = [
    { name: 'one pod and no volume by default', spec: {}, replicas: 1, claim: undefined },
    { name: 'spec.replicas pods', spec: { replicas: 3 }, replicas: 3, claim: undefined },
    {
      name: 'a claim template of spec.storage.size',
      spec: { storage: { size: '2Gi' } },
      replicas: 1,
      claim: '2Gi',
    },
    {
      name: 'the live claim template’s size once the StatefulSet exists (templates cannot change)',
      spec: { storage: { size: '5Gi' } },
      templateStorage: '2Gi',
      replicas: 1,
      claim: '2Gi',
    },
    {
      name: 'no claim template without spec.storage, whatever a live one had',
      spec: {},
      templateStorage: '2Gi',
      replicas: 1,
      claim: undefined,
    },
  ];
  it.each(cases)('renders $name', ({ spec, templateStorage, replicas, claim }) => {
    const sts = statefulSetOf(render(obj(spec), templateStorage));
    const container = sts.spec.template!.spec.containers[0]!;
    expect(sts.spec.replicas).toBe(replicas);
    expect(container.image).toBe('registry.example.com/${n.controllerName}:1.0');
    expect(sts.spec.volumeClaimTemplates?.[0]?.spec.resources.requests.storage).toBe(claim);
    expect(container.volumeMounts === undefined).toBe(claim === undefined);
  });
});
`,
    [`${dir}/src/status.ts`]: `/**
 * The status a ${K} reconcile states (pure): phase, conditions \`Ready\`, \`Progressing\`,
 * \`Degraded\` (\`workloadConditions\`: the rules every workload kind shares) and the status fields,
 * from the StatefulSet's rollout (as \`kubectl rollout status\` judges it), the pods and what failed.
 *
 * \`Ready=True\` (\`Available\`) only when every desired pod exists and is ready and the rollout is
 * complete, so kstatus reads Current only then. Provisioning and Scaling last until the ${K} is
 * Ready (the phase last stated is read back); Scaling begins when the pods desired change
 * (\`status.replicas\`, the count last stated). A Ready ${K} that loses a pod is \`PodsMissing\`,
 * one whose pods stop being ready \`PodsNotReady\` (both Degraded); a new template is \`Updating\`.
 */
import { type ${K}, type ${K}Phase } from '@steward/${n.apiLib}';
import {
  workloadConditions,
  type RolloutStatus,
  type WorkloadStatusChange,
} from '@steward/workload';

/** The reasons of the ${K}'s phases (its terminal ones come from @steward/provider-profile). */
export const ${K}Reasons = {
  Available: 'Available',
  Provisioning: 'Provisioning',
  Scaling: 'Scaling',
  Updating: 'Updating',
  PodsMissing: 'PodsMissing',
  PodsNotReady: 'PodsNotReady',
} as const;

interface Problem {
  reason: string;
  message: string;
}

export interface ${K}StatusInput {
  /** The ${K} as the status writer has it last: its \`status.phase\` and \`status.replicas\` are read back. */
  obj: ${K};
  /** Pods desired. */
  replicas: number;
  /** Pods that exist and are not being deleted. */
  podCount: number;
  /** Pods ready (the StatefulSet's count). */
  readyReplicas: number;
  /** The StatefulSet's rollout; undefined before the StatefulSet exists. */
  rollout: RolloutStatus | undefined;
  /** What the controller could not do this time (a volume that cannot grow): Degraded. */
  problems: Problem[];
  /** What is under way besides (a volume growing): Progressing. */
  notes: Problem[];
  /** Why pods or volumes do not come up (\`readFailures\`): while not ready, Ready=False names them. */
  failures: Problem[];
  /** Spec changes that cannot take effect (a volume asked to shrink): Ready=False names them. */
  refusals: Problem[];
}

export interface ${K}StatusChange extends WorkloadStatusChange {
  phase: ${K}Phase;
}

export function ${statusFn}(input: ${K}StatusInput): ${K}StatusChange {
  const { obj, replicas, podCount, readyReplicas, rollout } = input;
  const ready = (rollout?.complete ?? false) && readyReplicas >= replicas && podCount === replicas;
  const previous = obj.status?.phase;
  const scalingTo = obj.status?.replicas !== undefined && obj.status.replicas !== replicas;
  const rolling = rollout && !rollout.complete ? rollout.message : undefined;
  const counts = \`\${readyReplicas} of \${replicas} pods ready\`;
  const R = ${K}Reasons;

  let phase: ${K}Phase;
  let reason: string;
  let message: string;
  if (ready) {
    [phase, reason, message] = ['Ready', R.Available, counts];
  } else if (scalingTo || previous === 'Scaling') {
    const pods = podCount !== replicas ? \`\${podCount} pods, \${replicas} desired\` : counts;
    [phase, reason, message] = ['Scaling', R.Scaling, rolling ? \`\${pods}: \${rolling}\` : pods];
  } else if (previous === undefined || previous === 'Provisioning') {
    const waiting = rollout ? (rolling ?? counts) : 'waiting for the StatefulSet';
    [phase, reason, message] = ['Provisioning', R.Provisioning, waiting];
  } else if (podCount < replicas) {
    const missing = \`\${podCount} of \${replicas} pods exist; the StatefulSet re-creates the missing ones\`;
    [phase, reason, message] = ['Degraded', R.PodsMissing, missing];
  } else if (rolling) {
    [phase, reason, message] = ['Updating', R.Updating, rolling];
  } else {
    [phase, reason, message] = ['Degraded', R.PodsNotReady, counts];
  }

  const conditions = workloadConditions({
    ready,
    reason,
    message,
    progressing: !ready && phase !== 'Degraded',
    notes: input.notes,
    degradations: phase === 'Degraded' ? [{ reason, message }, ...input.problems] : input.problems,
    failures: input.failures,
    refusals: input.refusals,
    healthyMessage: 'every pod is ready',
  });
  return {
    phase,
    conditions,
    fields: { phase, replicas, readyReplicas, image: obj.spec.image },
  };
}
`,
    [`${dir}/src/status.test.ts`]: `import { type ${K}, type ${K}Phase } from '@steward/${n.apiLib}';
import { describe, expect, it } from 'vitest';
import { ${statusFn}, type ${K}StatusInput } from './status.js';

const obj = (status?: { phase: ${K}Phase; replicas: number }): ${K} =>
  ({
    apiVersion: '${group}/v1alpha1',
    kind: '${K}',
    metadata: { name: 'web', namespace: 'team-a', generation: 1 },
    spec: { image: 'registry.example.com/${n.controllerName}:1.0', replicas: 3 },
    ...(status ? { status } : {}),
  }) as ${K};

const complete = { complete: true, reason: 'RollingUpdateComplete', message: 'done' };
const rolling = { complete: false, reason: 'RollingUpdateInProgress', message: 'rolling' };
const converged: Omit<${K}StatusInput, 'obj'> = {
  replicas: 3,
  podCount: 3,
  readyReplicas: 3,
  rollout: complete,
  problems: [],
  notes: [],
  failures: [],
  refusals: [],
};

/** \`Type=Status/Reason\` of Ready, Progressing and Degraded. */
const summary = (input: ${K}StatusInput) => {
  const change = ${statusFn}(input);
  return {
    phase: change.phase,
    conditions: change.conditions.map((c) => \`\${c.type}=\${c.status}/\${c.reason}\`),
  };
};

describe('${statusFn}', () => {
  const cases: {
    name: string;
    input: ${K}StatusInput;
    phase: ${K}Phase;
    conditions: string[];
  }[] = [
    {
      name: 'a new ${K} whose StatefulSet does not exist yet is Provisioning',
      input: { ...converged, obj: obj(), podCount: 0, readyReplicas: 0, rollout: undefined },
      phase: 'Provisioning',
      conditions: ['Ready=False/Provisioning', 'Progressing=True/Provisioning', 'Degraded=False/Healthy'],
    },
    {
      name: 'pods not yet ready are still Provisioning',
      input: { ...converged, obj: obj(), readyReplicas: 1, rollout: rolling },
      phase: 'Provisioning',
      conditions: ['Ready=False/Provisioning', 'Progressing=True/Provisioning', 'Degraded=False/Healthy'],
    },
    {
      name: 'every pod ready and the rollout complete is Ready',
      input: { ...converged, obj: obj() },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=False/Converged', 'Degraded=False/Healthy'],
    },
    {
      name: 'a change of spec.replicas is Scaling',
      input: { ...converged, obj: obj({ phase: 'Ready', replicas: 2 }), podCount: 2, readyReplicas: 2 },
      phase: 'Scaling',
      conditions: ['Ready=False/Scaling', 'Progressing=True/Scaling', 'Degraded=False/Healthy'],
    },
    {
      name: 'a scale that is over is Ready',
      input: { ...converged, obj: obj({ phase: 'Scaling', replicas: 3 }) },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=False/Converged', 'Degraded=False/Healthy'],
    },
    {
      name: 'a Ready ${K} that lost a pod is Degraded (PodsMissing)',
      input: { ...converged, obj: obj({ phase: 'Ready', replicas: 3 }), podCount: 2, readyReplicas: 2, rollout: rolling },
      phase: 'Degraded',
      conditions: ['Ready=False/PodsMissing', 'Progressing=False/Converged', 'Degraded=True/PodsMissing'],
    },
    {
      name: 'a new template rolling out is Updating',
      input: { ...converged, obj: obj({ phase: 'Ready', replicas: 3 }), rollout: rolling },
      phase: 'Updating',
      conditions: ['Ready=False/Updating', 'Progressing=True/Updating', 'Degraded=False/Healthy'],
    },
    {
      name: 'a Ready ${K} whose pods stop being ready is Degraded (PodsNotReady)',
      input: { ...converged, obj: obj({ phase: 'Ready', replicas: 3 }), readyReplicas: 2 },
      phase: 'Degraded',
      conditions: ['Ready=False/PodsNotReady', 'Progressing=False/Converged', 'Degraded=True/PodsNotReady'],
    },
    {
      name: 'a pod that cannot be scheduled is named by Ready=False, and Degraded',
      input: {
        ...converged,
        obj: obj(),
        readyReplicas: 0,
        rollout: rolling,
        failures: [{ reason: 'Unschedulable', message: 'pod web-0: 0/1 nodes are available' }],
      },
      phase: 'Provisioning',
      conditions: ['Ready=False/Unschedulable', 'Progressing=True/Provisioning', 'Degraded=True/Unschedulable'],
    },
    {
      name: 'a volume that cannot grow leaves a Ready ${K} Ready, and Degraded',
      input: {
        ...converged,
        obj: obj({ phase: 'Ready', replicas: 3 }),
        problems: [{ reason: 'VolumeExpansionFailed', message: 'data-web-0 cannot grow' }],
      },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=False/Converged', 'Degraded=True/VolumeExpansionFailed'],
    },
    {
      name: 'a volume growing is Progressing',
      input: {
        ...converged,
        obj: obj({ phase: 'Ready', replicas: 3 }),
        notes: [{ reason: 'VolumeExpanding', message: 'data-web-0 grows from 1Gi to 2Gi' }],
      },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=True/VolumeExpanding', 'Degraded=False/Healthy'],
    },
  ];
  it.each(cases)('$name', ({ input, phase, conditions }) => {
    expect(summary(input)).toEqual({ phase, conditions });
  });

  it('states the counts and the image in the status fields', () => {
    expect(${statusFn}({ ...converged, obj: obj(), readyReplicas: 1, rollout: rolling }).fields).toEqual({
      phase: 'Provisioning',
      replicas: 3,
      readyReplicas: 1,
      image: 'registry.example.com/${n.controllerName}:1.0',
    });
  });
});
`,
    [`${dir}/src/controller.ts`]: `import { ${K} } from '@steward/${n.apiLib}';
import {
  type Controller,
  type EventRecorder,
  type Fairness,
  type Manager,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Result,
} from '@steward/controller';
import { type Selection } from '@steward/informer';
import { Services, StatefulSets, type KubeClient } from '@steward/kube';
import {
  namespaceDirectory,
  namespaceRefusal,
  WorkloadAdmissionReasons,
  WorkloadProfiles,
  type NamespaceFacts,
  type ProfileUser,
} from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  deleteOwnVolumes,
  nextLook,
  ordinalOf,
  readFailures,
  retainVolumes,
  scalingEvent,
  stateStatus,
  statefulSetRolloutStatus,
  syncOwnChildren,
  templateStorageOf,
  VolumeGrowth,
  volumesOf,
  wireWorkload,
  workloadChanges,
  workloadReconciler,
  type ClaimObject,
  type PodLike,
  type StatefulSetLike,
  type StatefulSetWithClaims,
  type WorkloadChildren,
  type WorkloadRefusal,
} from '@steward/workload';
import {
  childNames,
  DataVolumeName,
  desiredChildren,
  desiredReplicas,
  ${K}Labels,
} from './children.js';
import { ${statusFn} } from './status.js';

/** The finalizer every ${K} carries while the controller may still have to clean up. */
export const ${K}Finalizer = '${group}/cleanup';

export interface ${K}ControllerOptions {
  /** Which ${K}s to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** ${K}s reconciled at once. Default 4. */
  maxConcurrentReconciles?: number;
  /** The work queue's order: \`fair\` (the default: namespaces take turns) or \`fifo\`. */
  fairness?: Fairness;
  /** The field manager of its server-side applies (the app's name). Default ${n.app}. */
  fieldManager?: string;
  /** The kubernetes ProviderProfile of ${K}s that name none. */
  defaultProfile?: string;
  /** How often a Ready ${K} is looked at again. Default 60 s. */
  pollIntervalMs?: number;
  /** How often while something moves. Default 1 s. */
  busyPollIntervalMs?: number;
  events?: EventRecorder;
  now?: () => Date;
}

const ByProfile = '${group}/profile';

/**
 * The ${K} controller: every ${K} of \`options.selection\` kept as a StatefulSet with its
 * Services (the workload toolkit applies them; a converged ${K} costs no API writes), its
 * volumes grown with \`spec.storage.size\`, and its status stated from the StatefulSet, the pods
 * and what keeps them from running.
 *
 * Woken by spec changes and \`steward.dev/paused\`, by its children, pods and claims changing, by
 * its profile or namespace changing, and by its own poll.
 *
 * RBAC: ${n.plural} get/list/watch/patch, ${n.plural}/status patch, ${n.plural}/finalizers update;
 * statefulsets and services get/list/watch/create/patch/delete; pods get/list/watch;
 * persistentvolumeclaims get/list/watch/patch/delete; events list (core) and create/patch
 * (events.k8s.io); providerprofiles and namespaces get/list/watch.
 */
export function ${camel}Controller(manager: Manager, options: ${K}ControllerOptions = {}): Controller {
  const profiles = manager.informers.informerFor<ProviderProfile>(ProviderProfile.resourceType);
  const namespaces = namespaceDirectory(manager);
  const wiring = wireWorkload<${K}, PodLike>(manager, {
    resourceType: ${K}.resourceType,
    name: '${n.controllerName}',
    ...(options.selection ? { selection: options.selection } : {}),
    clusterLabel: ${K}Labels.cluster,
    childKinds: [StatefulSets, Services],
    fieldManager: options.fieldManager ?? '${n.app}',
    predicates: [workloadChanges],
    references: {
      resourceType: ProviderProfile.resourceType,
      index: ByProfile,
      nameOf: (obj) => obj.spec.providerProfileRef?.name ?? options.defaultProfile,
    },
    maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4,
    ...(options.fairness ? { fairness: options.fairness } : {}),
  });
  const namespaceWatch = namespaces.watchFor(wiring.objects);
  const reconciler = ${camel}Reconciler({
    client: manager.client,
    children: wiring.children,
    pods: wiring.podsOf,
    claims: wiring.claimsOf,
    profile: (name) => profiles.store.get(name),
    namespace: (name) => namespaces.facts(name),
    options,
  });
  return wiring.builder
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .completeObjects(reconciler);
}

interface ReconcilerDeps {
  client: KubeClient;
  children: WorkloadChildren;
  /** The pods of one ${K} (by its label). */
  pods: (namespace: string, name: string) => PodLike[];
  /** The claims of one ${K}'s pods (by its label). */
  claims: (namespace: string, name: string) => ClaimObject[];
  profile: (name: string) => ProviderProfile | undefined;
  /** The namespace's name and labels, for the profile's namespace binding. */
  namespace: (name: string) => NamespaceFacts;
  options: ${K}ControllerOptions;
}

/** The reconciler of one ${K} (exported for tests that drive it with their own deps). */
export function ${camel}Reconciler(deps: ReconcilerDeps): ObjectReconciler<${K}> {
  const { client, children, options } = deps;
  const volumes = new VolumeGrowth(client);
  const profiles = new WorkloadProfiles<${K}>(deps.profile, options.defaultProfile);
  const now = options.now ?? (() => new Date());
  const poll = {
    pollMs: options.pollIntervalMs ?? 60_000,
    busyMs: options.busyPollIntervalMs ?? 1000,
  };
  const emit = (obj: ${K}, type: 'Normal' | 'Warning', reason: string, message: string) =>
    options.events?.event(obj, type, reason, message);

  /** Why the ${K} may not run (its profile), or undefined. */
  function refusal(obj: ${K}): WorkloadRefusal | undefined {
    const missing = profiles.missing(obj);
    if (missing) return missing;
    const profile = profiles.of(obj);
    if (!profile) return undefined;
    if (profile.spec.provider !== 'kubernetes')
      return {
        reason: WorkloadAdmissionReasons.WrongProvider,
        message: \`ProviderProfile \${profile.metadata.name} is for \${profile.spec.provider}; a ${K} needs a kubernetes profile\`,
      };
    return namespaceRefusal(profile, deps.namespace(obj.metadata.namespace ?? ''));
  }

  /** One reconcile: children, volumes, failures, then the one status write. */
  async function converge(ctx: ObjectReconcileContext<${K}>, obj: ${K}): Promise<Result> {
    const name = obj.metadata.name!;
    const namespace = obj.metadata.namespace!;
    const names = childNames(name);
    const live = children.get<StatefulSetWithClaims>(obj, StatefulSets, names.statefulSet);
    const synced = await syncOwnChildren(
      children,
      obj,
      desiredChildren(obj, templateStorageOf(live)),
      ctx.signal,
    );
    // Volumes grow with spec.storage.size (StatefulSet templates cannot change).
    const claims = deps.claims(namespace, name);
    const problems: { reason: string; message: string }[] = [];
    const notes: { reason: string; message: string }[] = [];
    // A change that cannot take effect (a size below the volumes'): Ready=False, not converged.
    const refusals: { reason: string; message: string }[] = [];
    if (obj.spec.storage) {
      const grown = await volumes.step(
        claims,
        obj.spec.storage.size,
        now().getTime(),
        (message) => emit(obj, 'Normal', 'VolumeExpanding', message),
      );
      problems.push(...grown.problems);
      notes.push(...grown.notes);
      refusals.push(...grown.refusals);
    }
    const pods = deps.pods(namespace, name);
    // Why pods do not come up (unschedulable, a volume not provisioned, an image, a crash loop).
    const failures = await readFailures(client, namespace, pods, claims, now().getTime(), ctx.signal);
    const sts = synced.get(\`StatefulSet/\${names.statefulSet}\`) as StatefulSetLike | undefined;
    const replicas = desiredReplicas(obj);
    const readyReplicas = sts?.status?.readyReplicas ?? 0;
    const { before, change } = await stateStatus(ctx.status, (latest) =>
      ${statusFn}({
        obj: latest,
        replicas,
        podCount: pods.filter((p) => !p.metadata.deletionTimestamp).length,
        readyReplicas,
        rollout: sts ? statefulSetRolloutStatus(sts) : undefined,
        problems,
        notes,
        failures,
        refusals,
      }),
    );
    const scaled = scalingEvent(before, change.phase, \`\${replicas} pods desired, \${readyReplicas} ready\`);
    if (scaled) emit(obj, 'Normal', scaled.reason, scaled.message);
    return nextLook(change.phase, undefined, change.phase === 'Ready' && problems.length === 0, [], poll);
  }

  /** The volumes of this ${K}'s StatefulSet (not a same-named predecessor's). */
  const volumesOfObject = (obj: ${K}) =>
    volumesOf(
      deps.claims(obj.metadata.namespace!, obj.metadata.name!),
      obj,
      (claim) =>
        ordinalOf(
          \`\${DataVolumeName}-\${childNames(obj.metadata.name!).statefulSet}\`,
          claim.metadata.name ?? '',
        ) !== undefined,
    );

  return workloadReconciler<${K}>(client, {
    resourceType: ${K}.resourceType,
    finalizer: ${K}Finalizer,
    refusal,
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) => profiles.deletionRefusal('${K}', obj, 'its volumes'),
    converge,
    // Retain: the volumes have no owner and stay; the StatefulSet and Services go with the ${K}.
    retain: async (_ctx, obj) =>
      emit(obj, 'Normal', 'Retained', await retainVolumes(client, children, obj, volumesOfObject(obj), [])),
    remove: async (_ctx, obj) =>
      emit(
        obj,
        'Normal',
        'Deleted',
        await deleteOwnVolumes(client, obj, volumesOfObject(obj), 'the StatefulSet and the Services'),
      ),
    forget: (obj) => volumes.forget(deps.claims(obj.metadata.namespace!, obj.metadata.name!)),
  });
}

/**
 * ${K}s as users of ProviderProfiles (for \`status.usedBy\` and the in-use finalizer): the profile
 * each names, or the default profile when it names none.
 */
export function ${camel}Users(defaultProfile?: string): ProfileUser<${K}> {
  return {
    resourceType: ${K}.resourceType,
    profileNameOf: (obj) => obj.spec.providerProfileRef?.name ?? defaultProfile,
  };
}
`,
    [`${dir}/tests/controller.int.test.ts`]: `import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { ${K} } from '@steward/${n.apiLib}';
import { KubeClient, Namespaces, Services, StatefulSets, type KubeObject } from '@steward/kube';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ${K}Finalizer, ${camel}Controller } from '../src/index.js';

// On a control plane no pod ever runs (no scheduler, no kubelet, no StatefulSet controller): these
// tests see what the controller itself does — children, finalizer, admission, status, deletion.
const Kind = ${K}.resourceType;
const image = 'registry.example.com/${n.controllerName}:1.0';

let plane: ControlPlane;
let admin: KubeClient;
let ns = '';
let testNumber = 0;
const running: Manager[] = [];

beforeAll(async () => {
  // The CRDs exactly as the chart ships them (tools/scripts/generate-crds.ts): ${K}, ProviderProfile.
  plane = await startControlPlane({ crds: [join(repoRoot(), 'charts/${n.app}/crds')] });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
beforeEach(async () => {
  ns = \`${shortName}-\${++testNumber}\`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const manager = new Manager({ kubeConfig: plane.kubeConfig, name: '${n.app}' });
  ${camel}Controller(manager, { selection: { namespace: ns } });
  manager.start().catch(() => undefined);
  running.push(manager);
});
afterEach(async () => {
  for (const manager of running.splice(0)) await manager.stop();
});
afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

const create = (name: string, spec: Partial<${K}['spec']> = {}) =>
  admin.create<${K}>(Kind, {
    apiVersion: ${K}.apiVersion,
    kind: '${K}',
    metadata: { name, namespace: ns },
    spec: { image, ...spec },
  } as ${K});
const read = (name: string) => admin.get<${K}>(Kind, name, ns);
/** The object once its \`Ready\` condition has \`reason\` at the object's current generation. */
const withReadyReason = (name: string, reason: string) =>
  eventually(
    async () => {
      const obj = await read(name);
      const ready = findCondition(obj.status?.conditions, 'Ready');
      return ready?.reason === reason && ready.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    { description: \`\${name} Ready reason \${reason}\`, timeoutMs: 60_000 },
  );
const controllerOf = (child: KubeObject) =>
  child.metadata.ownerReferences?.find((r) => r.controller)?.name;

describe('the ${K} controller, on a real API server', () => {
  it('creates the StatefulSet and the Services, keeps a finalizer and says Provisioning (kstatus: InProgress)', async () => {
    await create('web', { replicas: 2, storage: { size: '1Gi' } });
    const obj = await withReadyReason('web', 'Provisioning');
    expect(obj.metadata.finalizers).toContain(${K}Finalizer);
    expect(findCondition(obj.status?.conditions, 'Ready')?.status).toBe('False');
    expect(findCondition(obj.status?.conditions, 'Progressing')?.status).toBe('True');
    expect(obj.status).toMatchObject({ phase: 'Provisioning', replicas: 2, readyReplicas: 0, image });
    expect(obj.spec.deletionPolicy).toBe('Retain');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'InProgress', unobserved: [] });

    const sts = await admin.get<
      KubeObject & {
        spec: {
          replicas: number;
          template: { spec: { containers: { image: string }[] } };
          volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
        };
      }
    >(StatefulSets, 'web', ns);
    expect(controllerOf(sts)).toBe('web');
    expect(sts.spec.replicas).toBe(2);
    expect(sts.spec.template.spec.containers[0]!.image).toBe(image);
    expect(sts.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe('1Gi');
    for (const service of ['web', 'web-headless'])
      expect(controllerOf(await admin.get(Services, service, ns))).toBe('web');
  });

  it('refuses a ProviderProfile that does not exist (kstatus: Failed) and creates nothing', async () => {
    await create('lost', { providerProfileRef: { name: 'no-such-profile' } });
    const obj = await withReadyReason('lost', 'ProviderProfileNotFound');
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect(obj.metadata.finalizers ?? []).not.toContain(${K}Finalizer);
    await expect(admin.get(StatefulSets, 'lost', ns)).rejects.toMatchObject({ code: 404 });
  });

  it('lets the API server refuse a storage size of 0 and a shrink', async () => {
    await expect(create('empty', { storage: { size: '0' } })).rejects.toThrow(
      'spec.storage.size must be greater than 0',
    );
    await create('grows', { storage: { size: '2Gi' } });
    await expect(
      admin.mergePatch(Kind, 'grows', ns, { spec: { storage: { size: '1Gi' } } }),
    ).rejects.toThrow('spec.storage.size may only grow (from 2Gi to 1Gi)');
  });

  it('lets a deleted ${K} go (deletionPolicy Retain): the finalizer comes off', async () => {
    await create('gone');
    await withReadyReason('gone', 'Provisioning');
    await admin.delete(Kind, 'gone', ns);
    await eventually(
      async () =>
        admin.get(Kind, 'gone', ns).then(
          () => undefined,
          (error: { code?: number }) => (error.code === 404 ? true : undefined),
        ),
      { description: 'gone deleted', timeoutMs: 60_000 },
    );
  });
});
`,
  };
}

function appFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, camel } = n;
  const appClass = `${K}ControllerApp`;
  return {
    [`apps/${n.app}/src/app.ts`]: `import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
  type ProcessEvents,
  watchSelection,
  workloadControllerOptions,
} from '@steward/controller-process';
import { ${camel}Controller, ${camel}Users } from '@steward/${n.family}';
import { providerProfileController } from '@steward/provider-profile';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = '${n.app}';

/**
 * The ${n.app} process: the ${K} controller (and, when it manages profiles, the
 * ProviderProfile controller for kubernetes profiles: their status, and its own in-use finalizer
 * while ${K}s use them) on one manager. \`run()\` resolves with the exit code once the manager has
 * stopped. Its workload settings (the default profile) come from \`workloadControllerOptions\`.
 */
@injectable()
export class ${appClass} {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
    @inject(Tokens.EventRecorder) private readonly events: ProcessEvents,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    const { settings, options } = workloadControllerOptions(config, this.events, APP_NAME);
    ${camel}Controller(manager, options);
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['kubernetes'],
        // With watched namespaces the chart's Roles allow no cluster-wide list: it counts the users
        // in those namespaces only (manageProviderProfiles is off there by default for that reason).
        users: [{ ...${camel}Users(settings.defaultProfile), ...watchSelection(config) }],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }
    return runUntilStopped(manager);
  }
}
`,
  };
}

function chartFiles(n: ControllerNames, base: Record<string, string>): Record<string, string> {
  const { kind: K, app, group, plural } = n;
  const dir = `charts/${app}`;
  const rbac = (scope: string) =>
    `{{- include "steward-common.rbac.${scope}" (dict "root" . "watchRules" (include "${app}.watchRules" .) "watchRulesReadSecrets" false "readsProfileSecrets" false "profileRulesWhenManaged" true) }}\n`;
  let values = base[`${dir}/values.yaml`]!;
  values = replaceOnce(
    values,
    `# -- STEWARD_POLL_INTERVAL_SECONDS. The ${K} controller polls nothing yet: a spec change is what
# reconciles a ${K}.`,
    `# -- STEWARD_POLL_INTERVAL_SECONDS: how often a Ready ${K} is looked at again (its StatefulSet,
# pods and claims changing wake it at once).`,
  );
  values = replaceOnce(
    values,
    `# -- STEWARD_MANAGE_PROVIDER_PROFILES. The ${K} controller runs no ProviderProfile controller, so
# it has no effect (the values every Steward chart shares have it).`,
    `# -- STEWARD_MANAGE_PROVIDER_PROFILES: run the ProviderProfile controller for kubernetes profiles
# (status, usage by ${K}s, its in-use finalizer). null: on when every namespace is watched, off with
# watched namespaces (another installation must then manage them).`,
  );
  values = replaceOnce(
    values,
    `  # -- The namespaces of Secrets that ProviderProfiles name, where steward-common grants \`get\` on
  # Secrets (empty: in every namespace when watching every namespace, in none with
  # \`watchNamespaces\`). The ${K} controller reads no Secret.`,
    `  # -- Not used: the ${K} controller reads no Secret (kubernetes ProviderProfiles name none); the
  # chart refuses a non-empty list.`,
  );
  const readme = replaceOnce(
    replaceOnce(
      base[`${dir}/README.md`]!,
      `converged: \`Ready=True\`
(\`Accepted\`) for a spec it accepts, \`Ready=False\` and \`Stalled=True\` with the reason for one it
refuses.`,
      `converged in the cluster: a StatefulSet of
\`spec.image\`, a headless and a client Service, grow-only volumes, and the status \`Ready\`,
\`Progressing\` and \`Degraded\` say why it is not ready.`,
    ),
    `- a ServiceAccount and the RBAC the controller needs: ${plural} get/list/watch and
  \`${plural}/status\` patch, Events create/patch, its Lease. The library chart adds, for every
  Steward controller, the ProviderProfile rules and \`get\` on Secrets by name, which this
  controller does not use.`,
    `- a ServiceAccount and the RBAC the controller needs (\`templates/_helpers.tpl\`): ${plural}
  get/list/watch/patch, \`${plural}/status\` patch, \`${plural}/finalizers\` update; statefulsets
  and services get/list/watch/create/patch/delete; pods get/list/watch; persistentvolumeclaims
  get/list/watch/patch/delete; core events list; Events create/patch; its Lease. The library chart
  adds the ProviderProfile rules (get/list/watch, and patch with the ProviderProfile controller,
  \`manageProviderProfiles\`) and Namespaces get/list/watch. No Secret is read.`,
  );
  return {
    [`${dir}/values.yaml`]: values,
    [`${dir}/README.md`]: readme,
    [`${dir}/templates/rbac-cluster.yaml`]: rbac('cluster'),
    [`${dir}/templates/rbac-namespaced.yaml`]: rbac('namespaced'),
    [`${dir}/templates/NOTES.txt`]: `{{ include "steward-common.notes.installed" (dict "root" . "kind" "${K}" "plural" "${K}s") }}

For each ${K} it runs a StatefulSet of the ${K}'s image in the ${K}'s namespace, with a headless
and a client Service and, with spec.storage, a volume per pod that grows with the spec.
{{- if eq (include "steward-common.manageProviderProfiles" .) "true" }}
It also manages the kubernetes ProviderProfiles (status, usage count, in-use finalizer).
{{- else }}
It does not manage ProviderProfiles here (manageProviderProfiles): another installation must, or
their status and in-use finalizer are left alone.
{{- end }}

Next, create ${K}s and watch them become Ready:

  kubectl get ${plural} --all-namespaces
  kubectl describe ${n.controllerName} <name> -n <namespace>   # conditions and Events

{{ include "steward-common.notes.observability" . }}
`,
    [`${dir}/templates/_helpers.tpl`]: `{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
${K}s and what the controller runs them with: in the ClusterRole without watched namespaces, in a
Role in each watched namespace with them. Nothing is updated but the finalizers subresource;
nothing is deleted but children and volumes; no Secret is read.
*/}}
{{- define "${app}.watchRules" -}}
# ${K}s: cached; the cleanup finalizer added and removed by (JSON) patch, status by merge patch;
# never updated.
- apiGroups: [${group}]
  resources: [${plural}]
  verbs: [get, list, watch, patch]
- apiGroups: [${group}]
  resources: [${plural}/status]
  verbs: [patch]
# The children's ownerReferences set blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
# admission plugin allows only to who may update the owner's finalizers.
- apiGroups: [${group}]
  resources: [${plural}/finalizers]
  verbs: [update]
# The children, cached by label: applied server-side (patch; create when absent), pruned when no
# longer wanted (delete).
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: ['']
  resources: [services]
  verbs: [get, list, watch, create, patch, delete]
# The pods (the StatefulSet creates them): observed only.
- apiGroups: ['']
  resources: [pods]
  verbs: [get, list, watch]
# The StatefulSet's volumes: grown by patch, deleted with a ${K} whose deletionPolicy is Delete.
- apiGroups: ['']
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, patch, delete]
# The Events of a pod or volume stuck for a while (listed by involvedObject, only then): how the
# ${K} names a volume not provisioned or an image that cannot be pulled.
- apiGroups: ['']
  resources: [events]
  verbs: [list]
{{- end }}
`,
  };
}

function e2eFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, app, group, plural } = n;
  const dir = `e2e/${n.e2e}`;
  const rule = (
    roleKind: string,
    apiGroup: string,
    resource: string,
    verbs: string[],
    extra = '',
  ) => `    {
      roleKind: '${roleKind}',
      namespace: ${roleKind === 'Role' ? 'releaseNamespace' : 'undefined'},
      apiGroups: ['${apiGroup}'],
      resources: ['${resource}'],${extra}
      verbs: [${verbs.map((v) => `'${v}'`).join(', ')}],
    },`;
  const all = ['get', 'list', 'watch', 'create', 'patch', 'delete'];
  return {
    [`${dir}/tests/chart.int.test.ts`]: `import { ${K} } from '@steward/${n.apiLib}';
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
const kinds = (...extra: string[]) =>
  ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', 'Service', 'ServiceAccount']
    .concat(extra)
    .sort();

const variations: ChartVariation[] = [
  { name: 'default values', values: {}, kinds: kinds('Role', 'RoleBinding') },
  {
    name: 'watchNamespace set',
    values: { watchNamespace: 'team-a' },
    kinds: kinds('Role', 'Role', 'RoleBinding', 'RoleBinding'),
  },
  {
    name: 'watchNamespace set, ProviderProfile controller on',
    values: { watchNamespace: 'team-a', manageProviderProfiles: true },
    kinds: kinds('Role', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'RoleBinding'),
  },
  {
    name: 'two replicas',
    values: { replicas: 2 },
    kinds: kinds('PodDisruptionBudget', 'Role', 'RoleBinding'),
  },
  {
    name: 'ServiceMonitor on',
    values: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
    kinds: kinds('Role', 'RoleBinding', 'ServiceMonitor'),
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
    kinds: ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service'],
  },
];

// What every Steward controller chart promises (lint, rendering, schema, dashboard, Pod, RBAC,
// dry run, Pod Security, RBAC on a real API server, helm install), with this workload chart's
// rules (templates/_helpers.tpl): its children and volumes, its pods observed, no Secret at all.
describeControllerChart({
  chart,
  kind: ${K}.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations,
  defaultRules: [
${rule('ClusterRole', 'steward.dev', 'providerprofiles', ['get', 'list', 'watch', 'patch'])}
${rule('ClusterRole', 'steward.dev', 'providerprofiles/status', ['patch'])}
${rule('ClusterRole', '', 'namespaces', ['get', 'list', 'watch'])}
${rule('ClusterRole', group, plural, ['get', 'list', 'watch', 'patch'])}
${rule('ClusterRole', group, `${plural}/status`, ['patch'])}
${rule('ClusterRole', group, `${plural}/finalizers`, ['update'])}
${rule('ClusterRole', 'apps', 'statefulsets', all)}
${rule('ClusterRole', '', 'services', all)}
${rule('ClusterRole', '', 'pods', ['get', 'list', 'watch'])}
${rule('ClusterRole', '', 'persistentvolumeclaims', ['get', 'list', 'watch', 'patch', 'delete'])}
${rule('ClusterRole', '', 'events', ['list'])}
${rule('ClusterRole', 'events.k8s.io', 'events', ['create', 'patch'])}
${rule('Role', 'coordination.k8s.io', 'leases', ['create'])}
${rule('Role', 'coordination.k8s.io', 'leases', ['get', 'update'], `\n      resourceNames: ['${app}-leader'],`)}
  ],
  watchNamespaceAccess: [
    { verb: 'create', group: 'apps', resource: 'statefulsets', namespace: 'team-a', allowed: true },
    { verb: 'create', group: 'apps', resource: 'statefulsets', namespace: 'team-b', allowed: false },
    { verb: 'delete', group: '', resource: 'persistentvolumeclaims', namespace: 'team-a', allowed: true },
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
  ],
  // Updated: only the finalizers subresource (blockOwnerDeletion) and the Lease. Deleted: only the
  // children the controller prunes and the volumes of a ${K} whose deletionPolicy is Delete.
  grantableVerbs: {
    get: '*',
    list: '*',
    watch: '*',
    create: '*',
    patch: '*',
    update: ['${plural}/finalizers', 'leases'],
    delete: ['statefulsets', 'services', 'persistentvolumeclaims'],
  },
  readsProfileSecrets: false,
  legacyWatchNamespaceSecrets: false,
  profileRulesWhenManaged: true,
});

describe('the ${app} chart’s own promises', () => {
  it.each(variations)(
    'lets the controller neither create nor delete ${K}s, nor touch a Secret or a pod, with $name',
    async ({ values }) => {
      const rbac = chartRbac(await renderChart(chartDir, values));
      const own = { group: '${group}', namespace: 'team-a' };
      for (const verb of ['create', 'update', 'delete']) {
        expect(rbac.allows({ ...own, verb, resource: '${plural}' })).toBe(false);
        expect(rbac.allows({ verb, group: '', resource: 'pods', namespace: 'team-a' })).toBe(false);
      }
      for (const verb of ['get', 'list', 'create', 'patch'])
        expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(
          false,
        );
    },
  );
});
`,
    [`${dir}/tests/app.int.test.ts`]: `import { findCondition } from '@steward/conditions';
import { ${K} } from '@steward/${n.apiLib}';
import { Namespaces, KubeClient, Services, StatefulSets, type KubeObject } from '@steward/kube';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
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
const image = 'registry.example.com/${n.controllerName}:1.0';

/**
 * The ${app}'s bundle as a process, under exactly the RBAC its chart renders, with leader
 * election, against a real API server. No pod runs on a control plane (no scheduler, kubelet or
 * StatefulSet controller): the ${K} stays Provisioning, which is what these tests see.
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
      env: { STEWARD_LEADER_ELECT: 'true', POD_NAMESPACE: releaseNamespace },
    });
    await controller.ready();
  });
  afterAll(async () => {
    await controller?.kill();
    await admin?.close();
    await plane?.stop();
  });

  const readyReason = (name: string, reason: string) =>
    eventually(
      async () => {
        const obj = await admin.get<${K}>(Kind, name, ns);
        const ready = findCondition(obj.status?.conditions, 'Ready');
        return ready?.reason === reason && ready.observedGeneration === obj.metadata.generation
          ? obj
          : undefined;
      },
      { description: \`\${name} Ready reason \${reason}\`, timeoutMs: 60_000 },
    );

  it('creates the children and keeps a finalizer; Ready=False while no pod runs (kstatus: not Current)', async () => {
    await admin.create<${K}>(Kind, {
      apiVersion: ${K}.apiVersion,
      kind: '${K}',
      metadata: { name: 'web', namespace: ns },
      spec: { image, replicas: 2, storage: { size: '1Gi' } },
    } as ${K});
    const obj = await readyReason('web', 'Provisioning');
    expect(findCondition(obj.status?.conditions, 'Ready')?.status).toBe('False');
    expect(obj.metadata.finalizers).toContain('${group}/cleanup');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'InProgress', unobserved: [] });
    const controllerOf = (child: KubeObject) =>
      child.metadata.ownerReferences?.find((r) => r.controller)?.name;
    expect(controllerOf(await admin.get(StatefulSets, 'web', ns))).toBe('web');
    expect(controllerOf(await admin.get(Services, 'web', ns))).toBe('web');
    expect(controllerOf(await admin.get(Services, 'web-headless', ns))).toBe('web');
  });

  it('lets a deleted ${K} go (deletionPolicy Retain)', async () => {
    await admin.delete(Kind, 'web', ns);
    await eventually(
      async () =>
        admin.get(Kind, 'web', ns).then(
          () => undefined,
          (error: { code?: number }) => (error.code === 404 ? true : undefined),
        ),
      { description: 'web deleted', timeoutMs: 60_000 },
    );
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
  });
});
`,
  };
}

function exampleFiles(n: ControllerNames): Record<string, string> {
  const { kind: K } = n;
  return {
    [`examples/${n.family}/20-${n.family}.yaml`]: `# A ${K} an application team declares; the ${K} controller runs it as a StatefulSet of its
# image with a headless and a client Service. The image is a placeholder: make it the ${K}'s own.
# The shop namespace is also declared by other examples: applying it twice changes nothing.
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: ${n.group}/v1alpha1
kind: ${K}
metadata:
  name: example
  namespace: shop
spec:
  image: registry.example.com/${n.controllerName}:1.0
  replicas: 1
  storage:
    size: 1Gi
  # deletionPolicy defaults to Retain: deleting this object leaves its volumes in place.
`,
  };
}
