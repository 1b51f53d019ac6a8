/**
 * The PostgreSQL admin the PostgresCluster controller observes and steers its servers with: what
 * a server is (primary or standby, where its WAL is, who streams from it), `pg_promote`,
 * `ALTER SYSTEM`, and the bootstrap of the application's role and database. Only the PostgreSQL
 * protocol (node-postgres); nothing here knows Kubernetes.
 *
 * The controller polls every server every few seconds, so each endpoint keeps one connection
 * (pooled by host:port:user:database and a keyed hash of the password: a changed password
 * replaces the connection), and the requests on one endpoint run one after the other. Every
 * request is bounded: the connect timeout covers TCP and authentication, the query timeout every
 * statement (sent as `statement_timeout`, and enforced by the client too, for a server that
 * answers nothing). A connection that fails, times out or is closed by the server is dropped;
 * when a reused connection turns out to be dead the request is tried once more on a new one, so
 * a restarted server is observed again at once. An unreachable, stopped or refusing server is an
 * observation (`reachable: false` with the reason), never an exception, a hang, an unhandled
 * `'error'` event or an unhandled rejection. Passwords never appear in errors.
 *
 * The admin user must be a superuser (it reads `pg_authid` and `pg_file_settings` and calls
 * `pg_promote`). No TLS yet: the servers have none.
 */
import {
  abortable,
  AdminClosedError,
  adminFailure,
  EndpointPool,
  ObservationAbortedError,
  scrubbed,
  type EndpointEntry,
} from '@steward/workload';
import pg from 'pg';
import {
  factsQuery,
  observationFromRows,
  replicationQuery,
  settingFromRow,
  walReceiverQuery,
  type PgEndpoint,
  type PgObservation,
  type PgSetting,
  type TextRow,
} from './observation.js';
import { quoteIdentifier, quoteLiteral } from './quote.js';
import { scramVerifier, verifierMatches } from './scram.js';
import { alterSystemStatement, settingInPlace } from './settings.js';

export type {
  PgEndpoint,
  PgObservation,
  ReachablePgObservation,
  ReplicationPeer,
  UnreachablePgObservation,
  WalReceiver,
} from './observation.js';

export interface PgAdminOptions {
  /** TCP connect plus authentication. Default 3000 ms. */
  connectTimeoutMs?: number;
  /** How long one statement may run or go unanswered. Default 5000 ms. */
  queryTimeoutMs?: number;
  /** The `application_name` of the admin's sessions. Default `steward-postgres-cluster`. */
  applicationName?: string;
  /**
   * A connection unused for this long is closed at the next request (pods come and go with new
   * IPs; their connections must not pile up). Default 60 000 ms.
   */
  idleTimeoutMs?: number;
}

