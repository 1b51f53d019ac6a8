import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { InstanceScript } from '../children/instance-script.js';
import { ConfigFiles, renderChildren } from '../children/index.js';
import { recoveryTargetTime } from '../children/stateful-set.js';
import { renderBackupJob, renderUpgradeJob, renderVerifyJob } from './job.js';
import {
  ArchiveScript,
  BackupScript,
  RestoreWalScript,
  UpgradeScript,
  VerifyScript,
} from './scripts.js';

const destination = {
  bucket: 'backups',
  endpoint: 'http://10.88.77.1:5000',
  credentialsSecretRef: { name: 's3-keys' },
};
const cluster = (spec: Partial<PostgresCluster['spec']> = {}): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'orders', namespace: 'shop', uid: 'u-1' },
    spec: { version: '17', replicas: 1, ...spec },
  }) as PostgresCluster;
const render = (c: PostgresCluster, extra = {}) =>
  renderChildren({
    cluster: c,
    image: 'ghcr.io/steward-dev/postgres:17.12',
    storage: { size: '1Gi' },
    ...extra,
  });
type Env = { name: string; value?: string; valueFrom?: { secretKeyRef: Record<string, unknown> } };
const envOf = (sts: object): Env[] =>
  (sts as unknown as { spec: { template: { spec: { containers: { env: Env[] }[] } } } }).spec
    .template.spec.containers[0]!.env;

describe('children with spec.backup', () => {
  it('archive WAL through archive.sh, ship the scripts, and name the keys only by Secret reference', () => {
    const plain = render(cluster());
    const backed = render(cluster({ backup: { destination } }));
    const conf = (c: typeof plain) =>
      (c.configMap as unknown as { data: Record<string, string> }).data[ConfigFiles.postgresql]!;
    expect(conf(plain)).toContain("archive_mode = 'off'");
    expect(conf(plain)).not.toContain('archive_command');
    expect(conf(backed)).toContain("archive_mode = 'on'");
    expect(conf(backed)).toContain(
      "archive_command = '/bin/sh /etc/steward/config/archive.sh %p %f'",
    );
    expect(conf(backed)).toContain("archive_timeout = '5min'");
    const files = Object.keys(
      (backed.configMap as unknown as { data: Record<string, string> }).data,
    ).sort();
    expect(files).toEqual([
      'archive.sh',
      'backup.sh',
      'instance.sh',
      'pg_hba.conf',
      'postgresql.conf',
      'restore-wal.sh',
      'verify.sh',
    ]);

    const env = envOf(backed.statefulSet);
    expect(env.find((e) => e.name === 'STEWARD_BACKUP_PATH')?.value).toBe('backups/shop/orders');
    expect(env.find((e) => e.name === 'RCLONE_CONFIG_BACKUP_ENDPOINT')?.value).toBe(
      destination.endpoint,
    );
    expect(env.find((e) => e.name === 'RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY')).toEqual({
      name: 'RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY',
      valueFrom: { secretKeyRef: { name: 's3-keys', key: 'AWS_SECRET_ACCESS_KEY' } },
    });
    expect(envOf(plain.statefulSet).some((e) => e.name.startsWith('RCLONE_'))).toBe(false);
    // The backup Jobs' pods reach the instances.
    const from = (backed.networkPolicy as unknown as { spec: { ingress: { from: unknown[] }[] } })
      .spec.ingress[0]!.from;
    expect(from).toContainEqual({
      podSelector: { matchLabels: { 'postgres.steward.dev/backup-of': 'orders' } },
    });
  });

  it('give a restore the source bucket (its Secret optional) and a target time PostgreSQL accepts', () => {
    const c = cluster({
      bootstrap: { recovery: { source: { destination }, targetTime: '2026-12-03T14:30:07.495Z' } },
    });
    const rendered = render(c, {
      restore: {
        destination,
        systemPrefix: 'shop/orders/7715084825864298526',
        backupId: '20261203T143000Z',
        targetTime: '2026-12-03T14:30:07.495Z',
      },
    });
    const env = envOf(rendered.statefulSet);
    const value = (n: string) => env.find((e) => e.name === n)?.value;
    expect(value('STEWARD_RESTORE_PATH')).toBe('backups/shop/orders/7715084825864298526');
    expect(value('STEWARD_RESTORE_BACKUP')).toBe('20261203T143000Z');
    expect(value('STEWARD_RESTORE_TARGET_TIME')).toBe('2026-12-03 14:30:07.495+00');
    expect(env.find((e) => e.name === 'RCLONE_CONFIG_SOURCE_ACCESS_KEY_ID')?.valueFrom).toEqual({
      secretKeyRef: { name: 's3-keys', key: 'AWS_ACCESS_KEY_ID', optional: true },
    });
    expect(env.filter((e) => e.name === 'RCLONE_CONFIG').length).toBe(1);
    expect(Object.keys((rendered.configMap as unknown as { data: object }).data)).toContain(
      'restore-wal.sh',
    );
    expect(() => recoveryTargetTime('yesterday')).toThrow(/not a time/);
  });

  it("archive a restored cluster's WAL and base backups into its own folder, reading only the source's", () => {
    // As resolveBackup leaves a cluster of namespace shop restored from its cluster keeps through
    // a profile whose destination has the prefix pg.
    const profiled = { ...destination, prefix: 'pg/shop/orders' };
    const c = cluster({
      backup: { destination: profiled },
      bootstrap: {
        recovery: {
          source: { name: 'keeps', destination: { ...destination, prefix: 'pg/shop/keeps' } },
        },
      },
    });
    const rendered = render(c, {
      restore: {
        destination: { ...destination, prefix: 'pg/shop/keeps' },
        systemPrefix: 'pg/shop/keeps/7715084825864298526',
        backupId: '20261203T143000Z',
      },
    });
    const env = envOf(rendered.statefulSet);
    const value = (n: string) => env.find((e) => e.name === n)?.value;
    // archive.sh writes backup:$STEWARD_BACKUP_PATH only; restore-wal.sh reads source: only.
    expect(value('STEWARD_BACKUP_PATH')).toBe('backups/pg/shop/orders');
    expect(value('STEWARD_RESTORE_PATH')).toBe('backups/pg/shop/keeps/7715084825864298526');
    expect(ArchiveScript).toContain('dest="backup:$STEWARD_BACKUP_PATH/$sysid/wal/$file.gz"');
    expect(ArchiveScript).not.toContain('source:');
    expect(RestoreWalScript).not.toContain('backup:');
    const job = renderBackupJob({
      cluster: c,
      image: 'ghcr.io/steward-dev/postgres:17.12',
      primaryHost: '10.88.77.10',
      due: new Date('2026-12-03T15:00:00Z'),
      reason: 'Initial',
    }) as unknown as { spec: { template: object } };
    const jobEnv = envOf({ spec: job.spec } as never);
    expect(jobEnv.find((e) => e.name === 'STEWARD_BACKUP_PATH')?.value).toBe(
      'backups/pg/shop/orders',
    );
    expect(BackupScript).toContain('dest="backup:$STEWARD_BACKUP_PATH/$sysid/base/$id"');
    expect(jobEnv.some((e) => e.value?.includes('pg/shop/keeps'))).toBe(false);
  });
});

