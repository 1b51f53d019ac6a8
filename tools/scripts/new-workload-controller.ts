// The family of an in-cluster workload kind, for `new-project.ts controller <Kind> --workload`: the
// shared layout (scaffold-family.ts) with this kind's own API lib, domain, app, chart rules, e2e
// cases and example — a kind whose children live in the cluster, standing on the pieces every
// workload kind shares (CacheCluster and PostgresCluster stand on them too):
// - the API on @steward/crd's workload fragments (`ComputeResources`, `VolumeClaimFields` with
//   `storageClassNameStaysSet`, `ClientsSpec`, `ProviderProfileRef`, `DeletionPolicyField`,
//   `workloadPhases`, `ReplicaStatusFields`, `StatusEndpoint`, `WorkloadColumns`);
// - the wiring on @steward/provider-profile's `wireProfiledWorkload`, `WorkloadReconcilerDeps`,
//   `WorkloadProfiles.admit` and `workloadProfileUsers`;
// - the reconciler on @steward/workload's `workloadReconciler`, `workloadRuntime`, `refusalOf`,
//   `syncOwnChildren`, `VolumeGrowth`, `readFailures`, `stateWorkloadStatus`, `nextLook`;
// - the children, pure, on `desiredWorkload`: a ConfigMap of `spec.config`, a headless and a
//   client Service, the PodDisruptionBudget and the ingress NetworkPolicy (`renderPolicies`: its
//   own pods, the controller's, `spec.clients`) and the hardened StatefulSet
//   (`renderWorkloadStatefulSet`) of `spec.image` with a grow-only volume per pod;
// - the status, pure, on `stated`, `missingStatement`, `scaling`, `conditionsOf` and the shared
//   reasons.
// Pure like new-controller.ts: names in, texts out.
//
// The output passes lint, typecheck, build and every test as written, without the node tier
// (new-project.int.test.ts): on a control plane no pod ever runs, so its tests see the children,
// the finalizer and `Ready=False` (Provisioning), never Ready.
import { type FamilyFlavour } from './scaffold-family.js';
import { kindDefinition } from './scaffold-libs.js';
import { type ControllerNames } from './scaffold-names.js';

/** `CACHE_CLUSTER` for `cache-cluster`: the prefix of the family's constants. */
const constantOf = (n: ControllerNames) => n.family.replaceAll('-', '_').toUpperCase();

/** The family of the in-cluster workload kind of `n`. */
export function workloadFlavour(n: ControllerNames): FamilyFlavour {
  return {
    api: apiLib(n),
    domain: { sources: domainSources(n), test: controllerTest(n) },
    app: {
      runs: `the ${n.kind} controller (and, when it manages profiles, the ProviderProfile controller for kubernetes profiles: their status, and its own in-use finalizer while ${n.kind}s use them)`,
      settings:
        'Its workload settings (the default profile, its own pods’ labels for the NetworkPolicies it renders) come from `workloadControllerOptions`.',
      events: true,
      processImports: ['workloadControllerOptions'],
      domainImports: [`${n.camel}Controller`, `${n.camel}Users`],
      imports: ["import { providerProfileController } from '@steward/provider-profile';"],
      run: `    const { settings, options } = workloadControllerOptions(config, this.events, APP_NAME);
    ${n.camel}Controller(manager, options);
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['kubernetes'],
        // With watched namespaces the chart's Roles allow no cluster-wide list: it counts the users
        // in those namespaces only (manageProviderProfiles is off there by default for that reason).
        users: [{ ...${n.camel}Users(settings.defaultProfile), ...watchSelection(config) }],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }`,
    },
    chart: chart(n),
    e2e: e2e(n),
    example: {
      about: `# A ${n.kind} an application team declares; the ${n.kind} controller runs it as a StatefulSet of its
# image with its Services, configuration, PodDisruptionBudget and NetworkPolicy. The image is a
# placeholder: make it the ${n.kind}'s own.`,
      spec: `  image: registry.example.com/${n.controllerName}:1.0
  replicas: 1
  storage:
    size: 1Gi
  config:
    app.conf: |
      # read by the pods at /etc/${n.family}/app.conf
  # Who may connect besides its own pods and the controller (the NetworkPolicy).
  clients:
    podSelector:
      app: storefront
  # deletionPolicy defaults to Retain: deleting this object leaves its volumes in place.
`,
    },
  };
}

