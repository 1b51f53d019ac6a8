// No domain lib imports another (DESIGN "Repository layout"; issue 9, item 7): every project
// carries one `scope:` tag — its CRD family, or `scope:shared` — and eslint.config.js's
// depConstraints let a family depend only on itself and on shared projects. This proves the tags
// are there and that the rule bites, by linting with the repository's own ESLint configuration and
// Nx project graph.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const RULE = '@nx/enforce-module-boundaries';

interface ProjectGraph {
  nodes: Record<string, { type: string; data: { root: string; tags?: string[] } }>;
  dependencies: Record<string, { source: string; target: string }[]>;
}

/**
 * The workspace's project graph, through the Nx CLI. Computing it also refreshes the graph Nx
 * caches in .nx/workspace-data, which is the one `@nx/enforce-module-boundaries` reads: a graph
 * cached before a tag changed would lint with the old tags.
 */
async function projectGraph(): Promise<ProjectGraph> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-module-boundaries-'));
  try {
    const file = join(dir, 'graph.json');
    await promisify(execFile)('npx', ['nx', 'graph', `--file=${file}`], {
      cwd: root,
      env: { ...process.env, NX_TUI: 'false' },
    });
    return (JSON.parse(await readFile(file, 'utf8')) as { graph: ProjectGraph }).graph;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const tagsOf = (graph: ProjectGraph, project: string, prefix: string): string[] =>
  (graph.nodes[project]?.data.tags ?? []).filter((t) => t.startsWith(prefix));

let graph: ProjectGraph;
beforeAll(async () => {
  graph = await projectGraph();
}, 120_000);

describe('scope tags', () => {
  it('gives every project exactly one type: and one scope: tag', () => {
    const projects = Object.keys(graph.nodes).sort();
    expect(projects.length).toBeGreaterThan(10);
    const wrong = projects
      .map((p) => ({
        project: p,
        type: tagsOf(graph, p, 'type:'),
        scope: tagsOf(graph, p, 'scope:'),
      }))
      .filter(({ type, scope }) => type.length !== 1 || scope.length !== 1);
    expect(wrong).toEqual([]);
  });

  it('names each family project after its family: <f>, <f>-api, <f>-controller, <f>-controller-e2e', () => {
    const misnamed: string[] = [];
    for (const project of Object.keys(graph.nodes)) {
      const [scope] = tagsOf(graph, project, 'scope:');
      if (!scope || scope === 'scope:shared') continue;
      const family = scope.slice('scope:'.length);
      const names = [family, `${family}-api`, `${family}-controller`, `${family}-controller-e2e`];
      if (!names.includes(project)) misnamed.push(`${project} (${scope})`);
    }
    expect(misnamed).toEqual([]);
  });

  it('puts every app, e2e project and domain lib of a family in that family, ProviderProfile and observability aside', () => {
    const shared = Object.keys(graph.nodes)
      .filter((p) => tagsOf(graph, p, 'scope:')[0] === 'scope:shared')
      .filter(
        (p) =>
          !['type:runtime', 'type:testing', 'type:tool'].includes(tagsOf(graph, p, 'type:')[0]!),
      )
      .sort();
    // the one family every other family uses: its kind is the profile each resource references;
    // and the e2e of the telemetry every family's controller shares (it runs the apps' bundles and
    // reads their dashboards, importing no family's code)
    expect(shared).toEqual(['observability-e2e', 'provider-profile', 'provider-profile-api']);
  });

  it('has no project of one family depending on another family in the graph (tests included)', () => {
    const crossings: string[] = [];
    for (const [source, deps] of Object.entries(graph.dependencies)) {
      const [from] = tagsOf(graph, source, 'scope:');
      if (!from || from === 'scope:shared') continue;
      for (const { target } of deps) {
        if (!graph.nodes[target]) continue; // npm:… packages
        const [to] = tagsOf(graph, target, 'scope:');
        if (to !== from && to !== 'scope:shared') crossings.push(`${source} → ${target} (${to})`);
      }
    }
    expect(crossings).toEqual([]);
  });
});

describe(`${RULE} with the repository's eslint.config.js`, () => {
  // Linted as text under a path inside the project (ESLint's lintText with filePath): the rule
  // finds the source project from that path, exactly as for a file on disk, and no file is ever
  // written into a lib's sources, where a concurrent lint, typecheck or test run would pick it up.
  const eslint = new ESLint({ cwd: root });
  const boundaryErrors = async (file: string, importFrom: string): Promise<string[]> => {
    const code = `import * as other from '${importFrom}';\n\nexport const probe = other;\n`;
    const [result] = await eslint.lintText(code, { filePath: join(root, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => m.message);
  };

  const onlyFamily = (family: string) =>
    `A project tagged with "scope:${family}" can only depend on libs tagged with "scope:${family}", "scope:shared"`;
  it.each([
    ['libs/kafka-topic/src/probe.ts', '@steward/database-instance', onlyFamily('kafka-topic')],
    [
      'libs/database-instance/src/probe.ts',
      '@steward/kafka-topic',
      onlyFamily('database-instance'),
    ],
    [
      'libs/database-instance-api/src/probe.ts',
      '@steward/kafka-topic-api',
      onlyFamily('database-instance'),
    ],
    [
      'apps/kafka-topic-controller/src/probe.ts',
      '@steward/database-instance',
      onlyFamily('kafka-topic'),
    ],
    [
      'libs/kafka-topic/tests/probe.test.ts',
      '@steward/database-instance',
      onlyFamily('kafka-topic'),
    ],
    // a shared domain lib is no way between families (kafka-topic itself would be a cycle, which
    // the rule reports instead)
    [
      'libs/provider-profile/src/probe.ts',
      '@steward/kafka-topic-api',
      'A project tagged with "scope:shared" and "type:domain" can only depend on libs tagged with "scope:shared"',
    ],
  ])('refuses %s importing %s (another family)', async (file, importFrom, message) => {
    expect(await boundaryErrors(file, importFrom)).toEqual([message]);
  });

  it.each([
    ['libs/kafka-topic/src/probe.ts', '@steward/kafka-topic-api'],
    ['libs/kafka-topic/src/probe.ts', '@steward/provider-profile'],
    ['libs/database-instance/src/probe.ts', '@steward/provider-profile-api'],
    ['apps/database-instance-controller/src/probe.ts', '@steward/database-instance'],
    ['tools/scripts/probe.ts', '@steward/kafka-topic-api'],
  ])('lets %s import %s (its own family or a shared project)', async (file, importFrom) => {
    expect(await boundaryErrors(file, importFrom)).toEqual([]);
  });

  // The testing libs by tier (issue 25): a runtime lib's tests use the testing core only, and the
  // core depends on no other testing lib, so a change to a backend, the Cloud SQL fake, the charts
  // or the node tier reruns no runtime lib's tests.
  const onlyCore = (tag: string) =>
    `A project tagged with "${tag}" can only depend on libs tagged with ${
      tag === 'type:runtime' ? '"type:runtime", ' : ''
    }"testing:core"`;
  it.each([
    ['libs/informer/tests/probe.int.test.ts', '@steward/testing-node-tier', 'type:runtime'],
    ['libs/controller/tests/probe.int.test.ts', '@steward/testing-cloudsql', 'type:runtime'],
    ['libs/external/tests/probe.int.test.ts', '@steward/testing-backends', 'type:runtime'],
    ['libs/workload/tests/probe.int.test.ts', '@steward/testing-charts', 'type:runtime'],
    // the core itself depends on no other project (one its tests use would be a cycle as well)
    ['libs/testing/src/probe.ts', '@steward/workqueue', 'testing:core'],
    ['libs/testing/tests/probe.int.test.ts', '@steward/workqueue', 'testing:core'],
  ])('refuses %s importing %s (beyond the testing core)', async (file, importFrom, tag) => {
    expect(await boundaryErrors(file, importFrom)).toEqual([onlyCore(tag)]);
  });

  it.each(['@steward/testing-backends', '@steward/testing-node-tier'])(
    'refuses the testing core importing %s, which is built on it (a cycle)',
    async (importFrom) => {
      const errors = await boundaryErrors('libs/testing/src/probe.ts', importFrom);
      expect(errors).toEqual([expect.stringMatching(/^Circular dependency between "testing" and/)]);
    },
  );

  it.each([
    ['libs/informer/tests/probe.int.test.ts', '@steward/testing'],
    ['libs/cache-cluster/tests/probe.int.test.ts', '@steward/testing-node-tier'],
    ['libs/database-instance/tests/probe.int.test.ts', '@steward/testing-cloudsql'],
    ['libs/testing-charts/src/probe.ts', '@steward/testing-node-tier'],
    ['e2e/kafka-topic-controller-e2e/tests/probe.int.test.ts', '@steward/testing-backends'],
    ['tools/scripts/probe.ts', '@steward/testing-charts'],
  ])('lets %s import %s (a testing lib its layer may use)', async (file, importFrom) => {
    expect(await boundaryErrors(file, importFrom)).toEqual([]);
  });
});
