/**
 * The replication role (issue 27, deliverable 6) on a cluster made before it: the
 * postgres-cluster-controller process (under its chart's RBAC) on the node tier.
 *
 * A cluster is brought into the state an earlier controller left it in while it is paused (the
 * controller changes nothing of a paused object), and the controller process is replaced (a new
 * controller version starts): no `<name>-replication` Secret, no
 * `steward_replication` role, pg_hba.conf admitting replication for `postgres` only (loaded by the
 * primary), a pod template without the role's password, and its standby restarted on that
 * template — streaming as `postgres`, as standbys of that controller did. Resumed, the controller
 * migrates it: the Secret generated, the role bootstrapped, the new pg_hba.conf loaded by the
 * serving primary, the pods rolled — the standby restarts on its own data directory (no re-clone:
 * its `backup_label.old`, left by the clone that made it, is the same file) and streams as
 * `steward_replication`; the old primary, switched over by the roll, is rewound (pg_rewind, as
 * the role) and streams as it too; every row is there. No standby is refused meanwhile:
 * pg_hba.conf keeps the superuser's replication line until every pod runs the new template.
 */
import { findCondition } from '@steward/conditions';
import { childNames } from '@steward/postgres-cluster';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import {
  ConfigMaps,
  KubeClient,
  Pods,
  Secrets,
  StatefulSets,
  isNotFound,
  type KubeObject,
} from '@steward/kube';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kind, long, postgresHelpers, query, type SuiteContext } from './postgres.js';

const app = 'postgres-cluster-controller';
const chartDir = join(repoRoot(), 'charts', app);
const name = 'legacy';
const Paused = 'steward.dev/paused';
const Instruction = 'postgres.steward.dev/instruction';

let tier: NodeTier;
let admin: KubeClient;
let harness: ChartedController | undefined;
let system = '';
const ctx = {} as SuiteContext;
const { create, read, ready, appLogin, superuserAt, podIp, remove } = postgresHelpers(ctx);

const start = () =>
  startChartedController(tier, {
    app,
    kind: Kind,
    releaseName: 'pgc-replication-role-e2e',
    releaseNamespace: system,
    watchNamespace: ctx.ns,
  });

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(chartDir, 'crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-replication-role') });
  system = await tier.createNamespace('pgc-replication-role-sys');
  harness = await start();
}, 600_000);

afterAll(async () => {
  if (admin) {
    await remove(name).catch(() => undefined);
    await harness?.cleanUp(admin);
    await admin.close();
  }
  await tier?.release();
}, 180_000);

const spec: PostgresClusterSpec = {
  version: '17',
  replicas: 2,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  deletionPolicy: 'Delete',
};

/** [standby, the role it streams as] from `primary`'s pg_stat_replication, once `n` stream. */
const streamingAs = (primary: string, n: number) =>
  eventually(
    async () => {
      const rows = await query<{ application_name: string; usename: string }>(
        await superuserAt(name, primary),
        "select application_name, usename from pg_stat_replication where state = 'streaming' order by 1",
      );
      return rows.length === n ? rows.map((r) => [r.application_name, r.usename]) : undefined;
    },
    { description: `${primary}: ${n} standbys streaming`, ...long },
  );

/** The modification time of the standby's backup_label.old (its clone's), via the superuser. */
const cloneMark = async (pod: string) => {
  const [row] = await query<{ m: string }>(
    await superuserAt(name, pod),
    "select (pg_stat_file('backup_label.old')).modification::text as m",
  );
  return row!.m;
};

const roleExists = async (pod: string) =>
  (
    await query(
      await superuserAt(name, pod),
      "select 1 from pg_roles where rolname = 'steward_replication'",
    )
  ).length === 1;

