/**
 * What one PostgreSQL server says about itself, and the pure functions that read it from the rows
 * of the admin layer's observation queries (every column as text: `pg_lsn`, `int8` and
 * timestamps are read as PostgreSQL prints them, whatever type parsers the process installed).
 */
import { parseLsn } from './lsn.js';

/** Where a server listens, and who the admin layer logs in as. */
export interface PgEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Default `postgres`. */
  database?: string;
}

/** One walsender of a primary (a row of `pg_stat_replication`). */
export interface ReplicationPeer {
  applicationName: string;
  clientAddr?: string;
  /** `startup`, `catchup`, `streaming`, `backup` or `stopping`. */
  state: string;
  sentLsn?: bigint;
  writeLsn?: bigint;
  flushLsn?: bigint;
  replayLsn?: bigint;
  /** `async`, `sync`, `quorum` or `potential`. */
  syncState: string;
  /** ISO time of the standby's last reply. */
  replyTime?: string;
}

/** A standby's WAL receiver (the row of `pg_stat_wal_receiver`). */
export interface WalReceiver {
  /** `streaming`, `starting`, `waiting`, `restarting`, `stopping`... */
  status: string;
  senderHost?: string;
  senderPort?: number;
  receivedTli?: number;
  flushedLsn?: bigint;
  latestEndLsn?: bigint;
  /** ISO time. */
  lastMessageReceiptTime?: string;
}

/** A primary's WAL archiver (`pg_stat_archiver` and the archive status directory). */
export interface WalArchiver {
  archivedCount: number;
  failedCount: number;
  /** ISO time of the newest segment archived. */
  lastArchivedAt?: string;
  /** ISO time of the newest failure, and the segment it failed on. */
  lastFailedAt?: string;
  lastFailedWal?: string;
  /** Segments waiting to be archived (`.ready` files): the primary keeps each until archived. */
  readySegments: number;
}

/** A parameter as the server describes it (a row of `pg_settings`). */
export interface PgSetting {
  name: string;
  /** `bool`, `integer`, `real`, `enum` or `string`. */
  vartype: string;
  minVal?: string;
  maxVal?: string;
  /** The unit of its value (`8kB`, `kB`, `ms`, `s`, `min`…), when it has one. */
  unit?: string;
  enumvals?: string[];
}

/** A `pg_settings` row (as text) as a PgSetting. */
export function settingFromRow(row: TextRow): PgSetting {
  const enumvals: unknown = row['enumvals'] ? JSON.parse(row['enumvals']) : undefined;
  return {
    name: required(row, 'name'),
    vartype: required(row, 'vartype'),
    ...optional('minVal', row['min_val'] ?? undefined),
    ...optional('maxVal', row['max_val'] ?? undefined),
    ...optional('unit', row['unit'] ?? undefined),
    ...optional('enumvals', Array.isArray(enumvals) ? enumvals.map((v) => String(v)) : undefined),
  };
}

export interface ReachablePgObservation {
  reachable: true;
  /** ISO time taken before the first query was sent: nothing observed is older than this. */
  observedAt: string;
  /** `pg_control_system().system_identifier`: the same on a primary and all its standbys. */
  systemIdentifier: string;
  /** ISO time; changes when the server restarts. */
  postmasterStartTime: string;
  /** `server_version_num`, e.g. 170012. */
  serverVersion: number;
  inRecovery: boolean;
  /**
   * A primary: the timeline of the WAL file `pg_current_wal_lsn()` is in. A standby: the timeline
   * its WAL receiver streams when streaming, else the newest of its last restartpoint's and of the
   * WAL segments it holds (`pg_wal`).
   */
  timeline: number;
  /** Primary only: `pg_current_wal_lsn()`. */
  currentLsn?: bigint;
  /** Standby only: `pg_last_wal_receive_lsn()`, absent until something was streamed. */
  receiveLsn?: bigint;
  /** Standby only: `pg_last_wal_replay_lsn()`. */
  replayLsn?: bigint;
  /** Standby only. */
  replayPaused?: boolean;
  /** Standby only, when a WAL receiver runs. */
  walReceiver?: WalReceiver;
  /** `pg_stat_replication`, ordered by application name. */
  replication: ReplicationPeer[];
  /** `primary_conninfo`: may name a password file, so it is never put in an error. */
  primaryConninfo: string;
  synchronousStandbyNames: string;
  /** Parameters changed in the configuration that take effect only after a restart. */
  pendingRestart: string[];
  /** Primary only: its WAL archiver. */
  archiver?: WalArchiver;
  /**
   * Standby only: the newest salvage manifest the instance agent wrote before a rewind
   * (`<data>/salvage/latest.json`, beside PGDATA): what this instance kept of a history it left.
   */
  salvage?: SalvageManifest;
}

/** What the instance agent kept before a rewind (its manifest; instance-agent.sh `salvage`). */
export interface SalvageManifest {
  phase: 'Saved' | 'NotNeeded' | 'Failed';
  from?: string;
  to?: string;
  bytes?: number;
  location?: string;
  savedAt: string;
  message: string;
}

