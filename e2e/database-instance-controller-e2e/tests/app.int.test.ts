import { findCondition } from '@steward/conditions';
import { KubeClient, Leases, Secrets, type KubeObject } from '@steward/kube';
import { eventually, ManagedProcess } from '@steward/testing';
import { controllerEnv } from '@steward/testing-charts';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bindChartRbac, renderChart } from './support/chart.js';
import {
  controllerBundle,
  startController,
  type ControllerProcess,
} from './support/controller-process.js';
import {
  createNamespace,
  createProfile,
  createProfiles,
  CREDENTIALS_NAMESPACE,
  GCP_PROJECT,
  databaseInstance,
  Instances,
  Profiles,
  startPlatform,
  type DB,
  type Profile,
  type Platform,
  type Secret,
} from './support/platform.js';

const run = promisify(execFile);
const RELEASE_NAMESPACE = 'steward-system';

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
  afterEach(async () => {
    // a test that failed midway must not leave its controller running into the next one
    await controller?.kill();
    controller = undefined;
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

  it('under exactly the chart’s RBAC and leader election: brings an RDS and a Cloud SQL DatabaseInstance to Ready with their connection Secrets, keeps its profiles’ status, serves metrics, and exits 0 on SIGTERM', async () => {
    const { admin } = platform;
    const identity = await bindChartRbac(platform.plane, await renderChart(), RELEASE_NAMESPACE);
    controller = await startController({
      kubeConfig: identity,
      env: { STEWARD_LEADER_ELECT: 'true', POD_NAMESPACE: RELEASE_NAMESPACE },
    });
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
      // host and port are in the Secret before Ready=True is written
      const secret = await admin.get<Secret>(Secrets, `${name}-conn`, ns);
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(
        expect.arrayContaining(['host', 'password', 'port', 'username']),
      );
    }
    expect(platform.cloudSql.instances()).toHaveLength(1);

    // The ProviderProfile controller in the same process: credentials verified, users counted,
    // in-use finalizer on.
    for (const name of ['aws', 'gcp']) {
      const profile = await eventually(
        async () => {
          const p = await admin.get<Profile>(Profiles, name);
          return p.status?.usedBy === 1 &&
            findCondition(p.status.conditions, 'Ready')?.status === 'True'
            ? p
            : undefined;
        },
        { description: `profile ${name} Ready and used by 1` },
      );
      expect(findCondition(profile.status?.conditions, 'Ready')?.reason).toBe(
        'CredentialsVerified',
      );
      expect(profile.metadata.finalizers).toContain('steward.dev/in-use-by-databaseinstances');
    }
    const lease = await admin.get<KubeObject & { spec?: { holderIdentity?: string } }>(
      Leases,
      'database-instance-controller-leader',
      RELEASE_NAMESPACE,
    );
    expect(lease.spec?.holderIdentity).toBe('database-instance-controller');

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

    const stopped = controller.process;
    expect(await controller.stop()).toBe(0);
    controller = undefined;
    expect(readFileSync(stopped.logFile, 'utf8')).not.toMatch(/forbidden/i);
  });

  it('with revoked credentials: the profile says CredentialsInvalid, its instance stops with Forbidden, and nothing retries in a storm', async () => {
    const { admin, cloudSql } = platform;
    const key = cloudSql.createServiceAccountKey(`revoked@${GCP_PROJECT}.iam.gserviceaccount.com`);
    cloudSql.deleteServiceAccountKey(key.private_key_id);
    await createProfile(platform, 'gcp', 'gcp-revoked', { serviceAccountKey: key });
    controller = await startController({ kubeConfig: platform.plane.kubeConfig });
    await controller.ready();
    await admin.create<DB>(Instances, databaseInstance(ns, 'locked-out', 'gcp-revoked'));

    const profileReady = await eventually(
      async () => {
        const c = findCondition(
          (await admin.get<Profile>(Profiles, 'gcp-revoked')).status?.conditions,
          'Ready',
        );
        return c?.status === 'False' ? c : undefined;
      },
      { description: 'profile Ready=False' },
    );
    expect(profileReady.reason).toBe('CredentialsInvalid');
    const ready = await eventually(
      async () => {
        const obj = await admin.get<DB>(Instances, 'locked-out', ns);
        const c = findCondition(obj.status?.conditions, 'Ready');
        return c?.reason === 'Forbidden' ? obj : undefined;
      },
      { description: 'locked-out Ready=False Forbidden' },
    );
    expect(findCondition(ready.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(findCondition(ready.status?.conditions, 'Ready')?.message).toMatch(
      /not allowed with the ProviderProfile's credentials/,
    );
    const refused = () => cloudSql.requests().filter((r) => r.status === 401).length;
    const before = refused();
    await sleep(3_000);
    expect(refused() - before).toBeLessThanOrEqual(1);
    expect(
      cloudSql.requests().filter((r) => r.method === 'instances.insert' && r.status === 401),
    ).toHaveLength(0);
    expect(await controller.stop()).toBe(0);
    controller = undefined;
  });

  it('watching one namespace under the chart’s namespaced RBAC: reconciles there, leaves profiles to the cluster-wide installation', async () => {
    const { admin } = platform;
    const team = 'team-a';
    await createNamespace(admin, team);
    const values = {
      watchNamespace: team,
      rbac: { credentialsSecretNamespaces: [CREDENTIALS_NAMESPACE] },
    };
    const identity = await bindChartRbac(
      platform.plane,
      await renderChart(values),
      RELEASE_NAMESPACE,
    );
    controller = await startController({
      kubeConfig: identity,
      env: {
        STEWARD_LEADER_ELECT: 'true',
        POD_NAMESPACE: RELEASE_NAMESPACE,
        STEWARD_WATCH_NAMESPACE: team,
      },
    });
    await controller.ready();
    const before = await admin.get<Profile>(Profiles, 'aws');
    await admin.create<DB>(
      Instances,
      databaseInstance(team, 'ledger', 'aws', { deletionPolicy: 'Delete', finalSnapshot: false }),
    );
    await admin.create<DB>(Instances, databaseInstance(ns, 'elsewhere', 'aws'));
    await eventually(
      async () => {
        const obj = await admin.get<DB>(Instances, 'ledger', team);
        return findCondition(obj.status?.conditions, 'Ready')?.status === 'True';
      },
      { description: 'ledger Ready', timeoutMs: 90_000 },
    );
    // outside its namespace: untouched
    const elsewhere = await admin.get<DB>(Instances, 'elsewhere', ns);
    expect(elsewhere.status).toBeUndefined();
    expect(elsewhere.metadata.finalizers ?? []).toEqual([]);

    await admin.delete(Instances, 'ledger', team);
    await eventually(
      () =>
        admin.get<DB>(Instances, 'ledger', team).then(
          () => false,
          () => true,
        ),
      { description: 'ledger deleted', timeoutMs: 90_000 },
    );
    // profiles are not this installation's: their status is as the cluster-wide one left it
    expect((await admin.get<Profile>(Profiles, 'aws')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
    const log = controller.process.logFile;
    expect(await controller.stop()).toBe(0);
    controller = undefined;
    expect(readFileSync(log, 'utf8')).not.toMatch(/forbidden/i);
  });

  it('watching namespaces [a, b] under the chart’s RBAC: reconciles in both (connection Secrets owned with blockOwnerDeletion), ignores c, and may not read a Secret in c', async () => {
    const { admin } = platform;
    const [a, b, c] = ['list-a', 'list-b', 'list-c'];
    for (const name of [a, b, c]) await createNamespace(admin, name);
    const manifests = await renderChart({
      watchNamespaces: [a, b],
      rbac: { credentialsSecretNamespaces: [CREDENTIALS_NAMESPACE] },
    });
    const identity = await bindChartRbac(platform.plane, manifests, RELEASE_NAMESPACE);
    // What the chart's Deployment tells the process.
    const watched = controllerEnv(manifests)['STEWARD_WATCH_NAMESPACES'];
    expect(watched).toBe(`${a},${b}`);

    // As the ServiceAccount: a Secret in c is forbidden (it exists: not "not found"), and so is
    // listing DatabaseInstances anywhere but a and b.
    await admin.create<Secret>(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'team-c-only', namespace: c },
      data: { password: Buffer.from('not yours').toString('base64') },
    });
    const asServiceAccount = new KubeClient(identity, { fieldManager: 'e2e-service-account' });
    try {
      await expect(asServiceAccount.get(Secrets, 'team-c-only', c)).rejects.toMatchObject({
        code: 403,
      });
      await expect(asServiceAccount.list(Instances, { namespace: c })).rejects.toMatchObject({
        code: 403,
      });
      await expect(asServiceAccount.list(Instances)).rejects.toMatchObject({ code: 403 });
      for (const ns of [a, b]) {
        await expect(asServiceAccount.list(Instances, { namespace: ns })).resolves.toMatchObject({
          items: [],
        });
      }
    } finally {
      await asServiceAccount.close();
    }

    controller = await startController({
      kubeConfig: identity,
      env: {
        STEWARD_LEADER_ELECT: 'true',
        POD_NAMESPACE: RELEASE_NAMESPACE,
        STEWARD_WATCH_NAMESPACES: watched!,
      },
    });
    await controller.ready();
    const removable = { deletionPolicy: 'Delete', finalSnapshot: false } as const;
    await admin.create<DB>(Instances, databaseInstance(a, 'in-a', 'aws', removable));
    await admin.create<DB>(Instances, databaseInstance(b, 'in-b', 'gcp', removable));
    await admin.create<DB>(Instances, databaseInstance(c, 'in-c', 'aws', removable));
    for (const [ns, name] of [
      [a, 'in-a'],
      [b, 'in-b'],
    ] as const) {
      await eventually(
        async () => {
          const obj = await admin.get<DB>(Instances, name, ns);
          return findCondition(obj.status?.conditions, 'Ready')?.status === 'True';
        },
        { description: `${ns}/${name} Ready`, timeoutMs: 90_000 },
      );
      // Its connection Secret is owned with blockOwnerDeletion, which the API server's
      // OwnerReferencesPermissionEnforcement allowed: the Role grants databaseinstances/finalizers.
      const secret = await admin.get<Secret>(Secrets, `${name}-conn`, ns);
      expect(secret.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'DatabaseInstance', name, blockOwnerDeletion: true }),
      ]);
    }
    // Outside its namespaces: untouched, not even a finalizer, and no connection Secret.
    const ignored = await admin.get<DB>(Instances, 'in-c', c);
    expect(ignored.status).toBeUndefined();
    expect(ignored.metadata.finalizers ?? []).toEqual([]);
    await expect(admin.get(Secrets, 'in-c-conn', c)).rejects.toMatchObject({ code: 404 });

    for (const [ns, name] of [
      [a, 'in-a'],
      [b, 'in-b'],
      [c, 'in-c'],
    ] as const) {
      await admin.delete(Instances, name, ns);
    }
    for (const [ns, name] of [
      [a, 'in-a'],
      [b, 'in-b'],
    ] as const) {
      await eventually(
        () =>
          admin.get<DB>(Instances, name, ns).then(
            () => false,
            () => true,
          ),
        { description: `${ns}/${name} deleted`, timeoutMs: 90_000 },
      );
    }
    const log = controller.process.logFile;
    expect(await controller.stop()).toBe(0);
    controller = undefined;
    expect(readFileSync(log, 'utf8')).not.toMatch(/forbidden/i);
  });
});
