// The files every workspace project has — package.json, project.json (the targets of nx.json's
// targetDefaults), tsconfigs and vitest config — for new-project.ts and new-controller.ts.

export type Kind = 'lib' | 'app' | 'e2e';
export const folders: Record<Kind, string> = { lib: 'libs', app: 'apps', e2e: 'e2e' };

export function projectFiles(kind: Kind, name: string, tags: string[]): Record<string, string> {
  const root = `${folders[kind]}/${name}`;
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'package.json': json({
      name: `@steward/${name}`,
      version: '0.0.0',
      private: true,
      type: 'module',
      main: './src/index.ts',
      types: './src/index.ts',
    }),
    'project.json': json({
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      name,
      projectType: kind === 'lib' ? 'library' : 'application',
      sourceRoot: `${root}/src`,
      tags,
      // e2e suites build nothing: their code is tests and the support those tests share.
      targets:
        kind === 'e2e'
          ? { typecheck: {}, lint: {}, test: {} }
          : { build: {}, typecheck: {}, lint: {}, test: {} },
    }),
    'tsconfig.json': json({
      extends: '../../tsconfig.base.json',
      compilerOptions: { noEmit: true, allowImportingTsExtensions: true },
      include: ['src/**/*.ts', 'tests/**/*.ts', 'vitest.config.ts'],
    }),
    ...(kind === 'e2e'
      ? {}
      : {
          'tsconfig.lib.json': json({
            extends: '../../tsconfig.base.json',
            compilerOptions: { outDir: `../../dist/${root}`, rootDir: '../..' },
            include: ['src/**/*.ts'],
            exclude: ['src/**/*.test.ts'],
          }),
        }),
    'vitest.config.ts': `import { stewardVitestConfig } from '../../vitest.shared.ts';\n\nexport default stewardVitestConfig('${name}');\n`,
  };
}
