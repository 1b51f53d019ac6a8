import { type protos } from '@google-cloud/sql';
import { TerminalError } from '@steward/controller';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { type GcpConfig } from '../provider-config.js';
import { cloudSqlDatabaseVersion } from './database-version.js';

type IDatabaseInstance = protos.google.cloud.sql.v1.IDatabaseInstance;
type ISettings = protos.google.cloud.sql.v1.ISettings;

/**
 * The labels that mark an instance as made by a DatabaseInstance. Cloud SQL label keys start with
 * a lowercase letter; keys and values use lowercase letters, digits, `_` and `-`, at most 63
 * characters (a UID, a namespace and a sanitized name all fit).
 */
export const OwnerLabels = {
  /** `metadata.uid` of the owning object: the ownership mark `observe` checks. */
  uid: 'steward-owner-uid',
  namespace: 'steward-owner-namespace',
  name: 'steward-owner-name',
  managedBy: 'managed-by',
} as const;

/** What the instance should be, derived from the object and the profile. */
export interface DesiredInstance {
  databaseVersion: string;
  region: string;
  tier: string;
  dataDiskSizeGb: number;
  /** Only at create: Cloud SQL cannot change a disk's type. */
  dataDiskType?: string;
  /** Only at create. */
  zone?: string;
  availabilityType: 'ZONAL' | 'REGIONAL';
  /** Automated backups kept (one a day); 0 turns them off. */
  retainedBackups: number;
  labels: Record<string, string>;
  deletionProtection: boolean;
  /** ENCRYPTED_ONLY with spec.security.requireTLS (the default). */
  sslMode: 'ENCRYPTED_ONLY' | 'ALLOW_UNENCRYPTED_AND_ENCRYPTED';
}

/** The settings this provider manages, as the instance has them. */
export interface ActualSettings {
  tier: string;
  dataDiskSizeGb: number;
  availabilityType: string;
  backupsEnabled: boolean;
  retainedBackups: number | undefined;
  labels: Record<string, string>;
  deletionProtection: boolean;
  sslMode: string;
  /** The instance's whole ipConfiguration (a patch of it sends it back with sslMode changed). */
  ipConfiguration: NonNullable<ISettings['ipConfiguration']>;
}

/** A label value Cloud SQL accepts: lowercase, `[a-z0-9_-]`, at most 63 characters. */
export function labelValue(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 63);
}

export function ownerLabels(obj: DatabaseInstance): Record<string, string> {
  return {
    [OwnerLabels.uid]: labelValue(obj.metadata.uid ?? ''),
    [OwnerLabels.namespace]: labelValue(obj.metadata.namespace ?? ''),
    [OwnerLabels.name]: labelValue(obj.metadata.name ?? ''),
    [OwnerLabels.managedBy]: 'steward',
  };
}

/**
 * The instance `obj` asks for under `config`. Throws `TerminalError` for what only the user can fix:
 * an engine/version Cloud SQL does not offer (`InvalidParameter`), a size class the profile does
 * not define (`InvalidParameter`), or AWS overrides on a GCP profile (`Unsupported`: never ignored).
 */
