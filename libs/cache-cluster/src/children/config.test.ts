import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { configHash, maxMemoryOf, renderConfig } from './config.js';
import { type RenderInput } from './render-input.js';

function input(spec: Partial<CacheCluster['spec']> = {}, extra: Partial<RenderInput> = {}) {
  const cluster: CacheCluster = {
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { version: '7.0', engine: 'redis', mode: 'Standalone', ...spec },
  };
  return {
    cluster,
    image: 'ghcr.io/steward-dev/redis:7.0.15',
    passwordSecret: { name: 'web-auth', key: 'password' },
    ...(spec.persistence?.enabled ? { storage: { size: '1Gi' } } : {}),
    ...extra,
  } satisfies RenderInput;
}

/** The directives of a config (comments and blank lines left out), one string each. */
const directives = (config: string) =>
  config.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

describe('renderConfig', () => {
  it('serves on 6379 on every address with auth on (protected mode off), logs to stdout, keeps data in /data', () => {
    expect(directives(renderConfig(input()))).toEqual(
      expect.arrayContaining([
        'port 6379',
        'bind 0.0.0.0',
        'protected-mode no',
        'dir /data',
        'logfile ""',
        'tcp-keepalive 60',
        'replica-read-only yes',
        'replica-serve-stale-data yes',
        'repl-diskless-sync yes',
        'shutdown-on-sigterm default',
        'shutdown-timeout 10',
        'enable-debug-command no',
        'maxmemory-policy noeviction',
      ]),
    );
  });

  it('renders exactly the directives Redis 7.0, Redis 8.0 and Valkey 8.1 all accept, each once', () => {
    const accepted = new Set([
      'port',
      'bind',
      'protected-mode',
      'tcp-keepalive',
      'logfile',
      'dir',
      'maxmemory',
      'maxmemory-policy',
      'appendonly',
      'appendfsync',
      'aof-use-rdb-preamble',
      'save',
      'replica-read-only',
      'replica-serve-stale-data',
      'repl-diskless-sync',
      'replicaof',
      'min-replicas-to-write',
      'enable-protected-configs',
      'min-replicas-max-lag',
      'shutdown-on-sigterm',
      'shutdown-timeout',
      'enable-debug-command',
    ]);
    for (const spec of [
      {},
      {
        mode: 'Replicated' as const,
        replicas: 3,
        persistence: { enabled: true },
        fencing: { minReplicas: 1, maxLag: '2s' },
      },
    ]) {
      const names = directives(renderConfig(input(spec, { maxMemoryBytes: 1 }))).map(
        (line) => line.split(' ')[0]!,
      );
      expect(names.filter((name) => !accepted.has(name))).toEqual([]);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('boots every pod of a Replicated cluster fenced (a replica of 127.0.0.1:1), and explains why', () => {
    const config = renderConfig(input({ mode: 'Replicated', replicas: 2 }));
    expect(directives(config)).toContain('replicaof 127.0.0.1 1');
    expect(config).toMatch(/fenced/);
    expect(config).toMatch(/NOMASTERLINK/);
    expect(config).toMatch(/never comes back as a second\n# primary/);
  });

  it('with spec.fencing: min-replicas-to-write and min-replicas-max-lag (defaults 1 and 2 s); none without it', () => {
    expect(
      directives(
        renderConfig(
          input({ mode: 'Replicated', replicas: 3, fencing: { minReplicas: 2, maxLag: '5s' } }),
        ),
      ),
    ).toEqual(expect.arrayContaining(['min-replicas-to-write 2', 'min-replicas-max-lag 5']));
    expect(
      directives(renderConfig(input({ mode: 'Replicated', replicas: 3, fencing: {} }))),
    ).toEqual(expect.arrayContaining(['min-replicas-to-write 1', 'min-replicas-max-lag 2']));
    for (const spec of [{ mode: 'Replicated' as const, replicas: 3 }, { fencing: {} }])
      expect(renderConfig(input(spec))).not.toMatch(/^min-replicas/m);
  });

  it('lets the controller set dbfilename (salvage) in Replicated mode only: enable-protected-configs yes', () => {
    expect(directives(renderConfig(input({ mode: 'Replicated', replicas: 2 })))).toContain(
      'enable-protected-configs yes',
    );
    expect(renderConfig(input({ mode: 'Standalone' }))).not.toMatch(/^enable-protected-configs/m);
  });

  it('does not fence a Standalone server: it is the primary from its first start', () => {
    expect(renderConfig(input({ mode: 'Standalone' }))).not.toMatch(/^replicaof/m);
    expect(renderConfig(input({ mode: undefined }))).not.toMatch(/^replicaof/m);
  });

  it('with persistence: AOF (fsync every second) with an RDB preamble, and RDB save points', () => {
    const lines = directives(renderConfig(input({ persistence: { enabled: true } })));
    expect(lines).toEqual(
      expect.arrayContaining([
        'appendonly yes',
        'appendfsync everysec',
        'aof-use-rdb-preamble yes',
        'save 3600 1 300 100 60 10000',
      ]),
    );
    expect(lines).not.toContain('appendonly no');
    expect(lines).not.toContain('save ""');
  });

  it('without persistence: no AOF and no snapshots', () => {
    for (const persistence of [undefined, { enabled: false }]) {
      const lines = directives(renderConfig(input({ persistence })));
      expect(lines).toEqual(expect.arrayContaining(['appendonly no', 'save ""']));
      expect(
        lines.filter((line) => /^(appendfsync|aof-use-rdb-preamble|save \d)/.test(line)),
      ).toEqual([]);
    }
  });

  it('sets the eviction policy of the spec', () => {
    expect(directives(renderConfig(input({ evictionPolicy: 'allkeys-lru' })))).toContain(
      'maxmemory-policy allkeys-lru',
    );
  });

  it.each([
    ['the resolved maxMemoryBytes', { maxMemoryBytes: 209715200 }, 209715200],
    [
      'the resolved maxMemoryBytes over the limit’s default',
      { maxMemoryBytes: 100, resources: { limits: { memory: '1Gi' } } },
      100,
    ],
    ['80 % of a 1Gi memory limit', { resources: { limits: { memory: '1Gi' } } }, 858993459],
    ['80 % of a 256Mi memory limit', { resources: { limits: { memory: '256Mi' } } }, 214748364],
    ['80 % of a 1G memory limit', { resources: { limits: { memory: '1G' } } }, 800000000],
  ])('maxmemory is %s', (_case, extra: Partial<RenderInput>, bytes) => {
    expect(maxMemoryOf(input({}, extra))).toBe(bytes);
    expect(directives(renderConfig(input({}, extra)))).toContain(`maxmemory ${bytes}`);
  });

  it('leaves maxmemory out when neither maxMemory nor a memory limit is known (a request is no limit)', () => {
    const extra = { resources: { requests: { memory: '1Gi' }, limits: { cpu: '1' } } };
    expect(maxMemoryOf(input({}, extra))).toBeUndefined();
    expect(renderConfig(input({}, extra))).not.toMatch(/^maxmemory /m);
  });

  it('never carries a password', () => {
    const config = renderConfig(input({ mode: 'Replicated', replicas: 3 }));
    expect(config).not.toMatch(/^\s*(requirepass|masterauth)\b/m);
  });

  it('is deterministic, and its hash changes with it', () => {
    const base = input({ mode: 'Replicated', replicas: 2 });
    expect(renderConfig(base)).toBe(renderConfig(input({ mode: 'Replicated', replicas: 2 })));
    const hashes = new Set(
      [
        base,
        input({ mode: 'Replicated', replicas: 2, evictionPolicy: 'allkeys-lfu' }),
        input({ mode: 'Replicated', replicas: 2 }, { maxMemoryBytes: 1000 }),
        input({ mode: 'Replicated', replicas: 2, persistence: { enabled: true } }),
        input({ mode: 'Standalone' }),
        input({ mode: 'Replicated', replicas: 2, fencing: {} }),
      ].map((i) => configHash(renderConfig(i))),
    );
    expect(hashes.size).toBe(6);
    expect(configHash(renderConfig(base))).toMatch(/^[0-9a-f]{16}$/);
  });
});
