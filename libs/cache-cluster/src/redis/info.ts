/**
 * What a Redis or Valkey node says about itself (`INFO`, `ROLE`), as data the CacheCluster
 * controller decides on. Pure: no I/O, no Kubernetes.
 */

/** Where a node listens and the password of its `default` user ('' when it has none). */
export interface RedisEndpoint {
  host: string;
  port: number;
  password: string;
}

/** A replica as its primary lists it (`INFO replication` `slaveN:` lines). */
export interface RedisReplicaLink {
  host: string;
  port: number;
  /** The offset the primary last heard the replica acknowledge. */
  offset: number;
  /** `wait_bgsave`, `send_bulk`, `online`, ... */
  state: string;
}

export type RedisObservation =
  | { reachable: false; error: string }
  | {
      reachable: true;
      /** From `ROLE` (`master` → primary, `slave` → replica). */
      role: 'primary' | 'replica';
      /** `run_id`: changes on every process start. */
      runId: string;
      /** `master_replid`: the replication history this node is part of. */
      replId: string;
      /**
       * A primary's `master_repl_offset`; for a replica the offset it has processed
       * (`slave_repl_offset`, else `master_repl_offset`).
       */
      offset: number;
      /** Replicas only: `master_host`, `master_port`, `master_link_status:up`. */
      primary?: { host: string; port: number; linkUp: boolean };
      /** The `slaveN:` lines: the replicas attached to this node. */
      replicas: RedisReplicaLink[];
      /** `loading:1`: the node is loading its dataset (RDB/AOF) and refuses most commands. */
      loading: boolean;
      /** `master_sync_in_progress:1`: a replica receiving a full sync. */
      syncInProgress: boolean;
      /**
       * `master_failover_state` (Redis ≥ 6.2, Valkey) when a coordinated FAILOVER is under way on
       * this node: `waiting-for-sync` (writes paused until the target has every byte) or
       * `failover-in-progress` (demoted, handing over). Absent for `no-failover`.
       */
      failoverState?: 'waiting-for-sync' | 'failover-in-progress';
      /** `valkey` when INFO has `valkey_version`. */
      engine: 'redis' | 'valkey';
      /** `valkey_version`, else `redis_version` (Valkey also reports `redis_version:7.2.4`). */
      version: string;
      persistence: { aofEnabled: boolean; rdbLastSaveTime?: number };
      /** `used_memory` and `maxmemory` in bytes (`max` 0: no limit). */
      memory: { used: number; max: number };
      /**
       * `min-replicas-to-write` / `min-replicas-max-lag` (`CONFIG GET`), when the observation
       * asked: the fence a primary applies (it refuses writes unless `minReplicas` replicas
       * acknowledged within `maxLagSeconds`; either 0: no fence).
       */
      fence?: { minReplicas: number; maxLagSeconds: number };
    };

/** The reachable shape of a {@link RedisObservation}. */
export type ReachableRedisObservation = Extract<RedisObservation, { reachable: true }>;

/**
 * `INFO` text → `field → value`. Section headers (`# Server`) and blank lines are skipped; a value
 * keeps everything after the first `:` (`executable:/usr/bin/redis-server`). CRLF or LF.
 */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/**
 * `slave0:ip=10.88.77.5,port=6379,state=online,offset=1234,lag=0` → its fields. Redis writes the
 * values unescaped; an IPv6 address contains no `,` or `=`, so a plain split is exact.
 */
function parseReplicaLine(value: string): RedisReplicaLink | undefined {
  const parts: Record<string, string> = {};
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq > 0) parts[item.slice(0, eq)] = item.slice(eq + 1);
  }
  const port = Number(parts['port']);
  const offset = Number(parts['offset']);
  if (!parts['ip'] || !Number.isFinite(port)) return undefined;
  return {
    host: parts['ip'],
    port,
    offset: Number.isFinite(offset) ? offset : 0,
    state: parts['state'] ?? 'unknown',
  };
}

