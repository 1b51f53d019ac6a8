import { createHash } from 'node:crypto';
import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import { ArchiveScript, BackupScript, RestoreWalScript, VerifyScript } from '../backup/scripts.js';
import { InstanceScript } from './instance-script.js';
import {
  clusterName,
  ConfigDirectory,
  ReplicationUser,
  SocketDirectory,
  Superuser,
} from './names.js';
import { type RenderInput } from './render-input.js';

/** File names in the ConfigMap (and in ConfigDirectory in the pods). */
export const ConfigFiles = {
  postgresql: 'postgresql.conf',
  hba: 'pg_hba.conf',
  agent: 'instance.sh',
  /** With spec.backup: the archive_command and the backup Jobs' program. */
  archive: 'archive.sh',
  backup: 'backup.sh',
  /** With spec.bootstrap.recovery or spec.backup: the restore_command (restores, rehearsals). */
  restoreWal: 'restore-wal.sh',
  /** With spec.backup: the restore rehearsals' program. */
  verify: 'verify.sh',
} as const;

/**
 * Defaults a spec may override (`spec.parameters`): what a small cluster on a modest volume
 * should start with. `wal_keep_size` keeps enough WAL for a standby that was briefly away to
 * catch up without a re-clone, without filling a 1Gi volume.
 */
export const DefaultParameters: Readonly<Record<string, string>> = {
  max_connections: '100',
  wal_keep_size: '128MB',
  log_line_prefix: '%m [%p] %q%u@%d ',
  log_connections: 'off',
  password_encryption: 'scram-sha-256',
};

/**
 * The settings the operator owns (OperatorOwnedParameters are refused in spec.parameters): how
 * the instances listen, replicate and are rewound. `synchronous_standby_names` is not here: the
 * controller sets it on the primary with ALTER SYSTEM (it names the standbys streaming now).
 */
export function ownedSettings(input: RenderInput): Record<string, string> {
  return {
    listen_addresses: '*',
    port: String(POSTGRES_PORT),
    unix_socket_directories: SocketDirectory,
    hba_file: `${ConfigDirectory}/${ConfigFiles.hba}`,
    cluster_name: clusterName(input.cluster),
    wal_level: 'replica',
    hot_standby: 'on',
    max_wal_senders: '16',
    max_replication_slots: '16',
    wal_log_hints: 'on',
    full_page_writes: 'on',
    synchronous_commit: 'on',
    logging_collector: 'off',
    log_destination: 'stderr',
    ...(input.cluster.spec.backup
      ? {
          archive_mode: 'on',
          archive_command: `/bin/sh ${ConfigDirectory}/${ConfigFiles.archive} %p %f`,
        }
      : { archive_mode: 'off' }),
  };
}

/** Defaults with spec.backup: a WAL segment is archived at least every 5 minutes while written to. */
export const BackupDefaultParameters: Readonly<Record<string, string>> = {
  archive_timeout: '5min',
};

/** A postgresql.conf value as a quoted literal (quotes doubled; backslashes doubled). */
export function confValue(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * postgresql.conf: the owned settings, then the defaults overridden by `spec.parameters`, each
 * sorted by name, every value quoted (PostgreSQL reads numbers, units and booleans from quoted
 * strings too). Byte-for-byte the same for the same input.
 */
export function renderPostgresqlConf(input: RenderInput): string {
  const owned = ownedSettings(input);
  const tunable: Record<string, string> = {
    ...DefaultParameters,
    ...(input.cluster.spec.backup ? BackupDefaultParameters : {}),
    ...input.cluster.spec.parameters,
  };
  const lines = [
    '# Rendered by the Steward PostgresCluster controller. Do not edit: it is re-rendered.',
  ];
  lines.push('# Owned by the operator:');
  for (const key of Object.keys(owned).sort()) lines.push(`${key} = ${confValue(owned[key]!)}`);
  lines.push('# Defaults and spec.parameters:');
  for (const key of Object.keys(tunable).sort()) {
    if (key in owned) continue;
    lines.push(`${key} = ${confValue(tunable[key]!)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * pg_hba.conf: the socket (inside the pod) by peer authentication; every host with a SCRAM
 * password — the application role, the superuser, the replication role (pg_rewind's normal
 * connection) — and replication connections only as the replication role (`all` in the database
 * column does not cover them: the superuser cannot stream, clone or take a base backup over the
 * network). No trust, no md5.
 *
 * `superuserReplication`: a cluster made before the replication role has instances that still
 * stream as the superuser (their template has no replication password): their replication line
 * for the superuser stays until every instance runs a template with the role's password, so no
 * standby is refused while the roll moves it. Dropped, and reloaded by the primary, after that.
 */
export function renderHbaConf(options: { superuserReplication?: boolean } = {}): string {
  return [
    '# Rendered by the Steward PostgresCluster controller.',
    '# TYPE  DATABASE     USER  ADDRESS  METHOD',
    'local   all          all            peer',
    'host    all          all   all      scram-sha-256',
    `host    replication  ${ReplicationUser}  all  scram-sha-256`,
    ...(options.superuserReplication
      ? [
          '# Until every instance streams as the replication role (a cluster made before it):',
          `host    replication  ${Superuser}  all  scram-sha-256`,
        ]
      : []),
    '',
  ].join('\n');
}

/** The ConfigMap's data: the two configuration files and the agent (with backups, their scripts). */
export function renderConfigFiles(input: RenderInput): Record<string, string> {
  return {
    [ConfigFiles.postgresql]: renderPostgresqlConf(input),
    [ConfigFiles.hba]: renderHbaConf({
      ...(input.superuserReplication ? { superuserReplication: true } : {}),
    }),
    [ConfigFiles.agent]: InstanceScript,
    ...(input.cluster.spec.backup
      ? {
          [ConfigFiles.archive]: ArchiveScript,
          [ConfigFiles.backup]: BackupScript,
          [ConfigFiles.verify]: VerifyScript,
        }
      : {}),
    ...(input.cluster.spec.bootstrap?.recovery || input.cluster.spec.backup
      ? { [ConfigFiles.restoreWal]: RestoreWalScript }
      : {}),
  };
}

/**
 * sha256 (16 hex) of the ConfigMap's data: the pod-template annotation that marks a roll. Without
 * pg_hba.conf: a changed one needs no restart — the serving primary reloads it once the kubelet
 * has updated the mounted file (`reloadChangedHba`), and an instance reads it when it starts.
 */
export function configHash(files: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const key of Object.keys(files).sort()) {
    if (key !== ConfigFiles.hba) hash.update(`${key}\0${files[key]}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}
