import { type CacheCluster } from '@steward/cache-cluster-api';
import { type ObjectReconcileContext } from '@steward/controller';
import { DecisionMarks } from '@steward/workload';
import { describe, expect, it } from 'vitest';
import { type Pod } from '../pods.js';
import { type RedisAdmin, RedisAdminError, type RedisObservation } from '../redis/index.js';
import { type PrimaryMemory } from '../roles/plan.js';
import { rolesPhase, salvageLocation } from './roles.js';

type Cluster = CacheCluster;
const T0 = Date.parse('2026-12-07T10:00:00.000Z');
const ip = (i: number) => `10.88.0.${10 + i}`;

const pod = (i: number, role: 'primary' | 'replica'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `c-${i}`, namespace: 'n', labels: { 'cache.steward.dev/role': role } },
  status: {
    phase: 'Running',
    podIP: ip(i),
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'server', state: { running: {} } }],
  },
});

const up = (
  role: 'primary' | 'replica',
  runId: string,
  offset: number,
  of?: number,
): RedisObservation => ({
  reachable: true,
  role,
  runId,
  replId: 'h',
  offset,
  ...(of !== undefined ? { primary: { host: ip(of), port: 6379, linkUp: true } } : {}),
  replicas: [],
  loading: false,
  syncInProgress: false,
  engine: 'redis',
  version: '7.0.15',
  persistence: { aofEnabled: false },
  memory: { used: 0, max: 0 },
  fence: { minReplicas: 1, maxLagSeconds: 2 },
});

/** A RedisAdmin of our own interface: observations by IP, each call recorded, the clock moved. */
function fakeRedis(
  views: Record<string, RedisObservation>,
  clock: { now: number },
  salvage?: () => Promise<{ offset: number; savedAt: Date }>,
) {
  const calls: string[] = [];
  const redis: RedisAdmin = {
    observe: (e) => Promise.resolve(views[e.host] ?? { reachable: false, error: 'no reply' }),
    promote: (e) => (calls.push(`promote ${e.host}`), Promise.resolve()),
    replicaOf: (e, p) => {
      calls.push(`replicaOf ${e.host} ${p.host}:${p.port}`);
      clock.now += 100;
      return Promise.resolve();
    },
    failover: () => Promise.resolve('started'),
    salvageThenFollow: (e, file, p, _t, fence) => {
      calls.push(`salvage ${e.host} ${file} → ${p.host} fence ${fence.minReplicas}`);
      return salvage ? salvage() : Promise.resolve({ offset: 0, savedAt: new Date(clock.now) });
    },
    close: () => Promise.resolve(),
  };
  return { redis, calls };
}

function context(cluster: Cluster) {
  const written: Record<string, unknown>[] = [];
  const ctx = {
    signal: new AbortController().signal,
    status: {
      write: (change: (latest: Cluster) => { fields: Record<string, unknown> }) => {
        written.push(change(cluster).fields);
        return Promise.resolve(true);
      },
    },
  } as unknown as ObjectReconcileContext<Cluster>;
  return { ctx, written };
}

const cluster = (status: Cluster['status'], persistent = false): Cluster => ({
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'c', namespace: 'n', uid: 'u1' },
  spec: {
    version: '7.0',
    mode: 'Replicated',
    replicas: 3,
    failover: { after: '3s' },
    fencing: { minReplicas: 1, maxLag: '2s' },
    persistence: { enabled: persistent },
  },
  ...(status ? { status } : {}),
});

const env = (redis: RedisAdmin, clock: { now: number }) => ({
  client: { mergePatch: () => Promise.resolve({}) } as never,
  redis,
  now: () => new Date(clock.now),
  emit: () => undefined,
});

