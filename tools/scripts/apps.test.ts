// What every app under apps/ must be (DESIGN "Layout", "Dependency injection"); their behaviour is
// tested end to end by their e2e suites, which run each app's bundle as a process.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const apps = (await readdir(join(root, 'apps'), { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

describe.each(apps)('apps/%s', (app) => {
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
    expect(existsSync(join(root, 'e2e', `${app}-e2e`))).toBe(true);
    expect(existsSync(join(root, 'charts', app, 'Chart.yaml'))).toBe(true);
  });
});
