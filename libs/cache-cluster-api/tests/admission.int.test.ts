import { CacheCluster } from '../src/index.js';
import { isInvalid, KubeClient } from '@steward/kube';
import { controlPlaneSuite, customObject, examplesOf, refusalOf, repoRoot } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The generated CRD exactly as the chart ships it (tools/scripts/generate-crds.ts). */
const chartCrds = join(repoRoot(), 'charts', 'cache-cluster-controller', 'crds');
const namespace = 'caches';
const Kind = CacheCluster.resourceType;
const cache = (name: string, spec: Record<string, unknown>) =>
  customObject<CacheCluster>(CacheCluster, { name, namespace }, spec);
/** The server's refusal message of `call` (fails the test when the server accepts it). */
const rejection = (call: Promise<unknown>) => refusalOf(call, isInvalid);

const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { crds: [chartCrds], namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'cache-cluster-api-test' }),
);

const base = { version: '7.0' };

describe('CacheCluster admission (the real API server, the chart’s CRD)', () => {
  describe('spec.scheduling (the shared fragment: libs/crd/tests/scheduling.int.test.ts has every rule)', () => {
    it('spreads over nodes and zones, preferred, by default; takes a Required spread with a node pool', async () => {
      const plain = await api.client.create<CacheCluster>(Kind, cache('spread-default', base));
      expect(plain.spec.scheduling).toEqual({ spread: { nodes: 'Preferred', zones: 'Preferred' } });
      const scheduling = {
        spread: { nodes: 'Required', zones: 'Required' },
        nodeSelector: { 'node.example.com/pool': 'data' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'data', effect: 'NoSchedule' }],
      };
      const strict = await api.client.create<CacheCluster>(
        Kind,
        cache('spread-required', { ...base, scheduling }),
      );
      expect(strict.spec.scheduling).toEqual(scheduling);
    });

    it('refuses a Required zone spread beside the constraints that would replace it', async () => {
      const spec = {
        ...base,
        scheduling: {
          spread: { zones: 'Required' },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'DoNotSchedule',
            },
          ],
        },
      };
      expect(await rejection(api.client.create(Kind, cache('spread-twice', spec)))).toContain(
        'spec.scheduling.spread.zones Required does not apply when spec.scheduling.topologySpreadConstraints is given',
      );
    });
  });

  it('admits every example CacheCluster', async () => {
    const examples = await examplesOf<CacheCluster>('cache-cluster', 'CacheCluster', namespace);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples)
      await expect(api.client.create(Kind, example, { dryRun: true })).resolves.toBeDefined();
  });

  it('defaults a minimal spec: redis, Standalone, noeviction, no persistence, Retain', async () => {
    const created = await api.client.create<CacheCluster>(Kind, cache('minimal', base));
    expect(created.spec).toMatchObject({
      engine: 'redis',
      mode: 'Standalone',
      evictionPolicy: 'noeviction',
      persistence: { enabled: false },
      deletionPolicy: 'Retain',
    });
  });

  it('updates the primary by switchover unless told Restart (spec.rollout.primary)', async () => {
    const switched = await api.client.create<CacheCluster>(
      Kind,
      cache('rollout-default', { ...base, mode: 'Replicated', rollout: {} }),
    );
    expect(switched.spec.rollout).toEqual({ primary: 'Switchover' });
    const restarted = await api.client.create<CacheCluster>(
      Kind,
      cache('rollout-restart', { ...base, mode: 'Replicated', rollout: { primary: 'Restart' } }),
    );
    expect(restarted.spec.rollout).toEqual({ primary: 'Restart' });
  });

  it.each([
    ['no version', {}, 'spec.version: Required value'],
    ['a version that is not major.minor', { version: '7' }, 'spec.version'],
    [
      'an unknown engine',
      { ...base, engine: 'memcached' },
      'spec.engine: Unsupported value: "memcached"',
    ],
    ['an unknown mode', { ...base, mode: 'Cluster' }, 'spec.mode: Unsupported value: "Cluster"'],
    [
      'Standalone with 3 replicas',
      { ...base, replicas: 3 },
      'spec.replicas must be 1 for mode Standalone',
    ],
    [
      'Replicated with 1 pod',
      { ...base, mode: 'Replicated', replicas: 1 },
      'spec.replicas must be at least 2 for mode Replicated',
    ],
    [
      'too many replicas',
      { ...base, mode: 'Replicated', replicas: 10 },
      'spec.replicas: Invalid value: 10',
    ],
    [
      'failover on a Standalone cache',
      { ...base, failover: { enabled: true } },
      'spec.failover needs mode Replicated',
    ],
    [
      'a failover time below 1s',
      { ...base, mode: 'Replicated', failover: { after: '500ms' } },
      'spec.failover.after must be between 1s and 10m',
    ],
    [
      'an unknown eviction policy',
      { ...base, evictionPolicy: 'lru' },
      'spec.evictionPolicy: Unsupported value: "lru"',
    ],
    ['a maxMemory that is no quantity', { ...base, maxMemory: 'lots' }, 'not a quantity'],
    [
      'maxMemory above the memory limit',
      { ...base, maxMemory: '512Mi', resources: { limits: { memory: '256Mi' } } },
      'spec.maxMemory must be below spec.resources.limits.memory',
    ],
    [
      'requests above limits',
      { ...base, resources: { requests: { cpu: '2' }, limits: { cpu: '500m' } } },
      'spec.resources.requests.cpu may not exceed spec.resources.limits.cpu',
    ],
    [
      'a volume size without persistence',
      { ...base, persistence: { enabled: false, size: '1Gi' } },
      'spec.persistence.size and storageClassName need spec.persistence.enabled: true',
    ],
    [
      'an unknown way to update the primary',
      { ...base, mode: 'Replicated', rollout: { primary: 'Recreate' } },
      'spec.rollout.primary: Unsupported value: "Recreate"',
    ],
    [
      'an unknown deletion policy',
      { ...base, deletionPolicy: 'Orphan' },
      'spec.deletionPolicy: Unsupported value: "Orphan"',
    ],
    [
      'a client selector with a bad label key',
      { ...base, clients: { podSelector: { 'bad key': 'x' } } },
      'label keys must be Kubernetes label keys',
    ],
    [
      'a volume size that is no quantity',
      { ...base, persistence: { enabled: true, size: 'big' } },
      'spec.persistence.size: not a quantity',
    ],
  ])('refuses %s', async (_what, spec, message) => {
    const name = `bad-${Math.random().toString(36).slice(2, 8)}`;
    expect(await rejection(api.client.create(Kind, cache(name, spec)))).toContain(message);
  });

  describe('quantities: above 0, and whole bytes for memory, maxMemory and volumes', () => {
    let probes = 0;
    const durable = (size: string) => ({ ...base, persistence: { enabled: true, size } });

    it.each<[string, Record<string, unknown>]>([
      ['a 1Gi volume', durable('1Gi')],
      ['a 1.5Gi volume (1610612736 bytes)', durable('1.5Gi')],
      ['a maxMemory in plain bytes', { ...base, maxMemory: '104857600' }],
      [
        'half a cpu, 1m of one and 0.5Gi of memory',
        {
          ...base,
          resources: { requests: { cpu: '1m', memory: '0.5Gi' }, limits: { cpu: '0.5' } },
        },
      ],
    ])('accepts %s', async (_, spec) => {
      await expect(
        api.client.create(Kind, cache(`ok-${++probes}`, spec), { dryRun: true }),
      ).resolves.toBeDefined();
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a volume of 0', durable('0'), 'spec.persistence.size must be greater than 0'],
      ['a negative volume', durable('-1Gi'), 'spec.persistence.size must be greater than 0'],
      [
        'half a byte of volume',
        durable('0.5'),
        'spec.persistence.size must be a whole number of bytes',
      ],
      [
        'a maxMemory of 0 (Redis: no limit)',
        { ...base, maxMemory: '0' },
        'spec.maxMemory must be greater than 0',
      ],
      [
        'a maxMemory in millibytes',
        { ...base, maxMemory: '500m' },
        'spec.maxMemory must be a whole number of bytes',
      ],
      [
        'a memory limit in millibytes',
        { ...base, resources: { limits: { memory: '512m' } } },
        'spec.resources.limits.memory must be a whole number of bytes',
      ],
      [
        'a cpu request of 0',
        { ...base, resources: { requests: { cpu: '0' } } },
        'spec.resources.requests.cpu must be greater than 0',
      ],
      [
        'a negative memory request',
        { ...base, resources: { requests: { memory: '-1Gi' } } },
        'spec.resources.requests.memory must be greater than 0',
      ],
    ])('refuses %s', async (_, spec, message) => {
      expect(
        await rejection(
          api.client.create(Kind, cache(`bad-q-${++probes}`, spec), { dryRun: true }),
        ),
      ).toContain(message);
    });
  });

  describe('spec.fencing (min-replicas-to-write / min-replicas-max-lag)', () => {
    it('defaults minReplicas 1 and maxLag 2s, and takes up to spec.replicas − 1', async () => {
      const made = await api.client.create<CacheCluster>(
        Kind,
        cache('fenced', { ...base, mode: 'Replicated', replicas: 3, fencing: {} }),
      );
      expect(made.spec.fencing).toEqual({ minReplicas: 1, maxLag: '2s' });
      const two = await api.client.mergePatch<CacheCluster>(Kind, 'fenced', namespace, {
        spec: { fencing: { minReplicas: 2, maxLag: '10s' } },
      });
      expect(two.spec.fencing).toEqual({ minReplicas: 2, maxLag: '10s' });
      // Off again: the field removed.
      const off = await api.client.mergePatch<CacheCluster>(Kind, 'fenced', namespace, {
        spec: { fencing: null },
      });
      expect(off.spec.fencing).toBeUndefined();
    });

    it.each([
      [
        'Standalone',
        { fencing: {} },
        'spec.fencing needs mode Replicated: a Standalone cache has no replica to acknowledge its writes',
      ],
      [
        'minReplicas of every pod (3 pods)',
        { mode: 'Replicated', replicas: 3, fencing: { minReplicas: 3 } },
        'spec.fencing.minReplicas must be at most spec.replicas − 1',
      ],
      [
        'minReplicas 2 with the default 2 pods',
        { mode: 'Replicated', fencing: { minReplicas: 2 } },
        'spec.fencing.minReplicas must be at most spec.replicas − 1',
      ],
      [
        'a maxLag of 0s',
        { mode: 'Replicated', fencing: { maxLag: '0s' } },
        'spec.fencing.maxLag must be between 1s and 60s',
      ],
      [
        'a maxLag over a minute',
        { mode: 'Replicated', fencing: { maxLag: '61s' } },
        'spec.fencing.maxLag must be between 1s and 60s',
      ],
      [
        'a maxLag not in whole seconds',
        { mode: 'Replicated', fencing: { maxLag: '1500ms' } },
        'spec.fencing.maxLag',
      ],
    ])('refuses %s', async (_case, spec, message) => {
      const name = `fence-${_case
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .slice(0, 30)}`.replace(/-$/, '');
      expect(await rejection(api.client.create(Kind, cache(name, { ...base, ...spec })))).toContain(
        message,
      );
    });

    it('refuses scaling below what minReplicas needs', async () => {
      await api.client.create(
        Kind,
        cache('fenced-scale', {
          ...base,
          mode: 'Replicated',
          replicas: 3,
          fencing: { minReplicas: 2 },
        }),
      );
      expect(
        await rejection(
          api.client.mergePatch(Kind, 'fenced-scale', namespace, { spec: { replicas: 2 } }),
        ),
      ).toContain('spec.fencing.minReplicas must be at most spec.replicas − 1');
    });
  });

  it('refuses a name its StatefulSet’s pods could not carry, and one that is no DNS-1035 label', async () => {
    expect(await rejection(api.client.create(Kind, cache('a'.repeat(53), base)))).toContain(
      'metadata.name must be a DNS label of at most 52 characters',
    );
    expect(await rejection(api.client.create(Kind, cache('1cache', base)))).toContain(
      'metadata.name must be a DNS label of at most 52 characters starting with a letter',
    );
  });

  it('refuses changes that would lose data or cannot be carried out', async () => {
    await api.client.create(
      Kind,
      cache('durable', {
        version: '8.0',
        mode: 'Replicated',
        replicas: 2,
        persistence: { enabled: true, size: '2Gi', storageClassName: 'local' },
      }),
    );
    const patch = (spec: Record<string, unknown>) =>
      api.client.mergePatch<CacheCluster>(Kind, 'durable', namespace, { spec });
    expect(await rejection(patch({ persistence: { size: '1Gi' } }))).toContain(
      'spec.persistence.size may only grow (from 2Gi to 1Gi): a PersistentVolumeClaim cannot shrink',
    );
    expect(await rejection(patch({ version: '7.0' }))).toContain(
      'spec.version may not go down (from 8.0 to 7.0)',
    );
    expect(await rejection(patch({ engine: 'valkey' }))).toContain('spec.engine is immutable');
    expect(await rejection(patch({ mode: 'Standalone', replicas: 1 }))).toContain(
      'spec.mode is immutable',
    );
    expect(await rejection(patch({ persistence: { enabled: false } }))).toContain(
      'spec.persistence.enabled is immutable',
    );
    expect(await rejection(patch({ persistence: { storageClassName: 'other' } }))).toContain(
      'spec.persistence.storageClassName is immutable',
    );
    expect(await rejection(patch({ auth: { existingSecret: { name: 'mine' } } }))).toContain(
      'spec.auth is immutable',
    );
    await api.client.create(
      Kind,
      cache('plain', { version: '7.0', persistence: { enabled: true } }),
    );
    expect(
      await rejection(
        api.client.mergePatch(Kind, 'plain', namespace, {
          spec: { persistence: { storageClassName: 'fast' } },
        }),
      ),
    ).toContain('spec.persistence.storageClassName is immutable');
    // What may change does.
    const grown = await patch({ persistence: { size: '3Gi' }, version: '8.1', replicas: 3 });
    expect(grown.spec).toMatchObject({ version: '8.1', replicas: 3, persistence: { size: '3Gi' } });
  });
});
