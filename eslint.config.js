// @ts-check
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * The architecture, as Nx tags (DESIGN.md): type:runtime knows no domain; type:domain (one per CRD
 * family) builds on the runtime; type:app wires domain and runtime; type:testing and type:tool serve
 * tests and tools only. Test files may additionally use type:testing.
 */
const depConstraints = [
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
          depConstraints: depConstraints.map((c) => ({
            ...c,
            onlyDependOnLibsWithTags: [...new Set([...c.onlyDependOnLibsWithTags, 'type:testing'])],
          })),
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