export interface PgAdmin {
  /**
   * What the server is, in one round trip (three statements: the scalar facts,
   * `pg_stat_replication`, `pg_stat_wal_receiver`). Called every poll; reads only. Never throws:
   * an unreachable, stopped or failing server (a wrong password included, which the error names)
   * is `{ reachable: false, error }`, within about the connect plus the query timeout. An aborted
   * `signal` ends the wait at once.
   */
  observe(target: PgEndpoint, options?: { signal?: AbortSignal }): Promise<PgObservation>;
  /**
   * `pg_promote(wait => true, wait_seconds => waitSeconds)` (default 60) on a standby: resolves
   * `'promoted'` once it has left recovery. Idempotent: a server not in recovery is left alone,
   * `'already-primary'` (it never promotes twice). Throws {@link PgAdminError} when the promotion
   * did not finish within `waitSeconds` (it may still finish later: observe again) or the server
   * could not be asked.
   */
  promote(
    target: PgEndpoint,
    options?: { waitSeconds?: number },
  ): Promise<'promoted' | 'already-primary'>;
  /**
   * `ALTER SYSTEM SET name = 'value'` (`RESET` for null) for each setting postgresql.auto.conf
   * does not already hold, then `pg_reload_conf()` if anything changed; returns the names
   * changed, in the order given. Idempotent: a second call with the same settings changes nothing
   * and does not reload. Names must match /^[a-z_][a-z0-9_]*$/ and values hold no newline
   * (TypeError, before anything is sent); a name the server does not know is a
   * {@link PgAdminError} (SQLSTATE 42704) before anything is changed. Parameters that need a
   * restart show up in the observation's `pendingRestart`. A call cut short by a failure leaves
   * the settings changed so far written but maybe not reloaded: the next call that changes
   * something reloads them.
   */
  alterSystem(target: PgEndpoint, settings: Record<string, string | null>): Promise<string[]>;
  /**
   * Ends every client session but the admin's own (pg_terminate_backend; replication and
   * background processes are not client sessions): how a major upgrade makes sure no session
   * opened before its write hold still writes. Spared are this session and other superuser
   * sessions of this admin's `application_name` (the controller's own: only it holds the
   * superuser's password); an application naming itself so is ended all the same. Returns how
   * many were ended.
   */
  endClientSessions(target: PgEndpoint): Promise<number>;
  /**
   * Every database that takes connections (`datallowconn`), with its `CONNECTION LIMIT` (-1:
   * none), sorted by name; reads only. What a write hold records before it sets them to 0.
   */
  connectionLimits(target: PgEndpoint): Promise<DatabaseLimit[]>;
  /**
   * On a primary: `ALTER DATABASE … CONNECTION LIMIT 0` for every database that takes
   * connections, in one transaction. PostgreSQL exempts superusers from the limit: from then on
   * only they connect (the controller, the upgrade's Job); sessions already open stay (end them
   * with {@link endClientSessions}). The limit is a catalog change: standbys refuse new sessions
   * too. Idempotent; returns the databases changed.
   */
  holdConnections(target: PgEndpoint): Promise<string[]>;
  /**
   * On a primary: each database of `limits` that exists is given its recorded `CONNECTION LIMIT`
   * again (one transaction); others are left alone. Idempotent; returns the databases changed.
   */
  releaseConnections(target: PgEndpoint, limits: DatabaseLimit[]): Promise<string[]>;
  /**
   * The server's own description of the parameters `names` (`pg_settings`: type, range, unit,
   * enum values) — those it knows; reads only. How a parameter change is checked before any
   * instance restarts with it.
   */
  settings(target: PgEndpoint, names: string[]): Promise<PgSetting[]>;
  /**
   * On a primary: the role `owner` (LOGIN, its password set as a SCRAM-SHA-256 verifier computed
   * here, so the plain password never reaches the server; altered only when the stored verifier
   * does not match) and the database `database` owned by it. Idempotent: returns what it changed
   * (`role app created`, `role app login enabled`, `role app password set`, `database app
   * created`, `database app owner set`), [] when all was in place. TypeError for names not
   * matching /^[a-z_][a-z0-9_]{0,62}$/ and for an empty or non-ASCII password; PgAdminError
   * otherwise.
   */
  bootstrap(target: PgEndpoint, spec: BootstrapSpec): Promise<string[]>;
  /**
   * Reloads the server's configuration (`pg_reload_conf()`) when its pg_hba.conf on disk is newer
   * than what the session last loaded (`pg_conf_load_time()`; the file's time has whole seconds,
   * so a change in the same second reloads once more): how a changed ConfigMap's pg_hba.conf —
   * which the kubelet updates in a running pod — takes effect on a running primary before the
   * instances restarted with it connect. Returns whether it reloaded.
   */
  reloadChangedHba(target: PgEndpoint): Promise<boolean>;
  /**
   * On a primary of a cluster in sync mode: no default weakens `synchronous_commit` below `on`.
   * Every `ALTER ROLE … SET` or `ALTER DATABASE … SET` of it to `off`, `local` or `remote_write`
   * (or their spellings `false`, `no`, `0`) — for a role that is not a superuser, or for every
   * role — is reset, and `owner`'s own default is `on`. One transaction. PostgreSQL lets any
   * session `SET synchronous_commit` (a user setting): this keeps the defaults, it cannot forbid
   * a session's own choice. Returns the defaults reset, in words, and whether `owner`'s default
   * was set now (false when it was, or the role does not exist yet).
   */
  holdSynchronousCommit(
    target: PgEndpoint,
    owner: string,
  ): Promise<{ reset: string[]; ownerDefault: boolean }>;
  /** Ends every connection this admin holds. Later calls fail (`observe`: `reachable: false`). */
  close(): Promise<void>;
}

/** What `bootstrap` puts in place. */
export interface BootstrapSpec {
  database: string;
  owner: string;
  ownerPassword: string;
  /**
   * The password of `steward_replication` (ReplicationUser): REPLICATION LOGIN, not a superuser,
   * and EXECUTE (in the endpoint's database, `postgres`, which pg_rewind connects to) on the
   * functions pg_rewind reads the source's files with. Absent: that role is left alone.
   */
  replicationPassword?: string;
}

