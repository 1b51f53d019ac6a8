import { TerminalError } from '@steward/controller';
import { type DBInstance } from '@aws-sdk/client-rds';
import { type DesiredRdsInstance } from './desired.js';
import { RdsReasons } from './errors.js';

/** The ModifyDBInstance fields that would bring an instance to the desired state. */
export interface RdsModification {
  DBInstanceClass?: string;
  AllocatedStorage?: number;
  StorageType?: string;
  Iops?: number;
  MultiAZ?: boolean;
  BackupRetentionPeriod?: number;
  VpcSecurityGroupIds?: string[];
  PubliclyAccessible?: boolean;
  DeletionProtection?: boolean;
}

/**
 * What must change on `actual` to match `desired`. Values RDS has accepted but not applied yet
 * (`PendingModifiedValues`) count as applied, so a modification is never requested twice. Only
 * fields ModifyDBInstance can change in place are compared; engine, version, subnet group and
 * storage encryption are set at create. Pure.
 */
export function planModification(desired: DesiredRdsInstance, actual: DBInstance): RdsModification {
  const pending = actual.PendingModifiedValues ?? {};
  const plan: RdsModification = {};
  const instanceClass = pending.DBInstanceClass ?? actual.DBInstanceClass;
  if (instanceClass !== desired.instanceClass) plan.DBInstanceClass = desired.instanceClass;
  const storage = pending.AllocatedStorage ?? actual.AllocatedStorage;
  if (storage !== desired.allocatedStorage) plan.AllocatedStorage = desired.allocatedStorage;
  const storageType = pending.StorageType ?? actual.StorageType;
  if (storageType !== undefined && storageType !== desired.storageType)
    plan.StorageType = desired.storageType;
  if (desired.iops !== undefined && (pending.Iops ?? actual.Iops) !== desired.iops)
    plan.Iops = desired.iops;
  const multiAZ = pending.MultiAZ ?? actual.MultiAZ ?? false;
  if (multiAZ !== desired.multiAZ) plan.MultiAZ = desired.multiAZ;
  const retention = pending.BackupRetentionPeriod ?? actual.BackupRetentionPeriod;
  if (retention !== desired.backupRetentionPeriod)
    plan.BackupRetentionPeriod = desired.backupRetentionPeriod;
  if ((actual.PubliclyAccessible ?? false) !== desired.publiclyAccessible)
    plan.PubliclyAccessible = desired.publiclyAccessible;
  if ((actual.DeletionProtection ?? false) !== desired.deletionProtection)
    plan.DeletionProtection = desired.deletionProtection;
  if (desired.vpcSecurityGroupIds) {
    const current = (actual.VpcSecurityGroups ?? []).map((g) => g.VpcSecurityGroupId ?? '').sort();
    if (current.join(',') !== desired.vpcSecurityGroupIds.join(','))
      plan.VpcSecurityGroupIds = desired.vpcSecurityGroupIds;
  }
  return plan;
}

/**
 * Refuses a modification RDS would refuse (moto accepts it): shrinking storage, or growing it by
 * less than 10 % (RDS user guide, "Increasing DB instance storage capacity").
 */
export function checkModification(plan: RdsModification, actual: DBInstance): void {
  const current = actual.PendingModifiedValues?.AllocatedStorage ?? actual.AllocatedStorage;
  if (plan.AllocatedStorage === undefined || current === undefined) return;
  if (plan.AllocatedStorage < current) {
    throw new TerminalError(
      RdsReasons.InvalidParameter,
      `spec.storageGiB ${plan.AllocatedStorage} is less than the instance's ${current} GiB: RDS storage can only grow`,
    );
  }
  const minimum = Math.ceil(current * 1.1);
  if (plan.AllocatedStorage < minimum) {
    throw new TerminalError(
      RdsReasons.InvalidParameter,
      `spec.storageGiB ${plan.AllocatedStorage} grows the instance's ${current} GiB by less than 10 %: RDS needs at least ${minimum} GiB`,
    );
  }
}
