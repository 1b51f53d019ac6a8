// What every app under apps/ must be (DESIGN "Layout", "Dependency injection"), and that the
// registry's conventions (controllers.ts) hold for it; their behaviour is tested end to end by
// their e2e suites, which run each app's bundle as a process.
import { load as loadYaml } from 'js-yaml';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDependencyProblems } from './app-dependencies.js';
import { controllers, kindsOf } from './controllers.js';

const root = join(import.meta.dirname, '..', '..');
const registered = controllers();

it('registers every directory of apps/ as a controller', async () => {
  const dirs = (await readdir(join(root, 'apps'), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(registered.map((c) => c.app)).toEqual(dirs);
});

it('has a controller for every application chart under charts/ (the rest are library charts)', async () => {
  const applicationCharts: string[] = [];
  for (const name of (await readdir(join(root, 'charts'))).sort()) {
    const file = join(root, 'charts', name, 'Chart.yaml');
    if (!existsSync(file)) continue;
    const chart = loadYaml(await readFile(file, 'utf8')) as { type?: string };
    if ((chart.type ?? 'application') === 'application')
      applicationCharts.push(join('charts', name));
  }
  expect(applicationCharts).toEqual(registered.map((c) => c.chartDir));
});

describe.each(registered)('apps/$app', ({ app, family, chartDir, e2eDir, apiLibs }) => {
  const src = join(root, 'apps', app, 'src');

  it('touches the tsyringe container only in src/main.ts', async () => {
    const touching: string[] = [];
    for (const file of (await readdir(src)).filter((f) => f.endsWith('.ts'))) {
      const imports = (await readFile(join(src, file), 'utf8')).match(
        /import[^;]*from 'tsyringe'/g,
      );
      if (imports?.some((i) => /\bcontainer\b/.test(i))) touching.push(file);
    }
    expect(touching).toEqual(['main.ts']);
  });

  it('is bundled by its build target, tested by an e2e suite, and has a chart', async () => {
    const project = JSON.parse(await readFile(join(root, 'apps', app, 'project.json'), 'utf8')) as {
      targets: Record<string, { options?: { command?: string } }>;
    };
    expect(project.targets['build']?.options?.command).toBe(
      `npx tsx tools/scripts/bundle-app.ts ${app}`,
    );
    expect(existsSync(join(root, e2eDir, 'project.json'))).toBe(true);
    expect(existsSync(join(root, chartDir, 'Chart.yaml'))).toBe(true);
  });

  it('serves the kinds of its own API lib, and of every API lib it depends on', async () => {
    expect(apiLibs).toContain(`@steward/${family}-api`);
    for (const lib of apiLibs) expect((await kindsOf(lib)).length).toBeGreaterThan(0);
  });

  // The image installs from package.json files (apps/Dockerfile: `npm ci --omit=dev --workspace`),
  // the bundle imports from the code: they must agree (app-dependencies.ts says how).
  it('declares exactly the packages its code imports, at the versions the lockfile installs', () => {
    expect(appDependencyProblems(app)).toEqual([]);
  });
});
