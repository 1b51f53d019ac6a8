/**
 * Bounds that survive restarts and synchronous quorums (issue 27, deliverable 5): the plan's
 * `status.primaryLastSeen` record (written when it changes materially, read by a controller that
 * restarted), `ANY n` with durability required/preferred, and the quorum rule that says `None`.
 */
import { type PrimaryLastSeen } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import {
  planInstances,
  primaryRecord,
  synchronousSetting,
  synchronousStandbyNames,
  type InstanceFacts,
  type InstanceView,
  type PlanInput,
} from './plan.js';

const sysid = '7300000000000000001';
const T0 = '2026-12-02T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

type Row = { applicationName: string; state: string; syncState: string };
const primaryView = (lsn: bigint, extra: Partial<InstanceView & { reachable: true }> = {}) =>
  ({
    reachable: true,
    systemIdentifier: sysid,
    inRecovery: false,
    timeline: 1,
    currentLsn: lsn,
    streaming: false,
    replication: [] as Row[],
    synchronousStandbyNames: '',
    ...extra,
  }) as InstanceView;
const standbyView = (lsn: bigint) =>
  ({
    reachable: true,
    systemIdentifier: sysid,
    inRecovery: true,
    timeline: 1,
    receiveLsn: lsn,
    replayLsn: lsn,
    streaming: true,
    conninfoHost: '10.0.0.1',
    replication: [],
    synchronousStandbyNames: '',
  }) as InstanceView;
const pod = (ordinal: number, facts: Partial<InstanceFacts> = {}): InstanceFacts => ({
  name: `pg-${ordinal}`,
  ordinal,
  ip: `10.0.0.${ordinal + 1}`,
  ready: true,
  deleting: false,
  ...facts,
});
const primary = (view?: InstanceView) =>
  pod(0, { instruction: 'primary', roleLabel: 'primary', ...(view ? { view } : {}) });
const standby = (ordinal: number, lsn?: bigint) =>
  pod(ordinal, {
    instruction: 'standby 10.0.0.1',
    roleLabel: 'standby',
    ...(lsn !== undefined ? { view: standbyView(lsn) } : {}),
  });
const streaming = (names: string[], syncState = 'async'): Row[] =>
  names.map((applicationName) => ({ applicationName, state: 'streaming', syncState }));

const base = (over: Partial<PlanInput> = {}): PlanInput => ({
  cluster: 'pg',
  replicas: 3,
  failover: { enabled: true, afterMs: 10_000, maxLagBytes: 8000n },
  replication: 'async',
  status: { primary: 'pg-0', systemIdentifier: sysid },
  instances: [primary(primaryView(5000n)), standby(1, 5000n), standby(2, 5000n)],
  memory: { bootstrapped: `pg-0/${sysid}` },
  now: T0,
  ...over,
});

/** The primary gone (its pod not running), the standbys at these positions, past failover.after. */
function lostWith(over: Partial<PlanInput>, standbys: (bigint | undefined)[]) {
  const input = (now: string, memory: PlanInput['memory']) =>
    base({
      ...over,
      now,
      memory,
      instances: [primary(), ...standbys.map((lsn, i) => standby(i + 1, lsn))],
    });
  const first = planInstances(input(at(100), over.memory ?? {}));
  return planInstances(input(at(111), first.memory));
}

const record = (over: Partial<PrimaryLastSeen> = {}): PrimaryLastSeen => ({
  pod: 'pg-0',
  lsn: '0/2710', // 10000
  at: at(50),
  timeline: 1,
  slackBytes: 1000,
  ...over,
});