function apiLib(n: ControllerNames): FamilyFlavour['api'] {
  const { kind: K, family, group, shortName } = n;
  const C = constantOf(n);
  return {
    index: `/**
 * @steward/${n.apiLib} — the \`${K}\` kind (\`${group}/v1alpha1\`, namespaced, short name
 * \`${shortName}\`), a workload run in the cluster: one source of truth for its TypeScript types
 * and its CRD (generated into charts/${n.app}/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - \`spec.image\` is required; \`spec.replicas\` is 1 to MAX_REPLICAS (default 1).
 * - \`spec.resources\`, \`spec.storage\`, \`spec.scheduling\`, \`spec.clients\`,
 *   \`spec.providerProfileRef\` and \`spec.deletionPolicy\` are the fields every workload kind
 *   shares (@steward/crd), with their messages (\`spec.scheduling\`: a spread preferred or
 *   required, label keys and values, operators, taints and weights as the API server takes them): requests within limits; a volume size that only grows, on a StorageClass that never
 *   changes — \`spec.storage\` itself is set at creation or never (a StatefulSet's claim templates
 *   cannot change).
 * - \`spec.config\` holds at most MAX_CONFIG_FILES files named as ConfigMap keys, each at most
 *   MAX_CONFIG_FILE_LENGTH characters.
 * - \`metadata.name\` is a DNS label of at most MAX_NAME_LENGTH characters.
 * - Defaults: \`deletionPolicy: Retain\` (the volumes stay without an explicit opt-in).
 *
 * What only the controller can know is a condition with a reason (@steward/${family}).
 *
 * Status: the shared vocabulary of workload kinds — \`phase\`, \`replicas\`, \`readyReplicas\`,
 * \`image\`, \`endpoint\`, the conditions \`Ready\`, \`Progressing\`, \`Degraded\` and
 * \`observedGeneration\`.
 */
export {
  ${K},
  ${K}Phases,
  ${K}Spec,
  ${K}Status,
  ${C}_PORT,
  MAX_CONFIG_FILE_LENGTH,
  MAX_CONFIG_FILES,
  MAX_NAME_LENGTH,
  MAX_REPLICAS,
  type ${K}Phase,
} from './${family}.js';
`,
    kind: `import {
  ClientsSpec,
  ComputeResources,
  ConditionsSchema,
  defineKind,
  DeletionPolicyField,
  ProviderProfileRef,
  ReplicaStatusFields,
  requestsWithinLimits,
  SchedulingSpec,
  StatusEndpoint,
  storageClassNameStaysSet,
  StringEnum,
  StringMap,
  VolumeClaimFields,
  withValidations,
  WorkloadColumns,
  workloadPhases,
} from '@steward/crd';
import Type from 'typebox';

/** What \`status.phase\` can say: the phases every workload kind has. */
export const ${K}Phases = workloadPhases();
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
/** At most this many files in \`spec.config\`. */
export const MAX_CONFIG_FILES = 8;
/** The longest file of \`spec.config\`, in characters. */
export const MAX_CONFIG_FILE_LENGTH = 32768;

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
    resources: Type.Optional(ComputeResources('The container’s requests and limits.')),
    storage: Type.Optional(
      Type.Object(
        VolumeClaimFields('storage', {
          example: '1Gi or 10Gi',
          description: 'spec.storage.size: each pod’s volume, e.g. 1Gi (default 1Gi); grow only',
        }),
        {
          additionalProperties: false,
          description:
            'One PersistentVolumeClaim per pod, mounted at /data; set when the ${K} is created or never. Absent: /data is an emptyDir (the pods keep nothing).',
        },
      ),
    ),
    config: Type.Optional(
      withValidations(
        StringMap({
          maxProperties: MAX_CONFIG_FILES,
          additionalProperties: { type: 'string', maxLength: MAX_CONFIG_FILE_LENGTH },
          description:
            'The pods’ configuration files, by name: the ConfigMap <name>-config, mounted read-only at /etc/${family}. A change rolls the pods.',
        }),
        [
          {
            rule: "self.all(k, k.size() <= 253 && k.matches('^[-._a-zA-Z0-9]+$') && k != '.' && !k.startsWith('..'))",
            message:
              'spec.config: a file name is letters, digits, -, _ and . (not . or ..), at most 253 characters',
          },
        ],
      ),
    ),
    scheduling: Type.Optional(SchedulingSpec('pods')),
    clients: Type.Optional(ClientsSpec('pods')),
    providerProfileRef: Type.Optional(ProviderProfileRef),
    deletionPolicy: Type.Optional(
      DeletionPolicyField(
        'Retain: deleting the ${K} leaves its volumes in place (an Event says where). Delete: its volumes are deleted too.',
      ),
    ),
  }),
  [
    {
      rule: 'has(self.storage) == has(oldSelf.storage)',
      message:
        'spec.storage may only be set when the ${K} is created: a StatefulSet’s volume claim templates cannot change',
    },
    storageClassNameStaysSet('storage'),
    ...requestsWithinLimits,
  ],
);

export const ${K}Status = Type.Object({
  phase: Type.Optional(StringEnum(${K}Phases)),
  replicas: ReplicaStatusFields.replicas,
  readyReplicas: ReplicaStatusFields.readyReplicas,
  image: Type.Optional(Type.String({ description: 'The image the pods run.' })),
  endpoint: Type.Optional(StatusEndpoint),
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

${kindDefinition(
  n,
  `A ${K}, run in the cluster by Steward's ${K} controller (@steward/${family}).`,
  `  description:
    "A ${K} run in the cluster by Steward's ${K} controller: a StatefulSet, a headless and a client Service, its configuration, a PodDisruptionBudget, a NetworkPolicy, grow-only volumes.",
  spec: ${K}Spec,
  status: ${K}Status,
  validations: [
    {
      rule: \`self.metadata.name.size() <= \${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')\`,
      message: \`metadata.name must be a DNS label of at most \${MAX_NAME_LENGTH} characters starting with a letter: it names the StatefulSet, its pods and the Services <name> and <name>-headless\`,
    },
  ],
  printerColumns: [
    WorkloadColumns.ready,
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    WorkloadColumns.readyReplicas,
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
    WorkloadColumns.reason,
  ],`,
)}`,
    test: {
      about: '(its admission rules)',
      schema: {
        types: `interface Property {
  default?: unknown;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
  properties?: Record<string, Property>;
}`,
        openAPIV3Schema: '{ properties: { spec: Property & { required?: string[] } } }',
      },
      constants: 'const spec = version.schema.openAPIV3Schema.properties.spec;\n',
      columns: {
        shown: ['Ready', 'Phase', 'Ready Replicas', 'Replicas', 'Age'],
        wide: ['Image', 'Reason'],
      },
      cases: `  it('requires an image, defaults to one replica and deletionPolicy Retain', () => {
    expect(spec.required).toEqual(['image']);
    expect(spec.properties?.['replicas']?.default).toBe(1);
    expect(spec.properties?.['deletionPolicy']?.default).toBe('Retain');
  });

  it('lets the storage size only grow, saying what a quantity is as every workload kind does', () => {
    const size = spec.properties?.['storage']?.properties?.['size'];
    const validations = size?.['x-kubernetes-validations'] ?? [];
    expect(validations.map((v) => v.rule)).toContain(
      '!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0',
    );
    expect(validations.map((v) => v.message)).toContain(
      'spec.storage.size: not a quantity such as 1Gi or 10Gi',
    );
  });

  it('takes the shared fields of every workload kind: resources, storage class, scheduling, clients, profile', () => {
    expect(Object.keys(spec.properties?.['resources']?.properties ?? {})).toEqual([
      'requests',
      'limits',
    ]);
    expect(Object.keys(spec.properties?.['storage']?.properties ?? {})).toEqual([
      'size',
      'storageClassName',
    ]);
    expect(Object.keys(spec.properties?.['clients']?.properties ?? {})).toEqual([
      'podSelector',
      'namespaceSelector',
    ]);
    expect(Object.keys(spec.properties?.['providerProfileRef']?.properties ?? {})).toEqual(['name']);
    expect(Object.keys(spec.properties?.['scheduling']?.properties ?? {})).toEqual([
      'spread',
      'nodeSelector',
      'tolerations',
      'affinity',
      'topologySpreadConstraints',
    ]);
  });`,
    },
  };
}

function domainSources(n: ControllerNames): Record<string, string> {
  const { kind: K, family, camel, group } = n;
  const C = constantOf(n);
  const statusFn = `${camel}Status`;
  const lib = `steward/${family}`;
  return {
    'src/index.ts': `/**
 * @steward/${family} — the ${K} domain: a workload run in the cluster, on the pieces every
 * in-cluster kind shares (@steward/workload, @steward/provider-profile). What is the ${K}'s own
 * is pure and table-tested; the rest is the shared skeleton's.
 *
 * - \`admit${K}(obj, profile, namespace)\` (pure): what the pods run with (image, resources,
 *   volume), or why the ${K} may not run (its ProviderProfile's provider and namespaces).
 * - \`desiredChildren(obj, resolved, templateStorage, controller)\` (pure): the ConfigMap of
 *   \`spec.config\`, the headless Service the StatefulSet names, the client Service \`<name>\`, the
 *   PodDisruptionBudget, the ingress NetworkPolicy (its own pods, the controller's, \`spec.clients\`)
 *   and the StatefulSet of \`spec.replicas\` pods of \`spec.image\` — with \`spec.storage\` a claim
 *   template per pod keeping a live StatefulSet's size (templates cannot change; \`VolumeGrowth\`
 *   grows the claims one by one).
 * - \`${statusFn}(input)\` (pure): the phase, \`Ready\`/\`Progressing\`/\`Degraded\` and the status
 *   fields, from the StatefulSet's rollout, the pods and what failed (\`readFailures\`:
 *   \`Ready=False\` names an unschedulable pod, a volume not provisioned, an image that cannot be
 *   pulled, a crash loop).
 * - \`${camel}Controller(manager, options)\`: \`wireProfiledWorkload\` (informers, pod and claim
 *   indexes by the \`${K}Labels.cluster\` label, the children toolkit, the profile and namespace
 *   watches) and \`workloadReconciler\`: pause (\`steward.dev/paused\`), deletion (\`Retain\` keeps
 *   the volumes, \`Delete\` deletes them; a profile's guardrails may hold it), admission, the
 *   finalizer \`${group}/cleanup\`, then \`converge\`: children, volumes, failures, one status write.
 *
 * Make it yours: the spec in @steward/${n.apiLib}, the container in children.ts (probes, command,
 * a rendered configuration, a generated Secret), the phases in status.ts, an image catalogue and
 * size classes in admission.ts.
 */
export { admit${K}, DEFAULT_STORAGE } from './admission.js';
export {
  ${K}Finalizer,
  ${camel}Controller,
  ${camel}Reconciler,
  ${camel}Users,
  type ${K}ControllerOptions,
} from './controller.js';
export {
  childNames,
  ConfigDirectory,
  ConfigHashAnnotation,
  DataDirectory,
  DataVolumeName,
  desiredChildren,
  desiredReplicas,
  ${K}Labels,
  type RenderInput,
} from './children.js';
export {
  ${K}Reasons,
  ${statusFn},
  type ${K}StatusChange,
  type ${K}StatusInput,
} from './status.js';
`,
    'src/admission.ts': `import { type ${K} } from '@steward/${n.apiLib}';
import {
  namespaceRefusal,
  WorkloadAdmissionReasons,
  type NamespaceFacts,
} from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type Admission, type ResolvedPods } from '@steward/workload';

/** Each pod's volume size when \`spec.storage\` names none. */
export const DEFAULT_STORAGE = '1Gi';

/**
 * What a ${K}'s pods run with, or why it may not run (pure). With a ProviderProfile (its
 * existence is \`WorkloadProfiles.admit\`'s), the profile must be a kubernetes one
 * (\`WrongProvider\`) that allows the ${K}'s namespace (\`ProfileNotAllowedInNamespace\`). The
 * image, resources and volume are the spec's.
 *
 * Make it yours: once the ${K} names an engine and a version instead of an image, \`admitWorkload\`
 * (@steward/provider-profile) adds the profile's image catalogue, size classes and storage
 * guardrails.
 */
