import { TerminalError } from '@steward/controller';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { type AwsConfig } from '../provider-config.js';
import { RdsReasons } from './errors.js';

type StorageType = 'gp2' | 'gp3' | 'io1' | 'io2' | 'standard';

/** The RDS instance a DatabaseInstance asks for, in RDS's terms. */
export interface DesiredRdsInstance {
  engine: 'postgres' | 'mysql';
  engineVersion: string;
  instanceClass: string;
  allocatedStorage: number;
  storageType: StorageType;
  iops?: number;
  multiAZ: boolean;
  backupRetentionPeriod: number;
  dbSubnetGroupName?: string;
  vpcSecurityGroupIds?: string[];
  /** Set at creation only (RDS cannot encrypt an instance in place). */
  storageEncrypted: boolean;
  publiclyAccessible: boolean;
  deletionProtection: boolean;
}

/**
 * RDS's storage bounds per storage type for PostgreSQL and MySQL (GiB), as documented in the RDS
 * user guide ("Amazon RDS DB instance storage"). Moto enforces none of them.
 */
export const StorageBounds: Record<StorageType, { min: number; max: number }> = {
  gp2: { min: 20, max: 65536 },
  gp3: { min: 20, max: 65536 },
  io1: { min: 100, max: 65536 },
  io2: { min: 100, max: 65536 },
  standard: { min: 5, max: 3072 },
};

/** Engine versions RDS offers (postgres majors, mysql major.minor); override with options. */
export const DefaultEngineVersions = {
  postgres: ['11', '12', '13', '14', '15', '16', '17'],
  mysql: ['5.7', '8.0', '8.4'],
} as const;

const INSTANCE_CLASS = /^db\.[a-z0-9]+\.[a-z0-9]+$/;

const invalid = (message: string) => new TerminalError(RdsReasons.InvalidParameter, message);

/**
 * The desired RDS instance of `obj`, or a `TerminalError` naming the field: what RDS would refuse
 * (storage bounds per storage type, IOPS without a provisioned-IOPS type, unknown versions and
 * classes) is refused here, because moto accepts it and a real refusal would come only after a
 * create call. Pure.
 */
export function desiredRdsInstance(
  obj: DatabaseInstance,
  config: Pick<AwsConfig, 'sizeClasses'>,
  engineVersions: Record<'postgres' | 'mysql', readonly string[]> = DefaultEngineVersions,
): DesiredRdsInstance {
  const spec = obj.spec;
  if (spec.providerOverrides?.gcp) {
    throw new TerminalError(
      RdsReasons.Unsupported,
      'spec.providerOverrides.gcp is not supported by the aws provider; use spec.providerOverrides.aws',
    );
  }
  const aws = spec.providerOverrides?.aws ?? {};

  const instanceClass =
    aws.instanceClass ?? (spec.size !== undefined ? config.sizeClasses[spec.size] : undefined);
  if (!instanceClass) {
    const known = Object.keys(config.sizeClasses).sort().join(', ') || 'none';
    throw invalid(
      spec.size !== undefined
        ? `spec.size "${spec.size}" is not a size class of the ProviderProfile (known: ${known})`
        : 'spec.size or spec.providerOverrides.aws.instanceClass is required',
    );
  }
  if (!INSTANCE_CLASS.test(instanceClass)) {
    throw invalid(
      `instance class "${instanceClass}" (from ${aws.instanceClass ? 'spec.providerOverrides.aws.instanceClass' : `spec.size "${spec.size}"`}) is not an RDS DB instance class such as db.t3.micro`,
    );
  }

  const engine = spec.engine;
  const known = engineVersions[engine];
  const parts = spec.version.split('.');
  const family = engine === 'postgres' ? parts[0]! : parts.slice(0, 2).join('.');
  if (!known.includes(family)) {
    throw invalid(
      `spec.version "${spec.version}" is not a ${engine} version RDS offers (${engine === 'postgres' ? 'majors' : 'versions'}: ${known.join(', ')})`,
    );
  }

  const storageType: StorageType = aws.storageType ?? (aws.iops !== undefined ? 'io1' : 'gp2');
  const bounds = StorageBounds[storageType];
  if (spec.storageGiB < bounds.min || spec.storageGiB > bounds.max) {
    throw invalid(
      `spec.storageGiB ${spec.storageGiB} is out of range for RDS ${engine} with storage type ${storageType}: ${bounds.min}..${bounds.max} GiB`,
    );
  }
  if (aws.iops !== undefined && !['io1', 'io2', 'gp3'].includes(storageType)) {
    throw invalid(
      `spec.providerOverrides.aws.iops needs storage type io1, io2 or gp3, not ${storageType}`,
    );
  }
  if ((storageType === 'io1' || storageType === 'io2') && aws.iops === undefined) {
    throw invalid(`spec.providerOverrides.aws.iops is required with storage type ${storageType}`);
  }

  const security = spec.security ?? {};
  if (security.requireTLS === false) {
    throw new TerminalError(
      RdsReasons.Unsupported,
      'spec.security.requireTLS: false is not supported by the aws provider: Steward does not manage RDS parameter groups (rds.force_ssl, require_secure_transport); remove it',
    );
  }

  return {
    engine,
    engineVersion: spec.version,
    instanceClass,
    allocatedStorage: spec.storageGiB,
    storageType,
    ...(aws.iops !== undefined ? { iops: aws.iops } : {}),
    multiAZ: spec.highAvailability ?? false,
    backupRetentionPeriod: spec.backup?.retentionDays ?? 7,
    ...(aws.dbSubnetGroupName ? { dbSubnetGroupName: aws.dbSubnetGroupName } : {}),
    ...(aws.vpcSecurityGroupIds?.length
      ? { vpcSecurityGroupIds: [...aws.vpcSecurityGroupIds].sort() }
      : {}),
    storageEncrypted: security.storageEncrypted ?? true,
    publiclyAccessible: security.publiclyAccessible ?? false,
    deletionProtection: security.deletionProtection ?? true,
  };
}