/** The `slaveN` lines in N order (INFO lists them so; sorting makes it independent of key order). */
function replicasOf(info: Record<string, string>): RedisReplicaLink[] {
  return Object.keys(info)
    .map((key) => /^slave(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => parseReplicaLine(info[m[0]]!))
    .filter((r): r is RedisReplicaLink => r !== undefined);
}

/** `ROLE`'s first element (`master`, `slave`, `sentinel`), from the reply as ioredis hands it back. */
function roleName(role: unknown): string | undefined {
  const first: unknown = Array.isArray(role) ? role[0] : role;
  if (typeof first === 'string') return first;
  if (first instanceof Uint8Array) return Buffer.from(first).toString('utf8');
  return undefined;
}

const num = (value: string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * `INFO` fields plus the `ROLE` reply → an observation. The role comes from `ROLE` (what the node
 * acts as now); when the reply is missing or unreadable, INFO's `role:` field stands in. A node that
 * is neither a primary nor a replica (a Sentinel) or whose INFO lacks the fields every data node
 * reports is returned as `reachable: false`, saying why.
 */
export function observationFromInfo(
  info: Record<string, string>,
  role: unknown,
  config?: unknown,
): RedisObservation {
  const name = roleName(role) ?? info['role'];
  if (name !== 'master' && name !== 'slave') {
    return {
      reachable: false,
      error: `not a Redis data node: ROLE says ${name === undefined ? 'nothing readable' : JSON.stringify(name)}`,
    };
  }
  const valkeyVersion = info['valkey_version'];
  const version = valkeyVersion ?? info['redis_version'];
  const runId = info['run_id'];
  const replId = info['master_replid'];
  if (version === undefined || runId === undefined || replId === undefined) {
    const missing = [
      version === undefined && 'redis_version',
      runId === undefined && 'run_id',
      replId === undefined && 'master_replid',
    ].filter(Boolean);
    return { reachable: false, error: `INFO lacks ${missing.join(', ')}` };
  }
  const replica = name === 'slave';
  const offset = replica
    ? (num(info['slave_repl_offset']) ?? num(info['master_repl_offset']) ?? 0)
    : (num(info['master_repl_offset']) ?? 0);
  const observation: ReachableRedisObservation = {
    reachable: true,
    role: replica ? 'replica' : 'primary',
    runId,
    replId,
    offset,
    replicas: replicasOf(info),
    loading: info['loading'] === '1',
    syncInProgress: info['master_sync_in_progress'] === '1',
    engine: valkeyVersion !== undefined ? 'valkey' : 'redis',
    version,
    persistence: { aofEnabled: info['aof_enabled'] === '1' },
    memory: { used: num(info['used_memory']) ?? 0, max: num(info['maxmemory']) ?? 0 },
  };
  const failoverState = info['master_failover_state'];
  if (failoverState === 'waiting-for-sync' || failoverState === 'failover-in-progress')
    observation.failoverState = failoverState;
  const fence = fenceOf(config);
  if (fence) observation.fence = fence;
  const rdbLastSaveTime = num(info['rdb_last_save_time']);
  if (rdbLastSaveTime !== undefined) observation.persistence.rdbLastSaveTime = rdbLastSaveTime;
  if (replica) {
    const host = info['master_host'] ?? roleField(role, 1);
    const port = num(info['master_port']) ?? num(roleField(role, 2));
    if (host !== undefined && port !== undefined) {
      observation.primary = { host, port, linkUp: info['master_link_status'] === 'up' };
    }
  }
  return observation;
}

/** The `index`th element of a `ROLE` reply as a string (`slave`'s host and port). */
function roleField(role: unknown, index: number): string | undefined {
  if (!Array.isArray(role)) return undefined;
  const value: unknown = role[index];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return undefined;
}

/**
 * A `CONFIG GET min-replicas-*` reply (a flat name/value array, or a map under RESP3) → the fence
 * settings; undefined when the reply lacks either.
 */
export function fenceOf(
  reply: unknown,
): { minReplicas: number; maxLagSeconds: number } | undefined {
  const values: Record<string, string> = {};
  const text = (v: unknown) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v);
  if (Array.isArray(reply))
    for (let i = 0; i + 1 < reply.length; i += 2) values[text(reply[i])] = text(reply[i + 1]);
  else if (reply && typeof reply === 'object')
    for (const [k, v] of Object.entries(reply)) values[k] = text(v);
  const minReplicas = num(values['min-replicas-to-write'] ?? values['min-slaves-to-write']);
  const maxLagSeconds = num(values['min-replicas-max-lag'] ?? values['min-slaves-max-lag']);
  if (minReplicas === undefined || maxLagSeconds === undefined) return undefined;
  return { minReplicas, maxLagSeconds };
}
