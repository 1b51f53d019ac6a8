import {
  DEFAULT_MAX_LAG_BYTES,
  DEFAULT_RETENTION_DAYS,
  type PostgresCluster,
} from '@steward/postgres-cluster-api';
import { admitWorkload, type NamespaceFacts } from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { BuiltInImages } from './images.js';
import { PostgresReasons } from './status.js';

/** What a PostgresCluster runs with, once its profile (or the built-in catalogue) allowed it. */
export interface ResolvedPostgres {
  image: string;
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  storage: { size: string; storageClassName?: string };
}

export type Resolution =
  | { allowed: true; resolved: ResolvedPostgres }
  | { allowed: false; reason: string; message: string };

/** The default volume size when neither the spec nor a size class gives one. */
export const DEFAULT_STORAGE = '1Gi';

/**
 * The image, resources and volume of a PostgresCluster running major `version` (pure): through
 * its kubernetes ProviderProfile's guardrails, size classes and image catalogue when it has one,
 * else the built-in catalogue (a `spec.size` then has nothing to name: `SizeNeedsProfile`).
 * Explicit `resources` and `storage.size` win over the size class.
 */
export function resolvePostgres(
  obj: PostgresCluster,
  profile: ProviderProfile | undefined,
  version: string,
  namespace: NamespaceFacts = { name: obj.metadata.namespace ?? '' },
): Resolution {
  const spec = obj.spec;
  let image: string;
  let resources = spec.resources;
  let storageSize = spec.storage?.size;
  if (profile) {
    const admission = admitWorkload(profile, {
      kind: 'PostgresCluster',
      namespace,
      engine: 'postgres',
      version,
      ...(spec.size ? { size: spec.size } : {}),
      replicas: spec.replicas ?? 1,
      persistence: true,
      ...(spec.storage?.size ? { storageSize: spec.storage.size } : {}),
      defaultStorageSize: DEFAULT_STORAGE,
      ...(spec.storage?.storageClassName
        ? { storageClassName: spec.storage.storageClassName }
        : {}),
      deletionPolicy: spec.deletionPolicy ?? 'Retain',
      fields: {
        engine: 'the kind PostgresCluster',
        size: 'spec.size',
        storageSize: 'spec.storage.size',
        storageClassName: 'spec.storage.storageClassName',
      },
    });
    if (!admission.allowed) return admission;
    const guard = replicationGuardrails(obj, profile);
    if (guard) return guard;
    const r = admission.resolved;
    image = r.image;
    if (!resources && r.resources)
      resources = { requests: { ...r.resources }, limits: { memory: r.resources.memory } };
    storageSize = storageSize ?? r.storageSize;
  } else {
    if (spec.size) {
      return {
        allowed: false,
        reason: PostgresReasons.SizeNeedsProfile,
        message: `spec.size ${spec.size} names a size class, but the PostgresCluster has no ProviderProfile: set spec.providerProfileRef, or give spec.resources and spec.storage.size instead`,
      };
    }
    const entry = BuiltInImages.find((i) => i.engine === 'postgres' && i.version === version);
    if (!entry) {
      const known = BuiltInImages.map((i) => i.version);
      return {
        allowed: false,
        reason: PostgresReasons.ImageNotInCatalogue,
        message: `no image for PostgreSQL ${version} in the controller's catalogue (${known.join(', ')}); use one of those versions or a ProviderProfile whose spec.kubernetes.images has it`,
      };
    }
    image = entry.image;
  }
  return {
    allowed: true,
    resolved: {
      image,
      ...(resources ? { resources } : {}),
      storage: {
        size: storageSize ?? DEFAULT_STORAGE,
        ...(spec.storage?.storageClassName
          ? { storageClassName: spec.storage.storageClassName }
          : {}),
      },
    },
  };
}

/**
 * A kubernetes profile's production guardrails for PostgreSQL: `requireSyncReplication` (the
 * cluster must say `replication.mode: sync`) and `maxFailoverLagBytes` (its failover may not be
 * allowed to lose more than that). Undefined when the cluster keeps to them.
 */