export interface UnreachablePgObservation {
  reachable: false;
  observedAt: string;
  /** Why, in words an operator acts on; never contains the password. */
  error: string;
}

export type PgObservation = ReachablePgObservation | UnreachablePgObservation;

/** A result row, every column as the text PostgreSQL sent (null for SQL NULL). */
export type TextRow = Record<string, string | null>;

/**
 * The scalar facts, one row. `in_recovery` is read once (a materialized CTE), so a promotion
 * while the statement runs cannot give a row that is half primary, half standby.
 */
export const factsQuery = `WITH r AS MATERIALIZED (SELECT pg_is_in_recovery() AS in_recovery)
SELECT (pg_control_system()).system_identifier::text AS system_identifier,
  to_json(pg_postmaster_start_time()) #>> '{}' AS postmaster_start_time,
  current_setting('server_version_num') AS server_version,
  r.in_recovery::text AS in_recovery,
  CASE WHEN NOT r.in_recovery THEN pg_current_wal_lsn()::text END AS current_lsn,
  CASE WHEN NOT r.in_recovery THEN pg_walfile_name(pg_current_wal_lsn()) END AS walfile,
  CASE WHEN r.in_recovery THEN pg_last_wal_receive_lsn()::text END AS receive_lsn,
  CASE WHEN r.in_recovery THEN pg_last_wal_replay_lsn()::text END AS replay_lsn,
  CASE WHEN r.in_recovery THEN pg_is_wal_replay_paused()::text END AS replay_paused,
  (pg_control_checkpoint()).timeline_id::text AS checkpoint_timeline,
  CASE WHEN r.in_recovery THEN (SELECT max(substr(name, 1, 8)) FROM pg_ls_waldir()
    WHERE name ~ '^[0-9A-F]{24}$') END AS received_timeline,
  current_setting('primary_conninfo') AS primary_conninfo,
  current_setting('synchronous_standby_names') AS synchronous_standby_names,
  (SELECT coalesce(json_agg(name ORDER BY name), '[]')::text FROM pg_settings WHERE pending_restart)
    AS pending_restart,
  CASE WHEN NOT r.in_recovery THEN (SELECT json_build_object(
    'archived', a.archived_count, 'failed', a.failed_count,
    'lastArchivedAt', a.last_archived_time, 'lastFailedAt', a.last_failed_time,
    'lastFailedWal', a.last_failed_wal,
    'ready', (SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'))::text
    FROM pg_stat_archiver a) END AS archiver,
  CASE WHEN r.in_recovery THEN pg_read_file(current_setting('data_directory') ||
    '/../salvage/latest.json', 0, 8192, true) END AS salvage
FROM r`;

export const replicationQuery = `SELECT application_name, host(client_addr) AS client_addr, state,
  sent_lsn::text AS sent_lsn, write_lsn::text AS write_lsn, flush_lsn::text AS flush_lsn,
  replay_lsn::text AS replay_lsn, sync_state, to_json(reply_time) #>> '{}' AS reply_time
FROM pg_stat_replication ORDER BY application_name, pid`;

export const walReceiverQuery = `SELECT status, sender_host, sender_port::text AS sender_port,
  received_tli::text AS received_tli, flushed_lsn::text AS flushed_lsn,
  latest_end_lsn::text AS latest_end_lsn,
  to_json(last_msg_receipt_time) #>> '{}' AS last_msg_receipt_time
FROM pg_stat_wal_receiver`;

/** The observation the three queries' rows make. Throws on rows no PostgreSQL sends. */
export function observationFromRows(
  observedAt: string,
  facts: TextRow,
  replication: readonly TextRow[],
  walReceiverRows: readonly TextRow[],
): ReachablePgObservation {
  const inRecovery = bool(required(facts, 'in_recovery'));
  const walReceiver = walReceiverRows[0] ? walReceiverFromRow(walReceiverRows[0]) : undefined;
  let timeline: number;
  if (!inRecovery) {
    // a WAL file name starts with its timeline, 8 hex digits: 000000010000000000000003
    const walfile = required(facts, 'walfile');
    if (!/^[0-9A-F]{24}$/.test(walfile)) throw new TypeError(`not a WAL file name: ${walfile}`);
    timeline = Number.parseInt(walfile.slice(0, 8), 16);
  } else if (walReceiver?.status === 'streaming' && walReceiver.receivedTli !== undefined) {
    timeline = walReceiver.receivedTli;
  } else {
    // Not streaming (its primary is gone): the newest timeline of the WAL it holds — its last
    // restartpoint's may be from before the newest promotion it followed.
    const received = facts['received_timeline'];
    timeline = Math.max(
      int(required(facts, 'checkpoint_timeline')),
      received && /^[0-9A-F]{8}$/.test(received) ? Number.parseInt(received, 16) : 0,
    );
  }
  const pendingRestart: unknown = JSON.parse(required(facts, 'pending_restart'));
  if (!Array.isArray(pendingRestart) || !pendingRestart.every((n) => typeof n === 'string')) {
    throw new TypeError('pending_restart is not a list of names');
  }
  return {
    reachable: true,
    observedAt,
    systemIdentifier: required(facts, 'system_identifier'),
    postmasterStartTime: iso(required(facts, 'postmaster_start_time')),
    serverVersion: int(required(facts, 'server_version')),
    inRecovery,
    timeline,
    ...optional('currentLsn', lsn(facts['current_lsn'])),
    ...optional('receiveLsn', lsn(facts['receive_lsn'])),
    ...optional('replayLsn', lsn(facts['replay_lsn'])),
    ...optional('replayPaused', facts['replay_paused'] ? bool(facts['replay_paused']) : undefined),
    ...optional('walReceiver', walReceiver),
    replication: replication.map(peerFromRow),
    primaryConninfo: facts['primary_conninfo'] ?? '',
    synchronousStandbyNames: facts['synchronous_standby_names'] ?? '',
    pendingRestart: pendingRestart as string[],
    ...optional('archiver', facts['archiver'] ? archiverFrom(facts['archiver']) : undefined),
    ...optional('salvage', salvageFrom(facts['salvage'])),
  };
}

