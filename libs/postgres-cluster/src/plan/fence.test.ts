import { describe, expect, it } from 'vitest';
import {
  planInstances,
  type FenceInput,
  type InstanceFacts,
  type InstanceView,
  type PlanInput,
} from './plan.js';

/**
 * The plan with a fence (docs/design/fencing.md): the Lease, not failover.after, says when a lost
 * primary may be replaced; the Lease is taken for the new primary before anything is recorded.
 */
const sysid = '7300000000000000002';
const T0 = '2026-12-07T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

type Reachable = Extract<InstanceView, { reachable: true }>;
const view = (inRecovery: boolean, lsn: bigint): Reachable => ({
  reachable: true,
  systemIdentifier: sysid,
  inRecovery,
  timeline: 1,
  ...(inRecovery ? { receiveLsn: lsn, replayLsn: lsn } : { currentLsn: lsn }),
  streaming: inRecovery,
  ...(inRecovery ? { conninfoHost: '10.0.0.1' } : {}),
  replication: [],
  synchronousStandbyNames: '',
});

const instance = (ordinal: number, facts: Partial<InstanceFacts>): InstanceFacts => ({
  name: `pg-${ordinal}`,
  ordinal,
  ip: `10.0.0.${ordinal + 1}`,
  ready: true,
  deleting: false,
  ...facts,
});
const standby = (ordinal: number, lsn: bigint) =>
  instance(ordinal, {
    instruction: 'standby 10.0.0.1',
    roleLabel: 'standby',
    view: view(true, lsn),
  });
/** The primary's pod, its server not answering (partitioned, hung, or its node gone). */
const silent = instance(0, {
  instruction: 'primary',
  roleLabel: 'primary',
  view: { reachable: false, error: 'timeout' },
});

const fence = (over: Partial<FenceInput> = {}): FenceInput => ({
  boundMs: 10_000,
  holder: 'pg-0',
  resourceVersion: '41',
  quietSince: T0,
  enforced: true,
  ...over,
});

const input = (over: Partial<PlanInput>): PlanInput => ({
  cluster: 'pg',
  replicas: 3,
  // failover.after is the shorter here: the Lease must decide, not it.
  failover: { enabled: true, afterMs: 1_000, maxLagBytes: 1n << 20n },
  replication: 'async',
  status: { primary: 'pg-0', systemIdentifier: sysid },
  instances: [silent, standby(1, 4000n), standby(2, 4800n)],
  memory: {
    bootstrapped: `pg-0/${sysid}`,
    lastSeen: { pod: 'pg-0', lsn: 5000n, at: at(-1), syncStandbys: [], timeline: 1 },
    lostSince: at(-1),
  },
  now: at(0),
  fence: fence(),
  ...over,
});

