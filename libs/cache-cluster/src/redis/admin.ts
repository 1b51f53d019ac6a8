/**
 * The Redis/Valkey admin the CacheCluster controller observes and steers its pods with: `INFO` +
 * `ROLE` to observe, `REPLICAOF` and `FAILOVER` to steer. Only the Redis protocol (ioredis); nothing here knows
 * Kubernetes.
 *
 * The controller polls every pod every second or two, so each endpoint keeps one connection
 * (pooled by host:port and a keyed hash of the password: a changed password replaces the
 * connection). Every request is bounded: no offline queue, no retries, no ioredis reconnect loop —
 * a connection that fails or stops answering is dropped and the next request opens a new one, so a
 * node that comes back is observed again. An unreachable, stopped or refusing node is an
 * observation (`reachable: false` with the reason), never an exception, a hang, an unhandled
 * `'error'` event or an unhandled rejection. Passwords never appear in errors.
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
import { Redis } from 'ioredis';
import {
  observationFromInfo,
  parseInfo,
  type RedisEndpoint,
  type RedisObservation,
} from './info.js';

export interface RedisAdminOptions {
  /** TCP connect timeout. Default 1000 ms. */
  connectTimeoutMs?: number;
  /** How long one command (the AUTH of a new connection included) may go unanswered. Default 2000 ms. */
  commandTimeoutMs?: number;
  /**
   * A connection unused for this long is closed at the next request (pods come and go with new
   * IPs; their connections must not pile up). Default 60 000 ms.
   */
  idleTimeoutMs?: number;
}

export interface RedisAdmin {
  /**
   * `INFO` and `ROLE` of the node. Never throws: an unreachable, stopped or failing node (a wrong
   * password included, which the error names) is `{ reachable: false, error }`, within about the
   * connect plus the command timeout. An aborted `signal` ends the wait at once.
   */
  observe(endpoint: RedisEndpoint, options?: { signal?: AbortSignal }): Promise<RedisObservation>;
  /** `REPLICAOF NO ONE`: the node becomes a primary (a no-op on a primary). Throws {@link RedisAdminError}. */
  promote(endpoint: RedisEndpoint): Promise<void>;
  /**
   * `REPLICAOF host port`, unless `ROLE` says the node already replicates from exactly there.
   * Throws {@link RedisAdminError}.
   */
  replicaOf(endpoint: RedisEndpoint, primary: { host: string; port: number }): Promise<void>;
  /**
   * `FAILOVER TO host port TIMEOUT timeoutMs` on a primary: a coordinated handover to one of its
   * replicas (Redis ≥ 6.2, Valkey). The server answers at once and carries it out in the
   * background: it pauses writes, waits until the replica has every byte of its replication
   * stream, makes itself the replica's replica and hands over with PSYNC FAILOVER; without FORCE
   * it aborts and resumes writes if the replica does not catch up within `timeoutMs`. Its progress
   * shows in `observe` (`failoverState`, then the roles). Resolves `started`, or `inProgress`
   * when a FAILOVER is already under way there (sent again after a restart: nothing to do).
   * Throws {@link RedisAdminError} when the node refuses it (not a primary, the target not an
   * online replica of it) or cannot be reached.
   */
  failover(
    endpoint: RedisEndpoint,
    target: { host: string; port: number },
    timeoutMs: number,
  ): Promise<'started' | 'inProgress'>;
  /**
   * Salvage, then follow: saves what an old primary holds before it is made a replica of the new
   * primary (a full resync would discard it). Writes stopped first (`min-replicas-to-write` set
   * beyond any replica count: NOREPLICAS at once), its offset read, then an RDB of its dataset
   * written as `fileName` in its data directory (`dbfilename` set for one `BGSAVE` and set
   * back; waits until the save ended, at most `timeoutMs`), then `REPLICAOF primary`, then its
   * fence set to `fence` (what its redis.conf says: `minReplicas` 0 for none). Throws
   * {@link RedisAdminError} when a step fails: writes stay stopped and it is not made a replica
   * (its data is kept where it is); it may be asked again.
   */
  salvageThenFollow(
    endpoint: RedisEndpoint,
    fileName: string,
    primary: { host: string; port: number },
    timeoutMs: number,
    fence: { minReplicas: number; maxLagSeconds: number },
  ): Promise<{ offset: number; savedAt: Date }>;
  /** Ends every connection. Later calls fail (`observe`: `reachable: false`). */
  close(): Promise<void>;
}

