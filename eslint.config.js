// @ts-check
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import tseslint from 'typescript-eslint';

/**
 * The architecture, as Nx tags (DESIGN.md): type:runtime knows no domain; type:domain (one per CRD
 * family) builds on the runtime; type:app wires domain and runtime; type:testing and type:tool serve
 * tests and tools only. Test files may additionally use type:testing — a runtime lib's only the
 * testing core (below).
 */
const typeConstraints = [
  { sourceTag: 'type:runtime', onlyDependOnLibsWithTags: ['type:runtime'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:runtime'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:runtime'] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:testing', 'type:runtime', 'type:domain'],
  },
  {
    sourceTag: 'type:tool',
    onlyDependOnLibsWithTags: ['type:tool', 'type:testing', 'type:runtime', 'type:domain'],
  },
  {
    sourceTag: 'type:e2e',
    onlyDependOnLibsWithTags: ['type:testing', 'type:runtime', 'type:domain'],
  },
];

/** Every project's tags, from the project.json files under apps/, libs/, e2e/ and tools/. */
function projectTags() {
  const root = import.meta.dirname;
  const files = ['apps', 'libs', 'e2e']
    .flatMap((folder) =>
      existsSync(join(root, folder))
        ? readdirSync(join(root, folder)).map((name) => join(root, folder, name, 'project.json'))
        : [],
    )
    .concat(join(root, 'tools', 'project.json'))
    .filter((file) => existsSync(file));
  return files.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')).tags ?? []);
}

/**
 * Which CRD family a project belongs to, as a second tag: `scope:<family>` for the family's API
 * lib, domain lib, app and e2e project (`scope:kafka-topic`: kafka-topic-api, kafka-topic,
 * kafka-topic-controller, kafka-topic-controller-e2e); `scope:shared` for what every family may
 * use (the runtime libs, the ProviderProfile libs, the testing libs, tools). No domain lib imports
 * another: a family's projects depend only on their own family and on shared projects, and shared
 * libraries depend only on shared ones, so none is a way from one family into another. Tools are
 * the exception the type rules already allow: they generate, bundle and run every family.
 * The families are read from the projects' tags, so a new family needs no edit here;
 * tools/scripts/module-boundaries.test.ts checks every project has exactly one scope, named after
 * it.
 */
const familyScopes = [
  ...new Set(projectTags().filter((t) => t.startsWith('scope:') && t !== 'scope:shared')),
].sort();
const scopeConstraints = [
  ...familyScopes.map((scope) => ({
    sourceTag: scope,
    onlyDependOnLibsWithTags: [scope, 'scope:shared'],
  })),
  ...['type:runtime', 'type:domain', 'type:testing'].map((type) => ({
    allSourceTags: ['scope:shared', type],
    onlyDependOnLibsWithTags: ['scope:shared'],
  })),
];

/**
 * The testing libs are split by tier so that `nx affected` means something: the core
 * (@steward/testing, tag `testing:core`: the control plane, CRDs, waiting, processes, ports,
 * kstatus) and, each built on it, the backends, the Cloud SQL fake, the charts and the node tier. A
 * runtime lib is proven against the control plane alone, so its tests may use the core and nothing
 * else (a change to the Cloud SQL fake or the node tier reruns no runtime lib's tests); and the core
 * depends on no other project, or every runtime lib would depend on what it pulled in.
 */
const testingCore = 'testing:core';
const coreConstraints = [{ sourceTag: testingCore, onlyDependOnLibsWithTags: [testingCore] }];
/**
 * @param {string} sourceTag
 * @returns {string} the tag of the testing libs the test files of that layer may use
 */
const testingFor = (sourceTag) =>
  sourceTag === 'type:runtime' || sourceTag === testingCore ? testingCore : 'type:testing';

const depConstraints = [...typeConstraints, ...coreConstraints, ...scopeConstraints];

const testFiles = ['**/*.test.ts', '**/tests/**/*.ts', '**/bench/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', 'reports/**', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { plugins: { '@nx': nx } },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  {
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            ...[...typeConstraints, ...coreConstraints].map((c) => ({
              ...c,
              onlyDependOnLibsWithTags: [
                ...new Set([...c.onlyDependOnLibsWithTags, testingFor(c.sourceTag)]),
              ],
            })),
            ...scopeConstraints,
          ],
        },
      ],
      'no-console': 'off',
    },
  },
  {
    // Project vitest configs extend the shared one at the workspace root.
    files: ['**/vitest.config.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  prettier,
);
