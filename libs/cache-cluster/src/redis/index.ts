/**
 * The Redis/Valkey admin layer of the CacheCluster controller: observe a node (`INFO`, `ROLE`) and
 * steer it (`REPLICAOF`, `FAILOVER`). Only the Redis protocol; no Kubernetes.
 *
 * - `redisAdmin(options)`: one pooled connection per endpoint, bounded connect and command
 *   timeouts, no offline queue or retries; `observe` never throws (an unreachable, stopped or
 *   refusing node is `reachable: false` with the reason), `promote`/`replicaOf`/`failover` throw
 *   `RedisAdminError`.
 * - `parseInfo(text)` and `observationFromInfo(info, role)` (pure): what a node's `INFO` and
 *   `ROLE` replies mean.
 */
export {
  redisAdmin,
  RedisAdminError,
  type RedisAdmin,
  type RedisAdminOptions,
  type RedisFailureKind,
} from './admin.js';
export {
  observationFromInfo,
  parseInfo,
  type ReachableRedisObservation,
  type RedisEndpoint,
  type RedisObservation,
  type RedisReplicaLink,
} from './info.js';