export function admit${K}(
  obj: ${K},
  profile: ProviderProfile | undefined,
  namespace: NamespaceFacts,
): Admission<ResolvedPods> {
  if (profile && profile.spec.provider !== 'kubernetes')
    return {
      allowed: false,
      reason: WorkloadAdmissionReasons.WrongProvider,
      message: \`ProviderProfile \${profile.metadata.name} is for \${profile.spec.provider}; a ${K} needs a kubernetes profile\`,
    };
  const tenancy = profile ? namespaceRefusal(profile, namespace) : undefined;
  if (tenancy) return { allowed: false, ...tenancy };
  const { image, resources, storage } = obj.spec;
  return {
    allowed: true,
    resolved: {
      image,
      ...(resources ? { resources } : {}),
      ...(storage
        ? {
            storage: {
              size: storage.size ?? DEFAULT_STORAGE,
              ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
            },
          }
        : {}),
    },
  };
}
`,
    'src/admission.test.ts': `import { type ${K} } from '@steward/${n.apiLib}';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { admit${K} } from './admission.js';

const image = 'registry.example.com/${n.controllerName}:1.0';
const obj = (spec: Partial<${K}['spec']> = {}): ${K} =>
  ({
    apiVersion: '${group}/v1alpha1',
    kind: '${K}',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { image, ...spec },
  }) as ${K};
const profile = (spec: Record<string, unknown>) =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'standard' },
    spec,
  }) as unknown as ProviderProfile;
const teamA = { name: 'team-a' };

describe('admit${K}', () => {
  it.each([
    { name: 'the image alone', spec: {}, resolved: { image } },
    {
      name: 'the resources',
      spec: { resources: { limits: { memory: '1Gi' } } },
      resolved: { image, resources: { limits: { memory: '1Gi' } } },
    },
    {
      name: 'a volume of 1Gi when spec.storage names no size',
      spec: { storage: {} },
      resolved: { image, storage: { size: '1Gi' } },
    },
    {
      name: 'the volume’s size and StorageClass',
      spec: { storage: { size: '5Gi', storageClassName: 'fast' } },
      resolved: { image, storage: { size: '5Gi', storageClassName: 'fast' } },
    },
  ])('resolves $name from the spec', ({ spec, resolved }) => {
    expect(admit${K}(obj(spec), undefined, teamA)).toEqual({ allowed: true, resolved });
  });

  it('admits through a kubernetes profile that allows the namespace', () => {
    const allowing = profile({ provider: 'kubernetes', namespaces: ['team-a'] });
    expect(admit${K}(obj(), allowing, teamA)).toEqual({ allowed: true, resolved: { image } });
  });

  it.each([
    {
      name: 'a profile of another provider',
      spec: { provider: 'aws', namespaces: ['team-a'] },
      reason: 'WrongProvider',
      message: 'ProviderProfile standard is for aws; a ${K} needs a kubernetes profile',
    },
    {
      name: 'a profile that does not allow the namespace',
      spec: { provider: 'kubernetes', namespaces: ['team-b'] },
      reason: 'ProfileNotAllowedInNamespace',
      message: 'ProviderProfile standard may not be used from namespace team-a',
    },
  ])('refuses $name', ({ spec, reason, message }) => {
    const refusal = admit${K}(obj(), profile(spec), teamA);
    expect(refusal).toMatchObject({ allowed: false, reason });
    expect(refusal.allowed ? '' : refusal.message).toContain(message);
  });
});
`,
    'src/children.ts': `/**
 * The children of a ${K}, rendered (pure): plain objects as server-side apply takes them, from the
 * ${K} and what its admission resolved. How a workload's StatefulSet, Services, ConfigMap,
 * PodDisruptionBudget and NetworkPolicy look is @steward/workload's, as for every workload kind;
 * what is the ${K}'s own is here: its container, its port, its configuration files, its names.
 *
 * - ConfigMap \`<name>-config\`: \`spec.config\`, mounted read-only at ConfigDirectory; its hash is
 *   on the pod template, so a change rolls the pods.
 * - Services \`<name>-headless\` (the StatefulSet's serviceName: a DNS name per pod) and \`<name>\`
 *   (every ready pod), on the main port.
 * - PodDisruptionBudget \`<name>\` (one pod evicted at a time) and NetworkPolicy \`<name>\`: the
 *   pods accept connections on the main port only from one another, the controller's pods and
 *   \`spec.clients\`.
 * - StatefulSet \`<name>\`: \`spec.replicas\` pods of the image as uid/gid ServerUid/ServerGid,
 *   non-root, read-only root filesystem, no capabilities, no service-account token; /tmp in
 *   memory, /data a claim per pod with \`spec.storage\` (kept when the StatefulSet goes: the
 *   controller keeps or deletes the claims per \`spec.deletionPolicy\`), else an emptyDir. The pods
 *   are placed as \`spec.scheduling\` says (default: spread over nodes and zones, preferred) and
 *   pull their image as resolved (default IfNotPresent, no pull secrets).
 */
import { ${C}_PORT, type ${K} } from '@steward/${n.apiLib}';
import {
  compactResources,
  ContainerSecurityContext,
  desiredHash,
  desiredWorkload,
  podSecurityContext,
  renderClusterIpService,
  renderConfigMap,
  renderHeadlessService,
  renderPolicies,
  renderWorkloadStatefulSet,
  ServerGid,
  ServerUid,
  storedName,
  storedNamespace,
  TmpVolume,
  workloadChildNames,
  workloadLabels,
  type ChildMeta,
  type ChildObject,
  type DesiredChild,
  type ResolvedPods,
  type WorkloadRenderInput,
} from '@steward/workload';

/** On every child and pod, valued the ${K}'s name: what the selectors and caches use. */
export const ${K}Labels = { cluster: '${group}/cluster' } as const;

/** Pod-template annotation: the hash of \`spec.config\` (the pods read their files at start). */
export const ConfigHashAnnotation = '${group}/config-hash';

/** The claim template's name: claims are \`data-<name>-<ordinal>\`. */
export const DataVolumeName = 'data';
/** Where the pods keep their data, and read their configuration files. */
export const DataDirectory = '/data';
export const ConfigDirectory = '/etc/${family}';

/** The children's names: those every workload kind has, and the client Service \`<name>\`. */
export function childNames(name: string) {
  return { ...workloadChildNames(name), service: name };
}

/** What a ${K}'s children are rendered from: the ${K} and what its admission resolved. */
export interface RenderInput extends WorkloadRenderInput<${K}> {
  /** Each pod's volume: present exactly when \`spec.storage\` is. */
  storage?: ResolvedPods['storage'];
}

/** Pods desired: \`spec.replicas\` (the API server defaults it to 1). */
export function desiredReplicas(obj: ${K}): number {
  return obj.spec.replicas ?? 1;
}

const nameOf = (obj: ${K}) => storedName(obj, '${K}', '${lib}');

function metaOf(obj: ${K}): ChildMeta {
  return {
    namespace: storedNamespace(obj, '${K}', '${lib}'),
    labels: workloadLabels('${n.controllerName}', 'server', ${K}Labels.cluster, nameOf(obj)),
  };
}

/** The StatefulSet's selector, and every other one: the ${K}'s label alone. */
const selectorOf = (obj: ${K}) => ({ [${K}Labels.cluster]: nameOf(obj) });

const mainPort = { name: 'main', port: ${C}_PORT };

/** The StatefulSet \`<name>\` (see the file's comment). */
export function renderStatefulSet(input: RenderInput): ChildObject {
  const { cluster: obj, storage } = input;
  const names = childNames(nameOf(obj));
  const container = {
    name: 'main',
    image: input.image,
    ports: [{ name: mainPort.name, containerPort: mainPort.port, protocol: 'TCP' }],
    // A server that stops on an error leaves its last log lines as the termination message: the
    // crash loop's condition quotes them (CrashLooping).
    terminationMessagePolicy: 'FallbackToLogsOnError',
    readinessProbe: {
      tcpSocket: { port: mainPort.name },
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    ...(input.resources ? { resources: compactResources(input.resources) } : {}),
    securityContext: ContainerSecurityContext,
    volumeMounts: [
      { name: 'config', mountPath: ConfigDirectory, readOnly: true },
      { name: TmpVolume.name, mountPath: '/tmp' },
      { name: DataVolumeName, mountPath: DataDirectory },
    ],
  };
  return renderWorkloadStatefulSet({
    meta: metaOf(obj),
    name: names.statefulSet,
    serviceName: names.headless,
    selector: selectorOf(obj),
    replicas: desiredReplicas(obj),
    updateStrategy: 'RollingUpdate',
    whenScaled: 'Retain',
    podAnnotations: { [ConfigHashAnnotation]: desiredHash(obj.spec.config ?? {}) },
    securityContext: podSecurityContext(ServerUid, ServerGid),
    containers: [container],
    ...(obj.spec.scheduling ? { scheduling: obj.spec.scheduling } : {}),
    ...(input.pull ? { pull: input.pull } : {}),
    volumes: [
      { name: 'config', configMap: { name: names.configMap } },
      TmpVolume,
      ...(storage ? [] : [{ name: DataVolumeName, emptyDir: {} }]),
    ],
    ...(storage
      ? {
          claim: {
            name: DataVolumeName,
            size: input.existingTemplateStorage ?? storage.size,
            ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
          },
        }
      : {}),
  });
}

/** Every child of a ${K} (see the file's comment), by name. */
export function renderChildren(input: RenderInput) {
  const obj = input.cluster;
  const meta = metaOf(obj);
  const names = childNames(nameOf(obj));
  const selector = selectorOf(obj);
  return {
    configMap: renderConfigMap(meta, names.configMap, obj.spec.config ?? {}),
    headless: renderHeadlessService(meta, names.headless, selector, mainPort),
    service: renderClusterIpService(meta, names.service, selector, mainPort),
    ...renderPolicies(meta, names, selector, mainPort.port, {
      ...(input.controller ? { controller: input.controller } : {}),
      ...(obj.spec.clients ? { clients: obj.spec.clients } : {}),
    }),
    statefulSet: renderStatefulSet(input),
  };
}

/**
 * The children a ${K} is to have (pure), in the order they are applied (\`desiredWorkload\`): the
 * ConfigMap, the Services, the PDB, the NetworkPolicy, and last the StatefulSet — whose claim
 * template keeps \`templateStorage\` (a live one's) once it exists. \`controller\`: the
 * controller's pods, which the NetworkPolicy admits.
 */
export function desiredChildren(
  obj: ${K},
  resolved: ResolvedPods,
  templateStorage?: string,
  controller?: RenderInput['controller'],
): DesiredChild[] {
  const rendered = renderChildren({
    cluster: obj,
    image: resolved.image,
    ...(resolved.pull ? { pull: resolved.pull } : {}),
    ...(resolved.resources ? { resources: resolved.resources } : {}),
    ...(resolved.storage ? { storage: resolved.storage } : {}),
    ...(templateStorage ? { existingTemplateStorage: templateStorage } : {}),
    ...(controller ? { controller } : {}),
  });
  return desiredWorkload({
    generatedSecrets: [],
    configMap: rendered.configMap,
    services: [rendered.headless, rendered.service],
    podDisruptionBudget: rendered.podDisruptionBudget,
    networkPolicy: rendered.networkPolicy,
    statefulSets: [rendered.statefulSet],
  });
}
`,
    'src/children.test.ts': childrenTest(n),
    'src/status.ts': `/**
 * The status a ${K} reconcile states (pure): the phase, the conditions \`Ready\`, \`Progressing\` and
 * \`Degraded\` (\`conditionsOf\`: the rules every workload kind shares) and the status fields, from
 * the StatefulSet's rollout (as \`kubectl rollout status\` judges it), the pods and what failed.
 *
 * \`Ready=True\` (\`Available\`) only when every desired pod exists and is ready and the rollout is
 * complete, so kstatus reads Current only then. Otherwise the first rule that holds: Scaling
 * while the pods desired change (\`scaling\`: until Ready again), Provisioning until the ${K} was
 * first Ready (the phase last stated is read back), \`InstancesMissing\` for a pod that is gone,
 * Updating while a new template rolls out, else \`InstancesNotReady\` (both Degraded).
 */
import { type ${K}, type ${K}Phase } from '@steward/${n.apiLib}';
import {
  conditionsOf,
  missingStatement,
  scaling,
  stated,
  WorkloadReasons,
  type PhaseStatement,
  type RolloutStatus,
  type StatedProblem,
  type WorkloadStatusChange,
  type WorkloadStatusProblems,
} from '@steward/workload';

/** The reasons a ${K} states: every workload kind's (add the ${K}'s own here). */
export const ${K}Reasons = { ...WorkloadReasons } as const;

export interface ${K}StatusInput extends WorkloadStatusProblems {
  /** The ${K} as the status writer has it last (its \`status.phase\` and \`replicas\` read back). */
  obj: ${K};
  /** Pods desired. */
  replicas: number;
  /** Pods that exist and are not being deleted. */
  podCount: number;
  /** Pods ready (the StatefulSet's count). */
  readyReplicas: number;
  /** The StatefulSet's rollout; undefined before the StatefulSet exists. */
  rollout: RolloutStatus | undefined;
  /** The image the pods run. */
  image: string;
  /** The client Service: how applications reach the ${K}. */
  endpoint: { host: string; port: number };
  /** What is under way besides (a volume growing): Progressing. */
  notes?: StatedProblem[];
}

export type ${K}StatusChange = WorkloadStatusChange<${K}Phase>;

export function ${statusFn}(input: ${K}StatusInput): ${K}StatusChange {
  const { replicas, podCount, readyReplicas, rollout } = input;
  const ready = (rollout?.complete ?? false) && readyReplicas >= replicas && podCount === replicas;
  const counts = \`\${readyReplicas} of \${replicas} pods ready\`;
  // Not \`availableStatement\`: it names a primary, and a ${K} has none.
  const statement = ready
    ? stated('Ready', ${K}Reasons.Available, counts, false)
    : ${camel}Phase(input, counts);
  const { phase, reason, message } = statement;
  const degradations = phase === 'Degraded' ? [{ reason, message }] : [];
  return {
    phase,
    conditions: conditionsOf(ready, statement, input, degradations, 'every pod is ready'),
    fields: { phase, replicas, readyReplicas, image: input.image, endpoint: input.endpoint },
  };
}

/** The phase of a ${K} that is not Ready, and why (pure; the first rule that holds). */
function ${camel}Phase(input: ${K}StatusInput, counts: string): PhaseStatement<${K}Phase> {
  const { obj, replicas, podCount, rollout } = input;
  const R = ${K}Reasons;
  const rolling = rollout && !rollout.complete ? rollout.message : undefined;
  if (scaling(obj.status, replicas)) {
    const pods = podCount !== replicas ? \`\${podCount} pods, \${replicas} desired\` : counts;
    return stated('Scaling', R.Scaling, rolling ? \`\${pods}: \${rolling}\` : pods);
  }
  const previous = obj.status?.phase;
  if (previous === undefined || previous === 'Provisioning')
    return stated(
      'Provisioning',
      R.Provisioning,
      rollout ? (rolling ?? counts) : 'waiting for the StatefulSet',
    );
  if (podCount !== replicas) return missingStatement(podCount, replicas, 'pods');
  if (rolling) return stated('Updating', R.Updating, rolling);
  return stated('Degraded', R.InstancesNotReady, counts, false);
}
`,
    'src/status.test.ts': statusTest(n),
    'src/controller.ts': `import { ${C}_PORT, ${K} } from '@steward/${n.apiLib}';
import {
  TerminalError,
  type Controller,
  type Manager,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Result,
} from '@steward/controller';
import {
  ConfigMaps,
  NetworkPolicies,
  PodDisruptionBudgets,
  Services,
  StatefulSets,
} from '@steward/kube';
import {
  wireProfiledWorkload,
  workloadProfileUsers,
  WorkloadProfiles,
  type ProfileUser,
  type WorkloadReconcilerDeps,
} from '@steward/provider-profile';
import {
  deleteOwnVolumes,
  nextLook,
  ordinalOf,
  readFailures,
  refusalOf,
  retainVolumes,
  stateWorkloadStatus,
  statefulSetRolloutStatus,
  syncOwnChildren,
  templateStorageOf,
  VolumeGrowth,
  volumesOf,
  workloadChanges,
  workloadReconciler,
  workloadRuntime,
  type StatedProblem,
  type StatefulSetLike,
  type StatefulSetWithClaims,
  type WorkloadControllerOptions,
  type WorkloadPod,
} from '@steward/workload';
import { admit${K} } from './admission.js';
import { childNames, DataVolumeName, desiredChildren, desiredReplicas, ${K}Labels } from './children.js';
import { ${statusFn} } from './status.js';

/** The finalizer every ${K} carries while the controller may still have to clean up. */
export const ${K}Finalizer = '${group}/cleanup';

/** The controller's options: those every workload kind takes (add the ${K}'s own clients here). */
export type ${K}ControllerOptions = WorkloadControllerOptions;

/**
 * The ${K} controller: every ${K} of \`options.selection\` kept as a StatefulSet with its Services,
 * ConfigMap, PodDisruptionBudget and NetworkPolicy (the workload toolkit applies them; a converged
 * ${K} costs no API writes), its volumes grown with \`spec.storage.size\`, and its status stated
 * from the StatefulSet, the pods and what keeps them from running.
 *
 * Woken by spec changes and \`steward.dev/paused\`, by its children, pods and claims changing, by
 * its profile or namespace changing, and by its own poll.
 *
 * RBAC: ${n.plural} get/list/watch/patch, ${n.plural}/status patch, ${n.plural}/finalizers update;
 * statefulsets, services, configmaps, poddisruptionbudgets and networkpolicies
 * get/list/watch/create/patch/delete (no Secret: a ${K} has none, so none is cached or read);
 * pods get/list/watch; persistentvolumeclaims
 * get/list/watch/patch/delete; events list (core) and create/patch (events.k8s.io);
 * providerprofiles and namespaces get/list/watch.
 */
export function ${camel}Controller(manager: Manager, options: ${K}ControllerOptions = {}): Controller {
  const wired = wireProfiledWorkload<${K}, WorkloadPod, ${K}ControllerOptions>(manager, options, {
    resourceType: ${K}.resourceType,
    name: '${n.controllerName}',
    clusterLabel: ${K}Labels.cluster,
    defaultFieldManager: '${n.app}',
    predicates: [workloadChanges],
    profileIndex: '${group}/profile',
    // No Secrets among its children: the controller needs no Secret rights.
    childKinds: [StatefulSets, Services, ConfigMaps, PodDisruptionBudgets, NetworkPolicies],
  });
  return wired.complete(${camel}Reconciler(wired.deps), []);
}

/** The reconciler of one ${K} (exported for tests that drive it with their own deps). */
export function ${camel}Reconciler(
  deps: WorkloadReconcilerDeps<WorkloadPod, ${K}ControllerOptions>,
): ObjectReconciler<${K}> {
  const { client, children, options } = deps;
  const volumes = new VolumeGrowth(client);
  const profiles = new WorkloadProfiles<${K}>(deps.profile, options.defaultProfile);
  const { now, poll, emit } = workloadRuntime<${K}>(options);

  /** What the ${K} runs with, or why it may not (its profile missing, or not for it: admit${K}). */
  const admission = (obj: ${K}) =>
    profiles.admit(obj, (profile) =>
      admit${K}(obj, profile, deps.namespace(obj.metadata.namespace ?? '')),
    );

  /** One reconcile: children, volumes, failures, then the one status write. */
  async function converge(ctx: ObjectReconcileContext<${K}>, obj: ${K}): Promise<Result> {
    const admitted = admission(obj);
    if (!admitted.allowed) throw new TerminalError(admitted.reason, admitted.message);
    const resolved = admitted.resolved;
    const name = obj.metadata.name!;
    const namespace = obj.metadata.namespace!;
    const names = childNames(name);
    const live = children.get<StatefulSetWithClaims>(obj, StatefulSets, names.statefulSet);
    const synced = await syncOwnChildren(
      children,
      obj,
      desiredChildren(obj, resolved, templateStorageOf(live), options.controllerIdentity),
      ctx.signal,
    );
    // Volumes grow with spec.storage.size (StatefulSet templates cannot change).
    const claims = deps.claims(namespace, name);
    const problems: StatedProblem[] = [];
    const notes: StatedProblem[] = [];
    // A change that cannot take effect (a size below the volumes'): Ready=False, not converged.
    const refusals: StatedProblem[] = [];
    if (resolved.storage) {
      const grown = await volumes.step(claims, resolved.storage.size, now().getTime(), (message) =>
        emit(obj, 'Normal', 'VolumeExpanding', message),
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
    // The one status write, and the Event of a scale begun or over.
    const change = await stateWorkloadStatus(
      ctx.status,
      (latest) =>
        ${statusFn}({
          obj: latest,
          replicas,
          podCount: pods.filter((p) => !p.metadata.deletionTimestamp).length,
          readyReplicas,
          rollout: sts ? statefulSetRolloutStatus(sts) : undefined,
          image: resolved.image,
          endpoint: { host: \`\${names.service}.\${namespace}.svc\`, port: ${C}_PORT },
          problems,
          notes,
          failures,
          refusals,
        }),
      \`\${replicas} pods desired, \${readyReplicas} ready\`,
      (reason, message) => emit(obj, 'Normal', reason, message),
    );
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
    refusal: (obj) => refusalOf(admission(obj)),
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) => profiles.deletionRefusal('${K}', obj, 'its volumes'),
    converge,
    // Retain: the volumes have no owner and stay; the other children go with the ${K}.
    retain: async (_ctx, obj) =>
      emit(obj, 'Normal', 'Retained', await retainVolumes(client, children, obj, volumesOfObject(obj), [])),
    remove: async (_ctx, obj) =>
      emit(
        obj,
        'Normal',
        'Deleted',
        await deleteOwnVolumes(client, obj, volumesOfObject(obj), 'the StatefulSet, the Services and the rest'),
      ),
    forget: (obj) => volumes.forget(deps.claims(obj.metadata.namespace!, obj.metadata.name!)),
  });
}

/**
 * ${K}s as users of ProviderProfiles (for \`status.usedBy\` and the in-use finalizer): the profile
 * each names, or the default profile when it names none.
 */
export const ${camel}Users = (defaultProfile?: string): ProfileUser<${K}> =>
  workloadProfileUsers<${K}>(${K}.resourceType, defaultProfile);
`,
  };
}