describe('the backup Job', () => {
  it('runs once, unprivileged, from the ConfigMap, without the cluster label on its pod', () => {
    const job = renderBackupJob({
      cluster: cluster({ backup: { destination } }),
      image: 'ghcr.io/steward-dev/postgres:17.12',
      primaryHost: '10.88.77.12',
      due: new Date('2026-12-03T03:00:00Z'),
      reason: 'Scheduled',
    });
    expect(job.metadata.name).toBe(
      `orders-bk-${(Date.parse('2026-12-03T03:00:00Z') / 1000).toString(36)}`,
    );
    expect(job.metadata.labels['postgres.steward.dev/backup-id']).toBe('20261203T030000Z');
    expect(job.metadata.labels['postgres.steward.dev/cluster']).toBe('orders');
    expect(job.spec.template.metadata.labels).not.toHaveProperty('postgres.steward.dev/cluster');
    expect(job.spec.backoffLimit).toBe(0);
    const container = job.spec.template.spec.containers[0]!;
    expect(container.command).toEqual(['/bin/sh', '/etc/steward/config/backup.sh']);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    const env = container.env as Env[];
    expect(env.find((e) => e.name === 'PGHOST')?.value).toBe('10.88.77.12');
    // The replication role, not the superuser: pg_basebackup needs no more.
    expect(env.find((e) => e.name === 'PGUSER')?.value).toBe('steward_replication');
    expect(env.find((e) => e.name === 'PGPASSWORD')?.valueFrom).toEqual({
      secretKeyRef: { name: 'orders-replication', key: 'password' },
    });
    expect(env.every((e) => e.name !== 'PGPASSWORD' || e.value === undefined)).toBe(true);
  });
});

