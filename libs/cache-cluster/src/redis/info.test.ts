import { describe, expect, it } from 'vitest';
import { observationFromInfo, parseInfo } from './info.js';

/** The `field:value` lines of an INFO text (what parseInfo must return, one entry each). */
const fieldLines = (text: string) =>
  text.split('\r\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('parseInfo on real INFO texts', () => {
  const all = () => [
    redis70Primary,
    redis70Replica,
    redis70ReplicaLinkDown,
    redis70Loading,
    redis80Primary,
    redis80Replica,
    valkey81Primary,
    valkey81Replica,
  ];

  it.each(all().map((f) => [f.what, f] as const))('parses every field of: %s', (_, fixture) => {
    const info = parseInfo(fixture.info);
    const lines = fieldLines(fixture.info);
    expect(Object.keys(info)).toHaveLength(lines.length);
    for (const line of lines) {
      const key = line.slice(0, line.indexOf(':'));
      expect(info[key]).toBe(line.slice(key.length + 1));
    }
    expect(Object.keys(info).some((key) => key.startsWith('#') || key.includes('\r'))).toBe(false);
    expect(info['run_id']).toMatch(/^[0-9a-f]{40}$/);
    expect(info['master_replid']).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reads LF text as it reads CRLF text', () => {
    expect(parseInfo(redis70Primary.info.replace(/\r\n/g, '\n'))).toEqual(
      parseInfo(redis70Primary.info),
    );
  });

  it('keeps everything after the first colon (IPv6 addresses) and skips lines without one', () => {
    expect(parseInfo('# Replication\r\nmaster_host:fe80::1\r\n\r\nnonsense\r\n:x\r\n')).toEqual({
      master_host: 'fe80::1',
    });
  });

  it('shows how the engines differ: Valkey names itself and keeps redis_version at 7.2.4', () => {
    const r7 = parseInfo(redis70Primary.info);
    const r8 = parseInfo(redis80Primary.info);
    const valkey = parseInfo(valkey81Primary.info);
    expect([r7['redis_version'], r8['redis_version'], valkey['redis_version']]).toEqual([
      '7.0.15',
      '8.0.2',
      '7.2.4',
    ]);
    expect(valkey).toMatchObject({
      valkey_version: '8.1.1',
      server_name: 'valkey',
      server_mode: 'standalone',
    });
    expect(valkey['redis_mode']).toBeUndefined();
    expect(r7['valkey_version']).toBeUndefined();
    expect(r8['valkey_version']).toBeUndefined();
    expect(r8['redis_mode']).toBe('standalone');
    // Debian's redis 8 loads the vectorset module; valkey lists a replica's type
    expect(r8['module']).toMatch(/^name=vectorset,/);
    expect(valkey['slave0']).toMatch(/,type=replica$/);
  });
});