/** The salvage manifest (JSON the agent wrote), or undefined when absent or not one. */
function salvageFrom(text: string | null | undefined): SalvageManifest | undefined {
  if (!text) return undefined;
  try {
    const m = JSON.parse(text) as Partial<SalvageManifest>;
    if (
      (m.phase !== 'Saved' && m.phase !== 'NotNeeded' && m.phase !== 'Failed') ||
      typeof m.savedAt !== 'string' ||
      typeof m.message !== 'string'
    )
      return undefined;
    const text_ = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const bytes = typeof m.bytes === 'number' && m.bytes >= 0 ? m.bytes : undefined;
    return {
      phase: m.phase,
      savedAt: m.savedAt,
      message: m.message,
      ...optional('from', text_(m.from)),
      ...optional('to', text_(m.to)),
      ...optional('bytes', bytes),
      ...optional('location', text_(m.location)),
    };
  } catch {
    return undefined;
  }
}

/** The archiver column (a JSON object; timestamps as PostgreSQL's JSON prints them). */
function archiverFrom(text: string): WalArchiver {
  const a = JSON.parse(text) as Record<string, unknown>;
  const count = (key: string) => {
    const n = Number(a[key] ?? 0);
    if (!Number.isInteger(n) || n < 0) throw new TypeError(`not a count: ${String(a[key])}`);
    return n;
  };
  const time = (key: string) => (typeof a[key] === 'string' ? iso(a[key]) : undefined);
  return {
    archivedCount: count('archived'),
    failedCount: count('failed'),
    ...optional('lastArchivedAt', time('lastArchivedAt')),
    ...optional('lastFailedAt', time('lastFailedAt')),
    ...optional(
      'lastFailedWal',
      typeof a['lastFailedWal'] === 'string' ? a['lastFailedWal'] : undefined,
    ),
    readySegments: count('ready'),
  };
}

function peerFromRow(row: TextRow): ReplicationPeer {
  return {
    applicationName: row['application_name'] ?? '',
    ...optional('clientAddr', row['client_addr'] ?? undefined),
    state: row['state'] ?? '',
    ...optional('sentLsn', lsn(row['sent_lsn'])),
    ...optional('writeLsn', lsn(row['write_lsn'])),
    ...optional('flushLsn', lsn(row['flush_lsn'])),
    ...optional('replayLsn', lsn(row['replay_lsn'])),
    syncState: row['sync_state'] ?? '',
    ...optional('replyTime', row['reply_time'] ? iso(row['reply_time']) : undefined),
  };
}

function walReceiverFromRow(row: TextRow): WalReceiver {
  return {
    status: row['status'] ?? '',
    ...optional('senderHost', row['sender_host'] ?? undefined),
    ...optional('senderPort', row['sender_port'] ? int(row['sender_port']) : undefined),
    ...optional('receivedTli', row['received_tli'] ? int(row['received_tli']) : undefined),
    ...optional('flushedLsn', lsn(row['flushed_lsn'])),
    ...optional('latestEndLsn', lsn(row['latest_end_lsn'])),
    ...optional(
      'lastMessageReceiptTime',
      row['last_msg_receipt_time'] ? iso(row['last_msg_receipt_time']) : undefined,
    ),
  };
}

/** `{ [key]: value }`, or `{}` for undefined: optional properties are absent, never undefined. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

function required(row: TextRow, column: string): string {
  const value = row[column];
  if (value === null || value === undefined) throw new TypeError(`the server sent no ${column}`);
  return value;
}

function lsn(value: string | null | undefined): bigint | undefined {
  return value ? parseLsn(value) : undefined;
}

function bool(value: string): boolean {
  if (value === 't' || value === 'true') return true;
  if (value === 'f' || value === 'false') return false;
  throw new TypeError(`not a boolean: ${value}`);
}

function int(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new TypeError(`not an integer: ${value}`);
  return Number(value);
}

function iso(value: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new TypeError(`not a time: ${value}`);
  return time.toISOString();
}