export function desiredInstance(
  obj: DatabaseInstance,
  config: Pick<GcpConfig, 'sizeClasses' | 'region'>,
): DesiredInstance {
  const spec = obj.spec;
  if (spec.providerOverrides?.aws) {
    throw new TerminalError(
      'Unsupported',
      'spec.providerOverrides.aws is not supported by the gcp ProviderProfile (Cloud SQL); use spec.providerOverrides.gcp',
    );
  }
  const databaseVersion = cloudSqlDatabaseVersion(spec.engine, spec.version);
  if (!databaseVersion) {
    throw new TerminalError(
      'InvalidParameter',
      `spec.version ${spec.version} is not a Cloud SQL ${spec.engine} version (e.g. ${spec.engine === 'postgres' ? '16 or 15.7' : '8.0, 8.4 or 8.0.35'})`,
    );
  }
  const gcp = spec.providerOverrides?.gcp;
  const tier = gcp?.tier ?? (spec.size !== undefined ? config.sizeClasses[spec.size] : undefined);
  if (!tier) {
    throw new TerminalError(
      'InvalidParameter',
      `spec.size ${spec.size ?? '(unset)'} is not a size class of the ProviderProfile (known: ${Object.keys(config.sizeClasses).join(', ') || 'none'}); set a known size or spec.providerOverrides.gcp.tier`,
    );
  }
  const security = spec.security ?? {};
  if (security.storageEncrypted === false)
    throw new TerminalError(
      'Unsupported',
      'spec.security.storageEncrypted: false is not supported by Cloud SQL, which always encrypts storage; remove it',
    );
  if (security.publiclyAccessible === true)
    throw new TerminalError(
      'Unsupported',
      'spec.security.publiclyAccessible: true is not supported by the gcp provider (Cloud SQL instances are reached through authorized networks or the Cloud SQL Auth Proxy); remove it',
    );
  const retention = spec.backup?.retentionDays ?? 7;
  return {
    databaseVersion,
    region: config.region,
    tier,
    dataDiskSizeGb: spec.storageGiB,
    ...(gcp?.dataDiskType ? { dataDiskType: gcp.dataDiskType } : {}),
    ...(gcp?.zone ? { zone: gcp.zone } : {}),
    availabilityType: spec.highAvailability ? 'REGIONAL' : 'ZONAL',
    retainedBackups: retention,
    labels: ownerLabels(obj),
    deletionProtection: security.deletionProtection ?? true,
    sslMode: security.requireTLS === false ? 'ALLOW_UNENCRYPTED_AND_ENCRYPTED' : 'ENCRYPTED_ONLY',
  };
}

const num = (value: unknown): number | undefined => {
  if (value === null || value === undefined) return undefined;
  const n = Number(typeof value === 'object' ? String(value) : value);
  return Number.isFinite(n) ? n : undefined;
};

/** Reads an enum the client may hand over as a name or a number. */
export function enumName(enumObject: Record<string, unknown>, value: unknown): string {
  if (typeof value === 'number') {
    const name = Object.keys(enumObject).find((k) => enumObject[k] === value);
    return name ?? String(value);
  }
  return typeof value === 'string' ? value : '';
}

export function actualSettings(
  instance: IDatabaseInstance,
  availabilityTypes: Record<string, unknown>,
  sslModes: Record<string, unknown> = {},
): ActualSettings {
  const settings = instance.settings ?? {};
  const backup = settings.backupConfiguration ?? {};
  return {
    tier: settings.tier ?? '',
    dataDiskSizeGb: num(settings.dataDiskSizeGb?.value) ?? 0,
    availabilityType: enumName(availabilityTypes, settings.availabilityType),
    backupsEnabled: backup.enabled?.value === true,
    retainedBackups: num(backup.backupRetentionSettings?.retainedBackups?.value),
    labels: { ...(settings.userLabels ?? {}) },
    deletionProtection: settings.deletionProtectionEnabled?.value === true,
    sslMode: enumName(sslModes, settings.ipConfiguration?.sslMode),
    ipConfiguration: { ...(settings.ipConfiguration ?? {}) },
  };
}

/** The managed settings that differ; disk only when it must grow (it never shrinks). */
export function settingsDrift(desired: DesiredInstance, actual: ActualSettings): string[] {
  const drift: string[] = [];
  if (actual.tier !== desired.tier) drift.push('tier');
  if (actual.dataDiskSizeGb < desired.dataDiskSizeGb) drift.push('dataDiskSizeGb');
  if (actual.availabilityType !== desired.availabilityType) drift.push('availabilityType');
  const wantBackups = desired.retainedBackups > 0;
  if (
    actual.backupsEnabled !== wantBackups ||
    (wantBackups && actual.retainedBackups !== desired.retainedBackups)
  )
    drift.push('backupConfiguration');
  if (actual.labels[OwnerLabels.uid] !== desired.labels[OwnerLabels.uid]) drift.push('userLabels');
  if (actual.deletionProtection !== desired.deletionProtection)
    drift.push('deletionProtectionEnabled');
  if (!sslSatisfies(actual.sslMode, desired.sslMode)) drift.push('ipConfiguration');
  return drift;
}

