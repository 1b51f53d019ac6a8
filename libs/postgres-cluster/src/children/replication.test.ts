import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import { RewindFunctions, ReplicationRole } from '../pg/index.js';
import { predatesReplicationRole } from '../phases/children.js';
import { type Pod } from '../pods.js';
import { ConfigFiles, configHash, renderConfigFiles, renderHbaConf } from './config.js';
import { PassFile, standbyConninfo } from './conninfo.js';
import { renderChildren } from './index.js';
import { ReplicationUser } from './names.js';

const cluster = {
  apiVersion: 'postgres.steward.dev/v1alpha1',
  kind: 'PostgresCluster',
  metadata: { name: 'orders', namespace: 'shop', uid: 'u-1' },
  spec: { version: '17', replicas: 3 },
} as PostgresCluster;

interface Env {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

describe('the replication role (issue 27): streaming, cloning and rewinding without the superuser', () => {
  it('is one name for the rendering and the bootstrap SQL, and not the superuser', () => {
    expect(ReplicationUser).toBe('steward_replication');
    expect(ReplicationRole).toBe(ReplicationUser);
    // pg_rewind's four file functions (PostgreSQL's pg_rewind notes), by their signatures.
    expect(RewindFunctions).toEqual([
      'pg_catalog.pg_ls_dir(text, boolean, boolean)',
      'pg_catalog.pg_stat_file(text, boolean)',
      'pg_catalog.pg_read_binary_file(text)',
      'pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean)',
    ]);
  });

  it('pg_hba.conf admits replication connections for it alone, by SCRAM', () => {
    const rules = renderHbaConf()
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/\s+/));
    const replication = rules.filter((r) => r[1] === 'replication');
    expect(replication).toEqual([
      ['host', 'replication', 'steward_replication', 'all', 'scram-sha-256'],
    ]);
    expect(rules.map((r) => r.at(-1))).not.toContain('trust');
    expect(rules.map((r) => r.at(-1))).not.toContain('md5');
  });

  it('standbys, pg_basebackup and pg_rewind connect as it through the passfile', () => {
    expect(standbyConninfo('10.88.0.7', 'orders-1')).toBe(
      `host=10.88.0.7 port=5432 user=steward_replication dbname=postgres passfile=${PassFile} application_name=orders-1 connect_timeout=5`,
    );
  });

  it('its password is generated once in <name>-replication and reaches the agent from there', () => {
    const rendered = renderChildren({ cluster, image: 'pg:17', storage: { size: '1Gi' } });
    const secret = rendered.replicationSecret('s3cret:x') as unknown as {
      metadata: { name: string; namespace: string };
      type: string;
      data: Record<string, string>;
    };
    expect(secret.metadata).toMatchObject({ name: 'orders-replication', namespace: 'shop' });
    expect(secret.type).toBe('kubernetes.io/basic-auth');
    const decoded = Object.fromEntries(
      Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
    expect(decoded).toEqual({ username: 'steward_replication', password: 's3cret:x' });
    expect(() => rendered.replicationSecret('')).toThrow(RangeError);

    const pod = (
      rendered.statefulSet as unknown as {
        spec: { template: { spec: { containers: { env: Env[] }[] } } };
      }
    ).spec.template.spec.containers[0]!;
    expect(pod.env.find((e) => e.name === 'STEWARD_REPLICATION_PASSWORD')).toEqual({
      name: 'STEWARD_REPLICATION_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'orders-replication', key: 'password' } },
    });
    // Never a literal password in the pod template.
    expect(pod.env.every((e) => !/PASSWORD/.test(e.name) || e.value === undefined)).toBe(true);
  });

  describe('a cluster made before it (its instances stream as the superuser)', () => {
    const pod = (env: string[]): Pod =>
      ({
        metadata: { name: 'orders-1' },
        spec: { containers: [{ name: 'postgres', env: env.map((name) => ({ name })) }] },
      }) as unknown as Pod;

    it('is known by the pod: an instance container without the replication password', () => {
      expect(predatesReplicationRole(pod(['POSTGRES_PASSWORD']))).toBe(true);
      expect(
        predatesReplicationRole(pod(['POSTGRES_PASSWORD', 'STEWARD_REPLICATION_PASSWORD'])),
      ).toBe(false);
      // A pod not known by its spec is not taken for an old one.
      expect(predatesReplicationRole({ metadata: { name: 'orders-2' } } as Pod)).toBe(false);
    });

    it('keeps the superuser’s replication line while such an instance runs, and only then', () => {
      const replication = (hba: string) =>
        hba
          .split('\n')
          .filter((l) => l && !l.startsWith('#'))
          .map((l) => l.split(/\s+/))
          .filter((r) => r[1] === 'replication')
          .map((r) => r[2]);
      expect(replication(renderHbaConf({ superuserReplication: true }))).toEqual([
        'steward_replication',
        'postgres',
      ]);
      const input = { cluster, image: 'pg:17', storage: { size: '1Gi' } };
      const during = renderConfigFiles({ ...input, superuserReplication: true });
      const after = renderConfigFiles(input);
      expect(replication(during[ConfigFiles.hba]!)).toEqual(['steward_replication', 'postgres']);
      expect(replication(after[ConfigFiles.hba]!)).toEqual(['steward_replication']);
      // pg_hba.conf is reloaded by the primary, not rolled: dropping the line restarts nothing.
      expect(configHash(during)).toBe(configHash(after));
      expect(configHash({ ...after, [ConfigFiles.postgresql]: 'x' })).not.toBe(configHash(after));
    });
  });
});