/** The role standbys stream, clone and rewind as (children/names.ts ReplicationUser). */
export const ReplicationRole = 'steward_replication';

/**
 * What pg_rewind calls on its source beyond what PUBLIC may (PostgreSQL's pg_rewind notes, 11 and
 * later, 15 and 17 alike).
 */
export const RewindFunctions = [
  'pg_catalog.pg_ls_dir(text, boolean, boolean)',
  'pg_catalog.pg_stat_file(text, boolean)',
  'pg_catalog.pg_read_binary_file(text)',
  'pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean)',
] as const;

/** A database and its `CONNECTION LIMIT` (-1: none). */
export interface DatabaseLimit {
  name: string;
  connectionLimit: number;
}

/** What kind of failure a {@link PgAdminError} is. */
export type PgFailureKind = 'auth' | 'timeout' | 'unreachable' | 'server' | 'closed';

/** A failed `promote`/`alterSystem`/`bootstrap`: names the server and why, never the password. */
export class PgAdminError extends Error {
  override readonly name = 'PgAdminError';
  /** The SQLSTATE, when the server sent one (`28P01`: wrong password; `42704`: unknown parameter). */
  declare readonly code?: string;
  constructor(
    message: string,
    readonly kind: PgFailureKind,
    options: { code?: string | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    if (options.code !== undefined) Object.defineProperty(this, 'code', { value: options.code });
  }
}

/** Every column as the text PostgreSQL sent, whatever type parsers the process installed. */
const textTypes = {
  getTypeParser: () => (value: string) => value,
} as unknown as pg.CustomTypesConfig;
/** Longest statement timeout for the slow statements (CREATE DATABASE). */
const slowStatementMs = 60_000;

/** An endpoint's connection; the pool's address is host:port:user:database. */
interface Pooled extends EndpointEntry {
  readonly endpoint: PgEndpoint;
  client: pg.Client | undefined;
  /** The last request queued on this entry: requests run one after the other. */
  tail: Promise<unknown>;
}

export function pgAdmin(options: PgAdminOptions = {}): PgAdmin {
  return new PooledPgAdmin(options);
}

/** {@link PgAdmin} over one node-postgres client per endpoint (see the file's doc). */
class PooledPgAdmin implements PgAdmin {
  private readonly connectTimeoutMs: number;
  private readonly queryTimeoutMs: number;
  private readonly applicationName: string;
  private readonly pool: EndpointPool<Pooled>;
  /** Every client not yet ended, connecting ones included: close() ends them all. */
  private readonly clients = new Set<pg.Client>();
  private closed = false;

  constructor(options: PgAdminOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 5000;
    this.applicationName = options.applicationName ?? 'steward-postgres-cluster';
    this.pool = new EndpointPool<Pooled>({
      idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
      release: (entry) => {
        const client = entry.client;
        entry.client = undefined;
        if (client) this.discard(client, true);
      },
    });
  }

