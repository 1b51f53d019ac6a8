import { describe, expect, it } from 'vitest';
import { planRoles, type NodeView, type PodFacts, type RolePlanInput } from './plan.js';

const T0 = '2026-12-02T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const ip = (i: number) => `10.88.0.${10 + i}`;
/** The replication history (`master_replid`) every node is on unless a case says otherwise. */
const H = 'h0';
const fenced = (offset = 0, runId = `run-${offset}`, replId = H): NodeView => ({
  reachable: true,
  role: 'replica',
  runId,
  replId,
  offset,
  primary: { host: '127.0.0.1', port: 1, linkUp: false },
  loading: false,
  syncInProgress: false,
});
const primaryNode = (runId: string, offset: number, replId = H): NodeView => ({
  reachable: true,
  role: 'primary',
  runId,
  replId,
  offset,
  loading: false,
  syncInProgress: false,
});
const replicaOf = (i: number, offset: number, runId = `r${offset}`, replId = H): NodeView => ({
  reachable: true,
  role: 'replica',
  runId,
  replId,
  offset,
  primary: { host: ip(i), port: 6379, linkUp: true },
  loading: false,
  syncInProgress: false,
});
const pod = (i: number, node: NodeView | undefined, extra: Partial<PodFacts> = {}): PodFacts => ({
  name: `c-${i}`,
  ordinal: i,
  ip: ip(i),
  ready: true,
  deleting: false,
  ...(node ? { node } : {}),
  ...extra,
});

const input = (over: Partial<RolePlanInput>): RolePlanInput => ({
  mode: 'Replicated',
  replicas: 3,
  failover: { enabled: true, afterMs: 10_000 },
  port: 6379,
  status: {},
  pods: [],
  memory: {},
  now: T0,
  ...over,
});