describe('status.primaryLastSeen: written when it changes materially', () => {
  it('records the primary at first sight, with a slack of maxLagBytes / 8', () => {
    const plan = planInstances(base());
    expect(plan.health.primaryLastSeen).toEqual({
      pod: 'pg-0',
      lsn: '0/1388',
      at: T0,
      timeline: 1,
      slackBytes: 1000,
    });
  });

  it('keeps the record while the primary moves no more than the slack past it, and rewrites it beyond', () => {
    const recorded = planInstances(base()).health.primaryLastSeen!;
    const moved = (lsn: bigint) =>
      planInstances(
        base({
          now: at(5),
          lastSeenRecord: recorded,
          instances: [primary(primaryView(lsn)), standby(1, lsn), standby(2, lsn)],
        }),
      ).health.primaryLastSeen;
    // 5000 + 1000 (the slack): the same record, no write.
    expect(moved(6000n)).toBe(recorded);
    expect(moved(6001n)).toEqual({ ...recorded, lsn: '0/1771', at: at(5) });
  });

  it('rewrites it a minute after the record while the primary moves at all, not while it stands still', () => {
    const recorded = planInstances(base()).health.primaryLastSeen!;
    const later = (lsn: bigint, seconds: number) =>
      planInstances(
        base({
          now: at(seconds),
          lastSeenRecord: recorded,
          instances: [primary(primaryView(lsn)), standby(1, lsn), standby(2, lsn)],
        }),
      ).health.primaryLastSeen;
    expect(later(5010n, 59)).toBe(recorded);
    expect(later(5010n, 60)).toMatchObject({ lsn: '0/1392', at: at(60) });
    expect(later(5000n, 600)).toBe(recorded);
  });

  it('rewrites it at once when the primary, its timeline or its synchronous span changes', () => {
    const recorded = planInstances(base()).health.primaryLastSeen!;
    const next = (view: InstanceView, over: Partial<PlanInput> = {}) =>
      planInstances(
        base({
          now: at(5),
          lastSeenRecord: recorded,
          instances: [primary(view), standby(1, 5000n), standby(2, 5000n)],
          ...over,
        }),
      ).health.primaryLastSeen;
    expect(next(primaryView(5001n, { timeline: 2 }))).toMatchObject({ timeline: 2, at: at(5) });
    const synced = next(
      primaryView(5001n, {
        synchronousStandbyNames: 'ANY 1 ("pg-1", "pg-2")',
        replication: streaming(['pg-1', 'pg-2'], 'quorum'),
      }),
      { replication: 'sync' },
    );
    expect(synced).toMatchObject({
      syncStandbys: ['pg-1', 'pg-2'],
      syncNumber: 1,
      syncFromLsn: '0/1389',
    });
  });

  it('does not overwrite a later record another controller wrote with an older sight', () => {
    const later = record({ at: at(60) });
    const memory = { lastSeen: { pod: 'pg-0', lsn: 1n, at: at(10), syncStandbys: [] } };
    expect(primaryRecord(base({ lastSeenRecord: later }), memory)).toBe(later);
  });
});