/** A failed `promote`/`replicaOf`: says which node and why, never the password. */
export class RedisAdminError extends Error {
  override readonly name = 'RedisAdminError';
  constructor(
    message: string,
    /** `auth` (wrong or missing password), `timeout`, `unreachable` or `command` (the node refused). */
    readonly kind: RedisFailureKind,
  ) {
    super(message);
  }
}

export type RedisFailureKind = 'auth' | 'timeout' | 'unreachable' | 'command' | 'closed';

/** `min-replicas-to-write` while a salvage runs: more replicas than any cluster has, so writes stop. */
const SALVAGE_WRITE_STOP = 1_000_000;

/** Margin over ioredis' own timers before our hard deadline gives up on a request. */
const marginMs = 250;

/** An endpoint's connection; the pool's address is host:port. */
interface Pooled extends EndpointEntry {
  readonly endpoint: RedisEndpoint;
  client?: Redis;
  connecting?: Promise<Redis>;
}

export function redisAdmin(options: RedisAdminOptions = {}): RedisAdmin {
  return new PooledRedisAdmin(options);
}

/** {@link RedisAdmin} over one ioredis client per endpoint (see the file's doc). */
class PooledRedisAdmin implements RedisAdmin {
  private readonly connectTimeoutMs: number;
  private readonly commandTimeoutMs: number;
  private readonly pool: EndpointPool<Pooled>;
  private closed = false;

  constructor(options: RedisAdminOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2000;
    this.pool = new EndpointPool<Pooled>({
      idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
      release: (entry) => {
        const client = entry.client;
        entry.client = undefined;
        this.discard(client);
      },
    });
  }

