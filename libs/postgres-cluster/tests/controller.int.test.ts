/**
 * The PostgresCluster controller in-process, on the node tier: a real API server, kubelet and
 * containerd running the PostgreSQL pods it renders, `pg` talking to them over the pod network.
 * (The app as shipped — its bundle as a process, its chart in the cluster — is proven in
 * e2e/postgres-cluster-controller-e2e.)
 */
import { findCondition } from '@steward/conditions';
import {
  PersistentVolumeClaims,
  Pods,
  Services,
  StatefulSets,
  type KubeObject,
} from '@steward/kube';
import { eventually, gitOpsReading } from '@steward/testing';
import { controllerOnNodeTier } from '@steward/testing-node-tier';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pod } from '../src/index.js';
import { postgresClusters } from './workload-under-test.js';

const suite = controllerOnNodeTier({ beforeAll, afterAll }, postgresClusters, {
  images: ['postgres-15', 'postgres-17'],
  namespace: 'pgc-controller',
});
const { create, read, ready, podIp, serviceIp, secret: secretOf } = suite;

async function query(
  host: string,
  user: string,
  password: string,
  database: string,
  sql: string,
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({
    host,
    port: 5432,
    user,
    password,
    database,
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('the PostgresCluster controller on the node tier', () => {
  it('runs a single instance: Ready, its children in place, the app role can write through the read-write Service', async () => {
    await create('solo', { version: '17' });
    const obj = await ready('solo');
    expect(obj.status).toMatchObject({
      phase: 'Ready',
      primary: 'solo-0',
      readyReplicas: 1,
      replicas: 1,
      version: '17',
      image: 'ghcr.io/steward-dev/postgres:17.12',
      timeline: 1,
      endpoints: {
        readWrite: { host: `solo-rw.${suite.namespace}.svc`, port: 5432 },
        superuserSecret: 'solo-superuser',
        appSecret: 'solo-app',
      },
    });
    expect(obj.status?.systemIdentifier).toMatch(/^[0-9]+$/);
    expect(obj.status?.instances).toEqual([
      expect.objectContaining({ name: 'solo-0', role: 'primary', ready: true, timeline: 1 }),
    ]);
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current' });
    const sts = await suite.get<KubeObject & { spec: Record<string, unknown> }>(
      StatefulSets,
      'solo',
    );
    expect(sts.spec).toMatchObject({ replicas: 1, updateStrategy: { type: 'OnDelete' } });
    const app = await secretOf('solo-app');
    expect(app).toMatchObject({
      username: 'app',
      database: 'app',
      host: `solo-rw.${suite.namespace}.svc`,
      port: '5432',
    });
    expect(app['password']).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(app['uri']).toBe(
      `postgresql://app:${app['password']}@solo-rw.${suite.namespace}.svc:5432/app`,
    );
    // The application role owns its database and writes through the read-write Service.
    const rw = await serviceIp('solo-rw');
    // The Service's endpoints follow the pod's role label and readiness (kube-proxy a moment later).
    await eventually(
      () =>
        query(rw, 'app', app['password']!, 'app', 'SELECT 1').then(
          () => true,
          () => false,
        ),
      { description: 'the read-write Service answers', timeoutMs: 30_000 },
    );
    await query(
      rw,
      'app',
      app['password']!,
      'app',
      'CREATE TABLE t (n int); INSERT INTO t VALUES (1)',
    );
    expect(
      await query(rw, 'app', app['password']!, 'app', 'SELECT count(*)::int AS n FROM t'),
    ).toEqual([{ n: 1 }]);
    await expect(query(rw, 'app', 'wrong', 'app', 'SELECT 1')).rejects.toThrow(
      /password authentication failed/,
    );
    const claims = await suite.admin.list<KubeObject>(PersistentVolumeClaims, {
      namespace: suite.namespace,
    });
    expect(claims.items.map((c) => c.metadata.name)).toContain('data-solo-0');
  });

  it('runs three instances: one primary, two standbys streaming, rows written on the primary read on the standbys', async () => {
    await create('trio', { version: '15', replicas: 3 });
    const obj = await ready('trio', 240_000);
    expect(obj.status?.primary).toBe('trio-0');
    expect(obj.status?.instances?.map((i) => [i.name, i.role, i.ready])).toEqual([
      ['trio-0', 'primary', true],
      ['trio-1', 'standby', true],
      ['trio-2', 'standby', true],
    ]);
    for (const standby of obj.status!.instances!.slice(1))
      expect(standby).toMatchObject({ replicationState: 'streaming', syncState: 'async' });
    const superuser = await secretOf('trio-superuser');
    const primaryIp = await podIp('trio-0');
    await query(
      primaryIp,
      'postgres',
      superuser['password']!,
      'postgres',
      'CREATE TABLE replicated AS SELECT generate_series(1, 100) AS n',
    );
    for (const standby of ['trio-1', 'trio-2']) {
      const ip = await podIp(standby);
      await eventually(
        async () => {
          const rows = await query(
            ip,
            'postgres',
            superuser['password']!,
            'postgres',
            'SELECT count(*)::int AS n FROM replicated',
          ).catch(() => []);
          return rows[0]?.['n'] === 100;
        },
        { description: `${standby} has the rows`, timeoutMs: 30_000 },
      );
      expect(
        await query(
          ip,
          'postgres',
          superuser['password']!,
          'postgres',
          'SELECT pg_is_in_recovery() AS r',
        ),
      ).toEqual([{ r: true }]);
    }
    // The read-only Service selects the standbys, the read-write one the primary.
    const pods = await suite.admin.list<Pod>(Pods, {
      namespace: suite.namespace,
      labelSelector: 'postgres.steward.dev/cluster=trio',
    });
    expect(
      Object.fromEntries(
        pods.items.map((p) => [p.metadata.name, p.metadata.labels?.['postgres.steward.dev/role']]),
      ),
    ).toEqual({ 'trio-0': 'primary', 'trio-1': 'standby', 'trio-2': 'standby' });
  });

  it('costs no API writes once converged', async () => {
    await ready('solo');
    await ready('trio');
    // Converged means every standby has caught up: a lag that falls to 0 is a real change and is
    // published (the bench measures the same window).
    await eventually(
      async () => {
        const obj = await read('trio');
        const standbys = obj.status?.instances?.filter((i) => i.role !== 'primary') ?? [];
        return standbys.length === 2 && standbys.every((i) => i.lagBytes === 0) ? obj : undefined;
      },
      { description: 'trio’s standbys at lag 0 in status', timeoutMs: 60_000 },
    );
    expect(await suite.writesDuring(10_000, 3000)).toEqual([]);
  });

  it('pauses on steward.dev/paused: a deleted child stays gone, a parameter change is not applied or observed; resumes when it goes', async () => {
    const before = await ready('solo');
    await suite.pause('solo');
    await suite.delete(Services, 'solo-rw');
    await suite.patch('solo', { spec: { parameters: { work_mem: '8MB' } } });
    await new Promise((resolve) => setTimeout(resolve, 8000)); // 8 polls of 1 s
    const still = await read('solo');
    expect(still.status?.observedGeneration).toBe(before.metadata.generation);
    expect(await gitOpsReading(still)).toMatchObject({ kstatus: 'InProgress' });
    await expect(suite.get(Services, 'solo-rw')).rejects.toThrow();
    const resumed = await suite.resume('solo');
    expect(findCondition(resumed.status?.conditions, 'Paused')).toBeUndefined();
    expect(await gitOpsReading(resumed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
    await suite.recreated(Services, 'solo-rw');
  });
});
