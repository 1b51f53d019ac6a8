// The files of a new controller family, for `new-project.ts controller <Kind>`: the API lib
// (libs/<f>-api: the kind, TypeBox + defineKind), the domain lib (libs/<f>: a pure plan function
// and the controller on `completeObjects`), the app (apps/<f>-controller), the chart
// (charts/<f>-controller, on steward-common), the e2e project (e2e/<f>-controller-e2e: the shared
// chart suite and the app as a process) and an example (examples/<f>/). Everything here is pure:
// names in, file texts out; new-project.ts writes them, links the packages, formats and generates.
//
// The output is a minimal but real controller that passes lint, typecheck, build and every test
// as written (tools/scripts/new-project.int.test.ts proves it for a throwaway kind): `Ready=True`
// reason `Accepted` for a spec the pure `plan<Kind>` accepts, a `TerminalError` (`Ready=False`,
// `Stalled=True`, kstatus Failed) for one it refuses. Replace the placeholder domain (the
// `spec.parameters` keys it knows) with the kind's own. With `--workload` (`names.workload`) the
// family is an in-cluster kind instead, on @steward/workload (new-workload-controller.ts).
import { workloadFiles } from './new-workload-controller.js';
import { projectFiles } from './project-files.js';

/** Every name a controller family is known by, from its kind (`CacheCluster`). */
export interface ControllerNames {
  /** `CacheCluster` */
  kind: string;
  /** `cache-cluster`: the family (its Nx scope is `scope:<family>`). */
  family: string;
  /** `cacheCluster`: functions are named `<camel>Controller`. */
  camel: string;
  /** `cachecluster`: the controller's name in metrics and on its dashboard. */
  controllerName: string;
  /** `cachecluster.steward.dev` unless given. */
  group: string;
  /** `cacheclusters` unless given. */
  plural: string;
  /** `cc` (the initials) for a kind of several words, the first three letters of one word. */
  shortName: string;
  /** `cache-cluster-api` */
  apiLib: string;
  /** `cache-cluster-controller`: the app, its chart and its image. */
  app: string;
  /** `cache-cluster-controller-e2e` */
  e2e: string;
  /**
   * A workload kind (`--workload`): its children live in the cluster, on the skeleton CacheCluster
   * and PostgresCluster share (new-workload-controller.ts).
   */
  workload: boolean;
}

/** Thrown for a kind, group, plural or short name the scaffold cannot use; says why. */
export class InvalidControllerNameError extends Error {
  override readonly name = 'InvalidControllerNameError';
}

/**
 * PascalCase: words of a capital and at least one lower-case letter or digit (`Widget`,
 * `CacheCluster`, `S3Bucket`). Runs of capitals (`HTTPRoute`) are refused: their kebab-case family
 * would not turn back into the kind (tools/charts/controller-chart.ts reads the kind from the
 * chart's name).
 */
const PASCAL_CASE = /^(?:[A-Z][a-z0-9]+)+$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const LOWER_WORD = /^[a-z][a-z0-9]*$/;
/**
 * The longest family: `steward-<family>-controller-dashboard`, the longest object name the chart
 * renders with the release name `steward`, must stay a DNS label (63).
 */
export const MAX_FAMILY_LENGTH = 30;

/** `tap` → `taps`, `box` → `boxes`, `policy` → `policies`: English plurals of the lowercase kind. */
export function pluralOf(lowercaseKind: string): string {
  if (/(s|x|z|ch|sh)$/.test(lowercaseKind)) return `${lowercaseKind}es`;
  if (/[^aeiou]y$/.test(lowercaseKind)) return `${lowercaseKind.slice(0, -1)}ies`;
  return `${lowercaseKind}s`;
}

/**
 * Every name of the family of `kind`, checked: a PascalCase kind whose family fits the chart's
 * object names, a DNS-subdomain group with a dot, a lowercase plural and short name.
 */
export function controllerNames(
  kind: string,
  options: { group?: string; plural?: string; shortName?: string; workload?: boolean } = {},
): ControllerNames {
  if (!PASCAL_CASE.test(kind)) {
    throw new InvalidControllerNameError(
      `${JSON.stringify(kind)} is not a PascalCase kind: letters and digits, each word a capital followed by lower-case letters or digits, e.g. Widget, CacheCluster, S3Bucket`,
    );
  }
  const words = kind.match(/[A-Z][a-z0-9]+/g)!;
  const family = words.map((w) => w.toLowerCase()).join('-');
  if (family.length > MAX_FAMILY_LENGTH) {
    throw new InvalidControllerNameError(
      `the family of ${kind}, ${family}, is longer than ${MAX_FAMILY_LENGTH} characters: the chart's object names (steward-${family}-controller-dashboard) would exceed 63`,
    );
  }
  const controllerName = kind.toLowerCase();
  const group = options.group ?? `${family.replaceAll('-', '')}.steward.dev`;
  const plural = options.plural ?? pluralOf(controllerName);
  const shortName =
    options.shortName ??
    (words.length > 1
      ? words.map((w) => w[0]!.toLowerCase()).join('')
      : controllerName.slice(0, 3));
  if (!DNS_SUBDOMAIN.test(group) || group.length > 253 - plural.length - 1) {
    throw new InvalidControllerNameError(
      `--group ${group} is not an API group: a lowercase DNS subdomain with at least one dot (e.g. widgets.example.com), at most ${252 - plural.length} characters with the plural ${plural}`,
    );
  }
  if (!LOWER_WORD.test(plural) || plural.length > 63) {
    throw new InvalidControllerNameError(
      `--plural ${plural} is not a resource name: lowercase letters and digits, starting with a letter, at most 63`,
    );
  }
  if (!LOWER_WORD.test(shortName) || shortName.length > 63 || shortName === controllerName) {
    throw new InvalidControllerNameError(
      `--short-name ${shortName} is not a short name: lowercase letters and digits, starting with a letter, shorter than the kind`,
    );
  }
  return {
    kind,
    family,
    camel: kind[0]!.toLowerCase() + kind.slice(1),
    controllerName,
    group,
    plural,
    shortName,
    apiLib: `${family}-api`,
    app: `${family}-controller`,
    e2e: `${family}-controller-e2e`,
    workload: options.workload ?? false,
  };
}