function backupConfiguration(retainedBackups: number): ISettings['backupConfiguration'] {
  return retainedBackups > 0
    ? {
        enabled: { value: true },
        backupRetentionSettings: {
          retentionUnit: 'COUNT',
          retainedBackups: { value: retainedBackups },
        },
      }
    : { enabled: { value: false }, pointInTimeRecoveryEnabled: { value: false } };
}

/** The `instances.insert` body (without the root password). */
export function insertBody(name: string, desired: DesiredInstance): IDatabaseInstance {
  return {
    name,
    databaseVersion: desired.databaseVersion as IDatabaseInstance['databaseVersion'],
    region: desired.region,
    settings: {
      tier: desired.tier,
      dataDiskSizeGb: { value: desired.dataDiskSizeGb },
      ...(desired.dataDiskType
        ? { dataDiskType: desired.dataDiskType as ISettings['dataDiskType'] }
        : {}),
      ...(desired.zone ? { locationPreference: { zone: desired.zone } } : {}),
      availabilityType: desired.availabilityType,
      backupConfiguration: backupConfiguration(desired.retainedBackups),
      userLabels: desired.labels,
      deletionProtectionEnabled: { value: desired.deletionProtection },
      ipConfiguration: { ipv4Enabled: { value: true }, sslMode: desired.sslMode },
    },
  };
}

/**
 * The `instances.patch` settings that bring `actual` to `desired`, or undefined when nothing
 * differs. Only changed fields are sent (a patch merges). The disk only grows. Owner labels are
 * added to the instance's own labels (a non-empty map replaces them whole), so an adopted
 * instance keeps its labels and gains ours.
 */
export function patchSettings(
  desired: DesiredInstance,
  actual: ActualSettings,
): ISettings | undefined {
  const drift = settingsDrift(desired, actual);
  if (drift.length === 0) return undefined;
  const patch: ISettings = {};
  if (drift.includes('tier')) patch.tier = desired.tier;
  if (drift.includes('dataDiskSizeGb')) patch.dataDiskSizeGb = { value: desired.dataDiskSizeGb };
  if (drift.includes('availabilityType')) patch.availabilityType = desired.availabilityType;
  if (drift.includes('backupConfiguration'))
    patch.backupConfiguration = backupConfiguration(desired.retainedBackups);
  if (drift.includes('userLabels')) patch.userLabels = { ...actual.labels, ...desired.labels };
  if (drift.includes('deletionProtectionEnabled'))
    patch.deletionProtectionEnabled = { value: desired.deletionProtection };
  if (drift.includes('ipConfiguration'))
    patch.ipConfiguration = { ...actual.ipConfiguration, sslMode: desired.sslMode };
  return patch;
}

/**
 * Whether the instance's sslMode is what `wanted` asks: TLS required is met by ENCRYPTED_ONLY and
 * by the stricter TRUSTED_CLIENT_CERTIFICATE_REQUIRED (never loosened); an opt-out by exactly
 * ALLOW_UNENCRYPTED_AND_ENCRYPTED.
 */
export function sslSatisfies(actual: string, wanted: DesiredInstance['sslMode']): boolean {
  return wanted === 'ENCRYPTED_ONLY'
    ? actual === 'ENCRYPTED_ONLY' || actual === 'TRUSTED_CLIENT_CERTIFICATE_REQUIRED'
    : actual === 'ALLOW_UNENCRYPTED_AND_ENCRYPTED';
}