  async observe(
    endpoint: RedisEndpoint,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<RedisObservation> {
    if (signal?.aborted) return { reachable: false, error: 'observation aborted' };
    try {
      const work = this.withConnection(endpoint, 1, (client) =>
        Promise.all([
          client.info(),
          client.role(),
          // the fence's settings; a server refusing CONFIG is still observed (fence unknown)
          client.config('GET', 'min-replicas-*').catch(() => undefined),
        ]),
      );
      const [info, role, fence] = signal
        ? await abortable(work, signal, () => new ObservationAbortedError())
        : await work;
      return observationFromInfo(parseInfo(info), role, fence);
    } catch (error) {
      return { reachable: false, error: this.failure(error, endpoint.password).reason };
    }
  }

  async promote(endpoint: RedisEndpoint): Promise<void> {
    try {
      await this.withConnection(endpoint, 1, (client) => client.call('REPLICAOF', 'NO', 'ONE'));
    } catch (error) {
      const { kind, reason } = this.failure(error, endpoint.password);
      throw new RedisAdminError(
        `REPLICAOF NO ONE on ${endpoint.host}:${endpoint.port} failed: ${reason}`,
        kind,
      );
    }
  }

  async replicaOf(endpoint: RedisEndpoint, primary: { host: string; port: number }): Promise<void> {
    try {
      await this.withConnection(endpoint, 2, async (client) => {
        const role = await client.role();
        if (
          role[0] === 'slave' &&
          String(role[1]) === primary.host &&
          Number(role[2]) === primary.port
        )
          return;
        await client.call('REPLICAOF', primary.host, String(primary.port));
      });
    } catch (error) {
      const { kind, reason } = this.failure(error, endpoint.password);
      throw new RedisAdminError(
        `REPLICAOF ${primary.host} ${primary.port} on ${endpoint.host}:${endpoint.port} failed: ${reason}`,
        kind,
      );
    }
  }

  async failover(
    endpoint: RedisEndpoint,
    target: { host: string; port: number },
    timeoutMs: number,
  ): Promise<'started' | 'inProgress'> {
    const args = ['TO', target.host, String(target.port), 'TIMEOUT', String(timeoutMs)];
    try {
      await this.withConnection(endpoint, 1, (client) => client.call('FAILOVER', ...args));
      return 'started';
    } catch (error) {
      if (error instanceof Error && /already in progress/i.test(error.message)) return 'inProgress';
      const { kind, reason } = this.failure(error, endpoint.password);
      throw new RedisAdminError(
        `FAILOVER ${args.join(' ')} on ${endpoint.host}:${endpoint.port} failed: ${reason}`,
        kind,
      );
    }
  }

  async salvageThenFollow(
    endpoint: RedisEndpoint,
    fileName: string,
    primary: { host: string; port: number },
    timeoutMs: number,
    fence: { minReplicas: number; maxLagSeconds: number },
  ): Promise<{ offset: number; savedAt: Date }> {
    const where = `${endpoint.host}:${endpoint.port}`;
    let step = 'stopping writes (CONFIG SET min-replicas-to-write)';
    try {
      const one = <T>(work: (client: Redis) => Promise<T>) =>
        this.withConnection(endpoint, 1, work);
      await one((c) =>
        c.call(
          'CONFIG',
          'SET',
          'min-replicas-to-write',
          String(SALVAGE_WRITE_STOP),
          'min-replicas-max-lag',
          String(fence.maxLagSeconds || 10),
        ),
      );
      step = 'INFO';
      const before = parseInfo(await one((c) => c.info()));
      const offset = Number(before['master_repl_offset'] ?? 0);
      const [, original] = (await one((c) => c.config('GET', 'dbfilename'))) as string[];
      step = `BGSAVE to ${fileName}`;
      const deadlineAt = Date.now() + timeoutMs;
      // BGSAVE refuses while another child (an AOF rewrite, a save) runs: try again until it starts
      for (;;) {
        await one((c) => c.config('SET', 'dbfilename', fileName));
        try {
          await one((c) => c.call('BGSAVE'));
          break;
        } catch (error) {
          if (!/in progress/i.test((error as Error).message) || Date.now() > deadlineAt)
            throw error;
        } finally {
          // the child writes to the name it was forked with: set back at once
          await one((c) => c.config('SET', 'dbfilename', original ?? 'dump.rdb'));
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      for (;;) {
        const now = parseInfo(await one((c) => c.info('persistence')));
        if (now['rdb_bgsave_in_progress'] === '0') {
          if (now['rdb_last_bgsave_status'] !== 'ok') throw new Error('the RDB save failed');
          break;
        }
        if (Date.now() > deadlineAt) throw new Error(`the save did not end within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const savedAt = new Date();
      step = `REPLICAOF ${primary.host} ${primary.port}`;
      await one((c) => c.call('REPLICAOF', primary.host, String(primary.port)));
      step = 'setting the fence back (CONFIG SET min-replicas-to-write)';
      await one((c) =>
        c.call(
          'CONFIG',
          'SET',
          'min-replicas-to-write',
          String(fence.minReplicas),
          'min-replicas-max-lag',
          String(fence.maxLagSeconds),
        ),
      );
      return { offset, savedAt };
    } catch (error) {
      const { kind, reason } = this.failure(error, endpoint.password);
      throw new RedisAdminError(`salvage of ${where} failed at ${step}: ${reason}`, kind);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pool.dropAll();
    await this.pool.ended();
  }

  /** Drops a client for good: no reconnect, the socket destroyed now (a stopped peer never FINs). */
  private discard(client: Redis | undefined): void {
    if (!client || client.status === 'end') return;
    const ended = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      timer.unref();
      client.once('end', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.pool.track(ended);
    client.disconnect();
    client.stream?.destroy();
  }

  private entryFor(endpoint: RedisEndpoint): Pooled {
    const address = `${endpoint.host}:${endpoint.port}`;
    return this.pool.entry(address, endpoint.password, (key, now) => ({
      key,
      address,
      endpoint: { ...endpoint },
      lastUsed: now,
    }));
  }

  private async open(entry: Pooled): Promise<Redis> {
    const { host, port, password } = entry.endpoint;
    const client = new Redis({
      host,
      port,
      password: password || undefined,
      lazyConnect: true,
      // RESP2 and AUTH: every engine and version speaks it; nothing here needs RESP3
      protocol: 2,
      enableOfflineQueue: false,
      // a loading node must still be observable (INFO and ROLE are allowed while loading)
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      reconnectOnError: null,
      autoResendUnfulfilledCommands: false,
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: this.commandTimeoutMs,
      disconnectTimeout: 500,
      connectionName: 'steward-admin',
      disableClientInfo: true,
    });
    entry.client = client;
    let lastError: unknown;
    // never unhandled: ioredis emits 'error' for every failed connect and failed handshake
    client.on('error', (error: unknown) => {
      lastError = error;
      // a failed connect or handshake: ioredis would wait disconnectTimeout for a FIN that a
      // stopped peer never sends; the socket goes now
      if (client.status !== 'ready') client.stream?.destroy();
    });
    try {
      await deadline(client.connect(), this.connectTimeoutMs + this.commandTimeoutMs + marginMs);
      if (this.closed) throw new AdminClosedError('Redis');
      return client;
    } catch (error) {
      if (entry.client === client) entry.client = undefined;
      this.discard(client);
      // connect() rejects with "Connection is closed."; the 'error' before it has the reason
      throw error instanceof DeadlineError || error instanceof AdminClosedError
        ? error
        : (lastError ?? error);
    }
  }

  private connection(entry: Pooled): Promise<Redis> {
    const client = entry.client;
    if (client && client.status === 'ready' && !entry.connecting) return Promise.resolve(client);
    if (!entry.connecting) {
      if (client) {
        entry.client = undefined;
        this.discard(client);
      }
      const connecting = this.open(entry);
      entry.connecting = connecting;
      const clear = () => {
        if (entry.connecting === connecting) entry.connecting = undefined;
      };
      connecting.then(clear, clear);
    }
    return entry.connecting;
  }

  /**
   * Runs `steps` commands on the endpoint's connection (opened when needed), within a hard deadline.
   * A timed-out or broken connection is dropped, so the next request starts afresh.
   */
  private async withConnection<T>(
    endpoint: RedisEndpoint,
    steps: number,
    work: (client: Redis) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new AdminClosedError('Redis');
    const entry = this.entryFor(endpoint);
    const client = await this.connection(entry);
    try {
      return await deadline(work(client), steps * this.commandTimeoutMs + marginMs);
    } catch (error) {
      if (isTimeout(error) || client.status !== 'ready') {
        if (entry.client === client) entry.client = undefined;
        this.discard(client);
      }
      throw error;
    }
  }

  private failure(error: unknown, password: string): { kind: RedisFailureKind; reason: string } {
    return describeFailure(error, password, {
      connectTimeoutMs: this.connectTimeoutMs,
      commandTimeoutMs: this.commandTimeoutMs,
    });
  }
}

class DeadlineError extends Error {}

/** `promise`, or a DeadlineError after `ms` (the promise's own outcome is still handled). */
function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(`no reply within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof DeadlineError ||
    (error instanceof Error && /timed out|ETIMEDOUT/i.test(error.message))
  );
}

const authPattern = /WRONGPASS|NOAUTH|invalid password|invalid username-password|AUTH failed/i;

/**
 * The reason a request failed, in words an operator acts on, with the password scrubbed out (no
 * message the servers send contains it; this holds even if one ever did).
 */
export function describeFailure(
  error: unknown,
  password: string,
  timeouts: { connectTimeoutMs: number; commandTimeoutMs: number },
): { kind: RedisFailureKind; reason: string } {
  const common = adminFailure(error);
  if (common) return common;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  let kind: RedisFailureKind;
  let reason: string;
  if (authPattern.test(message)) {
    kind = 'auth';
    reason = `authentication failed: ${message}`;
  } else if (code === 'ETIMEDOUT' && /connect/i.test(message)) {
    kind = 'timeout';
    reason = `connect timed out after ${timeouts.connectTimeoutMs} ms`;
  } else if (error instanceof DeadlineError || message === 'Command timed out') {
    kind = 'timeout';
    reason = `no reply within ${timeouts.commandTimeoutMs} ms (node stopped or overloaded)`;
  } else if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    kind = 'unreachable';
    reason = message;
  } else if (/Connection is closed|Stream isn't writeable/i.test(message)) {
    kind = 'unreachable';
    reason = 'the connection closed before the node answered';
  } else {
    kind = 'command';
    reason = message;
  }
  return { kind, reason: scrubbed(reason, [password]) };
}