  async observe(
    target: PgEndpoint,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<PgObservation> {
    const observedAt = new Date().toISOString();
    if (signal?.aborted) return { reachable: false, observedAt, error: 'observation aborted' };
    try {
      const work = this.withClient(target, async (client) => {
        const results = (await client.query(
          `${factsQuery};\n${replicationQuery};\n${walReceiverQuery}`,
        )) as unknown as pg.QueryResult<TextRow>[];
        if (!Array.isArray(results) || results.length !== 3) {
          throw new Error('the observation queries returned an unexpected number of results');
        }
        return results.map((result) => result.rows);
      });
      const [facts, replication, walReceiver] = signal
        ? await abortable(work, signal, () => new ObservationAbortedError())
        : await work;
      if (!facts?.[0]) throw new Error('the observation query returned no row');
      return observationFromRows(observedAt, facts[0], replication ?? [], walReceiver ?? []);
    } catch (error) {
      return { reachable: false, observedAt, error: this.failure(error, target.password).reason };
    }
  }

  async promote(
    target: PgEndpoint,
    { waitSeconds = 60 }: { waitSeconds?: number } = {},
  ): Promise<'promoted' | 'already-primary'> {
    if (!Number.isSafeInteger(waitSeconds) || waitSeconds < 1 || waitSeconds > 3600) {
      throw new TypeError(`waitSeconds must be an integer in 1..3600, not ${waitSeconds}`);
    }
    try {
      return await this.withClient(target, async (client) => {
        if (!(await inRecovery(client))) return 'already-primary' as const;
        const timeoutMs = waitSeconds * 1000 + this.queryTimeoutMs;
        const [row] = await withStatementTimeout(client, timeoutMs, () =>
          rows(client, 'SELECT pg_promote(true, $1)::text AS promoted', [waitSeconds], timeoutMs),
        );
        if (row?.['promoted'] !== 'true' || (await inRecovery(client))) {
          throw new PgAdminError(
            `promote on ${target.host}:${target.port} failed: still in recovery after ${waitSeconds} s`,
            'timeout',
          );
        }
        return 'promoted' as const;
      });
    } catch (error) {
      throw this.adminError('promote', target, error);
    }
  }

  async alterSystem(
    target: PgEndpoint,
    settings: Record<string, string | null>,
  ): Promise<string[]> {
    const wanted = Object.entries(settings).map(([name, value]) => ({
      name,
      value,
      statement: alterSystemStatement(name, value),
    }));
    if (wanted.length === 0) return [];
    try {
      return await this.withClient(target, async (client) => {
        const names = wanted.map((s) => s.name);
        const current = await rows(
          client,
          `SELECT n AS name, (s.name IS NOT NULL)::text AS known, f.setting AS auto_value,
               (f.seqno IS NOT NULL)::text AS in_auto
             FROM unnest($1::text[]) AS n
             LEFT JOIN pg_settings s ON s.name = n
             LEFT JOIN LATERAL (
               SELECT setting, seqno FROM pg_file_settings
               WHERE name = n AND sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'
               ORDER BY seqno DESC LIMIT 1) f ON true`,
          [names],
        );
        const byName = new Map(current.map((row) => [row['name'], row]));
        const unknown = names.filter((name) => byName.get(name)?.['known'] !== 'true');
        if (unknown.length) {
          throw new PgAdminError(
            `alterSystem on ${target.host}:${target.port} failed: unrecognized configuration parameter(s) ${unknown.join(', ')} (SQLSTATE 42704)`,
            'server',
            { code: '42704' },
          );
        }
        const changed: string[] = [];
        for (const { name, value, statement } of wanted) {
          const row = byName.get(name);
          const inAuto = row?.['in_auto'] === 'true';
          if (settingInPlace(name, value, inAuto ? (row?.['auto_value'] ?? '') : undefined))
            continue;
          await rows(client, statement);
          changed.push(name);
        }
        if (changed.length) await rows(client, 'SELECT pg_reload_conf()');
        return changed;
      });
    } catch (error) {
      throw this.adminError('alterSystem', target, error);
    }
  }

  async bootstrap(
    target: PgEndpoint,
    { database, owner, ownerPassword, replicationPassword }: BootstrapSpec,
  ): Promise<string[]> {
    const db = quoteIdentifier(database, 'database name');
    const role = quoteIdentifier(owner, 'role name');
    if (!ownerPassword) throw new TypeError('the owner password must not be empty');
    if (owner === ReplicationRole)
      throw new TypeError(`the owner must not be ${ReplicationRole}, the replication role`);
    if (replicationPassword !== undefined && !replicationPassword)
      throw new TypeError('the replication password must not be empty');
    // throws a TypeError for a password PostgreSQL would SASLprep, before anything is sent
    scramVerifier(ownerPassword, { iterations: 1 });
    if (replicationPassword) scramVerifier(replicationPassword, { iterations: 1 });
    try {
      return await this.withClient(target, async (client) => {
        const changed: string[] = [];
        const [existing] = await rows(
          client,
          'SELECT rolpassword, rolcanlogin::text AS can_login FROM pg_authid WHERE rolname = $1',
          [owner],
        );
        const password = () => quoteLiteral(scramVerifier(ownerPassword));
        if (!existing) {
          await rows(client, `CREATE ROLE ${role} LOGIN PASSWORD ${password()}`);
          changed.push(`role ${owner} created`);
        } else {
          if (existing['can_login'] !== 'true') {
            await rows(client, `ALTER ROLE ${role} LOGIN`);
            changed.push(`role ${owner} login enabled`);
          }
          if (!verifierMatches(existing['rolpassword'], ownerPassword)) {
            await rows(client, `ALTER ROLE ${role} PASSWORD ${password()}`);
            changed.push(`role ${owner} password set`);
          }
        }
        const [db0] = await rows(
          client,
          'SELECT pg_get_userbyid(datdba)::text AS owner FROM pg_database WHERE datname = $1',
          [database],
        );
        if (!db0) {
          // not in a transaction (it cannot run in one), and slower than the other statements
          await withStatementTimeout(client, slowStatementMs, () =>
            rows(client, `CREATE DATABASE ${db} OWNER ${role}`, [], slowStatementMs),
          );
          changed.push(`database ${database} created`);
        } else if (db0['owner'] !== owner) {
          await rows(client, `ALTER DATABASE ${db} OWNER TO ${role}`);
          changed.push(`database ${database} owner set`);
        }
        if (replicationPassword)
          changed.push(...(await ensureReplicationRole(client, replicationPassword)));
        return changed;
      });
    } catch (error) {
      throw this.adminError(
        `bootstrap of database ${database}`,
        target,
        error,
        ownerPassword,
        ...(replicationPassword ? [replicationPassword] : []),
      );
    }
  }

  async reloadChangedHba(target: PgEndpoint): Promise<boolean> {
    try {
      return await this.withClient(target, async (client) => {
        const [row] = await rows(
          client,
          `SELECT pg_reload_conf()::text AS reloaded
             WHERE (pg_stat_file(current_setting('hba_file'))).modification
                   >= date_trunc('second', pg_conf_load_time())`,
        );
        return row?.['reloaded'] === 'true';
      });
    } catch (error) {
      throw this.adminError('reloadChangedHba', target, error);
    }
  }

  async endClientSessions(target: PgEndpoint): Promise<number> {
    try {
      return await this.withClient(target, async (client) => {
        const [row] = await rows(
          client,
          `SELECT count(pg_terminate_backend(a.pid))::text AS ended
             FROM pg_stat_activity a LEFT JOIN pg_roles r ON r.oid = a.usesysid
             WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
               AND NOT (coalesce(r.rolsuper, false)
                        AND a.application_name = current_setting('application_name'))`,
        );
        return Number(row?.['ended'] ?? 0);
      });
    } catch (error) {
      throw this.adminError('endClientSessions', target, error);
    }
  }

  async connectionLimits(target: PgEndpoint): Promise<DatabaseLimit[]> {
    try {
      return await this.withClient(target, async (client) =>
        (
          await rows(
            client,
            `SELECT datname AS name, datconnlimit::text AS limit FROM pg_database
               WHERE datallowconn ORDER BY datname`,
          )
        ).map((row) => ({ name: row['name']!, connectionLimit: Number(row['limit']) })),
      );
    } catch (error) {
      throw this.adminError('connectionLimits', target, error);
    }
  }

  async holdConnections(target: PgEndpoint): Promise<string[]> {
    try {
      return await this.withClient(target, (client) =>
        inTransaction(client, async () => {
          const held = await rows(
            client,
            `SELECT datname AS name, format('ALTER DATABASE %I CONNECTION LIMIT 0', datname) AS statement
               FROM pg_database WHERE datallowconn AND datconnlimit <> 0 ORDER BY datname`,
          );
          for (const row of held) await rows(client, row['statement']!);
          return held.map((row) => row['name']!);
        }),
      );
    } catch (error) {
      throw this.adminError('holdConnections', target, error);
    }
  }

  async releaseConnections(target: PgEndpoint, limits: DatabaseLimit[]): Promise<string[]> {
    for (const l of limits)
      if (!Number.isSafeInteger(l.connectionLimit) || l.connectionLimit < -1)
        throw new TypeError(`not a connection limit: ${l.connectionLimit} (database ${l.name})`);
    if (limits.length === 0) return [];
    try {
      return await this.withClient(target, (client) =>
        inTransaction(client, async () => {
          const changed = await rows(
            client,
            `SELECT d.datname AS name,
                 format('ALTER DATABASE %I CONNECTION LIMIT %s', d.datname, w.n) AS statement
               FROM unnest($1::text[], $2::int[]) AS w(name, n)
               JOIN pg_database d ON d.datname = w.name
               WHERE d.datconnlimit <> w.n ORDER BY d.datname`,
            [limits.map((l) => l.name), limits.map((l) => l.connectionLimit)],
          );
          for (const row of changed) await rows(client, row['statement']!);
          return changed.map((row) => row['name']!);
        }),
      );
    } catch (error) {
      throw this.adminError('releaseConnections', target, error);
    }
  }

  async settings(target: PgEndpoint, names: string[]): Promise<PgSetting[]> {
    if (names.length === 0) return [];
    try {
      return await this.withClient(target, async (client) =>
        (
          await rows(
            client,
            `SELECT name, vartype, min_val, max_val, unit,
                 array_to_json(enumvals)::text AS enumvals
               FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name`,
            [names],
          )
        ).map(settingFromRow),
      );
    } catch (error) {
      throw this.adminError('settings', target, error);
    }
  }

  async holdSynchronousCommit(
    target: PgEndpoint,
    owner: string,
  ): Promise<{ reset: string[]; ownerDefault: boolean }> {
    const role = quoteIdentifier(owner, 'role name');
    try {
      return await this.withClient(target, (client) =>
        inTransaction(client, async () => {
          const weaker = await rows(
            client,
            `SELECT CASE
                 WHEN s.setrole = 0 AND s.setdatabase = 0
                   THEN 'ALTER ROLE ALL RESET synchronous_commit'
                 WHEN s.setrole = 0
                   THEN format('ALTER DATABASE %I RESET synchronous_commit', d.datname)
                 WHEN s.setdatabase = 0
                   THEN format('ALTER ROLE %I RESET synchronous_commit', r.rolname)
                 ELSE format('ALTER ROLE %I IN DATABASE %I RESET synchronous_commit',
                             r.rolname, d.datname)
               END AS statement,
               coalesce('role ' || r.rolname, 'every role')
                 || coalesce(' in database ' || d.datname, '')
                 || ': synchronous_commit=' || split_part(c, '=', 2) AS what
             FROM pg_db_role_setting s
             LEFT JOIN pg_roles r ON r.oid = s.setrole
             LEFT JOIN pg_database d ON d.oid = s.setdatabase
             CROSS JOIN LATERAL unnest(s.setconfig) AS c
             WHERE c LIKE 'synchronous\\_commit=%'
               AND lower(split_part(c, '=', 2)) NOT IN ('on', 'true', 'yes', '1', 'remote_apply')
               AND NOT coalesce(r.rolsuper, false)
             ORDER BY what`,
          );
          for (const row of weaker) await rows(client, row['statement']!);
          const [own] = await rows(
            client,
            `SELECT EXISTS (
                 SELECT 1 FROM pg_db_role_setting s
                   CROSS JOIN LATERAL unnest(s.setconfig) AS c
                   WHERE s.setrole = r.oid AND s.setdatabase = 0
                     AND c LIKE 'synchronous\\_commit=%'
                     AND lower(split_part(c, '=', 2)) IN ('on', 'true', 'yes', '1', 'remote_apply')
               )::text AS held
             FROM pg_roles r WHERE r.rolname = $1`,
            [owner],
          );
          const ownerDefault = own !== undefined && own['held'] !== 'true';
          if (ownerDefault) await rows(client, `ALTER ROLE ${role} SET synchronous_commit = 'on'`);
          return { reset: weaker.map((row) => row['what']!), ownerDefault };
        }),
      );
    } catch (error) {
      throw this.adminError('holdSynchronousCommit', target, error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pooled = new Set(this.pool.all().map((entry) => entry.client));
    this.pool.dropAll();
    // the clients still connecting (or between a failure and their 'end') go at once
    for (const client of this.clients) if (!pooled.has(client)) this.discard(client, false);
    await this.pool.ended();
  }

  /**
   * Ends a client for good: politely (Terminate) when it is healthy, else — or when the server
   * does not close its end within a second (a stopped server never does) — by destroying the socket.
   */
  private discard(client: pg.Client, polite: boolean): void {
    const ended = new Promise<void>((resolve) => {
      const destroy = () => {
        client.connection.stream.destroy();
        resolve();
      };
      const timer = setTimeout(destroy, 1000);
      timer.unref();
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      if (polite) client.end().then(finish, finish);
      else {
        clearTimeout(timer);
        destroy();
      }
    });
    this.pool.track(ended);
  }

  private entryFor(endpoint: PgEndpoint): Pooled {
    const database = endpoint.database ?? 'postgres';
    const address = `${endpoint.host}:${endpoint.port}:${endpoint.user}:${database}`;
    return this.pool.entry(address, endpoint.password, (key, now) => ({
      key,
      address,
      endpoint: { ...endpoint, database },
      client: undefined,
      tail: Promise.resolve(),
      lastUsed: now,
    }));
  }

  private async open(entry: Pooled): Promise<pg.Client> {
    const { host, port, user, password, database } = entry.endpoint;
    const client = new pg.Client({
      host,
      port,
      user,
      password,
      ...(database === undefined ? {} : { database }),
      ssl: false,
      application_name: this.applicationName,
      connectionTimeoutMillis: this.connectTimeoutMs,
      statement_timeout: this.queryTimeoutMs,
      query_timeout: this.queryTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      types: textTypes,
    });
    // never unhandled: a server going away emits 'error' on an idle client; the client is done
    const forget = () => {
      if (entry.client === client) entry.client = undefined;
    };
    client.on('error', forget);
    client.on('end', () => {
      forget();
      this.clients.delete(client);
    });
    this.clients.add(client);
    try {
      await client.connect();
    } catch (error) {
      this.discard(client, false);
      throw error;
    }
    if (this.closed) {
      this.discard(client, true);
      throw new AdminClosedError('PostgreSQL');
    }
    entry.client = client;
    return client;
  }

  /**
   * Runs `work` on the endpoint's connection (opened when needed), after the requests queued
   * before it. A connection the failure leaves unusable is dropped; when a reused connection
   * turns out dead, `work` runs once more on a new one (every `work` here is idempotent).
   */
  private withClient<T>(endpoint: PgEndpoint, work: (client: pg.Client) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new AdminClosedError('PostgreSQL'));
    const entry = this.entryFor(endpoint);
    const run = async (): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        if (this.closed) throw new AdminClosedError('PostgreSQL');
        const reused = entry.client;
        const client = reused ?? (await this.open(entry));
        try {
          return await work(client);
        } catch (error) {
          if (!leavesConnectionUsable(error)) {
            if (entry.client === client) entry.client = undefined;
            this.discard(client, false);
            if (reused && attempt === 0 && isConnectionLost(error)) continue;
          }
          throw error;
        } finally {
          // replaced (another password) or swept while it ran: its connection goes now
          if (!this.pool.holds(entry)) this.pool.drop(entry);
        }
      }
    };
    const result = entry.tail.then(run, run);
    entry.tail = result.catch(() => undefined);
    return result;
  }

