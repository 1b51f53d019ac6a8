import { PostgresCluster } from '../src/index.js';
import { InvalidError, KubeClient, Namespaces } from '@steward/kube';
import { startControlPlane, type ControlPlane } from '@steward/testing';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const namespace = 'databases';
const Kind = PostgresCluster.resourceType;

let plane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  // The CRD as this library generates it (the chart that ships it comes with the app).
  const dir = await mkdtemp(join(tmpdir(), 'pgc-crd-'));
  await writeFile(join(dir, 'postgresclusters.json'), JSON.stringify(PostgresCluster.crd()));
  plane = await startControlPlane({ crds: [dir] });
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'postgres-cluster-api-test' });
  await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

const cluster = (name: string, spec: Record<string, unknown>): PostgresCluster =>
  ({
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace },
    spec,
  }) as PostgresCluster;

/** The server's refusal message of `call` (fails the test when the server accepts it). */
async function rejection(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof InvalidError) return error.message;
    throw error;
  }
  throw new Error('the API server accepted it');
}

const base = { version: '17' };

describe('PostgresCluster admission (the real API server)', () => {
  it('defaults a minimal spec: 1 replica, async, failover after 10s within 16 MiB, app/app, Retain', async () => {
    const created = await client.create<PostgresCluster>(Kind, cluster('minimal', base));
    expect(created.spec).toMatchObject({
      version: '17',
      replicas: 1,
      deletionPolicy: 'Retain',
    });
    const full = await client.create<PostgresCluster>(
      Kind,
      cluster('defaults', {
        ...base,
        replicas: 3,
        replication: {},
        failover: {},
        bootstrap: {},
      }),
    );
    expect(full.spec).toMatchObject({
      replication: { mode: 'async' },
      failover: { enabled: true, after: '10s', maxLagBytes: 16 * 1024 * 1024 },
      bootstrap: { database: 'app', owner: 'app' },
    });
  });

  it.each([
    ['no version', {}, 'spec.version: Required value'],
    ['a version that is not a major', { version: '17.2' }, 'spec.version'],
    ['no instances', { ...base, replicas: 0 }, 'spec.replicas'],
    ['too many instances', { ...base, replicas: 10 }, 'spec.replicas'],
    [
      'an operator-owned parameter',
      { ...base, parameters: { wal_level: 'minimal' } },
      'spec.parameters may not set wal_level: the operator owns it',
    ],
    [
      'the replication settings as parameters',
      { ...base, parameters: { synchronous_standby_names: '*' } },
      'spec.parameters may not set synchronous_standby_names',
    ],
    [
      'a parameter name PostgreSQL never has',
      { ...base, parameters: { 'Max Connections': '10' } },
      'spec.parameters keys must be PostgreSQL setting names',
    ],
    [
      'a parameter value with a newline',
      { ...base, parameters: { work_mem: "4MB'\nlisten_addresses = '*" } },
      'spec.parameters',
    ],
    [
      'sync replication with one instance',
      { ...base, replication: { mode: 'sync' } },
      'spec.replication.mode sync needs spec.replicas of at least 2',
    ],
    [
      'an unknown replication mode',
      { ...base, replication: { mode: 'semi' } },
      'Unsupported value: "semi"',
    ],
    [
      'a negative maxLagBytes',
      { ...base, failover: { maxLagBytes: -1 } },
      'spec.failover.maxLagBytes',
    ],
    [
      'a failover detection time of an hour',
      { ...base, failover: { after: '60m' } },
      'spec.failover.after must be between 1s and 10m',
    ],
    [
      'a storage size that is not a quantity',
      { ...base, storage: { size: 'big' } },
      'spec.storage.size: not a quantity',
    ],
    [
      'a bootstrap owner that is not an identifier',
      { ...base, bootstrap: { owner: 'App-Owner' } },
      'spec.bootstrap.owner',
    ],
    [
      'requests above limits',
      { ...base, resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } },
      'spec.resources.requests.memory may not exceed spec.resources.limits.memory',
    ],
    [
      'an unknown deletion policy',
      { ...base, deletionPolicy: 'Orphan' },
      'Unsupported value: "Orphan"',
    ],
  ])('refuses %s', async (_, spec, message) => {
    const refused = await rejection(
      client.create(Kind, cluster(`bad-${Math.random().toString(36).slice(2, 8)}`, spec)),
    );
    expect(refused).toContain(message);
  });

  it('refuses a name longer than the StatefulSet revision label allows (an upgrade’s set <name>-v<major> included)', async () => {
    expect(await rejection(client.create(Kind, cluster('a'.repeat(49), base)))).toContain(
      'metadata.name must be a DNS label of at most 48 characters',
    );
  });

  describe('changes', () => {
    const update = async (
      name: string,
      spec: Record<string, unknown>,
      next: Record<string, unknown>,
    ) => {
      const created = await client.create<PostgresCluster>(Kind, cluster(name, spec));
      return rejection(
        client.update(Kind, { ...created, spec: { ...created.spec, ...next } } as PostgresCluster),
      );
    };

    it('refuses a storage shrink, naming both sizes', async () => {
      expect(
        await update(
          'shrink',
          { ...base, storage: { size: '500Gi' } },
          { storage: { size: '100Gi' } },
        ),
      ).toContain('spec.storage.size may only grow (from 500Gi to 100Gi)');
    });

    it('refuses a version downgrade, naming both versions', async () => {
      expect(await update('downgrade', base, { version: '15' })).toContain(
        'spec.version may not go down (from 17 to 15)',
      );
    });

    it('refuses a changed or added storage class', async () => {
      expect(
        await update(
          'class',
          { ...base, storage: { size: '1Gi', storageClassName: 'fast' } },
          { storage: { size: '1Gi', storageClassName: 'slow' } },
        ),
      ).toContain('spec.storage.storageClassName is immutable');
      expect(
        await update(
          'class-added',
          { ...base, storage: { size: '1Gi' } },
          { storage: { size: '1Gi', storageClassName: 'slow' } },
        ),
      ).toContain('spec.storage.storageClassName is immutable');
    });

    it('refuses a changed or added bootstrap', async () => {
      expect(
        await update(
          'boot',
          { ...base, bootstrap: { database: 'shop' } },
          { bootstrap: { database: 'other' } },
        ),
      ).toContain('spec.bootstrap is immutable');
      expect(await update('boot-added', base, { bootstrap: { database: 'other' } })).toContain(
        'spec.bootstrap is immutable',
      );
    });

    it('accepts growing the storage and raising the version', async () => {
      const created = await client.create<PostgresCluster>(
        Kind,
        cluster('grow', { version: '15', storage: { size: '1Gi' } }),
      );
      const grown = await client.update<PostgresCluster>(Kind, {
        ...created,
        spec: { ...created.spec, version: '17', storage: { size: '2Gi' } },
      } as PostgresCluster);
      expect(grown.spec).toMatchObject({ version: '17', storage: { size: '2Gi' } });
    });
  });
});