describe('planInstances with a fence', () => {
  it('waits while the Lease has not stood for the bound, however long the primary has been unreachable', () => {
    const plan = planInstances(
      input({ now: at(9), memory: { ...input({}).memory, lostSince: at(-30) } }),
    );
    expect(plan.status).toBeUndefined();
    expect(plan.lease).toBeUndefined();
    expect(plan.actions).toEqual([]);
    expect(plan.requeueAfterMs).toBe(1000);
    expect(plan.health.progressing?.message).toMatch(
      /its Lease was last renewed 9s ago: it fences itself, and a standby is promoted, in 1s unless it renews/,
    );
    expect(plan.health.failingOver).toBe(true);
  });

  it('once it has, takes the Lease for the most advanced standby from the version it saw, records when the old primary had fenced itself, and promotes', () => {
    const plan = planInstances(input({ now: at(10) }));
    expect(plan.lease).toEqual({ holder: 'pg-2', resourceVersion: '41' });
    expect(plan.status?.primary).toBe('pg-2');
    expect(plan.status?.failover).toMatchObject({
      phase: 'Promoting',
      from: 'pg-0',
      to: 'pg-2',
      primaryFencedBy: at(10),
      primaryLastSeenAt: at(-1),
      bytesPossiblyLost: 200,
      dataLossRisk: 'Bounded',
    });
    // The honest bound: the bytes seen, plus what it acknowledged unseen until it had fenced itself.
    expect(plan.status?.failover?.message).toContain(
      `plus what pg-0 acknowledged between ${at(-1)} and ${at(10)}, when it had fenced itself (nothing after)`,
    );
    expect(plan.actions).toContainEqual({ type: 'promote', pod: 'pg-2' });
  });

  it('a renewal starts the wait again: a primary that renews is never replaced', () => {
    const renewed = planInstances(
      input({ now: at(15), fence: fence({ resourceVersion: '42', quietSince: at(12) }) }),
    );
    expect(renewed.status).toBeUndefined();
    expect(renewed.lease).toBeUndefined();
    expect(renewed.health.progressing?.message).toMatch(/in 7s unless it renews/);
  });

  it('without a fence (a pod from before fencing) failover.after decides, and no fence time is claimed', () => {
    const plan = planInstances(input({ now: at(1), fence: fence({ enforced: false }) }));
    expect(plan.status?.failover?.primaryFencedBy).toBeUndefined();
    expect(plan.status?.failover?.message).not.toContain('fenced itself');
    // The Lease still follows the primary role, so the new pods can renew it.
    expect(plan.lease).toEqual({ holder: 'pg-2', resourceVersion: '41' });
    const none = planInstances(input({ now: at(1), fence: undefined }));
    expect(none.status?.primary).toBe('pg-2');
    expect(none.lease).toBeUndefined();
  });

  it('a new cluster creates the Lease for its first instance before telling it initdb', () => {
    const plan = planInstances(
      input({
        status: {},
        memory: {},
        instances: [instance(0, {}), instance(1, {}), instance(2, {})],
        fence: fence({ holder: undefined, resourceVersion: '' }),
      }),
    );
    expect(plan.lease).toEqual({ holder: 'pg-0', resourceVersion: '' });
    expect(plan.actions).toEqual([{ type: 'instruct', pod: 'pg-0', instruction: 'initdb' }]);
  });

  it('a serving primary the Lease does not name takes it (a Lease deleted, or from before fencing)', () => {
    const plan = planInstances(
      input({
        instances: [
          instance(0, { instruction: 'primary', roleLabel: 'primary', view: view(false, 5000n) }),
          standby(1, 5000n),
          standby(2, 5000n),
        ],
        fence: fence({ holder: undefined, resourceVersion: '' }),
      }),
    );
    expect(plan.lease).toEqual({ holder: 'pg-0', resourceVersion: '' });
    const held = planInstances(
      input({
        instances: [
          instance(0, { instruction: 'primary', roleLabel: 'primary', view: view(false, 5000n) }),
          standby(1, 5000n),
          standby(2, 5000n),
        ],
      }),
    );
    expect(held.lease).toBeUndefined();
    // Looked at again when the Lease, renewed 2 s ago, would run out (10 s bound): 8 s on.
    const renewed = planInstances(
      input({
        now: at(2),
        instances: [
          instance(0, { instruction: 'primary', roleLabel: 'primary', view: view(false, 5000n) }),
          standby(1, 5000n),
          standby(2, 5000n),
        ],
      }),
    );
    expect(renewed.requeueAfterMs).toBe(8_100);
  });

  it('a switchover takes the Lease at once when the old primary has stopped cleanly', () => {
    const plan = planInstances(
      input({
        now: at(1),
        memory: { bootstrapped: `pg-0/${sysid}` },
        status: {
          primary: 'pg-0',
          systemIdentifier: sysid,
          switchoverCount: 1,
          switchover: {
            phase: 'Demoting',
            from: 'pg-0',
            to: 'pg-2',
            reason: 'Requested',
            startedAt: T0,
            writesStoppedAt: T0,
            primaryLastLsn: '0/12C0',
            message: 'm',
          },
        },
        instances: [
          instance(0, {
            instruction: 'wait',
            view: { reachable: false, error: 'connect ECONNREFUSED 10.0.0.1:5432' },
          }),
          standby(1, 4800n),
          standby(2, 4800n),
        ],
        // Renewed a moment ago, before it stopped: no wait for a clean stop.
        fence: fence({ quietSince: at(0.5) }),
      }),
    );
    expect(plan.lease).toEqual({ holder: 'pg-2', resourceVersion: '41' });
    expect(plan.status?.switchover?.phase).toBe('Promoting');
    expect(plan.actions).toContainEqual({ type: 'promote', pod: 'pg-2' });
  });

  it('records what the old primary kept before its rewind (salvage): Pending at the failover, Saved once it is back as a standby', () => {
    const decided = planInstances(input({ now: at(10) }));
    expect(decided.status?.failover?.salvage).toEqual({
      phase: 'Pending',
      message: "kept when pg-0 returns, before it is rewound onto pg-2's timeline",
    });
    const failover = { ...decided.status!.failover!, phase: 'Completed' as const, newTimeline: 2 };
    const kept = {
      phase: 'Saved' as const,
      from: '0/3000060',
      to: '0/3001000',
      bytes: 4000,
      location: 's3://backups/pg/7300000000000000002/salvage/20261207T100030Z-tl1/',
      savedAt: at(30),
      message:
        'WAL 0/3000060 to 0/3001000 of timeline 1, which the new primary lacks, kept before the rewind',
    };
    const back = planInstances(
      input({
        now: at(40),
        status: { primary: 'pg-2', systemIdentifier: sysid, failover, failoverCount: 1 },
        memory: { bootstrapped: `pg-2/${sysid}` },
        instances: [
          instance(0, {
            instruction: 'standby 10.0.0.3',
            roleLabel: 'standby',
            view: { ...view(true, 6000n), timeline: 2, conninfoHost: '10.0.0.3', salvage: kept },
          }),
          standby(1, 6000n),
          instance(2, {
            instruction: 'primary',
            roleLabel: 'primary',
            view: { ...view(false, 6000n), timeline: 2 },
          }),
        ],
        fence: fence({ holder: 'pg-2' }),
      }),
    );
    expect(back.status?.failover?.salvage).toEqual({ ...kept, message: `pg-0: ${kept.message}` });
    expect(back.events).toContainEqual(expect.objectContaining({ reason: 'Salvaged' }));
    // Recorded once: a later reconcile with it recorded changes nothing.
    const again = planInstances(
      input({
        now: at(50),
        status: { ...back.status!, failover: back.status!.failover! },
        memory: back.memory,
        instances: [
          instance(0, {
            instruction: 'standby 10.0.0.3',
            roleLabel: 'standby',
            view: { ...view(true, 6000n), timeline: 2, conninfoHost: '10.0.0.3', salvage: kept },
          }),
          standby(1, 6000n),
          instance(2, {
            instruction: 'primary',
            roleLabel: 'primary',
            view: { ...view(false, 6000n), timeline: 2 },
          }),
        ],
        fence: fence({ holder: 'pg-2' }),
      }),
    );
    expect(again.status?.failover?.salvage).toBeUndefined();
  });

  it('a returning primary is told to run only while the Lease still names it', () => {
    const returning = instance(0, { instruction: undefined, roleLabel: undefined });
    const solo = (f: FenceInput) =>
      planInstances(
        input({
          replicas: 1,
          instances: [returning],
          fence: f,
        }),
      );
    expect(solo(fence()).actions).toEqual([
      { type: 'instruct', pod: 'pg-0', instruction: 'primary' },
    ]);
    const other = solo(fence({ holder: 'pg-1', quietSince: at(-1) }));
    expect(other.actions).toEqual([]);
    expect(other.health.progressing).toMatchObject({ reason: 'WaitingForFence' });
    expect(other.health.progressing?.message).toMatch(/the Lease names pg-1, renewed 1s ago/);
    // Once pg-1's version has stood for the bound, the Lease is taken back and it is told to run.
    const later = solo(fence({ holder: 'pg-1', quietSince: at(-10) }));
    expect(later.lease).toEqual({ holder: 'pg-0', resourceVersion: '41' });
    expect(later.actions).toEqual([{ type: 'instruct', pod: 'pg-0', instruction: 'primary' }]);
  });
});