describe('observationFromInfo', () => {
  const observe = (fixture: Fixture) => observationFromInfo(parseInfo(fixture.info), fixture.role);

  it('observes a primary with its replicas (redis 7.0)', () => {
    expect(observe(redis70Primary)).toEqual({
      reachable: true,
      role: 'primary',
      runId: '878ad3a2584368fb650b63ee234d061b363d86c1',
      replId: '41cd4baa02895f75f8608b4294e959a258c5c0f5',
      offset: 15913,
      replicas: [
        { host: '10.88.77.7', port: 6379, offset: 15913, state: 'online' },
        { host: '10.88.77.8', port: 6379, offset: 15913, state: 'online' },
      ],
      loading: false,
      syncInProgress: false,
      engine: 'redis',
      version: '7.0.15',
      persistence: { aofEnabled: false, rdbLastSaveTime: 1796186365 },
      memory: { used: 1142344, max: 0 },
    });
  });

  it('observes a replica with its link up, sharing its primary replication id', () => {
    expect(observe(redis70Replica)).toEqual({
      reachable: true,
      role: 'replica',
      runId: '9d3834e17ebd996d7f0a8c31364434c54ececb3c',
      replId: '41cd4baa02895f75f8608b4294e959a258c5c0f5',
      offset: 15913,
      primary: { host: '10.88.77.6', port: 6379, linkUp: true },
      replicas: [],
      loading: false,
      syncInProgress: false,
      engine: 'redis',
      version: '7.0.15',
      persistence: { aofEnabled: false, rdbLastSaveTime: 1796186366 },
      memory: { used: 1004344, max: 0 },
    });
  });

  it('observes a replica with its link down, keeping the offset it processed (ROLE says -1)', () => {
    expect(redis70ReplicaLinkDown.role).toEqual(['slave', '10.88.77.6', 6379, 'connecting', -1]);
    expect(observe(redis70ReplicaLinkDown)).toMatchObject({
      reachable: true,
      role: 'replica',
      offset: 15941,
      primary: { host: '10.88.77.6', port: 6379, linkUp: false },
      syncInProgress: false,
    });
  });

  it('observes a node loading its dataset', () => {
    expect(observe(redis70Loading)).toMatchObject({
      reachable: true,
      role: 'primary',
      loading: true,
      offset: 15913,
      replicas: [],
      memory: { used: 44548144, max: 0 },
    });
  });

  it('detects redis 8.0 as redis', () => {
    expect(observe(redis80Primary)).toMatchObject({
      role: 'primary',
      engine: 'redis',
      version: '8.0.2',
      replicas: [{ host: '10.88.77.9', port: 6379, offset: 15913, state: 'online' }],
    });
    expect(observe(redis80Replica)).toMatchObject({
      role: 'replica',
      engine: 'redis',
      version: '8.0.2',
      primary: { host: '10.88.77.10', port: 6379, linkUp: true },
    });
  });

  it('detects valkey by valkey_version, with its own version (not redis_version 7.2.4)', () => {
    expect(observe(valkey81Primary)).toMatchObject({
      role: 'primary',
      engine: 'valkey',
      version: '8.1.1',
      replId: 'a26a15b6e43b92d923bb8983fbd7e806c3a014e0',
      replicas: [{ host: '10.88.77.12', port: 6379, offset: 15913, state: 'online' }],
    });
    expect(observe(valkey81Replica)).toMatchObject({
      role: 'replica',
      engine: 'valkey',
      version: '8.1.1',
      replId: 'a26a15b6e43b92d923bb8983fbd7e806c3a014e0',
      primary: { host: '10.88.77.11', port: 6379, linkUp: true },
    });
  });

  it('takes the role from ROLE, INFO role only when ROLE is unreadable; ROLE as Buffers works', () => {
    const info = parseInfo(redis70Replica.info);
    expect(observationFromInfo(info, undefined)).toMatchObject({ role: 'replica' });
    expect(observationFromInfo(info, [Buffer.from('slave'), '10.88.77.6', 6379])).toMatchObject({
      role: 'replica',
    });
    // promoted between INFO and ROLE: ROLE is the later word
    const promoted = observationFromInfo(info, ['master', 15913, []]);
    expect(promoted).toMatchObject({ role: 'primary' });
    expect(promoted.reachable && promoted.primary).toBeUndefined();
  });

  it('reports a sync in progress', () => {
    const info = { ...parseInfo(redis70Replica.info), master_sync_in_progress: '1' };
    expect(observationFromInfo(info, redis70Replica.role)).toMatchObject({
      syncInProgress: true,
    });
  });

  it('reads AOF on and a memory limit', () => {
    const info = { ...parseInfo(redis70Primary.info), aof_enabled: '1', maxmemory: '104857600' };
    expect(observationFromInfo(info, redis70Primary.role)).toMatchObject({
      persistence: { aofEnabled: true },
      memory: { max: 104857600 },
    });
  });

  it('refuses a Sentinel, and INFO without the fields every data node reports', () => {
    expect(observationFromInfo({ redis_version: '7.0.15' }, ['sentinel', []])).toEqual({
      reachable: false,
      error: 'not a Redis data node: ROLE says "sentinel"',
    });
    expect(observationFromInfo({ role: 'master' }, ['master', 0, []])).toEqual({
      reachable: false,
      error: 'INFO lacks redis_version, run_id, master_replid',
    });
  });
});

/**
 * Real `INFO` (default sections) and `ROLE` replies, captured once from pods of the node tier's
 * images (ghcr.io/steward-dev/redis:7.0.15, redis:8.0.2, valkey:8.1.1) by redis-admin's setup:
 * pods on 10.88.77.0/24, requirepass set, 200 keys written to each primary. Stored with LF line
 * ends; `info()` gives the CRLF text the servers send.
 */
interface Fixture {
  /** What the node was doing when captured. */
  readonly what: string;
  /** The INFO text as the server sent it (CRLF). */
  readonly info: string;
  /** The ROLE reply as ioredis (RESP2) returned it. */
  readonly role: unknown;
}

const crlf = (text: string): string => text.replace(/\n/g, '\r\n');

const redis70Primary: Fixture = {
  what: 'redis 7.0.15 primary with two replicas online',
  role: [
    'master',
    15913,
    [
      ['10.88.77.7', '6379', '15913'],
      ['10.88.77.8', '6379', '15913'],
    ],
  ],
  info: crlf(`# Server
redis_version:7.0.15
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:ae4d7c971a948f0
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:12.2.0
process_id:1
process_supervised:no
run_id:878ad3a2584368fb650b63ee234d061b363d86c1
tcp_port:6379
server_time_usec:1796186374532208
uptime_in_seconds:9
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024262
executable:/data/redis-server
config_file:
io_threads_active:0

# Clients
connected_clients:1
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
clients_in_timeout_table:0

# Memory
used_memory:1142344
used_memory_human:1.09M
used_memory_rss:12668928
used_memory_rss_human:12.08M
used_memory_peak:1187136
used_memory_peak_human:1.13M
used_memory_peak_perc:96.23%
used_memory_overhead:929532
used_memory_startup:876504
used_memory_dataset:212812
used_memory_dataset_perc:80.05%
allocator_allocated:2052256
allocator_active:2248704
allocator_resident:4919296
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:200
used_memory_scripts:200
used_memory_scripts_human:200B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.10
allocator_frag_bytes:196448
allocator_rss_ratio:2.19
allocator_rss_bytes:2670592
rss_overhead_ratio:2.58
rss_overhead_bytes:7749632
mem_fragmentation_ratio:11.11
mem_fragmentation_bytes:11528416
mem_not_counted_for_evict:0
mem_replication_backlog:20508
mem_total_replication_buffers:20504
mem_clients_slaves:0
mem_clients_normal:22272
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:200
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186365
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:1
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:409600
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:0
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Stats
total_connections_received:12
total_commands_processed:219
instantaneous_ops_per_sec:3
total_net_input_bytes:16790
total_net_output_bytes:19051
total_net_repl_input_bytes:0
total_net_repl_output_bytes:7512
instantaneous_input_kbps:0.15
instantaneous_output_kbps:4.59
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:4.33
rejected_connections:0
sync_full:2
sync_partial_ok:0
sync_partial_err:2
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:1079
total_forks:1
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:4
dump_payload_sanitizations:0
total_reads_processed:33
total_writes_processed:17
io_threaded_reads_processed:0
io_threaded_writes_processed:0
reply_buffer_shrinks:3
reply_buffer_expands:0

# Replication
role:master
connected_slaves:2
slave0:ip=10.88.77.7,port=6379,state=online,offset=15913,lag=0
slave1:ip=10.88.77.8,port=6379,state=online,offset=15913,lag=0
master_failover_state:no-failover
master_replid:41cd4baa02895f75f8608b4294e959a258c5c0f5
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:1
repl_backlog_histlen:15913

# CPU
used_cpu_sys:0.013704
used_cpu_user:0.043511
used_cpu_sys_children:0.003416
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.012507
used_cpu_user_main_thread:0.041599

# Modules

# Errorstats
errorstat_ERR:count=2
errorstat_NOAUTH:count=2

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0
`),
};