/** The projects of a family, as Nx names them: `<f>-api`, `<f>`, `<f>-controller`, `<f>-controller-e2e`. */
export function familyProjects(n: ControllerNames): string[] {
  return [n.apiLib, n.family, n.app, n.e2e];
}

/** Where the scaffold writes, relative to the repository root: none of it may exist yet. */
export function familyPaths(n: ControllerNames): string[] {
  return [
    `libs/${n.apiLib}`,
    `libs/${n.family}`,
    `apps/${n.app}`,
    `charts/${n.app}`,
    `e2e/${n.e2e}`,
    `examples/${n.family}`,
    `tools/charts/controllers/${n.app}.ts`,
  ];
}

/** Versions of the third-party packages the scaffold declares (the lockfile's). */
export interface ScaffoldVersions {
  typebox: string;
  'reflect-metadata': string;
  tsyringe: string;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** `libs/<name>` with the files every project has (new-project.ts) and `files`, by path. */
function project(
  kind: 'lib' | 'app' | 'e2e',
  dir: string,
  name: string,
  tags: string[],
  overrides: Record<string, string | undefined>,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [file, text] of Object.entries({ ...projectFiles(kind, name, tags), ...overrides })) {
    if (text !== undefined) files[`${dir}/${file}`] = text;
  }
  return files;
}

const packageJson = (name: string, main: string, dependencies?: Record<string, string>) =>
  json({
    name: `@steward/${name}`,
    version: '0.0.0',
    private: true,
    type: 'module',
    main,
    ...(main.endsWith('index.ts') ? { types: main } : {}),
    ...(dependencies ? { dependencies } : {}),
  });

/**
 * Every file of the family except the app's package.json, whose `@steward/*` list is the closure
 * of what the written sources import (new-project.ts computes it with app-dependencies.ts), and
 * the generated ones (CRDs, values schema, dashboard).
 */
export function controllerFiles(n: ControllerNames, v: ScaffoldVersions): Record<string, string> {
  const files = {
    ...apiLibFiles(n, v),
    ...domainLibFiles(n),
    ...appFiles(n),
    ...chartFiles(n),
    ...e2eFiles(n),
    ...exampleFiles(n),
  };
  return n.workload ? workloadFiles(n, files) : files;
}

/** The app's package.json: the `@steward/*` closure its code reaches, and what main.ts needs. */
export function appPackageJson(n: ControllerNames, v: ScaffoldVersions, closure: string[]): string {
  return packageJson(n.app, './src/main.ts', {
    ...Object.fromEntries(closure.map((name) => [name, '*'])),
    'reflect-metadata': v['reflect-metadata'],
    tsyringe: v.tsyringe,
  });
}