describe('a restarted controller starts from status.primaryLastSeen', () => {
  it('refuses a failover over maxLagBytes of the recorded position (FailoverRefusedLagExceedsBound)', () => {
    // Recorded at 10000; the best standby has 1000: 9000 > 8000.
    const plan = lostWith({ lastSeenRecord: record() }, [1000n, 500n]);
    expect(plan.status).toBeUndefined();
    expect(plan.health.degraded?.reason).toBe('FailoverRefusedLagExceedsBound');
    expect(plan.health.degraded?.message).toContain('as status.primaryLastSeen recorded it');
    expect(plan.events.map((e) => e.reason)).toEqual(['FailoverRefusedLagExceedsBound']);
  });

  it('refuses when the lag is within maxLagBytes but not with the slack the record may be behind by', () => {
    // 10000 − 2500 = 7500 ≤ 8000, but 7500 + 1000 > 8000: the earlier controller may have seen
    // the primary at up to 11000.
    const plan = lostWith({ lastSeenRecord: record() }, [2500n, 500n]);
    expect(plan.status).toBeUndefined();
    expect(plan.health.degraded?.message).toMatch(/could lose 7500 \(\+ up to 1000 seen after/);
  });

  it('promotes within the bound, Bounded by the record (its position and time)', () => {
    const plan = lostWith({ lastSeenRecord: record() }, [3000n, 500n]);
    expect(plan.status?.failover).toMatchObject({
      to: 'pg-1',
      dataLossRisk: 'Bounded',
      primaryLastLsn: '0/2710',
      primaryLastSeenAt: at(50),
      bytesPossiblyLost: 7000,
    });
  });

  it('without a record it cannot bound the loss: Unknown (as before)', () => {
    const plan = lostWith({}, [1000n, 500n]);
    expect(plan.status?.failover).toMatchObject({ to: 'pg-1', dataLossRisk: 'Unknown' });
  });

  it('ignores a record of another pod, or one older than the pod’s own promotion', () => {
    const other = lostWith({ lastSeenRecord: record({ pod: 'pg-2' }) }, [1000n, 500n]);
    expect(other.status?.failover?.dataLossRisk).toBe('Unknown');
    const promotedLater = lostWith(
      {
        lastSeenRecord: record({ at: at(50) }),
        status: {
          primary: 'pg-0',
          systemIdentifier: sysid,
          failoverCount: 1,
          failover: {
            phase: 'Completed',
            from: 'pg-1',
            to: 'pg-0',
            reason: 'PrimaryUnreachable',
            startedAt: at(60),
            completedAt: at(61),
            promotedLsn: '0/100',
            dataLossRisk: 'Bounded',
            message: 'failover from pg-1',
          },
        },
      },
      [1000n, 500n],
    );
    expect(promotedLater.status?.failover).toMatchObject({ to: 'pg-1', dataLossRisk: 'Unknown' });
  });

  it('prefers its own sight once it has one (no slack)', () => {
    const seen = planInstances(
      base({ now: at(90), lastSeenRecord: record({ lsn: '0/FFFF' }) }),
    ).memory;
    // Seen at 5000 itself: 5000 − 1000 = 4000, within 8000 without any slack.
    const plan = lostWith({ lastSeenRecord: record({ at: at(50) }), memory: seen }, [1000n, 500n]);
    expect(plan.status?.failover).toMatchObject({
      primaryLastLsn: '0/1388',
      bytesPossiblyLost: 4000,
    });
  });
});

describe('synchronous quorum: ANY n, required or preferred', () => {
  const four = (over: Partial<PlanInput> = {}) =>
    base({
      replicas: 4,
      replication: 'sync',
      synchronous: { number: 2, durability: 'required' },
      ...over,
    });

  it('names ANY n of the other instances', () => {
    expect(synchronousStandbyNames('sync', ['a', 'b', 'c'], 2)).toBe('ANY 2 ("a", "b", "c")');
    expect(synchronousStandbyNames('sync', ['a'], 3)).toBe('ANY 1 ("a")');
    expect(synchronousStandbyNames('sync', ['a'], 0)).toBe('');
    const plan = planInstances(
      four({
        instances: [primary(primaryView(5000n)), standby(1, 5000n), standby(2, 5000n), standby(3)],
      }),
    );
    expect(plan.actions).toContainEqual({
      type: 'synchronousStandbyNames',
      pod: 'pg-0',
      value: 'ANY 2 ("pg-1", "pg-2", "pg-3")',
    });
  });

  it('reads a setting in every form PostgreSQL takes', () => {
    expect(synchronousSetting('')).toEqual({ number: 0, names: [] });
    expect(synchronousSetting('ANY 2 ("a", "b", c)')).toEqual({
      number: 2,
      names: ['a', 'b', 'c'],
    });
    expect(synchronousSetting('FIRST 1 (a, b)')).toEqual({ number: 1, names: ['a', 'b'] });
    expect(synchronousSetting('2 (a, b)')).toEqual({ number: 2, names: ['a', 'b'] });
    expect(synchronousSetting('a, b')).toEqual({ number: 1, names: ['a', 'b'] });
  });

  it('required: keeps ANY n while fewer stream, and says commits wait', () => {
    const plan = planInstances(
      four({
        instances: [
          primary(
            primaryView(5000n, {
              synchronousStandbyNames: 'ANY 2 ("pg-1", "pg-2", "pg-3")',
              replication: streaming(['pg-1'], 'quorum'),
            }),
          ),
          standby(1, 5000n),
          standby(2),
          standby(3),
        ],
      }),
    );
    expect(plan.actions.filter((a) => a.type === 'synchronousStandbyNames')).toEqual([]);
    expect(plan.health.synchronous).toMatchObject({
      number: 2,
      durability: 'required',
      connected: 1,
      effective: 2,
    });
    expect(plan.health.synchronous?.message).toMatch(/^commits wait: 1 of the 2 standbys/);
  });

  it('preferred: lowers n to the standbys streaming (none: async), says so, and raises it back', () => {
    const preferred = (names: string, rows: string[]) =>
      planInstances(
        four({
          synchronous: { number: 2, durability: 'preferred' },
          instances: [
            primary(
              primaryView(5000n, { synchronousStandbyNames: names, replication: streaming(rows) }),
            ),
            standby(1, 5000n),
            standby(2, 5000n),
            standby(3, 5000n),
          ],
        }),
      );
    const all = 'ANY 2 ("pg-1", "pg-2", "pg-3")';
    const one = preferred(all, ['pg-1']);
    expect(one.actions).toContainEqual({
      type: 'synchronousStandbyNames',
      pod: 'pg-0',
      value: 'ANY 1 ("pg-1", "pg-2", "pg-3")',
    });
    expect(one.events).toEqual([
      expect.objectContaining({ type: 'Warning', reason: 'SynchronousStandbysLowered' }),
    ]);
    expect(one.health.synchronous).toMatchObject({ effective: 1, connected: 1 });
    const none = preferred('ANY 1 ("pg-1", "pg-2", "pg-3")', []);
    expect(none.actions).toContainEqual({
      type: 'synchronousStandbyNames',
      pod: 'pg-0',
      value: '',
    });
    expect(none.health.synchronous?.message).toMatch(/acknowledged by the primary alone/);
    const back = preferred('', ['pg-1', 'pg-2', 'pg-3']);
    expect(back.actions).toContainEqual({
      type: 'synchronousStandbyNames',
      pod: 'pg-0',
      value: all,
    });
    expect(back.events).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'SynchronousStandbysRestored' }),
    ]);
  });

  /** The primary seen twice in sync (ANY 2 of pg-1..3) from 2000, then lost. */
  const quorumLost = (standbys: (bigint | undefined)[], over: Partial<PlanInput> = {}) => {
    const view = (lsn: bigint) =>
      primaryView(lsn, {
        synchronousStandbyNames: 'ANY 2 ("pg-1", "pg-2", "pg-3")',
        replication: streaming(['pg-1', 'pg-2', 'pg-3'], 'quorum'),
      });
    const all = (lsn: bigint) => [
      primary(view(lsn)),
      standby(1, lsn),
      standby(2, lsn),
      standby(3, lsn),
    ];
    const first = planInstances(four({ instances: all(2000n), ...over }));
    const second = planInstances(
      four({ now: at(5), memory: first.memory, instances: all(9000n), ...over }),
    );
    return lostWith({ ...four(over), memory: second.memory }, standbys);
  };

  it('None when the promoted standby is the most advanced of N − n + 1 that answer', () => {
    // ANY 2 of 3: every commit is on 2 of them, so on one of any 2. pg-3 is gone.
    const plan = quorumLost([3000n, 2500n, undefined]);
    expect(plan.status?.failover).toMatchObject({ to: 'pg-1', dataLossRisk: 'None' });
    expect(plan.status?.failover?.message).toContain('2 of pg-1, pg-2, pg-3');
  });

  it('not None when fewer than N − n + 1 answer: the one that does may lack a commit', () => {
    const plan = quorumLost([8500n, undefined, undefined]);
    expect(plan.status?.failover).toMatchObject({ to: 'pg-1', dataLossRisk: 'Bounded' });
  });

  it('a standby leaving the setting starts the synchronous span again; lowering n keeps it at the smaller n', () => {
    const view = (names: string) =>
      primaryView(6000n, {
        synchronousStandbyNames: names,
        replication: streaming(['pg-1', 'pg-2']),
      });
    const earlier = {
      lastSeen: {
        pod: 'pg-0',
        lsn: 3000n,
        at: at(-5),
        syncStandbys: ['pg-1', 'pg-2', 'pg-3'],
        syncFromLsn: 2000n,
        syncNumber: 2,
      },
    };
    const seen = (names: string, over: Partial<PlanInput>) =>
      planInstances(
        four({
          memory: earlier,
          instances: [
            primary(view(names)),
            standby(1, 6000n),
            standby(2, 6000n),
            standby(3, 6000n),
          ],
          ...over,
        }),
      ).memory.lastSeen;
    // Lowered to ANY 1 over the same three (durability preferred): the span goes on, n 1.
    expect(
      seen('ANY 2 ("pg-1", "pg-2", "pg-3")', {
        synchronous: { number: 1, durability: 'required' },
      }),
    ).toMatchObject({ syncFromLsn: 2000n, syncNumber: 1, syncStandbys: ['pg-1', 'pg-2', 'pg-3'] });
    // Scaled down to 3 instances: pg-3 left the setting, the span starts again here.
    expect(
      seen('ANY 2 ("pg-1", "pg-2")', {
        replicas: 3,
        synchronous: { number: 2, durability: 'required' },
      }),
    ).toMatchObject({ syncFromLsn: 6000n, syncNumber: 2, syncStandbys: ['pg-1', 'pg-2'] });
    // Switched to async: no span.
    expect(seen('ANY 2 ("pg-1", "pg-2", "pg-3")', { replication: 'async' })?.syncFromLsn).toBe(
      undefined,
    );
  });

  it('a record written under durability preferred is no ground for None after a restart', () => {
    const synced = record({
      lsn: '0/1F40', // 8000
      syncFromLsn: '0/7D0',
      syncNumber: 1,
      syncStandbys: ['pg-1', 'pg-2'],
    });
    const sync = { replication: 'sync' as const, lastSeenRecord: synced };
    expect(
      lostWith({ ...sync, synchronous: { number: 1, durability: 'required' } }, [3000n, 3000n])
        .status?.failover?.dataLossRisk,
    ).toBe('None');
    expect(
      lostWith({ ...sync, synchronous: { number: 1, durability: 'preferred' } }, [3000n, 3000n])
        .status?.failover,
    ).toMatchObject({ dataLossRisk: 'Bounded', bytesPossiblyLost: 5000 });
  });
});