const redis70Replica: Fixture = {
  what: 'redis 7.0.15 replica, link up',
  role: ['slave', '10.88.77.6', 6379, 'connected', 15913],
  info: crlf(`# Server
redis_version:7.0.15
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:ae4d7c971a948f0
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:12.2.0
process_id:1
process_supervised:no
run_id:9d3834e17ebd996d7f0a8c31364434c54ececb3c
tcp_port:6379
server_time_usec:1796186374533493
uptime_in_seconds:8
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024262
executable:/data/redis-server
config_file:
io_threads_active:0

# Clients
connected_clients:2
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
clients_in_timeout_table:0

# Memory
used_memory:1004344
used_memory_human:980.80K
used_memory_rss:12517376
used_memory_rss_human:11.94M
used_memory_peak:1020120
used_memory_peak_human:996.21K
used_memory_peak_perc:98.45%
used_memory_overhead:910668
used_memory_startup:876312
used_memory_dataset:93676
used_memory_dataset_perc:73.17%
allocator_allocated:1896608
allocator_active:2064384
allocator_resident:4734976
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:200
used_memory_scripts:200
used_memory_scripts_human:200B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.09
allocator_frag_bytes:167776
allocator_rss_ratio:2.29
allocator_rss_bytes:2670592
rss_overhead_ratio:2.64
rss_overhead_bytes:7782400
mem_fragmentation_ratio:12.49
mem_fragmentation_bytes:11514864
mem_not_counted_for_evict:0
mem_replication_backlog:4
mem_total_replication_buffers:0
mem_clients_slaves:0
mem_clients_normal:24072
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:0
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:-1
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:0
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:200
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Stats
total_connections_received:9
total_commands_processed:30
instantaneous_ops_per_sec:1
total_net_input_bytes:4834
total_net_output_bytes:21935
total_net_repl_input_bytes:3756
total_net_repl_output_bytes:0
instantaneous_input_kbps:2.26
instantaneous_output_kbps:0.80
instantaneous_input_repl_kbps:2.23
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:0
sync_partial_ok:0
sync_partial_err:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:0
total_forks:0
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:2
dump_payload_sanitizations:0
total_reads_processed:40
total_writes_processed:34
io_threaded_reads_processed:0
io_threaded_writes_processed:0
reply_buffer_shrinks:2
reply_buffer_expands:0

# Replication
role:slave
master_host:10.88.77.6
master_port:6379
master_link_status:up
master_last_io_seconds_ago:2
master_sync_in_progress:0
slave_read_repl_offset:15913
slave_repl_offset:15913
slave_priority:100
slave_read_only:1
replica_announced:1
connected_slaves:0
master_failover_state:no-failover
master_replid:41cd4baa02895f75f8608b4294e959a258c5c0f5
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:15914
repl_backlog_histlen:0

# CPU
used_cpu_sys:0.020064
used_cpu_user:0.036986
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.020129
used_cpu_user_main_thread:0.033548

# Modules

# Errorstats
errorstat_ERR:count=2

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0
`),
};