describe('planRoles, Replicated', () => {
  it('elects the first primary among fenced pods (ties: lowest ordinal), records it before promoting', () => {
    const plan = planRoles(input({ pods: [pod(0, fenced()), pod(1, fenced()), pod(2, fenced())] }));
    expect(plan.status).toMatchObject({ primary: 'c-0' });
    expect(plan.status?.primaryRunId).toBeUndefined();
    expect(plan.status?.failover).toBeUndefined();
    expect(plan.actions[0]).toEqual({ type: 'promote', pod: 'c-0' });
    expect(plan.actions).toContainEqual(
      expect.objectContaining({ type: 'replicaOf', pod: 'c-1', host: ip(0), port: 6379 }),
    );
    expect(plan.events.map((e) => e.reason)).toEqual(['PrimaryElected']);
  });

  it('prefers a pod already serving as primary when no primary is recorded', () => {
    const plan = planRoles(
      input({ pods: [pod(0, fenced(5)), pod(1, primaryNode('p1', 90)), pod(2, fenced(7))] }),
    );
    expect(plan.status).toMatchObject({ primary: 'c-1', primaryRunId: 'p1' });
    expect(plan.actions.find((a) => a.type === 'promote')).toBeUndefined();
  });

  it('carries out a recorded election that did not happen (no second choice)', () => {
    const plan = planRoles(
      input({
        status: { primary: 'c-2' },
        pods: [pod(0, fenced(50)), pod(1, fenced()), pod(2, fenced())],
      }),
    );
    expect(plan.actions[0]).toEqual({ type: 'promote', pod: 'c-2' });
    expect(plan.status).toBeUndefined();
  });

  it('records the primary’s run id once, then a converged cluster plans nothing', () => {
    const pods = [
      pod(0, primaryNode('p0', 100), { roleLabel: 'primary' }),
      pod(1, replicaOf(0, 100), { roleLabel: 'replica' }),
      pod(2, replicaOf(0, 100), { roleLabel: 'replica' }),
    ];
    const first = planRoles(input({ status: { primary: 'c-0' }, pods }));
    expect(first.status).toMatchObject({ primary: 'c-0', primaryRunId: 'p0' });
    const converged = planRoles(input({ status: { primary: 'c-0', primaryRunId: 'p0' }, pods }));
    expect(converged.status).toBeUndefined();
    expect(converged.actions).toEqual([]);
    expect(converged.health).toMatchObject({ primaryServing: true, readyReplicas: 3, lagging: [] });
    expect(converged.memory.lastSeen).toMatchObject({ pod: 'c-0', offset: 100, at: T0 });
  });

  it('remembers the primary as seen when its observation began, not when the plan ran', () => {
    // The observations took 3 s (a replica that did not answer): writes acknowledged during them
    // are not in the offset read, so the loss bound must not claim them.
    const pods = [
      pod(0, primaryNode('p0', 100), { roleLabel: 'primary' }),
      pod(1, replicaOf(0, 100), { roleLabel: 'replica' }),
      pod(2, { reachable: false, error: 'no reply within 2000 ms' }, { roleLabel: 'replica' }),
    ];
    const status = { primary: 'c-0', primaryRunId: 'p0' };
    const seen = planRoles(input({ status, pods, observedAt: at(-3_000) }));
    expect(seen.memory.lastSeen).toEqual({
      pod: 'c-0',
      runId: 'p0',
      replId: H,
      offset: 100,
      at: at(-3_000),
    });
    // The primary is lost; the failover's bound is stated up to that time.
    const failover = planRoles(
      input({
        status,
        pods: [
          pod(0, undefined, { deleting: true }),
          pod(1, replicaOf(0, 90)),
          pod(2, replicaOf(0, 80)),
        ],
        memory: { ...seen.memory, lostSince: at(1_000), lostReason: 'PrimaryPodDeleted' },
        now: at(20_000),
        observedAt: at(19_000),
      }),
    );
    expect(failover.status?.failover).toMatchObject({
      to: 'c-1',
      primaryLastOffset: 100,
      primaryLastSeenAt: at(-3_000),
      bytesPossiblyLost: 10,
      dataLossRisk: 'Bounded',
    });
    const standalone = planRoles(
      input({
        mode: 'Standalone',
        replicas: 1,
        pods: [pod(0, primaryNode('s0', 7))],
        observedAt: at(-500),
      }),
    );
    expect(standalone.memory.lastSeen?.at).toBe(at(-500));
  });

  it('repoints a replica of the wrong address and fences a second primary, labels follow', () => {
    const plan = planRoles(
      input({
        status: { primary: 'c-0', primaryRunId: 'p0' },
        pods: [
          pod(0, primaryNode('p0', 100), { roleLabel: 'replica' }),
          pod(1, replicaOf(2, 80), { roleLabel: 'replica' }),
          pod(2, primaryNode('p2', 80), { roleLabel: 'primary' }),
        ],
      }),
    );
    expect(plan.actions).toEqual([
      // A second primary is fenced before anything else.
      { type: 'replicaOf', pod: 'c-2', primary: 'c-0', host: ip(0), port: 6379, fence: true },
      { type: 'replicaOf', pod: 'c-1', primary: 'c-0', host: ip(0), port: 6379, fence: false },
      { type: 'label', pod: 'c-2', role: 'replica' },
      { type: 'label', pod: 'c-0', role: 'primary' },
    ]);
    expect(plan.events.map((e) => e.reason)).toEqual(['PrimaryFenced']);
  });

  it('waits for failover.after before promoting, and says so', () => {
    const pods = [
      pod(0, { reachable: false, error: 'connect ECONNREFUSED' }),
      pod(1, replicaOf(0, 90)),
      pod(2, replicaOf(0, 95)),
    ];
    const status = { primary: 'c-0', primaryRunId: 'p0' };
    const first = planRoles(
      input({
        status,
        pods,
        memory: { lastSeen: { pod: 'c-0', runId: 'p0', replId: H, offset: 100, at: at(-500) } },
      }),
    );
    expect(first.status).toBeUndefined();
    expect(first.actions.filter((a) => a.type !== 'label')).toEqual([]);
    expect(first.health.lost).toMatchObject({ reason: 'PrimaryUnreachable', since: T0 });
    expect(first.memory.lostSince).toBe(T0);
    expect(first.requeueAfterMs).toBeLessThanOrEqual(1000);
    const later = planRoles(input({ status, pods, memory: first.memory, now: at(9_000) }));
    expect(later.actions.find((a) => a.type === 'promote')).toBeUndefined();
  });

  it('promotes the replica with the highest offset after failover.after, with the loss bound in status', () => {
    const pods = [
      pod(0, { reachable: false, error: 'timeout' }),
      pod(1, replicaOf(0, 90)),
      pod(2, replicaOf(0, 95)),
    ];
    const memory = {
      lastSeen: { pod: 'c-0', runId: 'p0', replId: H, offset: 100, at: at(-800) },
      lostSince: T0,
      lostReason: 'PrimaryUnreachable' as const,
    };
    const plan = planRoles(
      input({
        status: { primary: 'c-0', primaryRunId: 'p0', failoverCount: 1 },
        pods,
        memory,
        now: at(10_000),
      }),
    );
    expect(plan.status).toMatchObject({
      primary: 'c-2',
      failoverCount: 2,
      failover: {
        phase: 'Promoting',
        from: 'c-0',
        to: 'c-2',
        reason: 'PrimaryUnreachable',
        promotedOffset: 95,
        primaryLastOffset: 100,
        bytesPossiblyLost: 5,
        dataLossRisk: 'Bounded',
        primaryLostAt: T0,
      },
    });
    expect(plan.status?.primaryRunId).toBeUndefined();
    expect(plan.actions[0]).toEqual({ type: 'promote', pod: 'c-2' });
    expect(plan.actions).toContainEqual(
      expect.objectContaining({ type: 'replicaOf', pod: 'c-1', host: ip(2) }),
    );
    expect(plan.events.map((e) => e.reason)).toEqual(['FailoverStarted']);
  });

  it('states the loss Unknown when the promoted replica holds another replication history than the old primary', () => {
    // The model's seed -2129235749: c-0, a primary partitioned while c-1 was promoted, took
    // writes of its own (split brain), restarted with persistence and came back fenced holding
    // them, at the offset c-1 was last seen at. c-1 dies. Equal offsets of two histories say
    // nothing of what c-0 lacks: every byte c-1 acknowledged may be lost, not 0.
    const plan = planRoles(
      input({
        replicas: 2,
        status: { primary: 'c-1', primaryRunId: 'p1', failoverCount: 1 },
        pods: [pod(0, fenced(100, 'r0-again', 'split-brain')), pod(1, undefined)],
        memory: {
          lastSeen: { pod: 'c-1', runId: 'p1', replId: 'h1', offset: 100, at: at(-800) },
          lostSince: T0,
          lostReason: 'PrimaryUnreachable',
        },
        now: at(10_000),
      }),
    );
    expect(plan.status?.failover).toMatchObject({
      from: 'c-1',
      to: 'c-0',
      promotedOffset: 100,
      dataLossRisk: 'Unknown',
    });
    expect(plan.status?.failover?.bytesPossiblyLost).toBeUndefined();
    expect(plan.status?.failover?.message).toContain('another replication history');
  });

  it('breaks offset ties by the lowest ordinal', () => {
    const plan = planRoles(
      input({
        status: { primary: 'c-0', primaryRunId: 'p0' },
        pods: [
          pod(0, undefined, { deleting: true }),
          pod(1, replicaOf(0, 95)),
          pod(2, replicaOf(0, 95)),
        ],
        memory: { lostSince: T0, lostReason: 'PrimaryPodDeleted' },
        now: at(20_000),
      }),
    );
    expect(plan.status?.failover).toMatchObject({
      to: 'c-1',
      reason: 'PrimaryPodDeleted',
      dataLossRisk: 'Unknown',
    });
    expect(plan.status?.failover?.bytesPossiblyLost).toBeUndefined();
  });

  it('treats a primary whose server restarted fenced as lost', () => {
    const plan = planRoles(
      input({
        status: { primary: 'c-0', primaryRunId: 'p0' },
        pods: [pod(0, fenced(0, 'p0-again')), pod(1, replicaOf(0, 95))],
      }),
    );
    expect(plan.health.lost?.reason).toBe('PrimaryRestarted');
    expect(plan.actions).not.toContainEqual(expect.objectContaining({ type: 'promote' }));
  });

  it('resumes a decided failover without choosing again or counting it twice', () => {
    const failover = {
      phase: 'Promoting' as const,
      from: 'c-0',
      to: 'c-1',
      reason: 'PrimaryUnreachable',
      startedAt: T0,
      promotedOffset: 90,
      dataLossRisk: 'Unknown' as const,
      message: 'm',
    };
    const plan = planRoles(
      input({
        status: { primary: 'c-1', failover, failoverCount: 1 },
        pods: [pod(0, fenced(0, 'new')), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 99))],
        now: at(60_000),
      }),
    );
    expect(plan.actions[0]).toEqual({ type: 'promote', pod: 'c-1' });
    expect(plan.status?.failoverCount ?? 1).toBe(1);
    expect(plan.status?.primary ?? 'c-1').toBe('c-1');
  });

  it('fences an old primary that is back before it resumes the promotion (never two primaries)', () => {
    // Found by the model (plan.model.test.ts): the controller stopped right after recording the
    // failover; c-0's partition healed and it still serves as primary.
    const failover = {
      phase: 'Promoting' as const,
      from: 'c-0',
      to: 'c-1',
      reason: 'PrimaryUnreachable',
      startedAt: T0,
      promotedOffset: 90,
      dataLossRisk: 'Unknown' as const,
      message: 'm',
    };
    const plan = planRoles(
      input({
        status: { primary: 'c-1', failover, failoverCount: 1 },
        pods: [pod(0, primaryNode('p0', 100)), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 90))],
        now: at(60_000),
      }),
    );
    const fence = plan.actions.findIndex((a) => a.type === 'replicaOf' && a.pod === 'c-0');
    const promote = plan.actions.findIndex((a) => a.type === 'promote');
    expect(plan.actions[fence]).toMatchObject({ fence: true, host: ip(1) });
    expect(fence).toBeLessThan(promote);
  });

  it('does not promote a chosen replica whose server restarted before its promotion, but the replica holding the data', () => {
    // A controller died between deciding (c-1, at offset 90) and promoting; c-1's server then
    // restarted fenced and empty. Promoting it would resynchronise c-2 from an empty dataset.
    const failover = {
      phase: 'Promoting' as const,
      from: 'c-0',
      to: 'c-1',
      reason: 'PrimaryPodDeleted',
      startedAt: T0,
      promotedOffset: 90,
      dataLossRisk: 'Unknown' as const,
      message: 'm',
    };
    const status = { primary: 'c-1', failover, failoverCount: 1 };
    const pods = [
      pod(0, fenced(1, 'p0-again')),
      pod(1, fenced(1, 'r1-again')),
      pod(2, replicaOf(0, 90)),
    ];
    const first = planRoles(input({ status, pods, now: at(60_000) }));
    expect(first.actions).not.toContainEqual(expect.objectContaining({ type: 'promote' }));
    expect(first.actions.filter((a) => a.type === 'replicaOf')).toEqual([]);
    expect(first.status).toBeUndefined();
    expect(first.health.lost).toMatchObject({ reason: 'PrimaryRestarted' });
    const later = planRoles(input({ status, pods, memory: first.memory, now: at(71_000) }));
    expect(later.status).toMatchObject({
      primary: 'c-2',
      failoverCount: 2,
      failover: {
        phase: 'Promoting',
        from: 'c-1',
        to: 'c-2',
        reason: 'PrimaryRestarted',
        promotedOffset: 90,
        dataLossRisk: 'Unknown',
      },
    });
    expect(later.actions[0]).toEqual({ type: 'promote', pod: 'c-2' });
    expect(later.events.map((e) => e.reason)).toEqual(['FailoverStarted']);
  });

  it('completes a failover once the new primary serves and the others follow', () => {
    const failover = {
      phase: 'Repointing' as const,
      from: 'c-0',
      to: 'c-1',
      reason: 'PrimaryUnreachable',
      startedAt: T0,
      promotedOffset: 90,
      dataLossRisk: 'Unknown' as const,
      message: 'm',
    };
    const plan = planRoles(
      input({
        status: { primary: 'c-1', failover, failoverCount: 1 },
        pods: [
          pod(0, replicaOf(1, 120), { roleLabel: 'replica' }),
          pod(1, primaryNode('p1', 120), { roleLabel: 'primary' }),
        ],
        now: at(5_000),
      }),
    );
    expect(plan.status).toMatchObject({
      primaryRunId: 'p1',
      lastFailover: at(5_000),
      failover: { phase: 'Completed', completedAt: at(5_000) },
    });
    expect(plan.events.map((e) => e.reason)).toEqual(['FailoverCompleted']);
  });

  it('does not promote with failover disabled, or without a reachable replica', () => {
    const pods = [pod(0, undefined), pod(1, { reachable: false, error: 'x' })];
    const status = { primary: 'c-0', primaryRunId: 'p0' };
    const memory = { lostSince: T0, lostReason: 'PrimaryUnreachable' as const };
    const disabled = planRoles(
      input({
        status,
        pods: [pod(0, undefined), pod(1, replicaOf(0, 1))],
        memory,
        now: at(60_000),
        failover: { enabled: false, afterMs: 1000 },
      }),
    );
    expect(disabled.health.stuck?.reason).toBe('FailoverDisabled');
    expect(disabled.status).toBeUndefined();
    const none = planRoles(input({ status, pods, memory, now: at(60_000) }));
    expect(none.health.stuck?.reason).toBe('NoReplicaToPromote');
    expect(none.status).toBeUndefined();
  });
});

describe('planRoles, Standalone', () => {
  it('keeps pod 0 primary, records its run id, labels it', () => {
    const plan = planRoles(
      input({ mode: 'Standalone', replicas: 1, pods: [pod(0, primaryNode('s0', 3))] }),
    );
    expect(plan.status).toMatchObject({ primary: 'c-0', primaryRunId: 's0' });
    expect(plan.actions).toEqual([{ type: 'label', pod: 'c-0', role: 'primary' }]);
    expect(plan.health).toMatchObject({ primaryServing: true, readyReplicas: 1 });
  });
});
