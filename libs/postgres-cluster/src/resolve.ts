import { DEFAULT_MAX_LAG_BYTES, type PostgresCluster } from '@steward/postgres-cluster-api';
import { admitWorkload } from '@steward/provider-profile';
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
): Resolution {
  const spec = obj.spec;
  let image: string;
  let resources = spec.resources;
  let storageSize = spec.storage?.size;
  if (profile) {
    const admission = admitWorkload(profile, {
      kind: 'PostgresCluster',
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