const redis70ReplicaLinkDown: Fixture = {
  what: 'redis 7.0.15 replica seconds after its primary pod was deleted',
  role: ['slave', '10.88.77.6', 6379, 'connecting', -1],
  info: crlf(`# Server
redis_version:7.0.15
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:ae4d7c971a948f0
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:12.2.0
process_id:1
process_supervised:no
run_id:9d3834e17ebd996d7f0a8c31364434c54ececb3c
tcp_port:6379
server_time_usec:1796186393024983
uptime_in_seconds:27
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024280
executable:/data/redis-server
config_file:
io_threads_active:0

# Clients
connected_clients:1
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
clients_in_timeout_table:0

# Memory
used_memory:1115104
used_memory_human:1.06M
used_memory_rss:12779520
used_memory_rss_human:12.19M
used_memory_peak:1130912
used_memory_peak_human:1.08M
used_memory_peak_perc:98.60%
used_memory_overhead:931196
used_memory_startup:876312
used_memory_dataset:183908
used_memory_dataset_perc:77.02%
allocator_allocated:2047472
allocator_active:2285568
allocator_resident:4984832
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:200
used_memory_scripts:200
used_memory_scripts_human:200B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.12
allocator_frag_bytes:238096
allocator_rss_ratio:2.18
allocator_rss_bytes:2699264
rss_overhead_ratio:2.56
rss_overhead_bytes:7794688
mem_fragmentation_ratio:11.48
mem_fragmentation_bytes:11666248
mem_not_counted_for_evict:0
mem_replication_backlog:20508
mem_total_replication_buffers:20504
mem_clients_slaves:0
mem_clients_normal:24096
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:0
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:-1
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:0
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:200
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Stats
total_connections_received:27
total_commands_processed:36
instantaneous_ops_per_sec:0
total_net_input_bytes:4954
total_net_output_bytes:29050
total_net_repl_input_bytes:3784
total_net_repl_output_bytes:0
instantaneous_input_kbps:0.02
instantaneous_output_kbps:0.39
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:0
sync_partial_ok:0
sync_partial_err:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:0
total_forks:0
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:2
dump_payload_sanitizations:0
total_reads_processed:65
total_writes_processed:54
io_threaded_reads_processed:0
io_threaded_writes_processed:0
reply_buffer_shrinks:3
reply_buffer_expands:1

# Replication
role:slave
master_host:10.88.77.6
master_port:6379
master_link_status:down
master_last_io_seconds_ago:-1
master_sync_in_progress:0
slave_read_repl_offset:15941
slave_repl_offset:15941
master_link_down_since_seconds:2
slave_priority:100
slave_read_only:1
replica_announced:1
connected_slaves:0
master_failover_state:no-failover
master_replid:41cd4baa02895f75f8608b4294e959a258c5c0f5
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15941
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:15914
repl_backlog_histlen:28

# CPU
used_cpu_sys:0.039510
used_cpu_user:0.047412
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.037946
used_cpu_user_main_thread:0.045536

# Modules

# Errorstats
errorstat_ERR:count=2

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0
`),
};

const redis70Loading: Fixture = {
  what: 'redis 7.0.15 primary during DEBUG RELOAD of 3M keys',
  role: ['master', 15913, []],
  info: crlf(`# Server
redis_version:7.0.15
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:ae4d7c971a948f0
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:12.2.0
process_id:1
process_supervised:no
run_id:a78dc951faef71705d75cc68798a8ab167ba82ad
tcp_port:6379
server_time_usec:1796186388227168
uptime_in_seconds:23
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024272
executable:/data/redis-server
config_file:
io_threads_active:0

# Clients
connected_clients:2
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
clients_in_timeout_table:0

# Memory
used_memory:44548144
used_memory_human:42.48M
used_memory_rss:582860800
used_memory_rss_human:555.86M
used_memory_peak:562778048
used_memory_peak_human:536.71M
used_memory_peak_perc:7.92%
used_memory_overhead:36684028
used_memory_startup:876440
used_memory_dataset:7864116
used_memory_dataset_perc:18.01%
allocator_allocated:563213368
allocator_active:563535872
allocator_resident:575901696
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:200
used_memory_scripts:200
used_memory_scripts_human:200B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.00
allocator_frag_bytes:322504
allocator_rss_ratio:1.02
allocator_rss_bytes:12365824
rss_overhead_ratio:1.01
rss_overhead_bytes:6959104
mem_fragmentation_ratio:1.04
mem_fragmentation_bytes:20082752
mem_not_counted_for_evict:0
mem_replication_backlog:4
mem_total_replication_buffers:0
mem_clients_slaves:0
mem_clients_normal:1800
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:1
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:0
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186384
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:-1
rdb_current_bgsave_time_sec:-1
rdb_saves:1
rdb_last_cow_size:0
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:56278
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0
loading_start_time:1796186388
loading_total_bytes:111780024
loading_rdb_used_mem:562577000
loading_loaded_bytes:2097151
loading_loaded_perc:1.88
loading_eta_seconds:1

# Stats
total_connections_received:21
total_commands_processed:10
instantaneous_ops_per_sec:0
total_net_input_bytes:4319
total_net_output_bytes:10863
total_net_repl_input_bytes:3756
total_net_repl_output_bytes:0
instantaneous_input_kbps:0.00
instantaneous_output_kbps:0.02
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:0
sync_partial_ok:0
sync_partial_err:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:0
total_forks:0
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:4
dump_payload_sanitizations:0
total_reads_processed:32
total_writes_processed:14
io_threaded_reads_processed:0
io_threaded_writes_processed:0
reply_buffer_shrinks:2
reply_buffer_expands:0

# Replication
role:master
connected_slaves:0
master_failover_state:no-failover
master_replid:136eb044a9bf6c15bca9b96b8b54e694f46ec31b
master_replid2:41cd4baa02895f75f8608b4294e959a258c5c0f5
master_repl_offset:15913
second_repl_offset:15914
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:15914
repl_backlog_histlen:0

# CPU
used_cpu_sys:0.598507
used_cpu_user:9.893042
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.594642
used_cpu_user_main_thread:9.892655

# Modules

# Errorstats
errorstat_ERR:count=4

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=56278,expires=0,avg_ttl=0
`),
};

