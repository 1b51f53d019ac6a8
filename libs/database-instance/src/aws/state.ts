import { type DBInstance } from '@aws-sdk/client-rds';
import { type ProviderState } from '@steward/database-instance-api';

const states: Record<string, ProviderState> = {
  available: 'available',
  'storage-optimization': 'available',
  creating: 'creating',
  'backing-up': 'backing-up',
  maintenance: 'maintenance',
  stopped: 'stopped',
  stopping: 'stopped',
  deleting: 'deleting',
  failed: 'failed',
  'incompatible-credentials': 'failed',
  'incompatible-network': 'failed',
  'incompatible-option-group': 'failed',
  'incompatible-parameters': 'failed',
  'incompatible-restore': 'failed',
  'inaccessible-encryption-credentials': 'failed',
  'inaccessible-encryption-credentials-recoverable': 'failed',
  'insufficient-capacity': 'failed',
  'restore-error': 'failed',
  'storage-full': 'failed',
};
for (const s of [
  'modifying',
  'upgrading',
  'rebooting',
  'renaming',
  'resetting-master-credentials',
  'starting',
  'configuring-enhanced-monitoring',
  'configuring-iam-database-auth',
  'configuring-log-exports',
  'converting-to-vpc',
  'moving-to-vpc',
  'storage-config-upgrade',
  'storage-initialization',
]) {
  states[s] = 'modifying';
}

/** RDS's `DBInstanceStatus` in the kind's normalised `providerState`; `unknown` when new to us. */
export function providerState(status: string | undefined): ProviderState {
  return (status && states[status]) || 'unknown';
}

/**
 * Whether clients can use the instance: `available`, and also while RDS backs it up or optimises
 * its storage (it serves traffic then; a nightly backup must not flip `Ready`).
 */
export function isUsable(status: string | undefined): boolean {
  return status === 'available' || status === 'backing-up' || status === 'storage-optimization';
}

/** The status fields observed on an instance (no secrets). */
export function observedStatus(instance: DBInstance): Record<string, unknown> {
  const { Address: host, Port: port } = instance.Endpoint ?? {};
  return {
    ...(host && port ? { endpoint: { host, port } } : {}),
    atProvider: {
      ...(instance.DBInstanceStatus ? { status: instance.DBInstanceStatus } : {}),
      ...(instance.DBInstanceClass ? { instanceClass: instance.DBInstanceClass } : {}),
      ...(instance.EngineVersion ? { engineVersion: instance.EngineVersion } : {}),
      ...(instance.AllocatedStorage !== undefined ? { storageGiB: instance.AllocatedStorage } : {}),
      ...(instance.MultiAZ !== undefined ? { highAvailability: instance.MultiAZ } : {}),
      ...(instance.BackupRetentionPeriod !== undefined
        ? { backupRetentionDays: instance.BackupRetentionPeriod }
        : {}),
      ...(instance.StorageEncrypted !== undefined
        ? { storageEncrypted: instance.StorageEncrypted }
        : {}),
      ...(instance.PubliclyAccessible !== undefined
        ? { publiclyAccessible: instance.PubliclyAccessible }
        : {}),
      ...(instance.DeletionProtection !== undefined
        ? { deletionProtection: instance.DeletionProtection }
        : {}),
    },
  };
}
