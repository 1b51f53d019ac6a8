import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ProviderProfile, type ProviderProfileSpec } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { resolvePostgres } from './resolve.js';

type Kubernetes = NonNullable<ProviderProfileSpec['kubernetes']>;

const profile = (kubernetes: Partial<Kubernetes> = {}): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'production' },
    spec: {
      provider: 'kubernetes',
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