const redis80Primary: Fixture = {
  what: 'redis 8.0.2 primary with one replica',
  role: ['master', 15913, [['10.88.77.9', '6379', '15913']]],
  info: crlf(`# Server
redis_version:8.0.2
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:b843bbd074c0e1da
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:14.2.0
process_id:1
process_supervised:no
run_id:ff0ff445f49b84c9a2e6a1fe9a408157ea08192b
tcp_port:6379
server_time_usec:1796186374535000
uptime_in_seconds:8
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024262
executable:/data/redis-server
config_file:
io_threads_active:0
listener0:name=tcp,bind=0.0.0.0,port=6379

# Clients
connected_clients:1
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:96
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
pubsub_clients:0
watching_clients:0
clients_in_timeout_table:0
total_watched_keys:0
total_blocking_keys:0
total_blocking_keys_on_nokey:0

# Memory
used_memory:921552
used_memory_human:899.95K
used_memory_rss:14540800
used_memory_rss_human:13.87M
used_memory_peak:958240
used_memory_peak_human:935.78K
used_memory_peak_perc:96.17%
used_memory_overhead:773028
used_memory_startup:670864
used_memory_dataset:148524
used_memory_dataset_perc:59.25%
allocator_allocated:2509120
allocator_active:2768896
allocator_resident:4296704
allocator_muzzy:0
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:200
used_memory_scripts:200
used_memory_scripts_human:200B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.06
allocator_frag_bytes:117696
allocator_rss_ratio:1.55
allocator_rss_bytes:1527808
rss_overhead_ratio:3.38
rss_overhead_bytes:10244096
mem_fragmentation_ratio:15.81
mem_fragmentation_bytes:13621072
mem_not_counted_for_evict:0
mem_replication_backlog:20508
mem_total_replication_buffers:20504
mem_replica_full_sync_buffer:0
mem_clients_slaves:0
mem_clients_normal:1920
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
mem_overhead_db_hashtable_rehashing:0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:200
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:0
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:819200
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:0
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Threads
io_thread_0:clients=2,reads=29,writes=14

# Stats
total_connections_received:11
total_commands_processed:217
instantaneous_ops_per_sec:1
total_net_input_bytes:16694
total_net_output_bytes:12954
total_net_repl_input_bytes:0
total_net_repl_output_bytes:0
instantaneous_input_kbps:0.06
instantaneous_output_kbps:0.22
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:1
sync_partial_ok:0
sync_partial_err:1
expired_subkeys:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
evicted_scripts:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:545
total_forks:1
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:1
dump_payload_sanitizations:0
total_reads_processed:29
total_writes_processed:14
io_threaded_reads_processed:0
io_threaded_writes_processed:0
client_query_buffer_limit_disconnections:0
client_output_buffer_limit_disconnections:0
reply_buffer_shrinks:4
reply_buffer_expands:0
eventloop_cycles:119
eventloop_duration_sum:49706
eventloop_duration_cmd_sum:1236
instantaneous_eventloop_cycles_per_sec:13
instantaneous_eventloop_duration_usec:850
acl_access_denied_auth:0
acl_access_denied_cmd:0
acl_access_denied_key:0
acl_access_denied_channel:0

# Replication
role:master
connected_slaves:1
slave0:ip=10.88.77.9,port=6379,state=online,offset=15913,lag=0
master_failover_state:no-failover
master_replid:b9267c4d6545834b75bf9e5b51f8731280986107
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:1
repl_backlog_histlen:15913

# CPU
used_cpu_sys:0.018330
used_cpu_user:0.049165
used_cpu_sys_children:0.000000
used_cpu_user_children:0.002730
used_cpu_sys_main_thread:0.015125
used_cpu_user_main_thread:0.049112

# Modules
module:name=vectorset,ver=1,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]

# Errorstats
errorstat_NOAUTH:count=1

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0,subexpiry=0

# Keysizes
db0_distrib_strings_sizes:32=200
`),
};

