import { invalidRequest } from './errors.js';
import { isObject, toNumber, type Json, type JsonObject } from './json.js';

/**
 * The input rules of Cloud SQL that a DatabaseInstance controller can trip over: instance names,
 * database versions, machine tiers (and which edition they belong to), disk size, labels and backup
 * settings. Each broken rule is a 400 the way the real API answers: before any operation starts.
 */

const MIN_DISK_GB = 10;
const MAX_DISK_GB = 65_536;

/** Shared-core tiers: ENTERPRISE only, no high availability. */
const sharedCoreTiers = new Set(['db-f1-micro', 'db-g1-small']);
const n1Cores: Record<string, number[]> = {
  standard: [1, 2, 4, 8, 16, 32, 64, 96],
  highmem: [2, 4, 8, 16, 32, 64, 96],
};
const perfOptimizedCores = [2, 4, 8, 16, 32, 48, 64, 80, 96, 128];

export interface TierRules {
  /** Tiers accepted in addition to the built-in families (for any engine and edition). */
  extraTiers?: readonly string[];
}

/**
 * The edition a tier belongs to, or undefined for a tier Cloud SQL does not have:
 * `db-f1-micro`/`db-g1-small` (shared core), `db-custom-<vCPUs>-<MiB>` (1 or an even number of vCPUs
 * up to 96; 0.9–6.5 GiB per vCPU, a multiple of 256 MiB, at least 3840 MiB), `db-n1-standard-N` and
 * `db-n1-highmem-N` (MySQL and SQL Server only) — all ENTERPRISE — and `db-perf-optimized-N-<vCPUs>`
 * (ENTERPRISE_PLUS).
 */
export function tierEdition(tier: string, databaseVersion: string): string | undefined {
  if (sharedCoreTiers.has(tier))
    return databaseVersion.startsWith('SQLSERVER') ? undefined : 'ENTERPRISE';
  const custom = /^db-custom-(\d+)-(\d+)$/.exec(tier);
  if (custom) {
    const cpus = Number(custom[1]);
    const mib = Number(custom[2]);
    const cpusOk = cpus === 1 || (cpus >= 2 && cpus <= 96 && cpus % 2 === 0);
    const memoryOk =
      mib % 256 === 0 && mib >= Math.max(3840, 0.9 * 1024 * cpus) && mib <= 6.5 * 1024 * cpus;
    return cpusOk && memoryOk ? 'ENTERPRISE' : undefined;
  }
  const n1 = /^db-n1-(standard|highmem)-(\d+)$/.exec(tier);
  if (n1) {
    if (databaseVersion.startsWith('POSTGRES')) return undefined;
    return n1Cores[n1[1] ?? '']?.includes(Number(n1[2])) ? 'ENTERPRISE' : undefined;
  }
  const perf = /^db-perf-optimized-N-(\d+)$/.exec(tier);
  if (perf) return perfOptimizedCores.includes(Number(perf[1])) ? 'ENTERPRISE_PLUS' : undefined;
  return undefined;
}

/** Instance IDs: lowercase letters, digits and hyphens, starting with a letter, not ending in '-'. */
export function validateInstanceName(name: Json | undefined, project: string): string {
  if (typeof name !== 'string' || name === '') throw invalidRequest('Missing instance name.');
  const ok = /^[a-z]([a-z0-9-]*[a-z0-9])?$/.test(name) && project.length + 1 + name.length <= 98;
  if (!ok) {
    throw invalidRequest(
      `Instance name (${name}) is invalid: use lowercase letters, numbers and hyphens, start with a letter, and keep project ID and instance name within 98 characters.`,
    );
  }
  return name;
}

export function validateDatabaseVersion(
  version: Json | undefined,
  known: (name: string) => boolean,
): string {
  if (version === undefined || version === 'SQL_DATABASE_VERSION_UNSPECIFIED') {
    // The real API would fall back to a MySQL default here. A name the client library does not know
    // is dropped before it is sent, so a missing version almost always means a wrong one: refuse it.
    throw invalidRequest('Missing databaseVersion.');
  }
  if (typeof version !== 'string' || !known(version)) {
    throw invalidRequest(`Invalid database version (${String(version)}).`);
  }
  return version;
}

const labelKey = /^[a-z][a-z0-9_-]{0,62}$/;
const labelValue = /^[a-z0-9_-]{0,63}$/;