describe('every Job (backup, rehearsal, upgrade)', () => {
  const jobs = (scratchSize?: string, pull?: { policy: 'Always'; secrets: string[] }) => {
    const extra = { ...(scratchSize ? { scratchSize } : {}), ...(pull ? { pull } : {}) };
    return [
      renderBackupJob({
        cluster: cluster({ backup: { destination } }),
        image: 'img',
        primaryHost: '10.0.0.1',
        due: new Date('2026-12-03T03:00:00Z'),
        reason: 'Scheduled',
        ...extra,
      }),
      renderVerifyJob({
        cluster: cluster({ backup: { destination } }),
        image: 'img',
        systemIdentifier: '7',
        backup: { id: '20261203T030000Z', completedAt: '2026-12-03T03:01:00Z' },
        due: new Date('2026-12-03T04:00:00Z'),
        ...extra,
      }),
      renderUpgradeJob({
        cluster: cluster({}),
        image: 'img',
        fromHost: '10.0.0.4',
        toHost: '10.0.0.9',
        generation: 1,
        ...extra,
      }),
    ];
  };
  it('asks for and is limited to JobResources, with scratch bounded by the cluster’s volume size', () => {
    for (const job of jobs('20Gi')) {
      const pod = job.spec.template.spec;
      expect(pod.containers[0]!.resources).toEqual({
        requests: { cpu: '100m', memory: '256Mi' },
        limits: { memory: '1Gi' },
      });
      expect(pod.volumes.find((v: { name: string }) => v.name === 'scratch')).toEqual({
        name: 'scratch',
        emptyDir: { sizeLimit: '20Gi' },
      });
    }
  });
  it('pulls its image IfNotPresent without pull secrets, or as the instances do', () => {
    for (const job of jobs()) {
      const pod = job.spec.template.spec;
      expect(pod.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
      expect(pod).not.toHaveProperty('imagePullSecrets');
    }
    for (const job of jobs(undefined, { policy: 'Always', secrets: ['regcred'] })) {
      const pod = job.spec.template.spec;
      expect(pod.containers[0]!.imagePullPolicy).toBe('Always');
      expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    }
  });
  it('keeps an unbounded scratch only when no size is known', () => {
    for (const job of jobs())
      expect(
        job.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'scratch'),
      ).toEqual({ name: 'scratch', emptyDir: {} });
  });
});

describe('the shipped shell programs', () => {
  it.each([
    ['instance.sh', InstanceScript],
    ['archive.sh', ArchiveScript],
    ['backup.sh', BackupScript],
    ['restore-wal.sh', RestoreWalScript],
    ['verify.sh', VerifyScript],
    ['the upgrade Job', UpgradeScript],
  ])('%s parses as POSIX sh (dash, as in the images)', (_, script) => {
    expect(() =>
      execFileSync('sh', ['-n'], { input: script, stdio: ['pipe', 'pipe', 'pipe'] }),
    ).not.toThrow();
  });
});

describe('the restore rehearsal Job', () => {
  it('reads the cluster’s own backups through the source remote, with the row counts asked for', () => {
    const job = renderVerifyJob({
      cluster: cluster({
        backup: {
          destination,
          verify: { rowCounts: [{ table: 'public.orders', atLeast: 10 }] },
        },
      }),
      image: 'ghcr.io/steward-dev/postgres:17.12',
      systemIdentifier: '7715084825864298526',
      backup: { id: '20261203T030000Z', completedAt: '2026-12-03T03:00:04.120Z' },
      due: new Date('2026-12-03T05:00:00Z'),
    });
    expect(job.metadata.name).toMatch(/^orders-vf-[0-9a-z]+$/);
    expect(job.metadata.labels['postgres.steward.dev/verify-of']).toBe('orders');
    expect(job.metadata.labels).not.toHaveProperty('postgres.steward.dev/backup-of');
    const container = job.spec.template.spec.containers[0]!;
    expect(container.command).toEqual(['/bin/sh', '/etc/steward/config/verify.sh']);
    expect(container.volumeMounts).toContainEqual({ name: 'scratch', mountPath: '/data' });
    const env = container.env as Env[];
    const value = (n: string) => env.find((e) => e.name === n)?.value;
    expect(value('STEWARD_RESTORE_PATH')).toBe('backups/shop/orders/7715084825864298526');
    expect(value('STEWARD_VERIFY_BACKUP')).toBe('20261203T030000Z');
    expect(value('STEWARD_VERIFY_ROW_COUNTS')).toBe('app|public.orders|10');
    expect(env.some((e) => e.name === 'PGPASSWORD')).toBe(false);
  });
});

describe('the major upgrade Job', () => {
  it('runs the new image, inline (not from the ConfigMap), with the superuser on both servers by IP', () => {
    const job = renderUpgradeJob({
      cluster: cluster({}),
      image: 'ghcr.io/steward-dev/postgres:17.12',
      fromHost: '10.0.0.4',
      toHost: '10.0.0.9',
      generation: 3,
    });
    expect(job.metadata.name).toBe('orders-upgrade-3');
    expect(job.metadata.labels['postgres.steward.dev/upgrade-of']).toBe('orders');
    expect(job.metadata.labels).not.toHaveProperty('postgres.steward.dev/backup-of');
    const container = job.spec.template.spec.containers[0]!;
    expect(container.image).toBe('ghcr.io/steward-dev/postgres:17.12');
    expect(container.command).toEqual(['/bin/sh', '-c', UpgradeScript]);
    const env = container.env as Env[];
    const value = (n: string) => env.find((e) => e.name === n)?.value;
    expect(value('STEWARD_FROM_HOST')).toBe('10.0.0.4');
    expect(value('STEWARD_TO_HOST')).toBe('10.0.0.9');
    expect(env.find((e) => e.name === 'PGPASSWORD')).toMatchObject({
      valueFrom: { secretKeyRef: { name: 'orders-superuser', key: 'password' } },
    });
  });
});
