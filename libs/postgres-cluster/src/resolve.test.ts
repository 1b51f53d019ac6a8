import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ProviderProfile, type ProviderProfileSpec } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { resolveBackup, resolvePostgres } from './resolve.js';

type Kubernetes = NonNullable<ProviderProfileSpec['kubernetes']>;

const profile = (kubernetes: Partial<Kubernetes> = {}): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'production' },
    spec: {
      provider: 'kubernetes',
      namespaces: ['shop'],
      kubernetes: {
        sizeClasses: { small: { cpu: '250m', memory: '512Mi', storage: '5Gi' } },
        images: [{ engine: 'postgres', version: '17', image: 'registry.example/postgres:17.12' }],
        ...kubernetes,
      },
      guardrails: {},
    },
  }) as ProviderProfile;

const cluster = (spec: Partial<PostgresCluster['spec']>): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'orders', namespace: 'shop' },
    spec: { version: '17', replicas: 3, ...spec },
  }) as PostgresCluster;

describe('resolvePostgres', () => {
  it('resolves a size class into resources and storage, and the catalogue image', () => {
    expect(resolvePostgres(cluster({ size: 'small' }), profile(), '17')).toEqual({
      allowed: true,
      resolved: {
        image: 'registry.example/postgres:17.12',
        resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '512Mi' } },
        storage: { size: '5Gi' },
      },
    });
  });

  it('refuses async replication where the profile requires sync, naming the field to set', () => {
    const strict = profile({ requireSyncReplication: true });
    expect(resolvePostgres(cluster({}), strict, '17')).toEqual({
      allowed: false,
      reason: 'SyncReplicationRequired',
      message:
        'ProviderProfile production requires sync replication (spec.kubernetes.requireSyncReplication): set spec.replication.mode: sync (and spec.replicas of at least 2)',
    });
    expect(resolvePostgres(cluster({ replication: { mode: 'sync' } }), strict, '17').allowed).toBe(
      true,
    );
  });

  it('refuses a failover bound above the profile’s, the default included, but not with failover off', () => {
    const bounded = profile({ maxFailoverLagBytes: 1048576 });
    expect(resolvePostgres(cluster({}), bounded, '17')).toEqual({
      allowed: false,
      reason: 'MaxLagBytesNotAllowed',
      message:
        'spec.failover.maxLagBytes 16777216 (the default) exceeds spec.kubernetes.maxFailoverLagBytes 1048576 of ProviderProfile production: set spec.failover.maxLagBytes to at most 1048576',
    });
    const over = resolvePostgres(cluster({ failover: { maxLagBytes: 2097152 } }), bounded, '17');
    expect(over).toMatchObject({ allowed: false, reason: 'MaxLagBytesNotAllowed' });
    expect(
      resolvePostgres(cluster({ failover: { maxLagBytes: 1048576 } }), bounded, '17').allowed,
    ).toBe(true);
    expect(resolvePostgres(cluster({ failover: { enabled: false } }), bounded, '17').allowed).toBe(
      true,
    );
  });

  it('refuses a size class without a profile', () => {
    expect(resolvePostgres(cluster({ size: 'small' }), undefined, '17')).toMatchObject({
      allowed: false,
      reason: 'SizeNeedsProfile',
    });
  });
});

describe('resolveBackup', () => {
  const platform = {
    bucket: 'platform-backups',
    prefix: 'pg',
    endpoint: 'https://s3.example',
    credentialsSecretRef: { name: 'platform-backup-keys' },
  };
  const own = { bucket: 'team-bucket', credentialsSecretRef: { name: 'team-keys' } };

  it("takes the profile's destination, in <prefix>/<namespace>/<name>, and its minimum retention when the spec states none", () => {
    const resolved = resolveBackup(
      cluster({ backup: {} }),
      profile({ backup: { destination: platform, minRetentionDays: 14 } }),
    );
    expect(resolved).toEqual({
      allowed: true,
      cluster: expect.objectContaining({
        spec: expect.objectContaining({
          backup: { destination: { ...platform, prefix: 'pg/shop/orders' }, retentionDays: 14 },
        }),
      }),
    });
  });

  it("keeps the spec's own destination and retention, and the default of 7 days over a lower minimum", () => {
    expect(
      resolveBackup(
        cluster({ backup: { destination: own, retentionDays: 30 } }),
        profile({ backup: { destination: platform, minRetentionDays: 14 } }),
      ),
    ).toMatchObject({
      allowed: true,
      cluster: { spec: { backup: { destination: own, retentionDays: 30 } } },
    });
    expect(
      resolveBackup(
        cluster({ backup: {} }),
        profile({ backup: { destination: platform, minRetentionDays: 2 } }),
      ),
    ).toMatchObject({ allowed: true, cluster: { spec: { backup: { retentionDays: 7 } } } });
  });

  it('refuses a retention below the minimum, and backups with no destination anywhere', () => {
    expect(
      resolveBackup(
        cluster({ backup: { destination: own, retentionDays: 3 } }),
        profile({ backup: { minRetentionDays: 14 } }),
      ),
    ).toEqual({
      allowed: false,
      reason: 'RetentionBelowMinimum',
      message:
        'spec.backup.retentionDays 3 is below the 14 days ProviderProfile production requires: keep at least 14',
    });
    expect(resolveBackup(cluster({ backup: {} }), profile())).toEqual({
      allowed: false,
      reason: 'BackupDestinationMissing',
      message:
        'spec.backup.destination is not set and ProviderProfile production has no spec.kubernetes.backup.destination: set it, or use a profile that names one',
    });
    expect(resolveBackup(cluster({ backup: {} }), undefined)).toMatchObject({
      allowed: false,
      reason: 'BackupDestinationMissing',
    });
  });

  it("reads a recovery source from the profile's destination, in the source's folder", () => {
    expect(
      resolveBackup(
        cluster({ bootstrap: { recovery: { source: { name: 'orders-old' } } } }),
        profile({ backup: { destination: platform } }),
      ),
    ).toMatchObject({
      allowed: true,
      cluster: {
        spec: {
          bootstrap: {
            recovery: { source: { destination: { ...platform, prefix: 'pg/shop/orders-old' } } },
          },
        },
      },
    });
  });

  it('leaves a cluster without backups as it is', () => {
    const plain = cluster({});
    expect(resolveBackup(plain, profile())).toEqual({ allowed: true, cluster: plain });
  });
});