/** Validates a complete Settings object for an instance of `databaseVersion`. */
export function validateSettings(settings: JsonObject, databaseVersion: string, rules: TierRules) {
  const tier = settings['tier'];
  if (typeof tier !== 'string' || tier === '') throw invalidRequest('Missing settings.tier.');
  const edition =
    typeof settings['edition'] === 'string' && settings['edition'] !== 'EDITION_UNSPECIFIED'
      ? settings['edition']
      : 'ENTERPRISE';
  if (!rules.extraTiers?.includes(tier)) {
    const tierBelongsTo = tierEdition(tier, databaseVersion);
    if (tierBelongsTo === undefined || tierBelongsTo !== edition) {
      throw invalidRequest(
        `Invalid Tier (${tier}) for (${databaseVersion}) Edition (${edition}). Choose a tier from the list returned by SqlTiers.List.`,
      );
    }
  }

  const disk = toNumber(settings['dataDiskSizeGb']);
  if (settings['dataDiskSizeGb'] !== undefined) {
    if (disk === undefined || !Number.isInteger(disk) || disk < MIN_DISK_GB || disk > MAX_DISK_GB) {
      throw invalidRequest(
        `Invalid value for settings.dataDiskSizeGb (${String(settings['dataDiskSizeGb'])}): it must be between ${MIN_DISK_GB} and ${MAX_DISK_GB} GB.`,
      );
    }
  }

  const availability = settings['availabilityType'];
  if (availability === 'REGIONAL' && sharedCoreTiers.has(tier)) {
    throw invalidRequest(`High availability (REGIONAL) is not supported for the tier ${tier}.`);
  }

  const ip = settings['ipConfiguration'];
  if (isObject(ip) && ip['ipv4Enabled'] === false && !ip['privateNetwork'] && !ip['pscConfig']) {
    throw invalidRequest('At least one of public IP or private IP must be enabled.');
  }

  const labels = settings['userLabels'];
  if (labels !== undefined) {
    if (!isObject(labels)) throw invalidRequest('settings.userLabels must be a map.');
    const entries = Object.entries(labels);
    if (entries.length > 64) throw invalidRequest('At most 64 user labels are allowed.');
    for (const [key, value] of entries) {
      if (!labelKey.test(key) || typeof value !== 'string' || !labelValue.test(value)) {
        throw invalidRequest(
          `Invalid user label (${key}: ${String(value)}): keys start with a lowercase letter; keys and values use lowercase letters, digits, '_' and '-', at most 63 characters.`,
        );
      }
    }
  }

  const backup = settings['backupConfiguration'];
  if (isObject(backup)) {
    const start = backup['startTime'];
    if (
      start !== undefined &&
      (typeof start !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(start))
    ) {
      throw invalidRequest(
        `Invalid value for settings.backupConfiguration.startTime (${String(start)}): use HH:MM.`,
      );
    }
    const retention = backup['backupRetentionSettings'];
    if (isObject(retention) && retention['retainedBackups'] !== undefined) {
      const retained = toNumber(retention['retainedBackups']);
      if (retained === undefined || !Number.isInteger(retained) || retained < 1 || retained > 365) {
        throw invalidRequest(
          `Invalid value for settings.backupConfiguration.backupRetentionSettings.retainedBackups (${String(retention['retainedBackups'])}): it must be between 1 and 365.`,
        );
      }
    }
    const logDays = backup['transactionLogRetentionDays'];
    if (logDays !== undefined) {
      const days = toNumber(logDays);
      const max = edition === 'ENTERPRISE_PLUS' ? 35 : 7;
      if (days === undefined || !Number.isInteger(days) || days < 1 || days > max) {
        throw invalidRequest(
          `Invalid value for settings.backupConfiguration.transactionLogRetentionDays (${String(logDays)}): it must be between 1 and ${max}.`,
        );
      }
    }
    if (backup['pointInTimeRecoveryEnabled'] === true && backup['enabled'] !== true) {
      throw invalidRequest('Point-in-time recovery requires automated backups to be enabled.');
    }
  }
}

/** Rules for changing settings of an existing instance. */
export function validateSettingsChange(current: JsonObject, next: JsonObject) {
  const before = toNumber(current['dataDiskSizeGb']) ?? MIN_DISK_GB;
  const after = toNumber(next['dataDiskSizeGb']) ?? before;
  if (after < before) {
    throw invalidRequest(
      `The disk size cannot be decreased (from ${before} GB to ${after} GB); use performDiskShrink.`,
    );
  }
  if (next['dataDiskType'] !== undefined && next['dataDiskType'] !== current['dataDiskType']) {
    throw invalidRequest('settings.dataDiskType cannot be changed after the instance is created.');
  }
}