function childrenTest(n: ControllerNames): string {
  const { kind: K, group } = n;
  const C = constantOf(n);
  return `import { ${C}_PORT, type ${K} } from '@steward/${n.apiLib}';
import { type ResolvedPods } from '@steward/workload';
import { describe, expect, it } from 'vitest';
import { ConfigHashAnnotation, desiredChildren, type RenderInput } from './children.js';

const image = 'registry.example.com/${n.controllerName}:1.0';
const obj = (spec: Partial<${K}['spec']> = {}): ${K} =>
  ({
    apiVersion: '${group}/v1alpha1',
    kind: '${K}',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { image, ...spec },
  }) as ${K};

interface Child {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  data?: Record<string, string>;
  spec: {
    replicas?: number;
    clusterIP?: string;
    serviceName?: string;
    maxUnavailable?: number;
    ingress?: { from: Record<string, unknown>[]; ports: unknown[] }[];
    template?: {
      metadata: { annotations: Record<string, string> };
      spec: {
        securityContext: Record<string, unknown>;
        containers: {
          image: string;
          imagePullPolicy: string;
          resources?: unknown;
          securityContext: unknown;
        }[];
        volumes: { name: string; emptyDir?: unknown }[];
        imagePullSecrets?: { name: string }[];
        nodeSelector?: Record<string, string>;
        tolerations?: Record<string, unknown>[];
        affinity: { podAntiAffinity: Record<string, unknown> };
        topologySpreadConstraints: Record<string, unknown>[];
      };
    };
    volumeClaimTemplates?: {
      spec: { storageClassName?: string; resources: { requests: { storage: string } } };
    }[];
  };
}
/** The children as plain objects: a ${K} generates no Secret, so none is a generator. */
const render = (
  o: ${K},
  resolved: ResolvedPods = { image },
  templateStorage?: string,
  controller?: RenderInput['controller'],
) =>
  desiredChildren(o, resolved, templateStorage, controller).map((c) => c.object as unknown as Child);
const childOf = (children: Child[], kind: string) => children.find((c) => c.kind === kind)!;

describe('desiredChildren', () => {
  it('renders, in the order they are applied, the ConfigMap, the Services, the PDB, the NetworkPolicy and the StatefulSet, each labelled with the ${K}', () => {
    const children = render(obj());
    expect(children.map((c) => \`\${c.kind}/\${c.metadata.name}\`)).toEqual([
      'ConfigMap/web-config',
      'Service/web-headless',
      'Service/web',
      'PodDisruptionBudget/web',
      'NetworkPolicy/web',
      'StatefulSet/web',
    ]);
    for (const child of children) expect(child.metadata.labels['${group}/cluster']).toBe('web');
    expect(children[1]!.spec.clusterIP).toBe('None');
    expect(children[2]!.spec.clusterIP).toBeUndefined();
    expect(childOf(children, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1);
    expect(childOf(children, 'StatefulSet').spec.serviceName).toBe('web-headless');
  });

  const cases: {
    name: string;
    spec: Partial<${K}['spec']>;
    storage?: { size: string; storageClassName?: string };
    templateStorage?: string;
    replicas: number;
    claim: string | undefined;
  }[] = [
    { name: 'one pod and no volume by default', spec: {}, replicas: 1, claim: undefined },
    { name: 'spec.replicas pods', spec: { replicas: 3 }, replicas: 3, claim: undefined },
    {
      name: 'a claim template of the resolved size',
      spec: { storage: { size: '2Gi' } },
      storage: { size: '2Gi' },
      replicas: 1,
      claim: '2Gi',
    },
    {
      name: 'the live claim template’s size once the StatefulSet exists (templates cannot change)',
      spec: { storage: { size: '5Gi' } },
      storage: { size: '5Gi' },
      templateStorage: '2Gi',
      replicas: 1,
      claim: '2Gi',
    },
    {
      name: 'no claim template without a volume, whatever a live one had',
      spec: {},
      templateStorage: '2Gi',
      replicas: 1,
      claim: undefined,
    },
  ];
  it.each(cases)('renders $name', ({ spec, storage, templateStorage, replicas, claim }) => {
    const sts = childOf(render(obj(spec), { image, ...(storage ? { storage } : {}) }, templateStorage), 'StatefulSet');
    const pod = sts.spec.template!.spec;
    expect(sts.spec.replicas).toBe(replicas);
    expect(pod.containers[0]!.image).toBe(image);
    expect(sts.spec.volumeClaimTemplates?.[0]?.spec.resources.requests.storage).toBe(claim);
    // Without a claim, /data is an emptyDir.
    expect(pod.volumes.some((v) => v.name === 'data' && v.emptyDir)).toBe(claim === undefined);
  });

  it('runs the pods hardened as every workload’s, with the resolved resources and StorageClass', () => {
    const sts = childOf(
      render(obj(), {
        image,
        resources: { requests: { cpu: '250m' }, limits: { memory: '1Gi' } },
        storage: { size: '1Gi', storageClassName: 'fast' },
      }),
      'StatefulSet',
    );
    const pod = sts.spec.template!.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999 });
    expect(pod.containers[0]!.securityContext).toMatchObject({ readOnlyRootFilesystem: true });
    expect(pod.containers[0]!.resources).toEqual({
      requests: { cpu: '250m' },
      limits: { memory: '1Gi' },
    });
    expect(sts.spec.volumeClaimTemplates?.[0]?.spec.storageClassName).toBe('fast');
  });

  const ownSelector = { labelSelector: { matchLabels: { '${group}/cluster': 'web' } } };
  const podOf = (o: ${K}, resolved: ResolvedPods = { image }) =>
    childOf(render(o, resolved), 'StatefulSet').spec.template!.spec;

  it('spreads the pods over nodes and zones by default, preferred, and pulls IfNotPresent', () => {
    const pod = podOf(obj());
    expect(pod.affinity.podAntiAffinity).toEqual({
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: { ...ownSelector, topologyKey: 'kubernetes.io/hostname' },
        },
      ],
    });
    expect(pod.topologySpreadConstraints).toEqual([
      expect.objectContaining({
        ...ownSelector,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'ScheduleAnyway',
      }),
    ]);
    expect(pod.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(pod).not.toHaveProperty('imagePullSecrets');
    expect(pod).not.toHaveProperty('nodeSelector');
  });

  it('places the pods as spec.scheduling says, and pulls as resolved', () => {
    const toleration = {
      key: 'dedicated',
      operator: 'Equal',
      value: 'db',
      effect: 'NoSchedule',
    } as const;
    const pod = podOf(
      obj({
        scheduling: {
          spread: { nodes: 'Required', zones: 'Required' },
          nodeSelector: { disk: 'ssd' },
          tolerations: [toleration],
        },
      }),
      { image, pull: { policy: 'Always', secrets: ['regcred'] } },
    );
    expect(pod.affinity.podAntiAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: [
        { ...ownSelector, topologyKey: 'kubernetes.io/hostname' },
      ],
    });
    expect(pod.topologySpreadConstraints).toEqual([
      expect.objectContaining({ whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 }),
    ]);
    expect(pod.nodeSelector).toEqual({ disk: 'ssd' });
    expect(pod.tolerations).toEqual([toleration]);
    expect(pod.containers[0]!.imagePullPolicy).toBe('Always');
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  });

  it('puts spec.config in the ConfigMap, and rolls the pods when it changes', () => {
    const one = render(obj({ config: { 'app.conf': 'a = 1' } }));
    const two = render(obj({ config: { 'app.conf': 'a = 2' } }));
    expect(childOf(one, 'ConfigMap').data).toEqual({ 'app.conf': 'a = 1' });
    const hash = (children: Child[]) =>
      childOf(children, 'StatefulSet').spec.template!.metadata.annotations[ConfigHashAnnotation];
    expect(hash(one)).toMatch(/^[0-9a-f]{16}$/);
    expect(hash(one)).not.toBe(hash(two));
  });

  const ownPods = { podSelector: { matchLabels: { '${group}/cluster': 'web' } } };
  const controller = { namespace: 'steward-system', podLabels: { 'app.kubernetes.io/name': '${n.app}' } };
  it.each([
    { name: 'only its own pods, without controller or clients', spec: {}, controller: undefined, from: [ownPods] },
    {
      name: 'the controller’s pods in their namespace',
      spec: {},
      controller,
      from: [
        ownPods,
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'steward-system' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': '${n.app}' } },
        },
      ],
    },
    {
      name: 'spec.clients',
      spec: { clients: { podSelector: { app: 'shop' }, namespaceSelector: { team: 'a' } } },
      controller: undefined,
      from: [
        ownPods,
        {
          namespaceSelector: { matchLabels: { team: 'a' } },
          podSelector: { matchLabels: { app: 'shop' } },
        },
      ],
    },
  ])('admits on the main port $name, and nothing else', ({ spec, controller, from }) => {
    const policy = childOf(render(obj(spec), { image }, undefined, controller), 'NetworkPolicy');
    expect(policy.spec.ingress).toEqual([{ from, ports: [{ protocol: 'TCP', port: ${C}_PORT }] }]);
  });
});
`;
}

