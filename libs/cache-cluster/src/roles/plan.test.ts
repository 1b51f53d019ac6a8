import { describe, expect, it } from 'vitest';
import {
  FAILOVER_TIMEOUT_MS,
  planRoles,
  SWITCHOVER_TIMEOUT_MS,
  type NodeView,
  type PodFacts,
  type RolePlanInput,
} from './plan.js';

const T0 = '2026-12-02T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const ip = (i: number) => `10.88.0.${10 + i}`;
type Up = Extract<NodeView, { reachable: true }>;
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

describe('planRoles, Replicated, fenced (spec.fencing: min-replicas-to-write)', () => {
  const status = { primary: 'c-0', primaryRunId: 'p0', failoverCount: 0 };
  const fence = { minReplicas: 1, boundSeconds: 4 };
  const lastSeen = {
    pod: 'c-0',
    runId: 'p0',
    replId: H,
    offset: 100,
    at: at(-1_000),
    fence: { minReplicas: 1, boundSeconds: 4 },
  };
  const hung = { reachable: false as const, error: 'no reply within 2000 ms' };
  const detached = (offset: number): NodeView => fenced(offset, `r${offset}`);
  const run = (over: Partial<RolePlanInput>) =>
    planRoles(input({ status, fence, failover: { enabled: true, afterMs: 5_000 }, ...over }));

  it('tracks the replicas while the primary is lost, detaches them from failover.after − the bound on, promotes once the fence bound has passed since the last link', () => {
    const linked = [pod(0, hung), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 95))];
    // 0 s: lost (the observation began then); the replicas still replicate from it.
    const first = run({ pods: linked, memory: { lastSeen }, observedAt: T0, now: at(500) });
    expect(first.memory.links).toEqual({ 'c-1': at(500), 'c-2': at(500) });
    expect(first.actions.filter((a) => a.type === 'detach')).toEqual([]);
    // 1 s = failover.after (5 s) − bound (4 s): detached (REPLICAOF the fence address).
    const second = run({
      pods: linked,
      memory: first.memory,
      observedAt: at(1_000),
      now: at(1_200),
    });
    expect(second.actions.filter((a) => a.type === 'detach')).toEqual([
      { type: 'detach', pod: 'c-1' },
      { type: 'detach', pod: 'c-2' },
    ]);
    expect(second.events.map((e) => e.reason)).toEqual(['ReplicasDetached']);
    expect(second.memory.links).toEqual({ 'c-1': at(1_200), 'c-2': at(1_200) });
    // The roles phase records when each detach was answered.
    const memory = { ...second.memory, links: { 'c-1': at(1_300), 'c-2': at(1_400) } };
    const cut = [pod(0, hung), pod(1, detached(90)), pod(2, detached(95))];
    // 5 s: failover.after passed, but the fence (c-2 cut off at 1.4 s + 4 s) has not.
    const waiting = run({ pods: cut, memory, observedAt: at(5_000), now: at(5_100) });
    expect(waiting.status).toBeUndefined();
    expect(waiting.actions.filter((a) => a.type === 'promote' || a.type === 'detach')).toEqual([]);
    expect(waiting.health.lost?.message).toContain(`by ${at(5_400)}`);
    expect(waiting.requeueAfterMs).toBe(300);
    expect(waiting.memory.links).toEqual(memory.links);
    // 5.4 s: fenced; promoted, the fence in the record, the bound Bounded.
    const promoted = run({
      pods: cut,
      memory: waiting.memory,
      observedAt: at(5_400),
      now: at(5_450),
    });
    expect(promoted.status?.failover).toMatchObject({
      phase: 'Promoting',
      to: 'c-2',
      primaryFencedBy: at(5_400),
      bytesPossiblyLost: 5,
      dataLossRisk: 'Bounded',
      salvage: { phase: 'Pending' },
    });
    expect(promoted.status?.failover?.message).toContain('had fenced itself by');
    expect(promoted.actions[0]).toEqual({ type: 'promote', pod: 'c-2' });
  });

  it('counts with minReplicas: with 2, the second-latest link decides', () => {
    const memory = {
      lastSeen: { ...lastSeen, fence: { minReplicas: 2, boundSeconds: 4 } },
      lostSince: T0,
      lostReason: 'PrimaryUnreachable' as const,
      links: { 'c-1': at(1_000), 'c-2': at(3_000) },
    };
    const plan = run({
      pods: [pod(0, hung), pod(1, detached(90)), pod(2, detached(95))],
      memory,
      now: at(5_000),
    });
    expect(plan.status?.failover?.primaryFencedBy).toBe(at(5_000));
  });

  it('never promotes while a replica that may be linked to it does not answer (it may keep it writable)', () => {
    const memory = {
      lastSeen,
      lostSince: T0,
      lostReason: 'PrimaryUnreachable' as const,
      links: { 'c-2': at(1_000) },
    };
    const plan = run({
      pods: [pod(0, hung), pod(1, hung), pod(2, detached(95))],
      memory,
      now: at(60_000),
    });
    expect(plan.status).toBeUndefined();
    expect(plan.health.lost?.message).toContain('c-1 cannot be shown cut off from it');
    // Once c-1 answers detached (or is detached), the bound runs from then.
    const later = run({
      pods: [pod(0, hung), pod(1, detached(90)), pod(2, detached(95))],
      memory: plan.memory,
      now: at(61_000),
    });
    expect(later.status).toBeUndefined();
    expect(later.memory.links?.['c-1']).toBe(at(61_000));
  });

  it('counts a replica pod that is not running as cut off from its first sight on', () => {
    const memory = { lastSeen, lostSince: T0, lostReason: 'PrimaryUnreachable' as const };
    const first = run({
      pods: [pod(0, hung), pod(1, undefined), pod(2, detached(95))],
      memory,
      now: at(5_000),
    });
    expect(first.memory.links).toEqual({ 'c-1': at(5_000), 'c-2': at(5_000) });
    const later = run({
      pods: [pod(0, hung), pod(1, undefined), pod(2, detached(95))],
      memory: first.memory,
      now: at(9_000),
    });
    expect(later.status?.failover).toMatchObject({ to: 'c-2', primaryFencedBy: at(9_000) });
  });

  it('a controller that never saw the old primary waits a full bound from its first sight of the replicas', () => {
    const plan = run({
      pods: [pod(0, hung), pod(1, detached(90)), pod(2, detached(95))],
      memory: { lostSince: T0, lostReason: 'PrimaryUnreachable' },
      now: at(10_000),
    });
    expect(plan.status).toBeUndefined();
    expect(plan.memory.links).toEqual({ 'c-1': at(10_000), 'c-2': at(10_000) });
  });

  it('does not wait when the old primary ran without a fence (seen so), and says the loss is Unknown', () => {
    const plan = run({
      pods: [pod(0, hung), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 95))],
      memory: {
        lastSeen: { ...lastSeen, fence: 'none' },
        lostSince: T0,
        lostReason: 'PrimaryUnreachable',
      },
      now: at(5_000),
    });
    expect(plan.status?.failover).toMatchObject({ to: 'c-2', dataLossRisk: 'Unknown' });
    expect(plan.actions.filter((a) => a.type === 'detach')).toEqual([]);
  });

  it('waits for the fence when the primary’s pod is being deleted and its server does not answer (a cut-off node never gets the instruction); the loss stays Bounded', () => {
    const pods = [
      pod(0, hung, { deleting: true }),
      pod(1, replicaOf(0, 90)),
      pod(2, replicaOf(0, 95)),
    ];
    const waiting = run({
      pods,
      memory: { lastSeen, lostSince: T0, lostReason: 'PrimaryPodDeleted' },
      now: at(5_000),
    });
    expect(waiting.status).toBeUndefined();
    expect(waiting.actions.filter((a) => a.type === 'detach')).toHaveLength(2);
    const done = run({
      pods: [pod(0, hung, { deleting: true }), pod(1, detached(90)), pod(2, detached(95))],
      memory: waiting.memory,
      now: at(9_000),
    });
    expect(done.status?.failover).toMatchObject({
      reason: 'PrimaryPodDeleted',
      primaryFencedBy: at(9_000),
      dataLossRisk: 'Bounded',
    });
  });

  it('does not wait for the fence, and keeps the loss Bounded without one, when the connection is refused (nothing listens)', () => {
    const refused = { reachable: false as const, error: 'connect ECONNREFUSED 10.88.0.10:6379' };
    const plan = planRoles(
      input({
        status,
        failover: { enabled: true, afterMs: 5_000 },
        pods: [pod(0, refused), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 95))],
        memory: { lastSeen, lostSince: T0, lostReason: 'PrimaryUnreachable' },
        now: at(5_000),
      }),
    );
    expect(plan.status?.failover).toMatchObject({ to: 'c-2', dataLossRisk: 'Bounded' });
  });

  it('does not wait for the fence when the old server is known stopped (restarted: a new run id)', () => {
    const plan = run({
      pods: [pod(0, fenced(0, 'p0-again')), pod(1, replicaOf(0, 90)), pod(2, replicaOf(0, 95))],
      memory: { lastSeen, lostSince: T0, lostReason: 'PrimaryRestarted' },
      now: at(5_000),
    });
    expect(plan.status?.failover).toMatchObject({
      reason: 'PrimaryRestarted',
      dataLossRisk: 'Bounded',
    });
    expect(plan.status?.failover?.primaryFencedBy).toBeUndefined();
  });

  describe('salvage: the old primary back', () => {
    const failover = {
      phase: 'Completed' as const,
      from: 'c-0',
      to: 'c-2',
      reason: 'PrimaryUnreachable',
      startedAt: '2026-12-02T10:00:05.123Z',
      promotedOffset: 95,
      dataLossRisk: 'Bounded' as const,
      salvage: { phase: 'Pending' as const, message: 'not back' },
      message: 'm',
    };
    const after = { primary: 'c-2', primaryRunId: 'p2', failoverCount: 1, failover };
    const others = [pod(1, replicaOf(2, 120)), pod(2, primaryNode('p2', 120))];

    it('saves its dataset with its REPLICAOF when it holds more than the promoted offset', () => {
      const plan = run({ status: after, pods: [pod(0, primaryNode('p0', 130)), ...others] });
      expect(plan.actions[0]).toEqual({
        type: 'replicaOf',
        pod: 'c-0',
        primary: 'c-2',
        host: ip(2),
        port: 6379,
        fence: true,
        salvage: {
          file: 'salvage-20261202T100005Z.rdb',
          from: 95,
          failoverStartedAt: failover.startedAt,
        },
      });
    });

    it('records NotNeeded when it holds nothing beyond the promoted offset, and makes it a replica', () => {
      const plan = run({ status: after, pods: [pod(0, primaryNode('p0', 95)), ...others] });
      expect(plan.status?.failover?.salvage).toMatchObject({
        phase: 'NotNeeded',
        from: '95',
        to: '95',
        bytes: 0,
      });
      expect(plan.actions[0]).toMatchObject({ type: 'replicaOf', pod: 'c-0', fence: true });
      expect(plan.actions[0]).not.toHaveProperty('salvage');
    });

    it('keeps it out (no REPLICAOF) after a failed salvage', () => {
      const failed = { ...failover, salvage: { phase: 'Failed' as const, message: 'disk full' } };
      const plan = run({
        status: { ...after, failover: failed },
        pods: [pod(0, primaryNode('p0', 130)), ...others],
      });
      expect(plan.actions.filter((a) => a.type === 'replicaOf')).toEqual([]);
      expect(plan.health.lagging.join()).toContain(
        'kept out of the cluster, its salvage failed (disk full)',
      );
    });

    it('does nothing more once saved', () => {
      const saved = { ...failover, salvage: { phase: 'Saved' as const, message: 'saved' } };
      const plan = run({
        status: { ...after, failover: saved },
        pods: [pod(0, primaryNode('p0', 130)), ...others],
      });
      expect(plan.actions[0]).toMatchObject({ type: 'replicaOf', pod: 'c-0' });
      expect(plan.actions[0]).not.toHaveProperty('salvage');
    });
  });
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

  it('counts the loss from the start of the first observation the primary failed, not its end (a hung server answers nothing for a whole timeout)', () => {
    const pods = [
      pod(0, { reachable: false, error: 'timeout' }),
      pod(1, replicaOf(0, 90)),
      pod(2, replicaOf(0, 95)),
    ];
    const status = { primary: 'c-0', primaryRunId: 'p0' };
    const lastSeen = { pod: 'c-0', runId: 'p0', replId: H, offset: 100, at: at(-5_000) };
    // The observation began at 0 s and the primary's command timed out at 2 s.
    const first = planRoles(
      input({ status, pods, memory: { lastSeen }, observedAt: T0, now: at(2_000) }),
    );
    expect(first.memory.lostSince).toBe(T0);
    expect(first.health.lost).toMatchObject({ reason: 'PrimaryUnreachable', since: T0 });
    // failover.after (10 s) has passed since 0 s: promoted at 10 s (counted from 2 s, at 12 s).
    const later = planRoles(
      input({ status, pods, memory: first.memory, observedAt: at(8_000), now: at(10_000) }),
    );
    expect(later.status).toMatchObject({
      primary: 'c-2',
      failover: { phase: 'Promoting', primaryLostAt: T0 },
    });
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
        // Unanswered, not known to be stopped, and no fence: it may have gone on acknowledging.
        dataLossRisk: 'Unknown',
        primaryLostAt: T0,
        salvage: { phase: 'Pending' },
      },
    });
    expect(plan.status?.failover?.primaryFencedBy).toBeUndefined();
    expect(plan.status?.failover?.message).toContain('has no fence (spec.fencing)');
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

