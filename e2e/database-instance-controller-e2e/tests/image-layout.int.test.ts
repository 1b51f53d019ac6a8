import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerBundle, startController } from './support/controller-process.js';

const run = promisify(execFile);

/**
 * What the container image holds, rebuilt as its Dockerfile does (no Docker engine here): the
 * production install of the app's workspace from the lockfile (`npm ci --omit=dev -w …`, no
 * @steward links) next to the bundle, and nothing else. The bundle must start from there — a
 * package it imports but the production install lacks fails here, not in a cluster.
 */
describe('the image layout', () => {
  let plane: ControlPlane;
  let image: string;

  beforeAll(async () => {
    const root = repoRoot();
    const work = await mkdtemp(join(tmpdir(), 'steward-image-'));
    const { stdout } = await run(
      'git',
      ['ls-files', '-z', '--', 'package.json', 'package-lock.json', '*/package.json'],
      {
        cwd: root,
      },
    );
    for (const file of stdout.split('\0').filter(Boolean)) {
      await mkdir(join(work, dirname(file)), { recursive: true });
      await cp(join(root, file), join(work, file));
    }
    await run(
      'npm',
      [
        'ci',
        '--omit=dev',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--workspace',
        '@steward/database-instance-controller',
      ],
      { cwd: work, maxBuffer: 16 * 1024 * 1024 },
    );
    image = join(work, 'app');
    await mkdir(image);
    await cp(join(work, 'node_modules'), join(image, 'node_modules'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    await rm(join(image, 'node_modules', '@steward'), { recursive: true, force: true });
    const bundle = controllerBundle();
    await cp(bundle, join(image, 'main.js'));
    plane = await startControlPlane({
      crds: [join(root, 'charts/database-instance-controller/crds')],
    });
  }, 300_000);
  afterAll(async () => {
    await plane?.stop();
  });

  it('holds no development packages', async () => {
    const lock = JSON.parse(await readFile(join(repoRoot(), 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(
        ([path, p]) =>
          p.dev && path.startsWith('node_modules/') && !path.includes('/node_modules/', 13),
      )
      .map(([path]) => path.slice('node_modules/'.length));
    const installed = (await run('ls', [join(image, 'node_modules')])).stdout.split('\n');
    for (const name of ['vitest', 'nx', 'eslint', 'typescript', 'esbuild']) {
      expect(devOnly).toContain(name);
      expect(installed).not.toContain(name);
    }
  });

  it('starts from the bundle and the production packages alone and becomes ready', async () => {
    const controller = await startController({
      kubeConfig: plane.kubeConfig,
      main: join(image, 'main.js'),
      cwd: image,
    });
    await controller.ready();
    expect(await controller.metrics()).toMatch(/^workqueue_depth\{/m);
    expect(await controller.stop()).toBe(0);
  });
});