const redis80Replica: Fixture = {
  what: 'redis 8.0.2 replica, link up',
  role: ['slave', '10.88.77.10', 6379, 'connected', 15913],
  info: crlf(`# Server
redis_version:8.0.2
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:b843bbd074c0e1da
redis_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
atomicvar_api:c11-builtin
gcc_version:14.2.0
process_id:1
process_supervised:no
run_id:f19954722b403f06a61257e309228186897b8bef
tcp_port:6379
server_time_usec:1796186374544616
uptime_in_seconds:8
uptime_in_days:0
hz:10
configured_hz:10
lru_clock:1024262
executable:/data/redis-server
config_file:
io_threads_active:0
listener0:name=tcp,bind=0.0.0.0,port=6379

# Clients
connected_clients:2
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:32
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
pubsub_clients:0
watching_clients:0
clients_in_timeout_table:0
total_watched_keys:0
total_blocking_keys:0
total_blocking_keys_on_nokey:0

# Memory
used_memory:826568
used_memory_human:807.20K
used_memory_rss:14536704
used_memory_rss_human:13.86M
used_memory_peak:842504
used_memory_peak_human:822.76K
used_memory_peak_perc:98.11%
used_memory_overhead:754564
used_memory_startup:670864
used_memory_dataset:72004
used_memory_dataset_perc:46.24%
allocator_allocated:2401600
allocator_active:2654208
allocator_resident:4800512
allocator_muzzy:0
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:33792
used_memory_vm_total:66560
used_memory_vm_total_human:65.00K
used_memory_functions:312
used_memory_scripts:312
used_memory_scripts_human:312B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.07
allocator_frag_bytes:126912
allocator_rss_ratio:1.81
allocator_rss_bytes:2146304
rss_overhead_ratio:3.03
rss_overhead_bytes:9736192
mem_fragmentation_ratio:17.63
mem_fragmentation_bytes:13711960
mem_not_counted_for_evict:0
mem_replication_backlog:4
mem_total_replication_buffers:0
mem_replica_full_sync_buffer:0
mem_clients_slaves:0
mem_clients_normal:3848
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
mem_overhead_db_hashtable_rehashing:0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:0
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:-1
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:0
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:200
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Threads
io_thread_0:clients=2,reads=14,writes=8

# Stats
total_connections_received:9
total_commands_processed:6
instantaneous_ops_per_sec:0
total_net_input_bytes:4002
total_net_output_bytes:6511
total_net_repl_input_bytes:3755
total_net_repl_output_bytes:0
instantaneous_input_kbps:0.02
instantaneous_output_kbps:0.44
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:0
sync_partial_ok:0
sync_partial_err:0
expired_subkeys:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
evicted_scripts:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:0
total_forks:0
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:0
dump_payload_sanitizations:0
total_reads_processed:14
total_writes_processed:8
io_threaded_reads_processed:0
io_threaded_writes_processed:0
client_query_buffer_limit_disconnections:0
client_output_buffer_limit_disconnections:0
reply_buffer_shrinks:2
reply_buffer_expands:0
eventloop_cycles:122
eventloop_duration_sum:32650
eventloop_duration_cmd_sum:1245
instantaneous_eventloop_cycles_per_sec:12
instantaneous_eventloop_duration_usec:278
acl_access_denied_auth:0
acl_access_denied_cmd:0
acl_access_denied_key:0
acl_access_denied_channel:0

# Replication
role:slave
master_host:10.88.77.10
master_port:6379
master_link_status:up
master_last_io_seconds_ago:2
master_sync_in_progress:0
slave_read_repl_offset:15913
slave_repl_offset:15913
replica_full_sync_buffer_size:0
replica_full_sync_buffer_peak:0
slave_priority:100
slave_read_only:1
replica_announced:1
connected_slaves:0
master_failover_state:no-failover
master_replid:b9267c4d6545834b75bf9e5b51f8731280986107
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:1048576
repl_backlog_first_byte_offset:15914
repl_backlog_histlen:0

# CPU
used_cpu_sys:0.013711
used_cpu_user:0.054470
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.012354
used_cpu_user_main_thread:0.053647

# Modules
module:name=vectorset,ver=1,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]

# Errorstats

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0,subexpiry=0

# Keysizes
db0_distrib_strings_sizes:32=200
`),
};

const valkey81Primary: Fixture = {
  what: 'valkey 8.1.1 primary with one replica',
  role: ['master', 15913, [['10.88.77.12', '6379', '15913']]],
  info: crlf(`# Server
redis_version:7.2.4
server_name:valkey
valkey_version:8.1.1
valkey_release_stage:ga
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:384b3c0d511f998a
server_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
gcc_version:14.2.0
process_id:1
process_supervised:no
run_id:20f9d9da5aa3daeae934753cea6e2212be9dbe77
tcp_port:6379
server_time_usec:1796186374547137
uptime_in_seconds:8
uptime_in_days:0
hz:10
configured_hz:10
clients_hz:10
lru_clock:1024262
executable:/data/valkey-server
config_file:
io_threads_active:0
availability_zone:
listener0:name=tcp,bind=0.0.0.0,port=6379

# Clients
connected_clients:1
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
pubsub_clients:0
watching_clients:0
clients_in_timeout_table:0
total_watched_keys:0
total_blocking_keys:0
total_blocking_keys_on_nokey:0
paused_reason:none
paused_actions:none
paused_timeout_milliseconds:0

# Memory
used_memory:1114656
used_memory_human:1.06M
used_memory_rss:14696448
used_memory_rss_human:14.02M
used_memory_peak:1170712
used_memory_peak_human:1.12M
used_memory_peak_perc:95.21%
used_memory_overhead:920444
used_memory_startup:892136
used_memory_dataset:194212
used_memory_dataset_perc:87.28%
allocator_allocated:2220992
allocator_active:2420736
allocator_resident:4300800
allocator_muzzy:0
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:35840
used_memory_vm_total:68608
used_memory_vm_total_human:67.00K
used_memory_functions:224
used_memory_scripts:224
used_memory_scripts_human:224B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.00
allocator_frag_bytes:0
allocator_rss_ratio:1.78
allocator_rss_bytes:1880064
rss_overhead_ratio:3.42
rss_overhead_bytes:10395648
mem_fragmentation_ratio:13.21
mem_fragmentation_bytes:13583880
mem_not_counted_for_evict:0
mem_replication_backlog:20508
mem_total_replication_buffers:20504
mem_clients_slaves:0
mem_clients_normal:1664
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
mem_overhead_db_hashtable_rehashing:0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:200
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:0
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:823296
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:0
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Stats
total_connections_received:10
total_commands_processed:215
instantaneous_ops_per_sec:1
total_net_input_bytes:16496
total_net_output_bytes:16952
total_net_repl_input_bytes:0
total_net_repl_output_bytes:3756
instantaneous_input_kbps:0.06
instantaneous_output_kbps:0.28
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:1
sync_partial_ok:0
sync_partial_err:1
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
evicted_scripts:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:723
total_forks:1
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:1
dump_payload_sanitizations:0
total_reads_processed:24
total_writes_processed:11
io_threaded_reads_processed:0
io_threaded_writes_processed:0
io_threaded_freed_objects:0
io_threaded_accept_processed:0
io_threaded_poll_processed:0
io_threaded_total_prefetch_batches:0
io_threaded_total_prefetch_entries:0
client_query_buffer_limit_disconnections:0
client_output_buffer_limit_disconnections:0
reply_buffer_shrinks:2
reply_buffer_expands:0
eventloop_cycles:128
eventloop_duration_sum:16780
eventloop_duration_cmd_sum:1014
instantaneous_eventloop_cycles_per_sec:17
instantaneous_eventloop_duration_usec:99
acl_access_denied_auth:0
acl_access_denied_cmd:0
acl_access_denied_key:0
acl_access_denied_channel:0

# Replication
role:master
connected_slaves:1
slave0:ip=10.88.77.12,port=6379,state=online,offset=15913,lag=0,type=replica
replicas_waiting_psync:0
master_failover_state:no-failover
master_replid:a26a15b6e43b92d923bb8983fbd7e806c3a014e0
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:10485760
repl_backlog_first_byte_offset:1
repl_backlog_histlen:15913

# CPU
used_cpu_sys:0.025227
used_cpu_user:0.029460
used_cpu_sys_children:0.002560
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.024393
used_cpu_user_main_thread:0.028486

# Modules

# Errorstats
errorstat_NOAUTH:count=1

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0
`),
};

