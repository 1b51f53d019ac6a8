import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appDependencyProblems, importsOf } from './app-dependencies.js';

describe('importsOf', () => {
  it.each([
    ["import { a } from 'x';", 'x', false],
    ["import a from 'x';", 'x', false],
    ["import * as a from 'x';", 'x', false],
    ["import 'x';", 'x', false],
    ["import type { A } from 'x';", 'x', true],
    ["import { type A, type B } from 'x';", 'x', true],
    ["import { type A, b } from 'x';", 'x', false],
    ["import a, { type B } from 'x';", 'x', false],
    ["export { a } from 'x';", 'x', false],
    ["export * from 'x';", 'x', false],
    ["export type { A } from 'x';", 'x', true],
    ["export { type A } from 'x';", 'x', true],
    ["const a = await import('x');", 'x', false],
    ["import a = require('x');", 'x', false],
  ])('reads %s as %s, type-only: %s', (code, specifier, typeOnly) => {
    expect(importsOf(code, 'src/a.ts')).toEqual([{ specifier, at: 'src/a.ts:1', typeOnly }]);
  });

  it('names the line of each import, and ignores import types in type positions', () => {
    const code =
      "// x\nimport { a } from 'x';\nlet b: import('y').B;\nexport { c } from './c.js';\n";
    expect(importsOf(code, 'src/a.ts')).toEqual([
      { specifier: 'x', at: 'src/a.ts:2', typeOnly: false },
      { specifier: './c.js', at: 'src/a.ts:4', typeOnly: false },
    ]);
  });
});

// A workspace in a temporary directory: an app using two libraries, one of which uses the other.
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const app = 'demo-controller';
const baseline = (): Record<string, string> => ({
  'package.json': json({ name: 'root', devDependencies: { 'js-yaml': '5.5.0' } }),
  'package-lock.json': json({
    packages: {
      '': {},
      'node_modules/js-yaml': { version: '5.5.0' },
      'node_modules/left-pad': { version: '1.3.0' },
      'node_modules/reflect-metadata': { version: '0.2.2' },
      'node_modules/typebox': { version: '1.4.3' },
      'node_modules/vitest': { version: '4.1.12' },
    },
  }),
  [`apps/${app}/package.json`]: json({
    name: `@steward/${app}`,
    dependencies: { '@steward/core': '*', '@steward/util': '*', 'reflect-metadata': '0.2.2' },
  }),
  [`apps/${app}/src/main.ts`]: [
    "import 'reflect-metadata';",
    "import { core } from '@steward/core';",
    "import { type Options } from './options.js';",
    'core();',
  ].join('\n'),
  [`apps/${app}/src/options.ts`]: 'export interface Options { a: number }\n',
  'libs/core/package.json': json({
    name: '@steward/core',
    dependencies: { 'left-pad': '1.3.0', typebox: '1.4.3' },
  }),
  'libs/core/src/index.ts': [
    "import leftPad from 'left-pad';",
    "import { util } from '@steward/util';",
    "import { readFile } from 'node:fs/promises';",
    "export { schema } from './schema.js';",
    'export const core = () => leftPad(util(), 3);',
  ].join('\n'),
  'libs/core/src/schema.ts': "import { type TSchema } from 'typebox';\nexport const schema = 1;\n",
  'libs/core/src/index.test.ts': "import { it } from 'vitest';\nimport 'supertest';\n",
  'libs/core/tests/support.ts': "import 'nock';\n",
  'libs/util/package.json': json({ name: '@steward/util', dependencies: { typebox: '1.4.3' } }),
  'libs/util/src/index.ts': "import { Type } from 'typebox';\nexport const util = () => Type;\n",
  // not reached by the app: none of its packages are the app's business
  'libs/testing/package.json': json({ name: '@steward/testing', dependencies: {} }),
  'libs/testing/src/index.ts': "import { it } from 'vitest';\n",
});

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'steward-app-dependencies-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function problems(change: (files: Record<string, string>) => void = () => {}) {
  const files = baseline();
  change(files);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
  }
  return appDependencyProblems(app, root);
}

/** A package.json's or package-lock.json's fields these tests edit. */
interface Edited {
  dependencies: Record<string, string>;
  packages: Record<string, { version: string }>;
}
const setJson = (files: Record<string, string>, file: string, edit: (v: Edited) => void): void => {
  const value = JSON.parse(files[file]!) as Edited;
  edit(value);
  files[file] = json(value);
};

describe('appDependencyProblems', () => {
  it('finds none when every package declares what its non-test sources import', async () => {
    expect(await problems()).toEqual([]);
  });

  it('names an @steward library the app reaches through another but does not list', async () => {
    expect(
      await problems((f) =>
        setJson(f, `apps/${app}/package.json`, (p) => delete p.dependencies['@steward/util']),
      ),
    ).toEqual([
      `${app}: apps/${app}/package.json does not list @steward/util, which libs/core/src/index.ts:2 imports (the image would lack @steward/util's dependencies)`,
    ]);
  });

  it('names an @steward library the app lists but does not reach', async () => {
    expect(
      await problems((f) =>
        setJson(f, `apps/${app}/package.json`, (p) => (p.dependencies['@steward/testing'] = '*')),
      ),
    ).toEqual([
      `${app}: apps/${app}/package.json lists @steward/testing, which none of its code reaches (the image would install @steward/testing's dependencies for nothing)`,
    ]);
  });

  it('names a package imported but not declared, and where it is imported', async () => {
    expect(
      await problems((f) => {
        f['libs/util/src/extra.ts'] = "export { parse } from 'js-yaml/lib/parse.js';\n";
      }),
    ).toEqual([
      `${app}: libs/util/src/extra.ts:1 imports js-yaml, which libs/util/package.json does not declare (the image would not install it)`,
    ]);
  });

  it('names a package declared but never imported at run time by the app or its libraries', async () => {
    expect(
      await problems((f) => {
        setJson(f, 'libs/util/package.json', (p) => (p.dependencies['left-pad'] = '1.3.0'));
        setJson(f, 'libs/util/package.json', (p) => (p.dependencies['js-yaml'] = '5.5.0'));
        f['libs/util/src/types.ts'] = "import type { DumpOptions } from 'js-yaml';\n";
      }),
    ).toEqual([
      `${app}: libs/util/package.json declares js-yaml, which no non-test source of ${app} or its libraries imports at run time (@steward/util imports only its types) (the image would carry it for nothing)`,
      `${app}: libs/util/package.json declares left-pad, which no non-test source of @steward/util imports`,
    ]);
  });

  it('takes a declared version from the lockfile, nested under the package first', async () => {
    expect(
      await problems((f) => {
        setJson(f, 'package-lock.json', (l) => {
          l.packages['libs/core/node_modules/left-pad'] = { version: '1.1.0' };
        });
      }),
    ).toEqual([
      `${app}: libs/core/package.json declares left-pad 1.3.0, but package-lock.json installs 1.1.0 for it (run npm install)`,
    ]);
  });

  it('holds a declared version to the root package.json when it pins the package too', async () => {
    expect(
      await problems((f) => {
        setJson(f, 'libs/util/package.json', (p) => (p.dependencies['js-yaml'] = '4.1.0'));
        setJson(f, 'package-lock.json', (l) => {
          l.packages['libs/util/node_modules/js-yaml'] = { version: '4.1.0' };
        });
        f['libs/util/src/yaml.ts'] = "import { load } from 'js-yaml';\nexport const y = load;\n";
      }),
    ).toEqual([
      `${app}: libs/util/package.json declares js-yaml 4.1.0, but the root package.json pins 5.5.0`,
    ]);
  });
});
