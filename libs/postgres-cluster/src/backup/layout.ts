import {
  DefaultCredentialKeys,
  type BackupDestination,
  type PostgresCluster,
} from '@steward/postgres-cluster-api';

/**
 * Where a PostgresCluster's backups live, and how things are named. In the bucket, below the
 * prefix (through a ProviderProfile `<profile prefix>/<namespace>/<name>`, derived by
 * resolveBackup — a tenant never chooses it unless the profile allows workload destinations;
 * default `<namespace>/<name>`), one folder per database system (the identifier initdb
 * gave it — a cluster re-created under the same name, or restored by dump, is another system and
 * never writes over the first one's WAL):
 *
 *   <prefix>/<system id>/base/<backup id>/base.tar.gz      pg_basebackup -Ft -z -X fetch
 *   <prefix>/<system id>/base/<backup id>/backup_manifest   its manifest (SHA-256 per file)
 *   <prefix>/<system id>/base/<backup id>/backup.json       written last: the backup is complete
 *   <prefix>/<system id>/wal/<segment>.gz                   archived WAL (and .history files)
 *
 * A backup id is its due time in UTC, `YYYYMMDDTHHMMSSZ`: ids sort as the backups were taken.
 */
export const BackupFiles = {
  base: 'base.tar.gz',
  manifest: 'backup_manifest',
  record: 'backup.json',
} as const;

/** The key prefix of a cluster's backups (no leading or trailing slash). */
export function backupPrefix(cluster: PostgresCluster): string {
  const prefix = cluster.spec.backup?.destination?.prefix;
  return prefix ?? `${cluster.metadata.namespace}/${cluster.metadata.name}`;
}

/**
 * spec.backup.destination of a cluster resolved against its profile (resolveBackup fills it in
 * from the profile's when the spec names none): where its backups go.
 */
export function destinationOf(cluster: PostgresCluster): BackupDestination {
  const destination = cluster.spec.backup?.destination;
  if (!destination)
    throw new Error(
      `PostgresCluster ${cluster.metadata.namespace}/${cluster.metadata.name} has no backup destination: resolve it against its ProviderProfile first`,
    );
  return destination;
}

/** spec.bootstrap.recovery.source.destination, resolved likewise: where the source's backups are. */
export function sourceDestinationOf(cluster: PostgresCluster): BackupDestination {
  const destination = cluster.spec.bootstrap?.recovery?.source.destination;
  if (!destination)
    throw new Error(
      `PostgresCluster ${cluster.metadata.namespace}/${cluster.metadata.name} has no recovery source destination: resolve it against its ProviderProfile first`,
    );
  return destination;
}

/** The key prefix of one database system's backups and WAL (ends with `/`). */
export function systemPrefix(prefix: string, systemIdentifier: string): string {
  return `${prefix}/${systemIdentifier}/`;
}

