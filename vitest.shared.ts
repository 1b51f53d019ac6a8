import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const root = import.meta.dirname;

/** `@steward/*` import aliases, from the one place they are declared: tsconfig.base.json's paths. */
function workspaceAliases(): Record<string, string> {
  const base = JSON.parse(readFileSync(resolve(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.fromEntries(
    Object.entries(base.compilerOptions.paths).map(([name, [target]]) => [
      name,
      resolve(root, target!),
    ]),
  );
}

/**
 * The vitest configuration every project shares: tests under `src/` and `tests/`, `*.test.ts` for
 * unit tests and `*.int.test.ts` for tests against real components (they get longer timeouts: a
 * cold control-plane build can run inside the first `beforeAll`). Each run also writes a JSON report
 * to `reports/vitest/<project>.json`, which `npm test` sums into its one-line summary.
 */
export function stewardVitestConfig(projectName: string, extra: ViteUserConfig['test'] = {}) {
  return defineConfig({
    resolve: {
      alias: workspaceAliases(),
    },
    test: {
      name: projectName,
      include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
      environment: 'node',
      pool: 'forks',
      testTimeout: 120_000,
      hookTimeout: 30 * 60_000,
      teardownTimeout: 60_000,
      reporters: ['default', 'json'],
      outputFile: { json: resolve(root, 'reports/vitest', `${projectName}.json`) },
      ...extra,
    },
  });
}
