// The two libraries of a scaffolded family as both kinds of family have them — the API lib
// (libs/<f>-api) and the domain lib (libs/<f>) with their project files, and the skeletons of
// their tests (the CRD's unit test, the controller's test on a real API server) — with the kind's
// own sources and test cases from its generator (new-controller.ts, new-workload-controller.ts).
import { type ControllerNames } from './scaffold-names.js';
import { packageJson, project, type ScaffoldVersions } from './scaffold-project.js';

/**
 * The kind's `defineKind` call (its names, version, category and scope from `n`; `fields` from
 * `description:` on, indented two spaces) and its types: what ends every kind's source file.
 */
export function kindDefinition(n: ControllerNames, doc: string, fields: string): string {
  const { kind: K } = n;
  return `/** ${doc} */
export const ${K} = defineKind({
  group: '${n.group}',
  version: 'v1alpha1',
  kind: '${K}',
  plural: '${n.plural}',
  shortNames: ['${n.shortName}'],
  categories: ['steward'],
  scope: 'Namespaced',
${fields}
});

export type ${K} = typeof ${K}.$object;
export type ${K}Spec = ${K}['spec'];
export type ${K}Status = NonNullable<${K}['status']>;
`;
}

/**
 * The imports every test of the kind against a real API server starts with: its conditions, the
 * kind, @steward/kube's client (and `kube`), @steward/testing's control plane; with `manager`, the
 * controller's Manager.
 */
export function apiServerTestImports(n: ControllerNames, kube: string[] = [], manager = false) {
  return [
    "import { findCondition } from '@steward/conditions';",
    ...(manager ? ["import { Manager } from '@steward/controller';"] : []),
    `import { ${n.kind} } from '@steward/${n.apiLib}';`,
    `import { ${['KubeClient', 'Namespaces', ...kube].join(', ')} } from '@steward/kube';`,
    "import { eventually, gitOpsReading, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';",
  ].join('\n');
}

/**
 * What a test of the kind against a real API server declares after its setup (`admin`, `Kind` and
 * `ns` in scope), indented by `indent`: `create(name, spec)`, `read(name)` and
 * `withReadyReason(name, reason)` — the object once its `Ready` condition has that reason at the
 * object's current generation.
 */
export function objectHelpers(
  n: ControllerNames,
  create: { spec: string; sent: string },
  indent = '',
): string {
  const { kind: K } = n;
  const text = `const create = (name: string, spec: ${create.spec}) =>
  admin.create<${K}>(Kind, {
    apiVersion: ${K}.apiVersion,
    kind: '${K}',
    metadata: { name, namespace: ns },
    spec: ${create.sent},
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
`;
  return text
    .split('\n')
    .map((line) => (line ? `${indent}${line}` : line))
    .join('\n');
}

/** What a kind's CRD unit test checks besides its names, scope and status subresource. */
export interface CrdTestSpec {
  /** What the leading comment says the API server's side is (e.g. `(its admission rules)`). */
  about?: string;
  /** The TypeScript type of `version.schema.openAPIV3Schema`, and the types it names (first). */
  schema: { types?: string; openAPIV3Schema: string };
  /** Constants after `version` (e.g. `const spec = …`). */
  constants?: string;
  /** The printer columns `kubectl get` shows (Age last), and those of `-o wide`. */
  columns: { shown: string[]; wide: string[] };
  /** The kind's own cases (`it(…)` blocks), indented two spaces. */
  cases: string;
}