const valkey81Replica: Fixture = {
  what: 'valkey 8.1.1 replica, link up',
  role: ['slave', '10.88.77.11', 6379, 'connected', 15913],
  info: crlf(`# Server
redis_version:7.2.4
server_name:valkey
valkey_version:8.1.1
valkey_release_stage:ga
redis_git_sha1:00000000
redis_git_dirty:0
redis_build_id:384b3c0d511f998a
server_mode:standalone
os:Linux 6.18.44-fc-v1098 x86_64
arch_bits:64
monotonic_clock:POSIX clock_gettime
multiplexing_api:epoll
gcc_version:14.2.0
process_id:1
process_supervised:no
run_id:3aa7754d2b9a52c9807b2dbe2370972e378a22b0
tcp_port:6379
server_time_usec:1796186374547714
uptime_in_seconds:8
uptime_in_days:0
hz:10
configured_hz:10
clients_hz:10
lru_clock:1024262
executable:/data/valkey-server
config_file:
io_threads_active:0
availability_zone:
listener0:name=tcp,bind=0.0.0.0,port=6379

# Clients
connected_clients:2
cluster_connections:0
maxclients:10000
client_recent_max_input_buffer:20480
client_recent_max_output_buffer:0
blocked_clients:0
tracking_clients:0
pubsub_clients:0
watching_clients:0
clients_in_timeout_table:0
total_watched_keys:0
total_blocking_keys:0
total_blocking_keys_on_nokey:0
paused_reason:none
paused_actions:none
paused_timeout_milliseconds:0

# Memory
used_memory:1020280
used_memory_human:996.37K
used_memory_rss:14934016
used_memory_rss_human:14.24M
used_memory_peak:1049096
used_memory_peak_human:1.00M
used_memory_peak_perc:97.25%
used_memory_overhead:902188
used_memory_startup:892456
used_memory_dataset:118092
used_memory_dataset_perc:92.39%
allocator_allocated:2164416
allocator_active:2351104
allocator_resident:4419584
allocator_muzzy:0
total_system_memory:25275973632
total_system_memory_human:23.54G
used_memory_lua:32768
used_memory_vm_eval:32768
used_memory_lua_human:32.00K
used_memory_scripts_eval:0
number_of_cached_scripts:0
number_of_functions:0
number_of_libraries:0
used_memory_vm_functions:35840
used_memory_vm_total:68608
used_memory_vm_total_human:67.00K
used_memory_functions:224
used_memory_scripts:224
used_memory_scripts_human:224B
maxmemory:0
maxmemory_human:0B
maxmemory_policy:noeviction
allocator_frag_ratio:1.00
allocator_frag_bytes:0
allocator_rss_ratio:1.88
allocator_rss_bytes:2068480
rss_overhead_ratio:3.38
rss_overhead_bytes:10514432
mem_fragmentation_ratio:14.67
mem_fragmentation_bytes:13915824
mem_not_counted_for_evict:0
mem_replication_backlog:4
mem_total_replication_buffers:0
mem_clients_slaves:0
mem_clients_normal:3336
mem_cluster_links:0
mem_aof_buffer:0
mem_allocator:jemalloc-5.3.0
mem_overhead_db_hashtable_rehashing:0
active_defrag_running:0
lazyfree_pending_objects:0
lazyfreed_objects:0

# Persistence
loading:0
async_loading:0
current_cow_peak:0
current_cow_size:0
current_cow_size_age:0
current_fork_perc:0.00
current_save_keys_processed:0
current_save_keys_total:0
rdb_changes_since_last_save:0
rdb_bgsave_in_progress:0
rdb_last_save_time:1796186366
rdb_last_bgsave_status:ok
rdb_last_bgsave_time_sec:-1
rdb_current_bgsave_time_sec:-1
rdb_saves:0
rdb_last_cow_size:0
rdb_last_load_keys_expired:0
rdb_last_load_keys_loaded:200
aof_enabled:0
aof_rewrite_in_progress:0
aof_rewrite_scheduled:0
aof_last_rewrite_time_sec:-1
aof_current_rewrite_time_sec:-1
aof_last_bgrewrite_status:ok
aof_rewrites:0
aof_rewrites_consecutive_failures:0
aof_last_write_status:ok
aof_last_cow_size:0
module_fork_in_progress:0
module_fork_last_cow_size:0

# Stats
total_connections_received:10
total_commands_processed:6
instantaneous_ops_per_sec:0
total_net_input_bytes:4003
total_net_output_bytes:6636
total_net_repl_input_bytes:3756
total_net_repl_output_bytes:0
instantaneous_input_kbps:0.02
instantaneous_output_kbps:0.46
instantaneous_input_repl_kbps:0.00
instantaneous_output_repl_kbps:0.00
rejected_connections:0
sync_full:0
sync_partial_ok:0
sync_partial_err:0
expired_keys:0
expired_stale_perc:0.00
expired_time_cap_reached_count:0
expire_cycle_cpu_milliseconds:0
evicted_keys:0
evicted_clients:0
evicted_scripts:0
total_eviction_exceeded_time:0
current_eviction_exceeded_time:0
keyspace_hits:0
keyspace_misses:0
pubsub_channels:0
pubsub_patterns:0
pubsubshard_channels:0
latest_fork_usec:0
total_forks:0
migrate_cached_sockets:0
slave_expires_tracked_keys:0
active_defrag_hits:0
active_defrag_misses:0
active_defrag_key_hits:0
active_defrag_key_misses:0
total_active_defrag_time:0
current_active_defrag_time:0
tracking_total_keys:0
tracking_total_items:0
tracking_total_prefixes:0
unexpected_error_replies:0
total_error_replies:0
dump_payload_sanitizations:0
total_reads_processed:14
total_writes_processed:7
io_threaded_reads_processed:0
io_threaded_writes_processed:0
io_threaded_freed_objects:0
io_threaded_accept_processed:0
io_threaded_poll_processed:0
io_threaded_total_prefetch_batches:0
io_threaded_total_prefetch_entries:0
client_query_buffer_limit_disconnections:0
client_output_buffer_limit_disconnections:0
reply_buffer_shrinks:2
reply_buffer_expands:0
eventloop_cycles:141
eventloop_duration_sum:26385
eventloop_duration_cmd_sum:6366
instantaneous_eventloop_cycles_per_sec:12
instantaneous_eventloop_duration_usec:154
acl_access_denied_auth:0
acl_access_denied_cmd:0
acl_access_denied_key:0
acl_access_denied_channel:0

# Replication
role:slave
master_host:10.88.77.11
master_port:6379
master_link_status:up
master_last_io_seconds_ago:2
master_sync_in_progress:0
slave_read_repl_offset:15913
slave_repl_offset:15913
replicas_repl_buffer_size:0
replicas_repl_buffer_peak:0
slave_priority:100
slave_read_only:1
replica_announced:1
connected_slaves:0
replicas_waiting_psync:0
master_failover_state:no-failover
master_replid:a26a15b6e43b92d923bb8983fbd7e806c3a014e0
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:15913
second_repl_offset:-1
repl_backlog_active:1
repl_backlog_size:10485760
repl_backlog_first_byte_offset:15914
repl_backlog_histlen:0

# CPU
used_cpu_sys:0.022471
used_cpu_user:0.034392
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.019624
used_cpu_user_main_thread:0.034342

# Modules

# Errorstats

# Cluster
cluster_enabled:0

# Keyspace
db0:keys=200,expires=0,avg_ttl=0
`),
};