  private failure(error: unknown, ...secrets: string[]) {
    return describeFailure(error, secrets, {
      connectTimeoutMs: this.connectTimeoutMs,
      queryTimeoutMs: this.queryTimeoutMs,
    });
  }

  private adminError(what: string, target: PgEndpoint, error: unknown, ...secrets: string[]) {
    if (error instanceof PgAdminError || error instanceof TypeError) return error;
    const { kind, reason, code } = this.failure(error, target.password, ...secrets);
    return new PgAdminError(`${what} on ${target.host}:${target.port} failed: ${reason}`, kind, {
      code,
    });
  }
}

/** The rows of one statement, every column as text. `timeoutMs` overrides the client's query timeout. */
async function rows(
  client: pg.Client,
  text: string,
  values: unknown[] = [],
  timeoutMs?: number,
): Promise<TextRow[]> {
  const config = { text, values, ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }) };
  const result = await client.query<TextRow>(config as pg.QueryConfig);
  return result.rows;
}

/**
 * `steward_replication` as `bootstrap` wants it (see BootstrapSpec): what it changed, in words.
 * The password is sent as a SCRAM verifier computed here, only when the stored one does not match.
 */
async function ensureReplicationRole(client: pg.Client, password: string): Promise<string[]> {
  const changed: string[] = [];
  const role = quoteIdentifier(ReplicationRole, 'role name');
  const verifier = () => quoteLiteral(scramVerifier(password));
  const [existing] = await rows(
    client,
    `SELECT rolpassword, (rolcanlogin AND rolreplication AND NOT rolsuper AND NOT rolcreaterole
         AND NOT rolcreatedb AND NOT rolbypassrls)::text AS as_wanted
       FROM pg_authid WHERE rolname = $1`,
    [ReplicationRole],
  );
  if (!existing) {
    await rows(client, `CREATE ROLE ${role} LOGIN REPLICATION PASSWORD ${verifier()}`);
    changed.push(`role ${ReplicationRole} created`);
  } else {
    if (existing['as_wanted'] !== 'true') {
      await rows(
        client,
        `ALTER ROLE ${role} LOGIN REPLICATION NOSUPERUSER NOCREATEROLE NOCREATEDB NOBYPASSRLS`,
      );
      changed.push(`role ${ReplicationRole} attributes set`);
    }
    if (!verifierMatches(existing['rolpassword'], password)) {
      await rows(client, `ALTER ROLE ${role} PASSWORD ${verifier()}`);
      changed.push(`role ${ReplicationRole} password set`);
    }
  }
  const missing = await rows(
    client,
    `SELECT f AS fn FROM unnest($1::text[]) AS f
       WHERE NOT has_function_privilege($2, f::regprocedure, 'EXECUTE')`,
    [[...RewindFunctions], ReplicationRole],
  );
  for (const row of missing) {
    const fn = RewindFunctions.find((f) => f === row['fn'])!;
    await rows(client, `GRANT EXECUTE ON FUNCTION ${fn} TO ${role}`);
    changed.push(`role ${ReplicationRole} may execute ${fn.replace('pg_catalog.', '')}`);
  }
  return changed;
}