function statusTest(n: ControllerNames): string {
  const { kind: K, camel, group } = n;
  const statusFn = `${camel}Status`;
  return `import { type ${K}, type ${K}Phase } from '@steward/${n.apiLib}';
import { describe, expect, it } from 'vitest';
import { ${statusFn}, type ${K}StatusInput } from './status.js';

const image = 'registry.example.com/${n.controllerName}:1.0';
const obj = (status?: { phase: ${K}Phase; replicas: number }): ${K} =>
  ({
    apiVersion: '${group}/v1alpha1',
    kind: '${K}',
    metadata: { name: 'web', namespace: 'team-a', generation: 1 },
    spec: { image, replicas: 3 },
    ...(status ? { status } : {}),
  }) as ${K};

const complete = { complete: true, reason: 'RollingUpdateComplete', message: 'done' };
const rolling = { complete: false, reason: 'RollingUpdateInProgress', message: 'rolling' };
const endpoint = { host: 'web.team-a.svc', port: 8080 };
const converged: Omit<${K}StatusInput, 'obj'> = {
  replicas: 3,
  podCount: 3,
  readyReplicas: 3,
  rollout: complete,
  image,
  endpoint,
  problems: [],
  notes: [],
  failures: [],
  refusals: [],
};
const ready = obj({ phase: 'Ready', replicas: 3 });

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
      name: 'a Ready ${K} that lost a pod is Degraded (InstancesMissing) while the StatefulSet re-creates it',
      input: { ...converged, obj: ready, podCount: 2, readyReplicas: 2, rollout: rolling },
      phase: 'Degraded',
      conditions: ['Ready=False/InstancesMissing', 'Progressing=True/InstancesMissing', 'Degraded=True/InstancesMissing'],
    },
    {
      name: 'a new template rolling out is Updating',
      input: { ...converged, obj: ready, rollout: rolling },
      phase: 'Updating',
      conditions: ['Ready=False/Updating', 'Progressing=True/Updating', 'Degraded=False/Healthy'],
    },
    {
      name: 'a Ready ${K} whose pods stop being ready is Degraded (InstancesNotReady)',
      input: { ...converged, obj: ready, readyReplicas: 2 },
      phase: 'Degraded',
      conditions: ['Ready=False/InstancesNotReady', 'Progressing=False/Converged', 'Degraded=True/InstancesNotReady'],
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
      name: 'a volume asked to shrink is refused: Ready=False names it, and Degraded',
      input: {
        ...converged,
        obj: ready,
        refusals: [{ reason: 'VolumeShrinkNotPossible', message: 'data-web-0 cannot shrink' }],
      },
      phase: 'Ready',
      conditions: ['Ready=False/VolumeShrinkNotPossible', 'Progressing=False/Converged', 'Degraded=True/VolumeShrinkNotPossible'],
    },
    {
      name: 'a volume that cannot grow leaves a Ready ${K} Ready, and Degraded',
      input: {
        ...converged,
        obj: ready,
        problems: [{ reason: 'VolumeExpansionFailed', message: 'data-web-0 cannot grow' }],
      },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=False/Converged', 'Degraded=True/VolumeExpansionFailed'],
    },
    {
      name: 'a volume growing is Progressing',
      input: {
        ...converged,
        obj: ready,
        notes: [{ reason: 'VolumeExpanding', message: 'data-web-0 grows from 1Gi to 2Gi' }],
      },
      phase: 'Ready',
      conditions: ['Ready=True/Available', 'Progressing=True/VolumeExpanding', 'Degraded=False/Healthy'],
    },
  ];
  it.each(cases)('$name', ({ input, phase, conditions }) => {
    expect(summary(input)).toEqual({ phase, conditions });
  });

  it('states the counts, the image and the endpoint in the status fields', () => {
    expect(${statusFn}({ ...converged, obj: obj(), readyReplicas: 1, rollout: rolling }).fields).toEqual({
      phase: 'Provisioning',
      replicas: 3,
      readyReplicas: 1,
      image,
      endpoint,
    });
  });
});
`;
}