function apiLibFiles(n: ControllerNames, v: ScaffoldVersions): Record<string, string> {
  const { kind: K, family, group, plural, shortName } = n;
  const dir = `libs/${n.apiLib}`;
  return project('lib', dir, n.apiLib, ['type:domain', `scope:${family}`], {
    'package.json': packageJson(n.apiLib, './src/index.ts', { typebox: v.typebox }),
    'src/index.ts': `/**
 * @steward/${n.apiLib} — the \`${K}\` kind (\`${group}/v1alpha1\`, namespaced, short name
 * \`${shortName}\`): one source of truth for its TypeScript types and its CRD (generated into
 * charts/${n.app}/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - \`spec.parameters\` holds at most MAX_PARAMETERS keys, each value at most
 *   MAX_PARAMETER_VALUE_LENGTH characters.
 * - Defaults: \`deletionPolicy: Retain\` (nothing is lost without an explicit opt-in).
 *
 * What only the controller can know is a condition with a reason, not an admission error
 * (@steward/${family}: a \`spec.parameters\` key it does not know is \`UnknownParameter\`).
 *
 * Status: the \`Ready\` condition and \`observedGeneration\`.
 */
export {
  ${K},
  ${K}DeletionPolicies,
  ${K}Spec,
  ${K}Status,
  MAX_PARAMETER_VALUE_LENGTH,
  MAX_PARAMETERS,
  type ${K}DeletionPolicy,
} from './${family}.js';
`,
    [`src/${family}.ts`]: `import { ConditionsSchema, defineKind, StringEnum, StringMap } from '@steward/crd';
import Type from 'typebox';

/**
 * What deleting a ${K} does to what it manages: the two policies of every Steward kind, default
 * Retain. Declared here, not imported from @steward/provider-profile-api: a kind that references
 * no ProviderProfile would otherwise ship the ProviderProfile CRD in its chart.
 */
export const ${K}DeletionPolicies = ['Retain', 'Delete'] as const;
export type ${K}DeletionPolicy = (typeof ${K}DeletionPolicies)[number];

/** At most this many \`spec.parameters\`. */
export const MAX_PARAMETERS = 32;
/** The longest value of a \`spec.parameters\` key. */
export const MAX_PARAMETER_VALUE_LENGTH = 1024;

export const ${K}Spec = Type.Object({
  parameters: Type.Optional(
    StringMap({
      maxProperties: MAX_PARAMETERS,
      additionalProperties: { type: 'string', maxLength: MAX_PARAMETER_VALUE_LENGTH },
      description:
        'Settings of the ${K}, by key. A key the controller does not know is refused (UnknownParameter).',
    }),
  ),
  deletionPolicy: Type.Optional(
    StringEnum(${K}DeletionPolicies, {
      default: 'Retain',
      description:
        'Retain: deleting the ${K} leaves what it manages in place. Delete: that is deleted too.',
    }),
  ),
});

export const ${K}Status = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** A ${K}, kept converged by Steward's ${K} controller (@steward/${family}). */
export const ${K} = defineKind({
  group: '${group}',
  version: 'v1alpha1',
  kind: '${K}',
  plural: '${plural}',
  shortNames: ['${shortName}'],
  categories: ['steward'],
  scope: 'Namespaced',
  description: "A ${K}, kept converged by Steward's ${K} controller.",
  spec: ${K}Spec,
  status: ${K}Status,
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
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
    [`src/${family}.test.ts`]: `// What the API server does with the CRD is seen by libs/${family}/tests and e2e/${n.e2e},
// with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { ${K} } from './index.js';

interface CrdVersion {
  name: string;
  subresources: Record<string, unknown>;
  additionalPrinterColumns: { name: string; jsonPath: string; priority?: number }[];
  schema: {
    openAPIV3Schema: {
      properties: { spec: { properties: Record<string, { default?: unknown }> } };
    };
  };
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

  it('shows Ready and Age in kubectl get, and the reason with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => c.priority === undefined).map((c) => c.name)).toEqual([
      'Ready',
      'Age',
    ]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Reason']);
  });

  it('defaults to deletionPolicy Retain', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec.properties;
    expect(spec['deletionPolicy']?.default).toBe('Retain');
  });
});
`,
  });
}

function domainLibFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, family, camel, shortName } = n;
  const dir = `libs/${family}`;
  return project('lib', dir, family, ['type:domain', `scope:${family}`], {
    'src/index.ts': `/**
 * @steward/${family} — the ${K} domain: what a ${K}'s spec means, as pure functions, and the
 * controller that keeps every ${K} converged to it.
 *
 * - \`plan${K}(spec)\` (pure): accept the spec, or refuse it with a reason the user can act on
 *   (\`UnknownParameter\`: a \`spec.parameters\` key the controller does not know). Decisions live
 *   here, as functions over (desired, observed) that are easy to test; the reconciler only
 *   carries them out.
 * - \`${camel}Controller(manager, options)\`: \`reconcile${K}\` on \`completeObjects\`. It writes
 *   \`Ready=True\` (\`Accepted\`) through the one status writer, or throws a \`TerminalError\`: the
 *   runtime records it (\`Ready=False\` and \`Stalled=True\` at the object's generation — kstatus
 *   reads Failed — and a Warning Event) and does not retry until the spec changes.
 *
 * Nothing exists outside a ${K} yet, so deleting one deletes nothing, whatever its
 * \`deletionPolicy\`. Once the controller manages something, keep a finalizer
 * (@steward/finalizers) and honour \`spec.deletionPolicy\` in its cleanup.
 */
export { ${camel}Controller, reconcile${K}, type ${K}ControllerOptions } from './controller.js';
export { ${K}ParameterKeys, plan${K}, type ${K}Plan } from './plan-${family}.js';
export { ${K}Reasons } from './reasons.js';
`,
    'src/reasons.ts': `/**
 * The reasons of a ${K}'s \`Ready\` condition: CamelCase constants a user can search for.
 * - \`Accepted\` (\`Ready=True\`): the spec is valid.
 * - \`UnknownParameter\` (\`Ready=False\`, \`Stalled=True\`): \`spec.parameters\` has a key the
 *   controller does not know; remove or rename it.
 */
export const ${K}Reasons = {
  Accepted: 'Accepted',
  UnknownParameter: 'UnknownParameter',
} as const;
`,
    [`src/plan-${family}.ts`]: `import { type ${K}Spec } from '@steward/${n.apiLib}';
import { ${K}Reasons } from './reasons.js';

/** The \`spec.parameters\` keys the controller knows; any other is refused (\`UnknownParameter\`). */
export const ${K}ParameterKeys = ['description', 'owner'] as const;

