import {
  DEFAULT_MAX_LAG_BYTES,
  DEFAULT_RETENTION_DAYS,
  DefaultCredentialKeys,
  RefusedParameters,
  type PostgresCluster,
} from '@steward/postgres-cluster-api';
import { admitWorkload, type NamespaceFacts } from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type Admission, type ImagePull, type ResolvedPods } from '@steward/workload';
import { backupPrefix, destinationOf, sourceDestinationOf, sourcePrefix } from './backup/layout.js';
import { BuiltInImages } from './images.js';
import { PostgresReasons } from './status.js';

/** What a PostgresCluster runs with, once its profile (or the built-in catalogue) allowed it. */
export interface ResolvedPostgres extends ResolvedPods {
  /** Every instance has its volume. */
  storage: NonNullable<ResolvedPods['storage']>;
}

export type Resolution = Admission<ResolvedPostgres>;

/** The default volume size when neither the spec nor a size class gives one. */
export const DEFAULT_STORAGE = '1Gi';

/**
 * The first of `parameters` a cluster may not set (`RefusedParameters`), as a refusal (pure).
 * Admission refuses them already; this holds for an object stored before the rule, whose
 * parameters the API server does not check again until they change.
 */
export function refusedParameter(
  parameters: Record<string, string> | undefined,
): { allowed: false; reason: string; message: string } | undefined {
  for (const key of Object.keys(parameters ?? {}).sort()) {
    const why = RefusedParameters[key];
    if (why)
      return {
        allowed: false,
        reason: PostgresReasons.InvalidParameters,
        message: `spec.parameters.${key} may not be set: ${why}. Remove it`,
      };
  }
  const preload = parameters?.['shared_preload_libraries'];
  if (preload?.includes('/'))
    return {
      allowed: false,
      reason: PostgresReasons.InvalidParameters,
      message: `spec.parameters.shared_preload_libraries may name libraries of the image only, not paths (${preload})`,
    };
  return undefined;
}

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
  const refused = refusedParameter(spec.parameters);
  if (refused) return refused;
  let image: string;
  let pull: ImagePull | undefined;
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
      ...(spec.scheduling ? { scheduling: spec.scheduling } : {}),
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
    pull = r.pull;
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
      ...(pull ? { pull } : {}),
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

/** A kubernetes profile's `spec.kubernetes.backup`. */
type ProfileBackup = NonNullable<NonNullable<ProviderProfile['spec']['kubernetes']>['backup']>;

/**
 * The credentials Secret the controller copies into a workload namespace — only when the profile
 * says `copyCredentialsToWorkloadNamespaces: true` and the cluster backs up to (or restores from)
 * the profile's destination: the keys `keys` of Secret `from` become Secret `to` of the cluster's
 * namespace.
 */
export interface BackupCredentialsCopy {
  from: { namespace: string; name: string };
  to: string;
  keys: string[];
}

export type BackupResolution =
  | { allowed: true; cluster: PostgresCluster; credentialsCopy?: BackupCredentialsCopy }
  | { allowed: false; reason: string; message: string };

/** An endpoint as profiles and destinations are compared: without trailing slashes. */
const endpointKey = (endpoint: string) => endpoint.replace(/\/+$/, '');

/**
 * Whether the controller may connect to `endpoint` for a cluster using `profile` (pure): an
 * absent endpoint is AWS S3 of the destination's region (a host under amazonaws.com the region
 * pattern cannot leave); any other must be the profile's destination.endpoint or one of its
 * allowedEndpoints. Without a profile, no endpoint is named: only AWS S3.
 */
export function backupEndpointAllowed(
  endpoint: string | undefined,
  profile: ProviderProfile | undefined,
): boolean {
  if (endpoint === undefined) return true;
  const block = profile?.spec.kubernetes?.backup;
  const named = [block?.destination?.endpoint, ...(block?.allowedEndpoints ?? [])]
    .filter((e): e is string => e !== undefined)
    .map(endpointKey);
  return named.includes(endpointKey(endpoint));
}

/**
 * A PostgresCluster's backup settings resolved against its kubernetes ProviderProfile (pure). The
 * platform team's profile decides where backups go; a tenant only names clusters:
 *
 * - spec.backup.destination and spec.bootstrap.recovery.source.destination default to the
 *   profile's spec.kubernetes.backup.destination, each in the folder the controller derives,
 *   `<its prefix>/<namespace>/<name>` — for a recovery, the source's name in the cluster's own
 *   namespace: a recovery source is a cluster name, never another namespace's folder.
 * - A destination of the cluster's own is refused (BackupDestinationNotAllowed) unless the profile
 *   says allowWorkloadDestinations; its endpoint must be one the profile names
 *   (BackupEndpointNotAllowed), since the controller itself lists and prunes the bucket. A cluster
 *   with no profile may name a destination of its own, but no endpoint: only AWS S3 (the chart's
 *   defaultProviderProfile is how a platform team gives such clusters an S3-compatible store).
 * - A restore whose source folder is the cluster's own backup folder is refused
 *   (RecoverySourceIsBackupDestination): the restored cluster keeps the source's system
 *   identifier, so it would archive its WAL and base backups into the source's folder and expire
 *   the source's backups by its own retention. A restored cluster backs up into its own folder.
 * - spec.backup.retentionDays defaults to the profile's minRetentionDays when that is more than
 *   DEFAULT_RETENTION_DAYS, and one below it is refused (RetentionBelowMinimum).
 *
 * The cluster returned is the one every backup function reads (destinationOf never throws on it);
 * `credentialsCopy` says which Secret the controller copies into the cluster's namespace first.
 */