describe('fenceOf (CONFIG GET min-replicas-*)', () => {
  it('reads a flat reply and a map; undefined when a setting is missing', async () => {
    const { fenceOf, observationFromInfo } = await import('./info.js');
    expect(fenceOf(['min-replicas-to-write', '1', 'min-replicas-max-lag', '2'])).toEqual({
      minReplicas: 1,
      maxLagSeconds: 2,
    });
    expect(fenceOf({ 'min-replicas-max-lag': '10', 'min-replicas-to-write': '0' })).toEqual({
      minReplicas: 0,
      maxLagSeconds: 10,
    });
    expect(fenceOf(['min-replicas-to-write', '1'])).toBeUndefined();
    expect(fenceOf(undefined)).toBeUndefined();
    const info = {
      redis_version: '7.0.15',
      run_id: 'r',
      master_replid: 'h',
      master_repl_offset: '5',
    };
    expect(
      observationFromInfo(
        info,
        ['master', 5, []],
        ['min-replicas-to-write', '2', 'min-replicas-max-lag', '3'],
      ),
    ).toMatchObject({ reachable: true, fence: { minReplicas: 2, maxLagSeconds: 3 } });
    expect(observationFromInfo(info, ['master', 5, []])).not.toHaveProperty('fence');
  });
});