function controllerTest(n: ControllerNames): FamilyFlavour['domain']['test'] {
  const { kind: K, camel } = n;
  return {
    kubeImports: [
      'ConfigMaps',
      'NetworkPolicies',
      'PodDisruptionBudgets',
      'Services',
      'StatefulSets',
      'type KubeObject',
    ],
    imports: [`${K}Finalizer`, `${camel}Controller`],
    comment: `// On a control plane no pod ever runs (no scheduler, no kubelet, no StatefulSet controller): these
// tests see what the controller itself does — children, finalizer, admission, status, deletion.`,
    constants: `const image = 'registry.example.com/${n.controllerName}:1.0';\n`,
    create: { spec: `Partial<${K}['spec']> = {}`, sent: '{ image, ...spec }' },
    helpers: `const controllerOf = (child: KubeObject) =>
  child.metadata.ownerReferences?.find((r) => r.controller)?.name;
`,
    cases: `  it('creates the StatefulSet, Services, ConfigMap, PDB and NetworkPolicy, keeps a finalizer and says Provisioning (kstatus: InProgress)', async () => {
    await create('web', {
      replicas: 2,
      storage: { size: '1Gi' },
      config: { 'app.conf': 'a = 1' },
      clients: { podSelector: { app: 'shop' } },
    });
    const obj = await withReadyReason('web', 'Provisioning');
    expect(obj.metadata.finalizers).toContain(${K}Finalizer);
    expect(findCondition(obj.status?.conditions, 'Ready')?.status).toBe('False');
    expect(findCondition(obj.status?.conditions, 'Progressing')?.status).toBe('True');
    expect(obj.status).toMatchObject({
      phase: 'Provisioning',
      replicas: 2,
      readyReplicas: 0,
      image,
      endpoint: { host: \`web.\${ns}.svc\` },
    });
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
    const config = await admin.get<KubeObject & { data: Record<string, string> }>(ConfigMaps, 'web-config', ns);
    expect(controllerOf(config)).toBe('web');
    expect(config.data).toEqual({ 'app.conf': 'a = 1' });
    expect(controllerOf(await admin.get(PodDisruptionBudgets, 'web', ns))).toBe('web');
    const policy = await admin.get<
      KubeObject & { spec: { ingress: { from: { podSelector?: unknown }[] }[] } }
    >(NetworkPolicies, 'web', ns);
    expect(controllerOf(policy)).toBe('web');
    expect(policy.spec.ingress[0]!.from).toContainEqual({ podSelector: { matchLabels: { app: 'shop' } } });
  });

  it('refuses a ProviderProfile that does not exist (kstatus: Failed) and creates nothing', async () => {
    await create('lost', { providerProfileRef: { name: 'no-such-profile' } });
    const obj = await withReadyReason('lost', 'ProviderProfileNotFound');
    expect(findCondition(obj.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    expect(obj.metadata.finalizers ?? []).not.toContain(${K}Finalizer);
    await expect(admin.get(StatefulSets, 'lost', ns)).rejects.toMatchObject({ code: 404 });
  });

  it('lets the API server refuse what is no size, a size of 0, a shrink and a file name that is no ConfigMap key', async () => {
    await expect(create('lots', { storage: { size: 'lots' } })).rejects.toThrow(
      'spec.storage.size: not a quantity such as 1Gi or 10Gi',
    );
    await expect(create('empty', { storage: { size: '0' } })).rejects.toThrow(
      'spec.storage.size must be greater than 0',
    );
    await expect(create('escape', { config: { '../app.conf': 'a = 1' } })).rejects.toThrow(
      'spec.config: a file name is letters, digits',
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
        read('gone').then(
          () => undefined,
          (error: { code?: number }) => (error.code === 404 ? true : undefined),
        ),
      { description: 'gone deleted', timeoutMs: 60_000 },
    );
  });`,
  };
}

