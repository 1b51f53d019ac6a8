import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ProviderProfile, type ProviderProfileSpec } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { refusedParameter, resolveBackup, resolvePostgres } from './resolve.js';

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
        pull: { policy: 'IfNotPresent', secrets: [] },
        resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '512Mi' } },
        storage: { size: '5Gi' },
      },
    });
  });

  it('refuses a spread below the profile’s requireSpread, and takes its pull settings', () => {
    const spread = profile({
      requireSpread: { zones: 'Required' },
      imagePullSecrets: [{ name: 'regcred' }],
    });
    expect(resolvePostgres(cluster({}), spread, '17')).toMatchObject({
      allowed: false,
      reason: 'SpreadRequired',
    });
    expect(
      resolvePostgres(cluster({ scheduling: { spread: { zones: 'Required' } } }), spread, '17'),
    ).toMatchObject({
      allowed: true,
      resolved: { pull: { policy: 'IfNotPresent', secrets: ['regcred'] } },
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

  it("keeps the spec's own destination and retention where the profile allows it, and the default of 7 days over a lower minimum", () => {
    expect(
      resolveBackup(
        cluster({ backup: { destination: own, retentionDays: 30 } }),
        profile({
          backup: { destination: platform, minRetentionDays: 14, allowWorkloadDestinations: true },
        }),
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
        profile({ backup: { minRetentionDays: 14, allowWorkloadDestinations: true } }),
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

  describe('isolation: the profile decides where backups go, a tenant only names clusters', () => {
    const elsewhere = { ...platform, prefix: 'pg/other-team/orders' };

    it.each([
      ['spec.backup.destination', { backup: { destination: elsewhere } }],
      [
        'spec.bootstrap.recovery.source.destination',
        { bootstrap: { recovery: { source: { name: 'orders', destination: elsewhere } } } },
      ],
    ])('refuses %s of its own unless the profile allows workload destinations', (field, spec) => {
      expect(
        resolveBackup(cluster(spec as never), profile({ backup: { destination: platform } })),
      ).toEqual({
        allowed: false,
        reason: 'BackupDestinationNotAllowed',
        message: `${field} is not allowed by ProviderProfile production (spec.kubernetes.backup.allowWorkloadDestinations is not true): remove it — backups go to the profile's destination, in pg/shop/<name>, and a recovery source is named by spec.bootstrap.recovery.source.name alone`,
      });
    });

    it("resolves a recovery source's name within the cluster's own namespace folder, whatever the name", () => {
      const resolved = resolveBackup(
        cluster({ bootstrap: { recovery: { source: { name: 'keeps' } } } }),
        profile({ backup: { destination: platform } }),
      );
      expect(resolved).toMatchObject({
        allowed: true,
        cluster: {
          spec: {
            bootstrap: { recovery: { source: { destination: { prefix: 'pg/shop/keeps' } } } },
          },
        },
      });
      // The schema's name pattern has no slash or dot: a name cannot climb out of the folder.
      expect(
        resolveBackup(
          {
            ...cluster({ bootstrap: { recovery: { source: { name: 'keeps' } } } }),
            metadata: { name: 'orders', namespace: 'b' },
          } as PostgresCluster,
          profile({ backup: { destination: platform } }),
        ),
      ).toMatchObject({
        cluster: {
          spec: { bootstrap: { recovery: { source: { destination: { prefix: 'pg/b/keeps' } } } } },
        },
      });
    });

    it.each([
      ['an endpoint the profile does not name', 'https://169.254.169.254', false],
      ['the profile destination’s endpoint', 'https://s3.example/', true],
      ['an endpoint of allowedEndpoints', 'http://minio.team:9000', true],
      ['no endpoint (AWS S3 of the region)', undefined, true],
    ])('with allowWorkloadDestinations, %s: allowed %s', (_, endpoint, allowed) => {
      const resolved = resolveBackup(
        cluster({
          backup: { destination: { ...own, ...(endpoint ? { endpoint } : {}) } },
        }),
        profile({
          backup: {
            destination: platform,
            allowWorkloadDestinations: true,
            allowedEndpoints: ['http://minio.team:9000'],
          },
        }),
      );
      expect(resolved.allowed).toBe(allowed);
      if (!resolved.allowed)
        expect(resolved).toEqual({
          allowed: false,
          reason: 'BackupEndpointNotAllowed',
          message: `spec.backup.destination.endpoint ${endpoint} is not named by ProviderProfile production (spec.kubernetes.backup.destination.endpoint or allowedEndpoints): the controller connects only to endpoints a profile names; use one of those, or ask the platform team to add it`,
        });
    });

    it('without a profile, takes a destination of its own but no endpoint: only AWS S3', () => {
      expect(resolveBackup(cluster({ backup: { destination: own } }), undefined)).toMatchObject({
        allowed: true,
        cluster: { spec: { backup: { destination: own } } },
      });
      expect(
        resolveBackup(
          cluster({
            bootstrap: {
              recovery: { source: { destination: { ...own, endpoint: 'http://10.0.0.1:9000' } } },
            },
          }),
          undefined,
        ),
      ).toEqual({
        allowed: false,
        reason: 'BackupEndpointNotAllowed',
        message:
          'spec.bootstrap.recovery.source.destination.endpoint http://10.0.0.1:9000 is not allowed without a ProviderProfile: the controller connects only to endpoints a profile names (or AWS S3, with no endpoint); set spec.providerProfileRef to a kubernetes profile whose spec.kubernetes.backup names it, or remove the endpoint',
      });
    });

    it('a restored cluster backs up into its own folder; one whose source folder is its own is refused', () => {
      const restored = resolveBackup(
        cluster({ backup: {}, bootstrap: { recovery: { source: { name: 'keeps' } } } }),
        profile({ backup: { destination: platform } }),
      );
      expect(restored).toMatchObject({
        allowed: true,
        cluster: {
          spec: {
            backup: { destination: { prefix: 'pg/shop/orders' } },
            bootstrap: { recovery: { source: { destination: { prefix: 'pg/shop/keeps' } } } },
          },
        },
      });
      // The source defaults to the cluster's own name: the same folder.
      expect(
        resolveBackup(
          cluster({ backup: {}, bootstrap: { recovery: { source: {} } } }),
          profile({ backup: { destination: platform } }),
        ),
      ).toEqual({
        allowed: false,
        reason: 'RecoverySourceIsBackupDestination',
        message:
          "spec.bootstrap.recovery restores from s3://platform-backups/pg/shop/orders/, the folder this cluster's own backups would go to: a restored cluster keeps its source's system identifier, so it would archive into the source's backups and expire them. Give the new cluster another name (its backups then go to a folder of its own), or restore from another source",
      });
      // Without a profile: the same folder named explicitly (endpoints compared without a slash).
      expect(
        resolveBackup(
          cluster({
            backup: { destination: { ...own, prefix: 'x/y' } },
            bootstrap: { recovery: { source: { destination: { ...own, prefix: 'x/y' } } } },
          }),
          undefined,
        ),
      ).toMatchObject({ allowed: false, reason: 'RecoverySourceIsBackupDestination' });
    });

    it('copies the credentials Secret only when the profile says so, and only for its own destination', () => {
      const copying = profile({
        backup: {
          destination: platform,
          copyCredentialsToWorkloadNamespaces: true,
          credentialsSourceSecretRef: { namespace: 'platform', name: 'bucket-key' },
          allowWorkloadDestinations: true,
        },
      });
      expect(resolveBackup(cluster({ backup: {} }), copying)).toMatchObject({
        allowed: true,
        credentialsCopy: {
          from: { namespace: 'platform', name: 'bucket-key' },
          to: 'platform-backup-keys',
          keys: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
        },
      });
      expect(resolveBackup(cluster({ backup: { destination: own } }), copying)).not.toHaveProperty(
        'credentialsCopy',
      );
      expect(
        resolveBackup(cluster({ backup: {} }), profile({ backup: { destination: platform } })),
      ).not.toHaveProperty('credentialsCopy');
    });
  });

  it('leaves a cluster without backups as it is', () => {
    const plain = cluster({});
    expect(resolveBackup(plain, profile())).toEqual({ allowed: true, cluster: plain });
  });
});

describe('refusedParameter', () => {
  it.each([
    [{ work_mem: '64MB' }, undefined],
    [undefined, undefined],
    [{ shared_preload_libraries: 'pg_stat_statements' }, undefined],
    [
      { include: '/etc/x.conf' },
      'spec.parameters.include may not be set: it reads another file into postgresql.conf. Remove it',
    ],
    [
      { archive_command: 'x' },
      'spec.parameters.archive_command may not be set: the operator owns it. Remove it',
    ],
    [
      { shared_preload_libraries: '/tmp/evil' },
      'spec.parameters.shared_preload_libraries may name libraries of the image only, not paths (/tmp/evil)',
    ],
  ])('%j', (parameters, message) => {
    const r = refusedParameter(parameters as Record<string, string> | undefined);
    expect(r?.message).toBe(message);
    if (r) expect(r.reason).toBe('InvalidParameters');
  });
});