/**
 * `work` in one transaction, committed when it resolves, rolled back when it throws. READ WRITE
 * whatever `default_transaction_read_only` says (an upgrade's write hold sets it).
 */
async function inTransaction<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await rows(client, 'BEGIN READ WRITE');
  try {
    const result = await work();
    await rows(client, 'COMMIT');
    return result;
  } catch (error) {
    await rows(client, 'ROLLBACK').catch(() => client.connection.stream.destroy());
    throw error;
  }
}

async function inRecovery(client: pg.Client): Promise<boolean> {
  const [row] = await rows(client, 'SELECT pg_is_in_recovery()::text AS in_recovery');
  return row?.['in_recovery'] === 'true';
}

/**
 * Runs `work` with the session's `statement_timeout` raised to `ms`, then back to the session's
 * own (its startup value). A session that cannot be reset is closed rather than left with it.
 */
async function withStatementTimeout<T>(
  client: pg.Client,
  ms: number,
  work: () => Promise<T>,
): Promise<T> {
  await rows(client, `SET statement_timeout = ${Math.trunc(ms)}`);
  try {
    return await work();
  } finally {
    await rows(client, 'RESET statement_timeout').catch(() => client.connection.stream.destroy());
  }
}

/** A server error (severity ERROR), or a refusal of our own, leaves the session usable; anything else ends it. */
function leavesConnectionUsable(error: unknown): boolean {
  return (
    error instanceof PgAdminError ||
    (error instanceof pg.DatabaseError && error.severity === 'ERROR')
  );
}