/** What the controller does with one ${K}'s spec. */
export type ${K}Plan =
  | { action: 'accept'; message: string }
  | { action: 'refuse'; reason: typeof ${K}Reasons.UnknownParameter; message: string };

/**
 * Whether the controller can accept a ${K}, from its spec alone. Pure: no I/O, the same answer
 * for the same spec; a refusal says what to change.
 */
export function plan${K}(spec: ${K}Spec): ${K}Plan {
  const known: readonly string[] = ${K}ParameterKeys;
  const unknown = Object.keys(spec.parameters ?? {})
    .filter((key) => !known.includes(key))
    .sort();
  if (unknown.length > 0) {
    return {
      action: 'refuse',
      reason: ${K}Reasons.UnknownParameter,
      message: \`spec.parameters has keys the ${K} controller does not know: \${unknown.join(', ')} (known: \${known.join(', ')})\`,
    };
  }
  return { action: 'accept', message: 'the spec is valid' };
}
`,
    [`src/plan-${family}.test.ts`]: `import { type ${K}Spec } from '@steward/${n.apiLib}';
import { describe, expect, it } from 'vitest';
import { plan${K} } from './plan-${family}.js';

describe('plan${K}', () => {
  const accepted: { name: string; spec: ${K}Spec }[] = [
    { name: 'an empty spec', spec: {} },
    { name: 'every known parameter', spec: { parameters: { description: 'd', owner: 'team-a' } } },
    { name: 'a deletion policy', spec: { deletionPolicy: 'Delete' } },
  ];
  it.each(accepted)('accepts $name', ({ spec }) => {
    expect(plan${K}(spec)).toEqual({ action: 'accept', message: 'the spec is valid' });
  });

  const refused: { name: string; parameters: Record<string, string>; unknown: string }[] = [
    { name: 'an unknown key', parameters: { colour: 'blue' }, unknown: 'colour' },
    {
      name: 'unknown keys next to known ones, sorted',
      parameters: { zeta: '1', owner: 'team-a', alpha: '2' },
      unknown: 'alpha, zeta',
    },
    { name: 'a key that differs from a known one in case', parameters: { Owner: 'x' }, unknown: 'Owner' },
  ];
  it.each(refused)('refuses $name as UnknownParameter, naming the keys', ({ parameters, unknown }) => {
    expect(plan${K}({ parameters })).toEqual({
      action: 'refuse',
      reason: 'UnknownParameter',
      message: \`spec.parameters has keys the ${K} controller does not know: \${unknown} (known: description, owner)\`,
    });
  });
});
`,
    'src/controller.ts': `import {
  controllerFor,
  generationChanged,
  TerminalError,
  type Controller,
  type Manager,
  type ObjectReconciler,
} from '@steward/controller';
import { ${K} } from '@steward/${n.apiLib}';
import { type Selection } from '@steward/informer';
import { plan${K} } from './plan-${family}.js';
import { ${K}Reasons } from './reasons.js';

export interface ${K}ControllerOptions {
  /** Which ${K}s to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** ${K}s reconciled at once. Default 1. */
  maxConcurrentReconciles?: number;
}

/**
 * One ${K}, as the runtime hands it over: read once from the cache, never for an object that is
 * gone. Idempotent: it states the status the spec implies, and the status writer writes only what
 * changed (a converged ${K} costs no API writes). It mutates nothing but the status.
 * - being deleted → nothing to do: it keeps no finalizer, there is nothing to clean up yet;
 * - a spec \`plan${K}\` refuses → \`TerminalError\` with the plan's reason and message: the user
 *   must change the spec, and that change reconciles it again;
 * - otherwise → \`Ready=True\`, reason \`Accepted\`.
 */
export const reconcile${K}: ObjectReconciler<${K}> = async (ctx, obj) => {
  if (obj.metadata.deletionTimestamp) return;
  const plan = plan${K}(obj.spec);
  if (plan.action === 'refuse') throw new TerminalError(plan.reason, plan.message);
  await ctx.status.write({
    conditions: [{ type: 'Ready', status: 'True', reason: ${K}Reasons.Accepted, message: plan.message }],
  });
};

/**
 * The ${K} controller: \`reconcile${K}\` for every ${K} of \`options.selection\`, woken by spec
 * changes (\`generationChanged\`: its own status writes do not wake it).
 *
 * RBAC: \`${n.group}\` \`${n.plural}\` get/list/watch and \`${n.plural}/status\` patch;
 * \`events.k8s.io\` \`events\` create/patch for the Warning Event of a refusal.
 */
export function ${camel}Controller(manager: Manager, options: ${K}ControllerOptions = {}): Controller {
  return controllerFor(manager, ${K}.resourceType, {
    selection: options.selection ?? {},
    predicates: [generationChanged],
  })
    .named('${n.controllerName}')
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .completeObjects(reconcile${K});
}
`,
    'tests/controller.int.test.ts': `import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { ${K} } from '@steward/${n.apiLib}';
import { KubeClient, Namespaces } from '@steward/kube';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ${camel}Controller } from '../src/index.js';

const Kind = ${K}.resourceType;

let plane: ControlPlane;
let admin: KubeClient;
let ns = '';
let testNumber = 0;
const running: Manager[] = [];

beforeAll(async () => {
  // The CRD exactly as the chart ships it (tools/scripts/generate-crds.ts).
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

const create = (name: string, spec: ${K}['spec']) =>
  admin.create<${K}>(Kind, {
    apiVersion: ${K}.apiVersion,
    kind: '${K}',
    metadata: { name, namespace: ns },
    spec,
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

describe('the ${K} controller, on a real API server', () => {
  it('makes a valid ${K} Ready (Accepted), observed at its generation: kstatus reads Current', async () => {
    await create('valid', { parameters: { owner: 'team-a' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(findCondition(obj.status?.conditions, 'Ready')).toMatchObject({
      status: 'True',
      message: 'the spec is valid',
    });
    expect(obj.spec.deletionPolicy).toBe('Retain');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter as a terminal UnknownParameter (kstatus: Failed), and accepts the fixed spec', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const refused = await withReadyReason('typo', 'UnknownParameter');
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      message:
        'spec.parameters has keys the ${K} controller does not know: ownr (known: description, owner)',
    });
    expect(findCondition(refused.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(refused)).toMatchObject({ kstatus: 'Failed', unobserved: [] });

    await admin.mergePatch(Kind, 'typo', ns, { spec: { parameters: { ownr: null, owner: 'team-a' } } });
    const fixed = await withReadyReason('typo', 'Accepted');
    expect(fixed.metadata.generation).toBe(2);
    expect(findCondition(fixed.status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(fixed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });
});
`,
  });
}

function appFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, camel } = n;
  const appClass = `${K}ControllerApp`;
  return project('app', `apps/${n.app}`, n.app, ['type:app', `scope:${n.family}`], {
    // written by new-project.ts from the closure of the sources' imports
    'package.json': undefined,
    'project.json': json({
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      name: n.app,
      projectType: 'application',
      sourceRoot: `apps/${n.app}/src`,
      tags: ['type:app', `scope:${n.family}`],
      // apps have no unit tests: tools/scripts/apps.test.ts checks their shape, e2e/<app>-e2e runs them
      targets: {
        build: {
          executor: 'nx:run-commands',
          options: { command: `npx tsx tools/scripts/bundle-app.ts ${n.app}` },
          outputs: [`{workspaceRoot}/dist/apps/${n.app}`],
        },
        typecheck: {},
        lint: {},
      },
    }),
    'vitest.config.ts': undefined,
    'src/main.ts': `// The only file that touches the tsyringe container: reads the configuration, registers one
// provider per token, resolves the app and exits with its code.
import 'reflect-metadata';
import {
  configOrExit,
  loadProcessConfig,
  processProviders,
  resolveOrExit,
} from '@steward/controller-process';
import { container } from 'tsyringe';
import { APP_NAME, ${appClass} } from './app.js';

const config = configOrExit(APP_NAME, () => loadProcessConfig(process.env));
for (const [token, provider] of processProviders(APP_NAME, config)) {
  container.register(token, provider);
}
const app = resolveOrExit(APP_NAME, () => container.resolve(${appClass}));
process.exitCode = await app.run();
`,
    'src/app.ts': `import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
  watchSelection,
} from '@steward/controller-process';
import { ${camel}Controller } from '@steward/${n.family}';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = '${n.app}';

/**
 * The ${n.app} process: the ${K} controller on one manager. \`run()\` resolves with the exit
 * code once the manager has stopped.
 */
@injectable()
export class ${appClass} {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    ${camel}Controller(manager, {
      ...watchSelection(config),
      maxConcurrentReconciles: config.maxConcurrentReconciles,
    });
    return runUntilStopped(manager);
  }
}
`,
    'README.md': `# ${n.app}

The ${K} controller as a process: \`src/main.ts\` wires the process (the only file that touches
the tsyringe container), \`src/app.ts\` adds the ${K} controller of \`@steward/${n.family}\` to the
manager that \`@steward/controller-process\` builds from the \`STEWARD_*\` variables its chart
sets.

\`\`\`sh
npx nx run ${n.app}:build     # dist/apps/${n.app}/main.js (tools/scripts/bundle-app.ts)
docker build -f apps/Dockerfile --build-arg APP=${n.app} -t steward/${n.app} .
\`\`\`

Its package.json lists every \`@steward/*\` library its code reaches and the third-party packages
\`main.ts\` imports: that is what the image installs (\`tools/scripts/app-dependencies.ts\`). The
chart is \`charts/${n.app}\`; \`e2e/${n.e2e}\` runs the bundle under exactly that chart's RBAC.
`,
  });
}

function chartFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, app } = n;
  const dir = `charts/${app}`;
  const include = (template: string) => `{{- include "steward-common.${template}" . }}\n`;
  const watchRules = `(include "${app}.watchRules" .) "watchRulesReadSecrets" false`;
  return {
    [`${dir}/Chart.yaml`]: `apiVersion: v2
name: ${app}
description: >-
  Steward's ${K} controller: ${K}s (${n.group}/v1alpha1) kept converged from a Kubernetes custom
  resource.
type: application
version: 0.1.0
appVersion: '0.1.0'
kubeVersion: '>=1.30.0-0'
home: https://github.com/steward-dev/steward
sources:
  - https://github.com/steward-dev/steward
keywords:
  - operator
  - ${n.controllerName}
  - steward
# The templates every Steward controller chart shares. Vendored: charts/steward-common is a symbolic
# link to ../../steward-common, so helm lint/template/install/package work from a checkout with no
# \`helm dependency build\` (which would replace the link with a copy).
dependencies:
  - name: steward-common
    version: 0.1.0
    repository: file://../steward-common
`,
    [`${dir}/values.yaml`]: `# Values of the ${app} chart. values.schema.json (generated by tools/scripts/generate-charts.ts)
# validates every key: an unknown key or a value of the wrong type fails \`helm install\` before
# anything is sent.

# -- Overrides the chart name in object names and the app.kubernetes.io/name label.
nameOverride: ''
# -- Overrides the full object name (release name + chart name by default).
fullnameOverride: ''

image:
  repository: ghcr.io/steward-dev/${app}
  # -- Defaults to the chart's appVersion.
  tag: ''
  # -- \`sha256:<hex>\`; when set the image is pulled by digest (the tag is then informational).
  digest: ''
  pullPolicy: IfNotPresent

# -- Secrets for pulling the image from a private registry: \`[{ name: regcred }]\`.
imagePullSecrets: []

# -- Pods of the controller. Only the leader reconciles; a second replica is a warm standby (and
# gets a PodDisruptionBudget). More than one replica requires leader election.
replicas: 1

# -- Watch ${K}s in these namespaces only (STEWARD_WATCH_NAMESPACES), e.g. \`[team-a, team-b]\`;
# empty watches every namespace. When set, the namespaced permissions are granted by a Role in
# each of them instead of the ClusterRole.
watchNamespaces: []

# -- Deprecated: \`watchNamespaces: [<namespace>]\`. Not with watchNamespaces.
watchNamespace: ''

leaderElection:
  # -- STEWARD_LEADER_ELECT. The Lease \`${app}-leader\` lives in the release namespace; its Role
  # is only rendered when this is on.
  enabled: true

# -- STEWARD_PROBE_PORT: one port serves /healthz, /readyz and /metrics.
probePort: 8080

# -- STEWARD_LOG_LEVEL.
logLevel: info

# -- STEWARD_MAX_CONCURRENT_RECONCILES: ${K}s reconciled at once.
maxConcurrentReconciles: 4

# -- STEWARD_POLL_INTERVAL_SECONDS. The ${K} controller polls nothing yet: a spec change is what
# reconciles a ${K}.
pollIntervalSeconds: 60

# -- STEWARD_MANAGE_PROVIDER_PROFILES. The ${K} controller runs no ProviderProfile controller, so
# it has no effect (the values every Steward chart shares have it).
manageProviderProfiles: null

otel:
  # -- OTEL_EXPORTER_OTLP_ENDPOINT, e.g. \`http://otel-collector.observability:4318\`. Empty: no
  # OTLP export (Prometheus metrics on the probe port are always served).
  endpoint: ''

# -- More environment variables for the controller container (Kubernetes EnvVar objects).
extraEnv: []

serviceAccount:
  # -- Create the ServiceAccount. When false, \`name\` must name an existing one; the chart still
  # binds its RBAC to it.
  create: true
  # -- Defaults to the full name.
  name: ''
  annotations: {}

rbac:
  # -- The namespaces of Secrets that ProviderProfiles name, where steward-common grants \`get\` on
  # Secrets (empty: in every namespace when watching every namespace, in none with
  # \`watchNamespaces\`). The ${K} controller reads no Secret.
  credentialsSecretNamespaces: []

resources:
  requests:
    cpu: 100m
    memory: 128Mi
  limits:
    cpu: '1'
    memory: 512Mi

# -- Seconds between SIGTERM and SIGKILL: the controller drains in-flight reconciles and releases
# its Lease within this time.
terminationGracePeriodSeconds: 40

priorityClassName: ''
podAnnotations: {}
podLabels: {}
nodeSelector: {}
tolerations: []
affinity: {}
# -- Rendered as is; when empty and replicas > 1, pods are spread across nodes
# (whenUnsatisfiable: ScheduleAnyway).
topologySpreadConstraints: []

service:
  # -- Port of the metrics Service (named \`metrics\`); it targets the probe port.
  port: 8080
  annotations: {}

serviceMonitor:
  # -- Render a Prometheus Operator ServiceMonitor (needs its CRD in the cluster).
  enabled: false
  interval: 30s
  scrapeTimeout: 10s
  # -- Extra labels, e.g. the one your Prometheus selects ServiceMonitors by.
  labels: {}

prometheusRule:
  # -- Render the alerting rules (alerts/*.rules.yaml; runbooks in docs/runbooks) as a Prometheus
  # Operator PrometheusRule (needs its CRD in the cluster).
  enabled: false
  # -- Extra labels, e.g. the one your Prometheus selects rules by.
  labels: {}

podDisruptionBudget:
  # -- Rendered only when replicas > 1.
  enabled: true
  maxUnavailable: 1

dashboard:
  # -- Ship the Grafana dashboard as a ConfigMap labelled \`grafana_dashboard: "1"\`, which the
  # Grafana sidecar picks up.
  enabled: true
  # -- Defaults to the release namespace.
  namespace: ''
  labels: {}
  # -- e.g. \`grafana_folder: Steward\`.
  annotations: {}
`,
    [`${dir}/templates/NOTES.txt`]: `{{ include "steward-common.notes.installed" (dict "root" . "kind" "${K}" "plural" "${K}s") }}

Next, create ${K}s and watch them become Ready:

  kubectl get ${n.plural} --all-namespaces
  kubectl describe ${n.controllerName} <name> -n <namespace>   # conditions and Events

{{ include "steward-common.notes.observability" . }}
`,
    [`${dir}/templates/_helpers.tpl`]: `{{/*
The chart's own rules; everything else comes from the steward-common library chart (vendored as
charts/steward-common, a symbolic link to ../../steward-common).
*/}}

{{/*
${K}s: in the ClusterRole without watched namespaces, in a Role in each watched namespace with
them. The controller reads them from its cache and writes only their status, by patch.
*/}}
{{- define "${app}.watchRules" -}}
- apiGroups: [${n.group}]
  resources: [${n.plural}]
  verbs: [get, list, watch]
- apiGroups: [${n.group}]
  resources: [${n.plural}/status]
  verbs: [patch]
{{- end }}
`,
    [`${dir}/templates/dashboard-configmap.yaml`]: include('dashboard'),
    [`${dir}/templates/deployment.yaml`]: include('deployment'),
    [`${dir}/templates/poddisruptionbudget.yaml`]: include('podDisruptionBudget'),
    [`${dir}/templates/prometheusrule.yaml`]: include('prometheusRule'),
    [`${dir}/templates/rbac-cluster.yaml`]: `{{- include "steward-common.rbac.cluster" (dict "root" . "watchRules" ${watchRules}) }}\n`,
    [`${dir}/templates/rbac-leader-election.yaml`]: include('rbac.leaderElection'),
    [`${dir}/templates/rbac-namespaced.yaml`]: `{{- include "steward-common.rbac.namespaced" (dict "root" . "watchRules" ${watchRules}) }}\n`,
    [`${dir}/templates/service.yaml`]: include('service'),
    [`${dir}/templates/serviceaccount.yaml`]: include('serviceAccount'),
    [`${dir}/templates/servicemonitor.yaml`]: include('serviceMonitor'),
    [`${dir}/README.md`]: `# ${app}

Helm chart for Steward's ${K} controller. The controller keeps \`${K}\` custom resources
(\`${n.group}/v1alpha1\`, namespaced, short name \`${n.shortName}\`) converged: \`Ready=True\`
(\`Accepted\`) for a spec it accepts, \`Ready=False\` and \`Stalled=True\` with the reason for one it
refuses.

The chart installs:

- the \`${K}\` CRD from \`crds/\`, generated by \`tools/scripts/generate-crds.ts\`; never edit it by
  hand.
- a ServiceAccount and the RBAC the controller needs: ${n.plural} get/list/watch and
  \`${n.plural}/status\` patch, Events create/patch, its Lease. The library chart adds, for every
  Steward controller, the ProviderProfile rules and \`get\` on Secrets by name, which this
  controller does not use.
- a Deployment with secure defaults (non-root, read-only root filesystem, seccomp
  \`RuntimeDefault\`, no capabilities, resources, probes), admitted under the \`restricted\` Pod
  Security Standard.
- a metrics Service (port \`metrics\`) and, if you enable it, a Prometheus Operator ServiceMonitor;
- if you enable it, a PrometheusRule with the alerting rules of \`alerts/\` (each alert's runbook is
  in \`docs/runbooks/\`).
- a PodDisruptionBudget when \`replicas\` > 1.
- a Grafana dashboard as a ConfigMap labelled \`grafana_dashboard: "1"\`.

The dashboard (\`dashboards/\`), the alerting rules (\`alerts/\`) and \`values.schema.json\` are generated by
\`tools/scripts/generate-charts.ts\` from \`tools/charts/\` (add
\`tools/charts/controllers/${app}.ts\` for panels or values of this chart's own); never edit them
by hand. Its templates come from the library chart [\`steward-common\`](../steward-common/README.md);
\`charts/steward-common\` is a symbolic link to it, so the chart installs from a checkout as it is.

## Install

\`\`\`sh
helm install ${app} charts/${app} --namespace steward-system --create-namespace
\`\`\`

Helm installs the CRDs in \`crds/\` on the first install but never upgrades or deletes them. After
you upgrade the chart, apply them yourself:

\`\`\`sh
kubectl apply --server-side -f charts/${app}/crds
\`\`\`

## Testing

\`\`\`sh
npx vitest run --root e2e/${n.e2e}
\`\`\`

The chart passes the checks every Steward controller chart passes (\`describeControllerChart\` in
\`libs/testing-charts/src/controller-chart-suite.ts\`: lint, rendering, schema refusals, dashboard,
Pod defaults, least-privilege RBAC, server-side dry run, restricted Pod Security, helm install), and
the controller's bundle runs under exactly this chart's RBAC against a real API server.
`,
  };
}