export function resolveBackup(
  obj: PostgresCluster,
  profile: ProviderProfile | undefined,
): BackupResolution {
  const backup = obj.spec.backup;
  const recovery = obj.spec.bootstrap?.recovery;
  const fromProfile: ProfileBackup | undefined = profile?.spec.kubernetes?.backup;
  const profileName = profile?.metadata.name;
  const namespace = obj.metadata.namespace;
  const folder = (name: string) =>
    fromProfile?.destination?.prefix
      ? { prefix: `${fromProfile.destination.prefix}/${namespace}/${name}` }
      : {};
  const missing = (field: string) => ({
    allowed: false as const,
    reason: PostgresReasons.BackupDestinationMissing,
    message: `${field} is not set${profileName ? ` and ProviderProfile ${profileName} has no spec.kubernetes.backup.destination` : ' and the PostgresCluster has no ProviderProfile to take one from'}: set it, or use a profile that names one`,
  });
  const own: [string, { endpoint?: string }][] = [];
  if (backup?.destination) own.push(['spec.backup.destination', backup.destination]);
  if (recovery?.source.destination)
    own.push(['spec.bootstrap.recovery.source.destination', recovery.source.destination]);
  for (const [field, destination] of own) {
    if (profile && !fromProfile?.allowWorkloadDestinations)
      return {
        allowed: false,
        reason: PostgresReasons.BackupDestinationNotAllowed,
        message: `${field} is not allowed by ProviderProfile ${profileName} (spec.kubernetes.backup.allowWorkloadDestinations is not true): remove it — ${fromProfile?.destination ? `backups go to the profile's destination, in ${describeFolder(fromProfile.destination.prefix, namespace, '<name>')}, and a recovery source is named by spec.bootstrap.recovery.source.name alone` : 'the profile names no destination either; ask the platform team for one'}`,
      };
    if (!backupEndpointAllowed(destination.endpoint, profile))
      return {
        allowed: false,
        reason: PostgresReasons.BackupEndpointNotAllowed,
        message: profile
          ? `${field}.endpoint ${destination.endpoint} is not named by ProviderProfile ${profileName} (spec.kubernetes.backup.destination.endpoint or allowedEndpoints): the controller connects only to endpoints a profile names; use one of those, or ask the platform team to add it`
          : `${field}.endpoint ${destination.endpoint} is not allowed without a ProviderProfile: the controller connects only to endpoints a profile names (or AWS S3, with no endpoint); set spec.providerProfileRef to a kubernetes profile whose spec.kubernetes.backup names it, or remove the endpoint`,
      };
  }
  let spec = obj.spec;
  let fromProfileDestination = false;
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
    fromProfileDestination ||= !backup.destination;
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
    fromProfileDestination = true;
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
  const cluster = spec === obj.spec ? obj : { ...obj, spec };
  if (spec.backup && recovery) {
    const target = destinationOf(cluster);
    const source = sourceDestinationOf(cluster);
    const targetPrefix = backupPrefix(cluster);
    if (
      target.bucket === source.bucket &&
      endpointKey(target.endpoint ?? '') === endpointKey(source.endpoint ?? '') &&
      targetPrefix === sourcePrefix(cluster)
    )
      return {
        allowed: false,
        reason: PostgresReasons.RecoverySourceIsBackupDestination,
        message: `spec.bootstrap.recovery restores from s3://${target.bucket}/${targetPrefix}/, the folder this cluster's own backups would go to: a restored cluster keeps its source's system identifier, so it would archive into the source's backups and expire them. Give the new cluster another name (its backups then go to a folder of its own), or restore from another source`,
      };
  }
  const copy = credentialsCopyOf(fromProfile, namespace);
  return {
    allowed: true,
    cluster,
    ...(copy && fromProfileDestination ? { credentialsCopy: copy } : {}),
  };
}

/** `<prefix>/<namespace>/<name>` for messages (the prefix may be absent). */
function describeFolder(prefix: string | undefined, namespace: string | undefined, name: string) {
  return `${prefix ? `${prefix}/` : ''}${namespace}/${name}`;
}

/** The copy the profile asks for into `namespace`, if it asks for one (and it is not the source). */
function credentialsCopyOf(
  block: ProfileBackup | undefined,
  namespace: string | undefined,
): BackupCredentialsCopy | undefined {
  const from = block?.credentialsSourceSecretRef;
  const ref = block?.destination?.credentialsSecretRef;
  if (!block?.copyCredentialsToWorkloadNamespaces || !from || !ref) return undefined;
  if (from.namespace === namespace && from.name === ref.name) return undefined;
  return {
    from: { namespace: from.namespace, name: from.name },
    to: ref.name,
    keys: [
      ref.accessKeyIdKey ?? DefaultCredentialKeys.accessKeyId,
      ref.secretAccessKeyKey ?? DefaultCredentialKeys.secretAccessKey,
    ],
  };
}