function chart(n: ControllerNames): FamilyFlavour['chart'] {
  const { kind: K, app, group, plural } = n;
  return {
    converges: ` in the cluster: a StatefulSet of
\`spec.image\` with a headless and a client Service, its configuration (\`spec.config\`), a
PodDisruptionBudget, a NetworkPolicy and grow-only volumes, and the status \`Ready\`,
\`Progressing\` and \`Degraded\` say why it is not ready.`,
    rbac: `- a ServiceAccount and the RBAC the controller needs (\`templates/_helpers.tpl\`): ${plural}
  get/list/watch/patch, \`${plural}/status\` patch, \`${plural}/finalizers\` update; statefulsets,
  services, configmaps, poddisruptionbudgets and networkpolicies get/list/watch/create/patch/delete;
  pods get/list/watch; persistentvolumeclaims get/list/watch/patch/delete; core events list;
  Events create/patch; its Lease. The library chart adds the ProviderProfile rules (get/list/watch,
  and patch with the ProviderProfile controller, \`manageProviderProfiles\`) and Namespaces
  get/list/watch.
- a ValidatingAdmissionPolicy that refuses a ${K} whose ProviderProfile does not allow its
  namespace.`,
    values: {
      poll: `# -- STEWARD_POLL_INTERVAL_SECONDS: how often a Ready ${K} is looked at again (its StatefulSet,
# pods and claims changing wake it at once).`,
      manageProviderProfiles: `# -- STEWARD_MANAGE_PROVIDER_PROFILES: run the ProviderProfile controller for kubernetes profiles
# (status, usage by ${K}s, its in-use finalizer). null: on when every namespace is watched, off with
# watched namespaces (another installation must then manage them).`,
      credentialsSecretNamespaces: `  # -- Not used: the ${K} controller reads no Secret (kubernetes ProviderProfiles name none); the
  # chart refuses a non-empty list.`,
    },
    notes: `For each ${K} it runs a StatefulSet of the ${K}'s image in the ${K}'s namespace, with a headless
and a client Service, a ConfigMap of its spec.config, a PodDisruptionBudget, a NetworkPolicy and,
with spec.storage, a volume per pod that grows with the spec.
{{- if eq (include "steward-common.manageProviderProfiles" .) "true" }}
It also manages the kubernetes ProviderProfiles (status, usage count, in-use finalizer).
{{- else }}
It does not manage ProviderProfiles here (manageProviderProfiles): another installation must, or
their status and in-use finalizer are left alone.
{{- end }}
`,
    watchRules: {
      about: `${K}s and what the controller runs them with: in the ClusterRole without watched namespaces, in a
Role in each watched namespace with them. Nothing is updated but the finalizers subresource;
nothing is deleted but children and volumes; no Secret is read, listed or written.`,
      rules: `# ${K}s: cached; the cleanup finalizer added and removed by (JSON) patch, status by merge patch;
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
  resources: [services, configmaps]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
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
  verbs: [list]`,
    },
    helpers: `{{/* The chart's selector labels as \`k=v,k=v\`, sorted by key: STEWARD_CONTROLLER_POD_LABELS. */}}
{{- define "${app}.podLabels" -}}
{{- $pairs := list }}
{{- range $key, $value := include "steward-common.selectorLabels" . | fromYaml }}
{{- $pairs = append $pairs (printf "%s=%s" $key $value) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/* The variables only this controller reads: steward-common's Deployment puts them before extraEnv. */}}
{{- define "${app}.env" -}}
# Every ${K}'s NetworkPolicy admits the controller's pods (these labels, in POD_NAMESPACE).
- name: STEWARD_CONTROLLER_POD_LABELS
  value: {{ include "${app}.podLabels" . | quote }}
{{- end }}
`,
    env: true,
    rbacOptions:
      '"watchRulesReadSecrets" false "readsProfileSecrets" false "profileRulesWhenManaged" true',
    templates: {
      // Objects naming no profile are the controller's to judge (its default profile, if any).
      'validating-admission-policy.yaml': `{{- include "steward-common.profileNamespacePolicy" (dict "root" . "group" "${group}" "resource" "${plural}" "defaultProfile" "") }}\n`,
    },
  };
}