describe('a PostgresCluster made before the replication role', () => {
  it('migrates: the Secret, the role, pg_hba.conf loaded, the pods rolled without a re-clone, both instances streaming as steward_replication', async () => {
    await create(name, spec);
    await ready(name);
    const login = await appLogin(name);
    await eventually(() => query(login, 'create table ledger (n int primary key)'), {
      description: `${name} takes writes`,
    });
    await query(login, 'insert into ledger select generate_series(1, 1000)');
    expect(await streamingAs(`${name}-0`, 1)).toEqual([[`${name}-1`, 'steward_replication']]);

    // ── the state an earlier controller left, made while the controller is kept off it ──
    await admin.mergePatch(Kind, name, ctx.ns, {
      metadata: { annotations: { [Paused]: 'true' } },
    });
    await eventually(
      async () => findCondition((await read(name)).status?.conditions, 'Paused')?.status === 'True',
      { description: `${name} Paused` },
    );
    const names = childNames(name);
    const config = await admin.get<KubeObject & { data: Record<string, string> }>(
      ConfigMaps,
      names.configMap,
      ctx.ns,
    );
    const oldHba = config.data['pg_hba.conf']!.replace(
      /^(host\s+replication\s+)steward_replication(\s)/m,
      '$1postgres$2',
    );
    expect(oldHba).not.toContain('steward_replication');
    await admin.mergePatch(ConfigMaps, names.configMap, ctx.ns, {
      data: { 'pg_hba.conf': oldHba },
    });
    type Sts = KubeObject & {
      spec: { template: { spec: { containers: { env: { name: string }[] }[] } } };
    };
    const sts = await admin.get<Sts>(StatefulSets, name, ctx.ns);
    const at = sts.spec.template.spec.containers[0]!.env.findIndex(
      (e) => e.name === 'STEWARD_REPLICATION_PASSWORD',
    );
    expect(at).toBeGreaterThanOrEqual(0);
    await admin.jsonPatch(StatefulSets, name, ctx.ns, [
      { op: 'remove', path: `/spec/template/spec/containers/0/env/${at}` },
    ]);
    // The primary loads the old pg_hba.conf once the kubelet has updated its copy.
    const primaryLogin = await superuserAt(name, `${name}-0`);
    await eventually(
      async () => {
        const rows = await query<{ users: string }>(
          primaryLogin,
          "select array_to_string(user_name, ',') as users from pg_hba_file_rules where 'replication' = any(database)",
        );
        return rows.map((r) => r.users).join() === 'postgres';
      },
      { description: `${name}-0 sees the old pg_hba.conf`, timeoutMs: 180_000 },
    );
    await query(primaryLogin, 'select pg_reload_conf()');
    // The standby restarts on the old template (its volume kept), told what the earlier
    // controller told it, and streams as the superuser.
    const mark = await cloneMark(`${name}-1`);
    await admin.delete(Pods, `${name}-1`, ctx.ns);
    const primaryIp = await podIp(`${name}-0`);
    await eventually(
      async () => {
        const pod = await admin.get<KubeObject>(Pods, `${name}-1`, ctx.ns).catch(() => undefined);
        if (!pod?.metadata.uid || pod.metadata.deletionTimestamp) return false;
        await admin.mergePatch(Pods, `${name}-1`, ctx.ns, {
          metadata: { annotations: { [Instruction]: `standby ${primaryIp}` } },
        });
        return true;
      },
      { description: `${name}-1 re-created and told standby`, ...long },
    );
    expect(await streamingAs(`${name}-0`, 1)).toEqual([[`${name}-1`, 'postgres']]);
    await query(primaryLogin, 'drop owned by steward_replication; drop role steward_replication');
    await admin.delete(Secrets, names.replicationSecret, ctx.ns);
    expect(await roleExists(`${name}-0`)).toBe(false);
    expect(await cloneMark(`${name}-1`)).toBe(mark);

    // ── a new controller process (as after an upgrade of the controller), resumed: it migrates ──
    await harness!.process!.kill();
    harness!.stopped();
    await admin.jsonPatch(Kind, name, ctx.ns, [
      { op: 'remove', path: `/metadata/annotations/${Paused.replace('/', '~1')}` },
    ]);
    harness = await start();
    await eventually(
      () =>
        admin.get(Secrets, names.replicationSecret, ctx.ns).then(
          () => true,
          (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
        ),
      { description: `Secret ${names.replicationSecret} generated again`, ...long },
    );
    // Rolled onto the current template: every pod has the role's password again.
    const migrated = await eventually(
      async () => {
        const o = await read(name);
        const cond = findCondition(o.status?.conditions, 'Ready');
        if (cond?.status !== 'True' || o.status?.readyReplicas !== 2) return undefined;
        const pods = (
          await admin.list<KubeObject & { spec: Sts['spec']['template']['spec'] }>(Pods, {
            namespace: ctx.ns,
            labelSelector: `postgres.steward.dev/cluster=${name}`,
          })
        ).items;
        const current = pods.every((p) =>
          p.spec.containers[0]!.env.some((e) => e.name === 'STEWARD_REPLICATION_PASSWORD'),
        );
        return current && pods.length === 2 ? o : undefined;
      },
      { description: `${name}: both pods rolled onto the current template`, timeoutMs: 420_000 },
    );
    const primary = migrated.status!.primary!;
    const standby = [`${name}-0`, `${name}-1`].find((p) => p !== primary)!;
    console.log(`${name}: migrated; primary ${primary}, standby ${standby}`);
    expect(await roleExists(primary)).toBe(true);
    expect(await streamingAs(primary, 1)).toEqual([[standby, 'steward_replication']]);
    // Every pod on the new template: the superuser's replication line is dropped, and the
    // serving primary loads that (no roll for it).
    const primaryNow = await superuserAt(name, primary);
    await eventually(
      async () => {
        const rows = await query<{ users: string }>(
          primaryNow,
          "select array_to_string(user_name, ',') as users from pg_hba_file_rules where 'replication' = any(database)",
        );
        // The file on disk says so, and the server loaded its configuration after it changed.
        const [loaded] = await query<{ after: boolean }>(
          primaryNow,
          "select pg_conf_load_time() >= (pg_stat_file(current_setting('hba_file'))).modification as after",
        );
        return rows.map((r) => r.users).join() === 'steward_replication' && loaded!.after;
      },
      {
        description: `${primary} admits replication as steward_replication only`,
        timeoutMs: 180_000,
      },
    );
    // legacy-1 was not cloned again (whichever role it has now).
    expect(await cloneMark(`${name}-1`)).toBe(mark);
    const [{ count }] = (await query<{ count: string }>(
      await appLogin(name),
      'select count(*) as count from ledger',
    )) as [{ count: string }];
    expect(count).toBe('1000');
  }, 900_000);
});