/** The id of a backup due at `at`: `20261203T030000Z`. */
export function backupId(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** The time a backup id names. */
export function backupIdTime(id: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(id);
  if (!m) throw new Error(`not a backup id: ${id}`);
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

/**
 * The Job of the backup due at `at`: `<name>-bk-<seconds since the epoch, base 36>`. At most
 * 48 + 4 + 7 = 59 characters (the Job's name is also a label value), and the same for the same
 * due time: a controller that crashed after deciding creates the same Job, never a second one.
 */
export function backupJobName(cluster: string, at: Date): string {
  return `${cluster}-bk-${Math.floor(at.getTime() / 1000).toString(36)}`;
}

/** The Job of the restore rehearsal due at `at`: `<name>-vf-<base36 seconds>` (≤ 63). */
export function verifyJobName(cluster: string, at: Date): string {
  return `${cluster}-vf-${Math.floor(at.getTime() / 1000).toString(36)}`;
}

/** Labels of a backup Job and its pod (not the cluster label: the pod is not an instance). */
export const BackupLabels = {
  backupOf: 'postgres.steward.dev/backup-of',
  verifyOf: 'postgres.steward.dev/verify-of',
  backupId: 'postgres.steward.dev/backup-id',
  /** The pod of a major upgrade's dump-and-restore Job (the NetworkPolicy admits it). */
  upgradeOf: 'postgres.steward.dev/upgrade-of',
  /** The database system a backup Job backs up (a major upgrade makes a new one). */
  systemIdentifier: 'postgres.steward.dev/system-id',
  /** The PostgresBackup an on-demand backup's Job was taken for. */
  requestedBy: 'postgres.steward.dev/requested-by',
} as const;

/** The rclone remote the scripts name (configured from the environment). */
export const RcloneRemote = 'backup';
/** The remote of a restore's source (spec.bootstrap.recovery). */
export const SourceRemote = 'source';

/** The key prefix of a recovery source's backups (no leading or trailing slash). */
export function sourcePrefix(cluster: PostgresCluster): string | undefined {
  const source = cluster.spec.bootstrap?.recovery?.source;
  if (!source) return undefined;
  return (
    source.destination?.prefix ??
    `${cluster.metadata.namespace}/${source.name ?? cluster.metadata.name}`
  );
}

/** A container environment variable (the shapes a pod template takes). */
export type EnvVar =
  | { name: string; value: string }
  | {
      name: string;
      valueFrom: { secretKeyRef: { name: string; key: string; optional?: boolean } };
    };

/**
 * The environment that configures rclone's `backup:` remote for `destination` (no config file:
 * the root filesystem is read-only) and tells the scripts where to write: STEWARD_BACKUP_PATH is
 * `<bucket>/<prefix>`. The keys come from the credentials Secret, never from a command line.
 */
export function rcloneEnv(
  destination: BackupDestination,
  prefix: string,
  options: { remote?: string; pathVariable?: string; optionalSecret?: boolean } = {},
): EnvVar[] {
  const remote = `RCLONE_CONFIG_${(options.remote ?? RcloneRemote).toUpperCase()}_`;
  const secret = destination.credentialsSecretRef;
  const optional = options.optionalSecret ? { optional: true } : {};
  return [
    { name: 'RCLONE_CONFIG', value: '/tmp/rclone.conf' },
    { name: `${remote}TYPE`, value: 's3' },
    { name: `${remote}PROVIDER`, value: destination.endpoint ? 'Other' : 'AWS' },
    ...(destination.endpoint ? [{ name: `${remote}ENDPOINT`, value: destination.endpoint }] : []),
    { name: `${remote}REGION`, value: destination.region ?? 'us-east-1' },
    { name: `${remote}FORCE_PATH_STYLE`, value: 'true' },
    { name: `${remote}NO_CHECK_BUCKET`, value: 'true' },
    {
      name: `${remote}ACCESS_KEY_ID`,
      valueFrom: {
        secretKeyRef: {
          name: secret.name,
          key: secret.accessKeyIdKey ?? DefaultCredentialKeys.accessKeyId,
          ...optional,
        },
      },
    },
    {
      name: `${remote}SECRET_ACCESS_KEY`,
      valueFrom: {
        secretKeyRef: {
          name: secret.name,
          key: secret.secretAccessKeyKey ?? DefaultCredentialKeys.secretAccessKey,
          ...optional,
        },
      },
    },
    {
      name: options.pathVariable ?? 'STEWARD_BACKUP_PATH',
      value: `${destination.bucket}/${prefix}`,
    },
  ];
}

/** The WAL segment file holding `lsn` on `timeline` (16 MiB segments, the default). */
export function walSegmentOf(timeline: number, lsn: bigint): string {
  const segment = lsn >> 24n;
  const hex = (n: bigint | number) => n.toString(16).toUpperCase().padStart(8, '0');
  return `${hex(timeline)}${hex(segment / 256n)}${hex(segment % 256n)}`;
}

/** The segment number of a WAL file name (timeline aside), or undefined for another file. */
export function segmentNumberOf(file: string): bigint | undefined {
  const m = /^[0-9A-F]{8}([0-9A-F]{8})([0-9A-F]{8})(\.partial)?(\.gz)?$/.exec(file);
  return m ? BigInt(`0x${m[1]}`) * 256n + BigInt(`0x${m[2]}`) : undefined;
}