function e2e(n: ControllerNames): FamilyFlavour['e2e'] {
  const { kind: K, app, group, plural } = n;
  const all = ['get', 'list', 'watch', 'create', 'patch', 'delete'];
  const access = (
    verb: string,
    apiGroup: string,
    resource: string,
    namespace: string,
    allowed: boolean,
  ) =>
    `    { verb: '${verb}', group: '${apiGroup}', resource: '${resource}', namespace: '${namespace}', allowed: ${allowed} },`;
  const controllerPeer = `{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': releaseNamespace } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': '${app}' } },
    }`;
  return {
    chart: {
      about: `Its own rules (templates/_helpers.tpl): its children and volumes, its pods observed, no Secret,
// the ProviderProfile controller's rules only when it runs, and its pods' labels for the
// NetworkPolicies it renders.`,
      alwaysKinds: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
      watchNamespaceKinds: ['Role', 'RoleBinding'],
      variations: `
  {
    name: 'watchNamespace set, ProviderProfile controller on',
    values: { watchNamespace: 'team-a', manageProviderProfiles: true },
    kinds: kinds(...usual, 'Role', 'Role', 'RoleBinding', 'RoleBinding'),
  },`,
      rules: [
        { group, resources: [plural], verbs: ['get', 'list', 'watch', 'patch'] },
        { group, resources: [`${plural}/status`], verbs: ['patch'] },
        { group, resources: [`${plural}/finalizers`], verbs: ['update'] },
        { group: 'apps', resources: ['statefulsets'], verbs: all },
        { group: '', resources: ['services', 'configmaps'], verbs: all },
        { group: 'policy', resources: ['poddisruptionbudgets'], verbs: all },
        { group: 'networking.k8s.io', resources: ['networkpolicies'], verbs: all },
        { group: '', resources: ['pods'], verbs: ['get', 'list', 'watch'] },
        {
          group: '',
          resources: ['persistentvolumeclaims'],
          verbs: ['get', 'list', 'watch', 'patch', 'delete'],
        },
        { group: '', resources: ['events'], verbs: ['list'] },
      ],
      watchNamespaceAccess: [
        access('create', 'apps', 'statefulsets', 'team-a', true),
        access('create', 'apps', 'statefulsets', 'team-b', false),
        access('create', 'policy', 'poddisruptionbudgets', 'team-a', true),
        access('create', 'networking.k8s.io', 'networkpolicies', 'team-a', true),
        access('delete', '', 'persistentvolumeclaims', 'team-a', true),
        access('list', '', 'secrets', 'team-a', false),
        access('get', '', 'secrets', 'team-a', false),
        access('create', '', 'secrets', 'team-a', false),
      ].join('\n'),
      options: `
  // Updated: only the finalizers subresource (blockOwnerDeletion) and the Lease. Deleted: only the
  // children the controller prunes and the volumes of a ${K} whose deletionPolicy is Delete.
  grantableVerbs: {
    get: '*',
    list: '*',
    watch: '*',
    create: '*',
    patch: '*',
    update: ['${plural}/finalizers', 'leases'],
    delete: [
      'statefulsets',
      'services',
      'configmaps',
      'poddisruptionbudgets',
      'networkpolicies',
      'persistentvolumeclaims',
    ],
  },
  // No Secret is read, listed or written.
  secretVerbs: [],
  readsProfileSecrets: false,
  legacyWatchNamespaceSecrets: false,
  profileRulesWhenManaged: true,
  env: {
    defaults: {
      STEWARD_CONTROLLER_POD_LABELS: \`app.kubernetes.io/instance=\${chart},app.kubernetes.io/name=\${chart}\`,
    },
  },`,
      promise: {
        title: `lets the controller neither create nor delete ${K}s, nor touch a pod, nor read, list or write a Secret`,
        body: `    const own = { group: '${group}', namespace: 'team-a' };
    for (const verb of ['create', 'update', 'delete']) {
      expect(rbac.allows({ ...own, verb, resource: '${plural}' })).toBe(false);
      expect(rbac.allows({ verb, group: '', resource: 'pods', namespace: 'team-a' })).toBe(false);
    }
    for (const verb of ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'])
      expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(false);`,
      },
    },
    app: {
      kubeImports: ['NetworkPolicies', 'Services', 'StatefulSets', 'type KubeObject'],
      constants: `const image = 'registry.example.com/${n.controllerName}:1.0';
const controllerOf = (child: KubeObject) =>
  child.metadata.ownerReferences?.find((r) => r.controller)?.name;
`,
      about: `No pod runs on a control plane (no scheduler, kubelet or
 * StatefulSet controller): the ${K} stays Provisioning, which is what these tests see.`,
      env: { STEWARD_CONTROLLER_POD_LABELS: `app.kubernetes.io/name=${app}` },
      create: { spec: `Partial<${K}['spec']> = {}`, sent: '{ image, ...spec }' },
      cases: `  it('creates the children and keeps a finalizer; Ready=False while no pod runs (kstatus: not Current)', async () => {
    await create('web', { replicas: 2, storage: { size: '1Gi' } });
    const obj = await withReadyReason('web', 'Provisioning');
    expect(findCondition(obj.status?.conditions, 'Ready')?.status).toBe('False');
    expect(obj.metadata.finalizers).toContain('${group}/cleanup');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'InProgress', unobserved: [] });
    expect(controllerOf(await admin.get(StatefulSets, 'web', ns))).toBe('web');
    expect(controllerOf(await admin.get(Services, 'web', ns))).toBe('web');
    expect(controllerOf(await admin.get(Services, 'web-headless', ns))).toBe('web');
  });

  it('lets the controller’s pods through the NetworkPolicy (its chart names them)', async () => {
    const policy = await admin.get<
      KubeObject & { spec: { ingress: { from: Record<string, unknown>[] }[] } }
    >(NetworkPolicies, 'web', ns);
    expect(policy.spec.ingress[0]!.from).toContainEqual(${controllerPeer});
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
  });`,
    },
  };
}