describe('planRoles, a switchover (a rolling update reached the primary)', () => {
  const serving = { primary: 'c-0', primaryRunId: 'p0' };
  const rollout = { reason: 'Rollout' as const };
  /** c-0 the primary at 1000, c-1 at 990, c-2 at 1000: both linked. */
  const settled = () => [
    pod(0, primaryNode('p0', 1000), { roleLabel: 'primary' }),
    pod(1, replicaOf(0, 990, 'p1'), { roleLabel: 'replica' }),
    pod(2, replicaOf(0, 1000, 'p2'), { roleLabel: 'replica' }),
  ];
  const demoting = {
    phase: 'Demoting' as const,
    from: 'c-0',
    to: 'c-2',
    reason: 'Rollout' as const,
    startedAt: T0,
    writesStoppedAt: T0,
    primaryLastOffset: 1000,
    message: 'm',
  };
  const underWay = { ...serving, switchover: demoting, switchoverCount: 1 };
  const handing = (state: 'waiting-for-sync' | 'failover-in-progress'): NodeView => ({
    ...(primaryNode('p0', 1000) as Up),
    failoverState: state,
  });

  it('decides first (Demoting, counted), then labels the primary replica and sends FAILOVER TO the most advanced linked replica', () => {
    const plan = planRoles(input({ status: serving, pods: settled(), switchover: rollout }));
    expect(plan.status).toMatchObject({
      primary: 'c-0',
      primaryRunId: 'p0',
      switchoverCount: 1,
      switchover: {
        phase: 'Demoting',
        from: 'c-0',
        to: 'c-2',
        reason: 'Rollout',
        startedAt: T0,
        writesStoppedAt: T0,
        primaryLastOffset: 1000,
      },
    });
    expect(plan.actions).toEqual([
      { type: 'label', pod: 'c-0', role: 'replica' },
      {
        type: 'failover',
        pod: 'c-0',
        to: 'c-2',
        host: ip(2),
        port: 6379,
        timeoutMs: FAILOVER_TIMEOUT_MS,
      },
    ]);
    expect(plan.memory.failoverSent).toBe(T0);
    expect(plan.events.map((e) => e.reason)).toEqual(['SwitchingOver']);
    expect(plan.health).toMatchObject({ switchingOver: true, primaryServing: false });
  });

  it('goes to no replica of another history, one still syncing, not linked, or too far behind; waits saying so', () => {
    const pods = [
      pod(0, primaryNode('p0', 5_000_000), { roleLabel: 'primary' }),
      pod(1, replicaOf(0, 5_000_000, 'p1', 'other'), { roleLabel: 'replica' }),
      pod(
        2,
        { ...(replicaOf(0, 5_000_000, 'p2') as Up), syncInProgress: true },
        { roleLabel: 'replica' },
      ),
      pod(3, replicaOf(0, 100, 'p3'), { roleLabel: 'replica' }),
      pod(4, {
        ...(replicaOf(0, 5_000_000, 'p4') as Up),
        primary: { host: ip(0), port: 6379, linkUp: false },
      }),
    ];
    const plan = planRoles(input({ replicas: 5, status: serving, pods, switchover: rollout }));
    expect(plan.status?.switchover).toBeUndefined();
    expect(plan.actions.filter((a) => a.type === 'failover')).toEqual([]);
    expect(plan.health.switchingOver).toBe(false);
    expect(plan.health.switchover?.message).toMatch(
      /the rolling update reached the primary c-0: .*no replica is linked to it and caught up/,
    );
  });

  it('goes to no replica the ask avoids (a drain: those on cordoned nodes), and says so when none is left', () => {
    const drain = { reason: 'NodeDrain' as const, avoid: ['c-0', 'c-2'] };
    const plan = planRoles(input({ status: serving, pods: settled(), switchover: drain }));
    expect(plan.status?.switchover).toMatchObject({
      phase: 'Demoting',
      from: 'c-0',
      to: 'c-1',
      reason: 'NodeDrain',
    });
    const none = planRoles(
      input({
        status: serving,
        pods: settled(),
        switchover: { reason: 'NodeDrain', avoid: ['c-0', 'c-1', 'c-2'] },
      }),
    );
    expect(none.status).toBeUndefined();
    expect(none.health.switchover?.message).toMatch(
      /the node of the primary c-0 is being drained: .* \(on another node than c-0, c-1, c-2\)/,
    );
  });

  it('asks nothing while a failover is under way, or of a primary whose run id is not recorded', () => {
    const failover = {
      phase: 'Repointing' as const,
      from: 'c-1',
      to: 'c-0',
      reason: 'PrimaryUnreachable',
      startedAt: T0,
      promotedOffset: 1000,
      dataLossRisk: 'Unknown' as const,
      message: 'm',
    };
    const during = planRoles(
      input({
        status: { ...serving, failover, failoverCount: 1 },
        pods: settled(),
        switchover: rollout,
      }),
    );
    expect(during.status?.switchover).toBeUndefined();
    const unrecorded = planRoles(
      input({ status: { primary: 'c-0' }, pods: settled(), switchover: rollout }),
    );
    expect(unrecorded.status?.switchover).toBeUndefined();
  });

  it('waits while the old primary pauses writes for the replica: FAILOVER not sent again, nothing fenced or failed over', () => {
    const pods = settled();
    pods[0] = pod(0, handing('waiting-for-sync'), { roleLabel: 'replica' });
    const plan = planRoles(
      input({ status: underWay, pods, memory: { failoverSent: T0 }, now: at(2_000) }),
    );
    expect(plan.status).toBeUndefined();
    expect(plan.actions).toEqual([]);
    expect(plan.health).toMatchObject({ switchingOver: true });
    expect(plan.requeueAfterMs).toBeLessThanOrEqual(500);
  });

  it('completes once the replica serves as primary holding the old primary’s offset: primary, run id, the write pause; the others follow it', () => {
    const pods = [
      pod(0, replicaOf(2, 1200, 'p0'), { roleLabel: 'replica' }),
      pod(1, replicaOf(0, 1200, 'p1'), { roleLabel: 'replica' }),
      pod(2, primaryNode('p2', 1200), { roleLabel: 'replica' }),
    ];
    const plan = planRoles(
      input({ status: underWay, pods, memory: { failoverSent: T0 }, now: at(1_400) }),
    );
    expect(plan.status).toMatchObject({
      primary: 'c-2',
      primaryRunId: 'p2',
      switchoverCount: 1,
      switchover: {
        phase: 'Completed',
        completedAt: at(1_400),
        writesStoppedAt: T0,
        writesResumedAt: at(1_400),
        promotedOffset: 1200,
      },
    });
    expect(plan.status?.switchover?.message).toMatch(
      /nothing acknowledged is lost; writes paused for 1\.4 s/,
    );
    expect(plan.status?.failoverCount).toBeUndefined();
    // c-1 followed c-0 (chained through it now): repointed; c-2 labelled primary.
    expect(plan.actions).toEqual([
      { type: 'replicaOf', pod: 'c-1', primary: 'c-2', host: ip(2), port: 6379, fence: false },
      { type: 'label', pod: 'c-2', role: 'primary' },
    ]);
    expect(plan.events.map((e) => e.reason)).toEqual(['SwitchoverCompleted']);
    expect(plan.health).toMatchObject({ switchingOver: false, primaryServing: true });
  });

  it('completes when the old primary does not answer but the replica serves with its offset (it handed over to get there)', () => {
    const pods = settled();
    pods[0] = pod(0, { reachable: false, error: 'no reply within 2000 ms' });
    pods[2] = pod(2, primaryNode('p2', 1000), { roleLabel: 'replica' });
    const plan = planRoles(input({ status: underWay, pods, now: at(900) }));
    expect(plan.status).toMatchObject({ primary: 'c-2', switchover: { phase: 'Completed' } });
  });

  it('waits on a snapshot that still shows the old primary serving beside the new one (observed before it handed over): nothing fenced', () => {
    const pods = settled();
    pods[0] = pod(0, handing('waiting-for-sync'), { roleLabel: 'replica' });
    pods[2] = pod(2, primaryNode('p2', 1000), { roleLabel: 'replica' });
    const plan = planRoles(
      input({ status: underWay, pods, memory: { failoverSent: T0 }, now: at(300) }),
    );
    expect(plan.status).toBeUndefined();
    expect(plan.actions.filter((a) => a.type === 'replicaOf')).toEqual([]);
    expect(plan.health.switchingOver).toBe(true);
  });

  it('gives up when the FAILOVER it sent ended without handing over: Failed, the old primary back in the read-write Service', () => {
    const pods = settled();
    pods[0] = pod(0, primaryNode('p0', 1000), { roleLabel: 'replica' });
    const plan = planRoles(
      input({ status: underWay, pods, memory: { failoverSent: T0 }, now: at(10_500) }),
    );
    expect(plan.status).toMatchObject({
      primary: 'c-0',
      switchoverCount: 1,
      switchover: { phase: 'Failed', completedAt: at(10_500), writesResumedAt: at(10_500) },
    });
    expect(plan.status?.switchover?.message).toMatch(/ended without handing over/);
    expect(plan.actions).toEqual([{ type: 'label', pod: 'c-0', role: 'primary' }]);
    expect(plan.events.map((e) => e.reason)).toEqual(['SwitchoverFailed']);
    expect(plan.memory.failoverSent).toBeUndefined();
  });

  it('sends FAILOVER again when this process did not send it (a controller restart), while it can end in time', () => {
    const pods = settled();
    pods[0] = pod(0, primaryNode('p0', 1000), { roleLabel: 'replica' });
    const again = planRoles(input({ status: underWay, pods, now: at(5_000) }));
    expect(again.status).toBeUndefined();
    expect(again.actions).toEqual([
      expect.objectContaining({ type: 'failover', pod: 'c-0', to: 'c-2' }),
    ]);
    const late = planRoles(
      input({ status: underWay, pods, now: at(SWITCHOVER_TIMEOUT_MS - FAILOVER_TIMEOUT_MS) }),
    );
    expect(late.actions).toEqual([]);
    expect(late.status).toBeUndefined();
    const over = planRoles(input({ status: underWay, pods, now: at(SWITCHOVER_TIMEOUT_MS) }));
    expect(over.status?.switchover).toMatchObject({ phase: 'Failed' });
    expect(over.status?.switchover?.message).toMatch(/did not serve as primary within 30s/);
  });

  it.each([
    ['the replica’s pod is gone', (p: PodFacts[]) => p.splice(2, 1), /c-2's pod is gone/],
    [
      'the replica restarted (fenced)',
      (p: PodFacts[]) => (p[2] = pod(2, fenced(0, 'p2b'))),
      /no longer replicates from c-0/,
    ],
    [
      'the old primary restarted (fenced)',
      (p: PodFacts[]) => (p[0] = pod(0, fenced(0, 'p0b'))),
      /c-0's server restarted before it handed over/,
    ],
    [
      'the old primary’s pod is gone',
      (p: PodFacts[]) => p.splice(0, 1),
      /c-0's pod is gone or not running/,
    ],
    [
      'the replica serves as primary without the old primary’s data',
      (p: PodFacts[]) => (p[2] = pod(2, primaryNode('p2', 10))),
      /short of the 1000/,
    ],
  ])('gives up when %s', (_case, change, why) => {
    const pods = settled();
    pods[0] = pod(0, primaryNode('p0', 1000), { roleLabel: 'replica' });
    change(pods);
    const plan = planRoles(input({ status: underWay, pods, now: at(1_000) }));
    expect(plan.status?.switchover).toMatchObject({ phase: 'Failed' });
    expect(plan.status?.switchover?.message).toMatch(why);
    expect(plan.status?.primary).toBe('c-0');
    expect(plan.actions.filter((a) => a.type === 'failover')).toEqual([]);
  });

  it('never gives up while the old primary reports a FAILOVER under way (its own timeout ends it)', () => {
    const pods = settled();
    pods[0] = pod(0, handing('failover-in-progress'), { roleLabel: 'replica' });
    pods[2] = pod(2, { reachable: false, error: 'no reply within 2000 ms' });
    const plan = planRoles(input({ status: underWay, pods, now: at(3_000) }));
    expect(plan.status).toBeUndefined();
    expect(plan.health.switchingOver).toBe(true);
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
