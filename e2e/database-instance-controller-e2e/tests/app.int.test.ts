import { findCondition } from '@steward/conditions';
import { Secrets } from '@steward/kube';
import { eventually, ManagedProcess } from '@steward/testing';
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  controllerBundle,
  startController,
  type ControllerProcess,
} from './support/controller-process.js';
import {
  createNamespace,
  createProfiles,
  databaseInstance,
  Instances,
  startPlatform,
  type DB,
  type Platform,
  type Secret,
} from './support/platform.js';

const run = promisify(execFile);

describe('the database-instance-controller process', () => {
  let platform: Platform;
  let controller: ControllerProcess | undefined;
  const ns = 'apps';

  beforeAll(async () => {
    controllerBundle();
    platform = await startPlatform();
    await createProfiles(platform);
    await createNamespace(platform.admin, ns);
  });
  afterAll(async () => {
    await controller?.kill();
    await platform?.stop();
  });

  it('refuses to start on a bad setting, naming the variable, with exit code 2', async () => {
    const error = await run(process.execPath, [controllerBundle()], {
      env: {
        PATH: process.env['PATH'],
        STEWARD_LEADER_ELECT: 'false',
        STEWARD_MAX_CONCURRENT_RECONCILES: 'lots',
      },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(error).toMatchObject({ code: 2 });
    expect((error as { stderr: string }).stderr).toContain(
      'STEWARD_MAX_CONCURRENT_RECONCILES must be a whole number from 1 to 64, got "lots"',
    );
  });

  it('refuses to start without a way to reach the API server, with a message and exit code 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steward-dic-'));
    const child = ManagedProcess.start(
      'dic-no-kubeconfig',
      process.execPath,
      [controllerBundle()],
      join(dir, 'log'),
      {
        env: {
          PATH: process.env['PATH'],
          KUBECONFIG: join(dir, 'missing'),
          STEWARD_LEADER_ELECT: 'false',
        },
      },
    );
    expect(await child.exited).toBe(1);
    expect(child.logTail()).toContain('cannot start');
  });

  it('brings an RDS and a Cloud SQL DatabaseInstance to Ready with their connection Secrets, serves metrics, and exits 0 on SIGTERM', async () => {
    const { admin } = platform;
    controller = await startController({ kubeConfig: platform.plane.kubeConfig });
    await controller.ready();
    await admin.create<DB>(Instances, databaseInstance(ns, 'orders', 'aws'));
    await admin.create<DB>(Instances, databaseInstance(ns, 'billing', 'gcp'));

    for (const name of ['orders', 'billing']) {
      const ready = await eventually(
        async () => {
          const obj = await admin.get<DB>(Instances, name, ns);
          return findCondition(obj.status?.conditions, 'Ready')?.status === 'True'
            ? obj
            : undefined;
        },
        { description: `${name} Ready`, timeoutMs: 90_000 },
      );
      expect(findCondition(ready.status?.conditions, 'Synced')?.status).toBe('True');
      const secret = await admin.get<Secret>(Secrets, `${name}-conn`, ns);
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(
        expect.arrayContaining(['host', 'password', 'port', 'username']),
      );
    }
    expect(platform.cloudSql.instances()).toHaveLength(1);

    const metrics = await controller.metrics();
    expect(metrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="databaseinstance",result="[a-z_]+"\} [1-9]/m,
    );

    const calls = (provider: string, operation: string, result = 'success') =>
      Number(
        new RegExp(
          `^steward_external_requests_total\\{(?=[^}]*provider="${provider}")(?=[^}]*operation="${operation.replace('.', '\\.')}")(?=[^}]*result="${result}")[^}]*\\} (\\d+)`,
          'm',
        ).exec(metrics)?.[1] ?? 0,
      );
    expect(calls('aws', 'CreateDBInstance')).toBe(1);
    expect(calls('aws', 'DescribeDBInstances')).toBeGreaterThanOrEqual(1);
    expect(calls('gcp', 'instances.insert')).toBe(1);
    expect(calls('gcp', 'instances.get')).toBeGreaterThanOrEqual(1);
    // the first observation of each found nothing: the provider's 404 is counted as an error
    expect(calls('gcp', 'instances.get', 'error')).toBeGreaterThanOrEqual(1);

    expect(await controller.stop()).toBe(0);
    controller = undefined;
  });
});