/** `a`, `a and b`, `a, b and c`. */
const listed = (words: string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/** The CRD's unit test (libs/<f>-api/src/<f>.test.ts). */
function crdTest(n: ControllerNames, t: CrdTestSpec): string {
  const { kind: K, family, group, plural, shortName } = n;
  const quoted = (names: string[]) => names.map((c) => `'${c}'`).join(', ');
  return `// What the API server does with the CRD${t.about ? ` ${t.about}` : ''} is seen by libs/${family}/tests
// and e2e/${n.e2e}, with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { ${K} } from './index.js';
${t.schema.types ? `\n${t.schema.types}` : ''}
interface CrdVersion {
  name: string;
  subresources: Record<string, unknown>;
  additionalPrinterColumns: { name: string; jsonPath: string; priority?: number }[];
  schema: { openAPIV3Schema: ${t.schema.openAPIV3Schema} };
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
${t.constants ?? ''}
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

  it('shows ${listed(t.columns.shown)} in kubectl get, and ${listed(t.columns.wide)} with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => c.priority === undefined).map((c) => c.name)).toEqual([${quoted(t.columns.shown)}]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([${quoted(t.columns.wide)}]);
  });

${t.cases}
});
`;
}

/**
 * libs/<f>-api: `src/index.ts` and `src/<f>.ts` (the kind) from `sources`, the CRD's unit test
 * from `crd`, and the project files, with TypeBox as its one dependency.
 */
export function apiLibFiles(
  n: ControllerNames,
  v: ScaffoldVersions,
  sources: { index: string; kind: string },
  crd: CrdTestSpec,
): Record<string, string> {
  return project('lib', `libs/${n.apiLib}`, n.apiLib, ['type:domain', `scope:${n.family}`], {
    'package.json': packageJson(n.apiLib, './src/index.ts', { typebox: v.typebox }),
    'src/index.ts': sources.index,
    [`src/${n.family}.ts`]: sources.kind,
    [`src/${n.family}.test.ts`]: crdTest(n, crd),
  });
}

/** What the controller's test on a real API server has besides the shared setup. */
export interface ControllerTestSpec {
  /** Names from @steward/kube besides KubeClient and Namespaces. */
  kubeImports?: string[];
  /** Names from the domain lib's index. */
  imports: string[];
  /** Said before the constants (e.g. what a control plane lacks). */
  comment?: string;
  /** Constants after `Kind`. */
  constants?: string;
  /** `create(name, spec)`: the type of `spec`, and the spec it sends (e.g. defaults merged). */
  create: { spec: string; sent: string };
  /** Helpers after `create`, `read` and `withReadyReason`. */
  helpers?: string;
  /** The cases (`it(…)` blocks), indented two spaces. */
  cases: string;
}

/** libs/<f>/tests/controller.int.test.ts: a manager per test in a namespace of its own. */
function controllerTest(n: ControllerNames, t: ControllerTestSpec): string {
  const { kind: K, camel } = n;
  return `${apiServerTestImports(n, t.kubeImports, true)}
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ${t.imports.join(', ')} } from '../src/index.js';
${t.comment ? `\n${t.comment}` : ''}
const Kind = ${K}.resourceType;
${t.constants ?? ''}
let plane: ControlPlane;
let admin: KubeClient;
let ns = '';
let testNumber = 0;
const running: Manager[] = [];

beforeAll(async () => {
  // The CRDs exactly as the chart ships them (tools/scripts/generate-crds.ts).
  plane = await startControlPlane({ crds: [join(repoRoot(), 'charts/${n.app}/crds')] });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
beforeEach(async () => {
  ns = \`${n.shortName}-\${++testNumber}\`;
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

${objectHelpers(n, t.create)}${t.helpers ?? ''}
describe('the ${K} controller, on a real API server', () => {
${t.cases}
});
`;
}

/**
 * libs/<f>: the kind's domain — `sources` by path under the project (src/index.ts,
 * src/controller.ts, …) and the controller's test on a real API server from `test` — with the
 * project files.
 */
export function domainLibFiles(
  n: ControllerNames,
  sources: Record<string, string>,
  test: ControllerTestSpec,
): Record<string, string> {
  return project('lib', `libs/${n.family}`, n.family, ['type:domain', `scope:${n.family}`], {
    ...sources,
    'tests/controller.int.test.ts': controllerTest(n, test),
  });
}