function replicationGuardrails(
  obj: PostgresCluster,
  profile: ProviderProfile,
): (Resolution & { allowed: false }) | undefined {
  const block = profile.spec.kubernetes;
  const name = profile.metadata.name;
  if (block?.requireSyncReplication && (obj.spec.replication?.mode ?? 'async') !== 'sync') {
    return {
      allowed: false,
      reason: PostgresReasons.SyncReplicationRequired,
      message: `ProviderProfile ${name} requires sync replication (spec.kubernetes.requireSyncReplication): set spec.replication.mode: sync (and spec.replicas of at least 2)`,
    };
  }
  const bound = block?.maxFailoverLagBytes;
  const allowed = obj.spec.failover?.maxLagBytes ?? DEFAULT_MAX_LAG_BYTES;
  if (bound !== undefined && (obj.spec.failover?.enabled ?? true) && allowed > bound) {
    return {
      allowed: false,
      reason: PostgresReasons.MaxLagBytesNotAllowed,
      message: `spec.failover.maxLagBytes ${allowed}${obj.spec.failover?.maxLagBytes === undefined ? ' (the default)' : ''} exceeds spec.kubernetes.maxFailoverLagBytes ${bound} of ProviderProfile ${name}: set spec.failover.maxLagBytes to at most ${bound}`,
    };
  }
  return undefined;
}

/**
 * A PostgresCluster's backup settings resolved against its kubernetes ProviderProfile (pure):
 * spec.backup.destination and spec.bootstrap.recovery.source.destination default to the profile's
 * spec.kubernetes.backup.destination, each in the folder `<its prefix>/<namespace>/<name>` (the
 * source's name for a recovery); spec.backup.retentionDays defaults to the profile's
 * minRetentionDays when that is more than DEFAULT_RETENTION_DAYS, and one below it is refused.
 * The cluster returned is the one every backup function reads (destinationOf never throws on it).
 */
export function resolveBackup(
  obj: PostgresCluster,
  profile: ProviderProfile | undefined,
):
  | { allowed: true; cluster: PostgresCluster }
  | { allowed: false; reason: string; message: string } {
  const backup = obj.spec.backup;
  const recovery = obj.spec.bootstrap?.recovery;
  const fromProfile = profile?.spec.kubernetes?.backup;
  const profileName = profile?.metadata.name;
  const folder = (name: string) =>
    fromProfile?.destination?.prefix
      ? { prefix: `${fromProfile.destination.prefix}/${obj.metadata.namespace}/${name}` }
      : {};
  const missing = (field: string) => ({
    allowed: false as const,
    reason: PostgresReasons.BackupDestinationMissing,
    message: `${field} is not set${profileName ? ` and ProviderProfile ${profileName} has no spec.kubernetes.backup.destination` : ' and the PostgresCluster has no ProviderProfile to take one from'}: set it, or use a profile that names one`,
  });
  let spec = obj.spec;
  if (backup) {
    const min = fromProfile?.minRetentionDays;
    if (backup.retentionDays !== undefined && min !== undefined && backup.retentionDays < min)
      return {
        allowed: false,
        reason: PostgresReasons.RetentionBelowMinimum,
        message: `spec.backup.retentionDays ${backup.retentionDays} is below the ${min} days ProviderProfile ${profileName} requires: keep at least ${min}`,
      };
    const destination =
      backup.destination ??
      (fromProfile?.destination
        ? { ...fromProfile.destination, ...folder(obj.metadata.name!) }
        : undefined);
    if (!destination) return missing('spec.backup.destination');
    spec = {
      ...spec,
      backup: {
        ...backup,
        destination,
        retentionDays: backup.retentionDays ?? Math.max(DEFAULT_RETENTION_DAYS, min ?? 0),
      },
    };
  }
  if (recovery && !recovery.source.destination) {
    if (!fromProfile?.destination) return missing('spec.bootstrap.recovery.source.destination');
    spec = {
      ...spec,
      bootstrap: {
        ...spec.bootstrap,
        recovery: {
          ...recovery,
          source: {
            ...recovery.source,
            destination: {
              ...fromProfile.destination,
              ...folder(recovery.source.name ?? obj.metadata.name!),
            },
          },
        },
      },
    };
  }
  return { allowed: true, cluster: spec === obj.spec ? obj : { ...obj, spec } };
}
