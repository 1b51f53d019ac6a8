import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import { backupAgeMs, extraInstanceSet, upgradeGate } from './upgrade.js';

const now = new Date('2026-12-03T12:00:00Z');
const destination = { bucket: 'backups', credentialsSecretRef: { name: 'keys' } };
const cluster = (
  spec: Partial<PostgresCluster['spec']>,
  status: PostgresCluster['status'] = {},
  generation = 4,
): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'orders', namespace: 'shop', generation },
    spec: { version: '17', ...spec },
    status: { version: '15', ...status },
  }) as PostgresCluster;
const verified = (completedAt: string, result: 'Passed' | 'Failed' = 'Passed') => ({
  backup: {
    lastVerification: {
      at: completedAt,
      backupId: '20261203T100000Z',
      job: 'orders-vf-1',
      result,
      recoveryPoint: completedAt,
      message: '',
    },
  },
});
const withBackups = { backup: { destination, verify: {} } };

describe('upgradeGate', () => {
  it('waits for approvedVersion to name the new version', () => {
    expect(upgradeGate(cluster(withBackups), '15', now)).toMatchObject({
      open: false,
      reason: 'WaitingForApproval',
      message: expect.stringContaining('set spec.upgrade.approvedVersion to "17"'),
    });
    expect(
      upgradeGate(cluster({ ...withBackups, upgrade: { approvedVersion: '16' } }), '15', now),
    ).toMatchObject({ open: false, reason: 'WaitingForApproval' });
  });

  it('waits, approved, for a rehearsal that passed on a backup younger than maxBackupAge', () => {
    const approved = { upgrade: { approvedVersion: '17' } };
    expect(upgradeGate(cluster(approved), '15', now)).toMatchObject({
      open: false,
      reason: 'NoVerifiedBackup',
      message: expect.stringContaining('the cluster has no spec.backup'),
    });
    expect(upgradeGate(cluster({ ...approved, backup: { destination } }), '15', now)).toMatchObject(
      { message: expect.stringContaining('spec.backup.verify is not set') },
    );
    expect(
      upgradeGate(
        cluster({ ...approved, ...withBackups }, verified('2026-12-03T11:00:00Z', 'Failed')),
        '15',
        now,
      ),
    ).toMatchObject({ message: expect.stringContaining('failed') });
    expect(
      upgradeGate(
        cluster({ ...approved, ...withBackups }, verified('2026-12-02T11:00:00Z')),
        '15',
        now,
      ),
    ).toMatchObject({
      reason: 'NoVerifiedBackup',
      message: expect.stringContaining('is 1500 minutes old'),
    });
    expect(
      upgradeGate(
        cluster(
          { ...withBackups, upgrade: { approvedVersion: '17', maxBackupAge: '48h' } },
          verified('2026-12-02T11:00:00Z'),
        ),
        '15',
        now,
      ),
    ).toEqual({ open: true, verifiedBackup: '20261203T100000Z' });
  });

  it('does not start again for the generation of a rolled-back upgrade', () => {
    const rolledBack = {
      ...verified('2026-12-03T11:00:00Z'),
      upgrade: { phase: 'RolledBack', to: '17', generation: 4, message: 'restore failed' },
    } as PostgresCluster['status'];
    const spec = { ...withBackups, upgrade: { approvedVersion: '17' } };
    expect(upgradeGate(cluster(spec, rolledBack, 4), '15', now)).toMatchObject({
      open: false,
      reason: 'UpgradeRolledBack',
    });
    expect(upgradeGate(cluster(spec, rolledBack, 5), '15', now)).toMatchObject({ open: true });
  });
});

describe('extraInstanceSet', () => {
  const u = {
    from: '15',
    to: '17',
    fromSet: 'orders',
    toSet: 'orders-v17',
    fromImage: 'pg:15',
    toImage: 'pg:17',
    fromReplicas: 2,
  };
  const at = (phase: string) =>
    extraInstanceSet(cluster({}, { upgrade: { ...u, phase } as never }));
  it('renders the new set of one instance before the switch, the old one after it, none when done', () => {
    const next = { set: 'orders-v17', version: '17', image: 'pg:17', replicas: 1 };
    expect(at('Provisioning')).toEqual(next);
    expect(at('Restoring')).toEqual(next);
    expect(at('Completing')).toEqual({
      set: 'orders',
      version: '15',
      image: 'pg:15',
      replicas: 2,
    });
    expect(at('RollingBack')).toBeUndefined();
    expect(at('Completed')).toBeUndefined();
  });
});

describe('backupAgeMs', () => {
  it('reads minutes and hours', () => {
    expect(backupAgeMs('90m')).toBe(5_400_000);
    expect(backupAgeMs('24h')).toBe(86_400_000);
    expect(() => backupAgeMs('1d')).toThrow('not an age');
  });
});
