// Scaffolds a workspace project with the targets, tsconfigs and vitest config every project shares,
// and registers its import alias in tsconfig.base.json (the one place aliases are declared).
//
//   npx tsx tools/scripts/new-project.ts lib workqueue type:runtime scope:shared
//   npx tsx tools/scripts/new-project.ts app kafka-topic-controller type:app scope:kafka-topic
//
// Every project has one `type:` tag (its layer) and one `scope:` tag (its CRD family, or `shared`);
// eslint.config.js's module boundaries are built on both (tools/scripts/module-boundaries.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Kind = 'lib' | 'app' | 'e2e';
const folders: Record<Kind, string> = { lib: 'libs', app: 'apps', e2e: 'e2e' };

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

async function main(kind: Kind, name: string, tags: string[]): Promise<void> {
  const root = join(import.meta.dirname, '..', '..');
  const dir = join(root, folders[kind], name);
  if (existsSync(dir)) throw new Error(`${dir} exists already`);
  await mkdir(join(dir, 'src'), { recursive: true });
  for (const [file, text] of Object.entries(projectFiles(kind, name, tags))) {
    await writeFile(join(dir, file), text);
  }
  if (kind === 'lib') {
    const basePath = join(root, 'tsconfig.base.json');
    const base = JSON.parse(await readFile(basePath, 'utf8')) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    base.compilerOptions.paths[`@steward/${name}`] = [`${folders[kind]}/${name}/src/index.ts`];
    base.compilerOptions.paths = Object.fromEntries(
      Object.entries(base.compilerOptions.paths).sort(([a], [b]) => a.localeCompare(b)),
    );
    await writeFile(basePath, `${JSON.stringify(base, null, 2)}\n`);
  }
  // match the repository's formatting (prettier folds short arrays onto one line)
  execFileSync(
    'npx',
    ['prettier', '--write', '--log-level', 'warn', dir, join(root, 'tsconfig.base.json')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  process.stdout.write(
    `created ${folders[kind]}/${name} (${tags.join(', ')}); run npm install to link it\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [kind, name, ...tags] = process.argv.slice(2);
  const one = (prefix: string) => tags.filter((t) => t.startsWith(prefix)).length === 1;
  if (
    !kind ||
    !(kind in folders) ||
    !name ||
    tags.length !== 2 ||
    !one('type:') ||
    !one('scope:')
  ) {
    process.stderr.write(
      'usage: new-project.ts lib|app|e2e <name> type:<type> scope:<family|shared>\n',
    );
    process.exit(2);
  }
  await main(kind as Kind, name, tags);
}