/** The connection was lost (closed by the server, reset): another connection may well work. */
function isConnectionLost(error: unknown): boolean {
  if (error instanceof pg.DatabaseError)
    return error.severity === 'FATAL' && /^57P0[12]$/.test(error.code ?? '');
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    /Connection terminated|not queryable/.test(message) || code === 'ECONNRESET' || code === 'EPIPE'
  );
}

/**
 * The reason a request failed, in words an operator acts on, with every secret scrubbed out (no
 * message PostgreSQL or node-postgres sends contains one; this holds even if one ever did).
 */
export function describeFailure(
  error: unknown,
  secrets: readonly string[],
  timeouts: { connectTimeoutMs: number; queryTimeoutMs: number },
): { kind: PgFailureKind; reason: string; code?: string } {
  const common = adminFailure(error);
  if (common) return common;
  const message = error instanceof Error ? error.message : String(error);
  const errno = (error as { code?: unknown } | undefined)?.code;
  let kind: PgFailureKind;
  let reason: string;
  let code: string | undefined;
  if (error instanceof pg.DatabaseError) {
    code = error.code;
    const sqlstate = code ? ` (SQLSTATE ${code})` : '';
    if (code === '28P01' || code === '28000') {
      kind = 'auth';
      reason = `authentication failed: ${message}${sqlstate}`;
    } else if (code === '57014') {
      kind = 'timeout';
      reason = `${message}${sqlstate}`;
    } else if (code?.startsWith('57P') || code?.startsWith('08')) {
      // shutting down, starting up, crash recovery, too many connections...
      kind = 'unreachable';
      reason = `${message}${sqlstate}`;
    } else {
      kind = 'server';
      reason = `${message}${sqlstate}`;
    }
  } else if (/timeout expired|connection timeout/i.test(message)) {
    kind = 'timeout';
    reason = `connect timed out after ${timeouts.connectTimeoutMs} ms`;
  } else if (message === 'Query read timeout') {
    kind = 'timeout';
    reason = `no reply within ${timeouts.queryTimeoutMs} ms (server stopped or overloaded)`;
  } else if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) {
    kind = 'unreachable';
    reason = message;
  } else if (/Connection terminated/i.test(message)) {
    kind = 'unreachable';
    reason = 'the connection closed before the server answered';
  } else {
    kind = 'server';
    reason = message;
  }
  return { kind, reason: scrubbed(reason, secrets), ...(code === undefined ? {} : { code }) };
}