function e2eFiles(n: ControllerNames): Record<string, string> {
  const { kind: K, app } = n;
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
  const roleKinds = (...extra: string[]) =>
    ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', ...extra]
      .sort()
      .map((k) => `'${k}'`)
      .join(', ');
  const base = ['Role', 'RoleBinding', 'Service', 'ServiceAccount'];
  return project('e2e', `e2e/${n.e2e}`, n.e2e, ['type:e2e', `scope:${n.family}`], {
    'package.json': packageJson(n.e2e, './src/index.ts'),
    'tests/chart.int.test.ts': `import { ${K} } from '@steward/${n.apiLib}';
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

const variations: ChartVariation[] = [
  { name: 'default values', values: {}, kinds: [${roleKinds(...base)}] },
  {
    name: 'watchNamespace set',
    values: { watchNamespace: 'team-a' },
    kinds: [${roleKinds('Role', 'Role', 'RoleBinding', 'RoleBinding', 'Service', 'ServiceAccount', 'Role', 'RoleBinding')}],
  },
  {
    name: 'two replicas',
    values: { replicas: 2 },
    kinds: [${roleKinds('PodDisruptionBudget', ...base)}],
  },
  {
    name: 'ServiceMonitor on',
    values: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
    kinds: [${roleKinds('ServiceMonitor', ...base)}],
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
// dry run, Pod Security, RBAC on a real API server, helm install), with this chart's specifics.
// The ProviderProfile and Namespace rules and \`get\` on Secrets come from steward-common, which
// grants them to every controller chart; the ${K} controller uses none of them.
describeControllerChart({
  chart,
  kind: ${K}.resourceType,
  connect: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'steward-chart-test' }),
  variations,
  defaultRules: [
${rule('ClusterRole', 'steward.dev', 'providerprofiles', ['get', 'list', 'watch', 'patch'])}
${rule('ClusterRole', 'steward.dev', 'providerprofiles/status', ['patch'])}
${rule('ClusterRole', '', 'namespaces', ['get', 'list', 'watch'])}
${rule('ClusterRole', n.group, n.plural, ['get', 'list', 'watch'])}
${rule('ClusterRole', n.group, `${n.plural}/status`, ['patch'])}
${rule('ClusterRole', '', 'secrets', ['get'])}
${rule('ClusterRole', 'events.k8s.io', 'events', ['create', 'patch'])}
${rule('Role', 'coordination.k8s.io', 'leases', ['create'])}
${rule('Role', 'coordination.k8s.io', 'leases', ['get', 'update'], `\n      resourceNames: ['${app}-leader'],`)}
  ],
  watchNamespaceAccess: [
    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
  ],
});

describe('the ${app} chart’s own promises', () => {
  it.each(variations)(
    'lets the controller read ${K}s and write nothing but their status, with $name',
    async ({ values }) => {
      const rbac = chartRbac(await renderChart(chartDir, values));
      const own = { group: '${n.group}', namespace: 'team-a' };
      for (const verb of ['create', 'update', 'patch', 'delete']) {
        expect(rbac.allows({ ...own, verb, resource: '${n.plural}' })).toBe(false);
        expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(
          false,
        );
      }
      expect(rbac.allows({ ...own, verb: 'patch', resource: '${n.plural}/status' })).toBe(true);
    },
  );
});
`,
    'tests/app.int.test.ts': `import { findCondition } from '@steward/conditions';
import { ${K} } from '@steward/${n.apiLib}';
import { Events, KubeClient, Namespaces, type KubeObject } from '@steward/kube';
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

interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { name?: string };
}

/**
 * The ${app}'s bundle as a process, under exactly the RBAC its chart renders, with leader
 * election, against a real API server.
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

  const create = (name: string, spec: ${K}['spec']) =>
    admin.create<${K}>(Kind, {
      apiVersion: ${K}.apiVersion,
      kind: '${K}',
      metadata: { name, namespace: ns },
      spec,
    } as ${K});
  const withReadyReason = (name: string, reason: string) =>
    eventually(
      async () => {
        const obj = await admin.get<${K}>(Kind, name, ns);
        return findCondition(obj.status?.conditions, 'Ready')?.reason === reason ? obj : undefined;
      },
      { description: \`\${name} Ready reason \${reason}\`, timeoutMs: 60_000 },
    );

  it('makes a valid ${K} Ready (kstatus: Current)', async () => {
    await create('valid', { parameters: { description: 'made by the e2e suite' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter with a condition (kstatus: Failed) and a Warning Event', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const obj = await withReadyReason('typo', 'UnknownParameter');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    const event = await eventually(
      async () =>
        (await admin.list<Event>(Events, { namespace: ns })).items.find(
          (e) => e.regarding?.name === 'typo' && e.reason === 'UnknownParameter',
        ),
      { description: 'a Warning Event about typo' },
    );
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.note).toContain('ownr');
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
  });
});
`,
  });
}

function exampleFiles(n: ControllerNames): Record<string, string> {
  const { kind: K } = n;
  return {
    [`examples/${n.family}/20-${n.family}.yaml`]: `# A ${K} an application team declares; the ${K} controller makes it Ready (Accepted).
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
  parameters:
    description: the first ${K}
    owner: team-shop
  # deletionPolicy defaults to Retain: deleting this object leaves what it manages in place.
`,
  };
}