describe('rolesPhase with spec.fencing', () => {
  it('detaches the replicas of a primary that does not answer, and remembers each as cut off from when its REPLICAOF was answered', async () => {
    const clock = { now: T0 };
    const { redis, calls } = fakeRedis(
      { [ip(1)]: up('replica', 'r1', 90, 0), [ip(2)]: up('replica', 'r2', 95, 0) },
      clock,
    );
    const obj = cluster({ primary: 'c-0', primaryRunId: 'p0' });
    const memories = new Map<string, PrimaryMemory>([
      [
        'u1',
        {
          lastSeen: {
            pod: 'c-0',
            runId: 'p0',
            replId: 'h',
            offset: 100,
            at: new Date(T0 - 1000).toISOString(),
            fence: { minReplicas: 1, boundSeconds: 4 },
          },
        },
      ],
    ]);
    const { ctx } = context(obj);
    const pods = [pod(0, 'primary'), pod(1, 'replica'), pod(2, 'replica')];
    const out = await rolesPhase(
      env(redis, clock),
      ctx,
      obj,
      pods,
      'pw',
      memories,
      new DecisionMarks(),
    );
    expect(out.failed).toEqual([]);
    expect(calls).toEqual([`replicaOf ${ip(1)} 127.0.0.1:1`, `replicaOf ${ip(2)} 127.0.0.1:1`]);
    expect(memories.get('u1')?.links).toEqual({
      'c-1': new Date(T0 + 100).toISOString(),
      'c-2': new Date(T0 + 200).toISOString(),
    });
    expect(out.plan.health.lost?.message).toContain('primary c-0 is lost');
  });
});

describe('rolesPhase: salvage of a returning old primary', () => {
  const failover = {
    phase: 'Completed' as const,
    from: 'c-0',
    to: 'c-2',
    reason: 'PrimaryUnreachable',
    startedAt: '2026-12-07T09:59:00.000Z',
    promotedOffset: 95,
    dataLossRisk: 'Bounded' as const,
    salvage: { phase: 'Pending' as const, message: 'not back' },
    message: 'm',
  };
  const status = { primary: 'c-2', primaryRunId: 'p2', failoverCount: 1, failover };
  const views = {
    [ip(0)]: up('primary', 'p0', 130),
    [ip(1)]: up('replica', 'r1', 120, 2),
    [ip(2)]: up('primary', 'p2', 120),
  };
  const pods = [pod(0, 'replica'), pod(1, 'replica'), pod(2, 'primary')];

  it.each([
    [false, 'pod/c-0 emptyDir data:/data/salvage-20261207T095900Z.rdb'],
    [true, 'persistentvolumeclaim/data-c-0:/data/salvage-20261207T095900Z.rdb'],
  ])('saves it, then records Saved (persistence %s) with where', async (persistent, location) => {
    const clock = { now: T0 };
    const savedAt = new Date(T0 + 500);
    const { redis, calls } = fakeRedis(views, clock, () =>
      Promise.resolve({ offset: 131, savedAt }),
    );
    const obj = cluster(status, persistent);
    const { ctx, written } = context(obj);
    const out = await rolesPhase(
      env(redis, clock),
      ctx,
      obj,
      pods,
      'pw',
      new Map(),
      new DecisionMarks(),
    );
    expect(out.failed).toEqual([]);
    expect(calls).toEqual([`salvage ${ip(0)} salvage-20261207T095900Z.rdb → ${ip(2)} fence 1`]);
    const salvage = (written.at(-1)?.['failover'] as { salvage: Record<string, unknown> }).salvage;
    expect(salvage).toMatchObject({
      phase: 'Saved',
      from: '95',
      to: '131',
      bytes: 36,
      savedAt: savedAt.toISOString(),
    });
    expect(String(salvage['location']).startsWith(location)).toBe(true);
    expect(salvageLocation(obj, 'c-0', 'f.rdb')).toContain(persistent ? 'data-c-0' : 'emptyDir');
  });

  it('records Failed when the server refused a step (it stays out), and nothing when it did not answer (asked again)', async () => {
    const clock = { now: T0 };
    for (const [kind, recorded] of [
      ['command', 'Failed'],
      ['timeout', undefined],
    ] as const) {
      const { redis } = fakeRedis(views, clock, () =>
        Promise.reject(new RedisAdminError(`salvage of x failed at BGSAVE: ${kind}`, kind)),
      );
      const obj = cluster(status);
      const { ctx, written } = context(obj);
      const out = await rolesPhase(
        env(redis, clock),
        ctx,
        obj,
        pods,
        'pw',
        new Map(),
        new DecisionMarks(),
      );
      expect(out.failed.join()).toContain(`salvage of x failed at BGSAVE: ${kind}`);
      const salvage = (written.at(-1)?.['failover'] as { salvage?: { phase: string } } | undefined)
        ?.salvage;
      expect(salvage?.phase).toBe(recorded);
    }
  });
});
