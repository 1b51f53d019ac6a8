/**
 * planRoles (Replicated) proven by a model: random sequences of reconciles, controller crashes
 * (memory lost, between persisting a decision and acting, or halfway through the actions),
 * servers dying and restarting (booting fenced, empty without persistence), pods replaced,
 * partitions, writes acknowledged on the primary with replicas lagging, time passing and status
 * write conflicts — run against a small simulated world, with these invariants checked after
 * every command:
 *
 * 1. One writer. At no moment do two servers serve as primary (accepting writes) — except one
 *    that was partitioned from the controller when another was promoted, without a fence. With
 *    spec.fencing (`Config.fence`: a primary acknowledges only while enough replicas were linked
 *    to it within the bound) no excuse: never two primaries acknowledging at one moment.
 *    What the plan promises, and is checked: a complete reconcile leaves every reachable server
 *    other than `status.primary` a replica of it or told to become one (fenced), and no observed
 *    pod other than the primary labelled primary.
 * 2. Durable before acting. A server is promoted only when the status on the API server already
 *    names it `primary` (a first election, or a failover promoting it), and never one holding less
 *    than the `promotedOffset` a failover chose it with (it restarted since: plan.ts's rule).
 * 3. The loss bound (the cache's equivalent of maxLagBytes: there is no refusal, the bound is
 *    recorded). A failover records `bytesPossiblyLost` = primaryLastOffset − promotedOffset
 *    (`Bounded`) or `Unknown`; when the target is promoted, the writes the old primary
 *    acknowledged by `primaryLastSeenAt` that the target lacks are at most that many bytes.
 *    `promotedOffset` is an offset the target really had.
 * 4. Counted once. `failoverCount` equals the number of distinct failover records ever written.
 * 5. Never re-chosen. `status.primary` changes only by a first election or a new failover record
 *    naming the old and the new primary; while a failover is in progress, a later write keeps
 *    its target, or replaces it by a failover *from* that target.
 * 6. (plan.ts) A restarted primary never returns as a second primary and never hands its dataset
 *    to the replicas: a server that booted since it was last primary serves as primary again
 *    only if a new decision chose it.
 * 7. (plan.ts) A failover is `Completed` only once its target serves as primary.
 * 8. A switchover loses nothing acknowledged. When a switchover is recorded `Completed`, every
 *    write the old primary acknowledged while it was primary is in what the new primary holds
 *    (same writer epoch at its offset), and the new primary serves. `switchoverCount` counts the
 *    switchovers decided (each Demoting record once), and `primary` moves by a switchover only
 *    from its `from` to its `to`, on its completion.
 *
 * The world: N Redis servers (role, run id, replication offset and the history of replication
 * ids it holds, the primary it replicates), each in a pod (labels lost when replaced) whose
 * server boots fenced (a replica of 127.0.0.1:1). A primary given `FAILOVER TO t TIMEOUT` does
 * what Redis does, a step at a time (a command of its own, and each time time passes): it pauses
 * writes (none acknowledged meanwhile); once `t` is linked to it and holds all of its stream it
 * demotes itself to `t`'s replica (`failover-in-progress`), then `t` takes over as primary (PSYNC
 * FAILOVER) — or, `t` being down or cut off then, it returns to primary; past the timeout without
 * `t` caught up it aborts and resumes writes. A rolling update asks for a switchover (with the
 * retry guard of `rolloutWantsSwitchover`: not within a minute of one it asked for that failed)
 * until one completes. The reconcile is controller.ts's: observe →
 * plan → keep `plan.memory` → write `plan.status` under the precondition (on a 409 re-read;
 * refuse if `primary` or `failoverCount` changed) → carry out the actions in order, each failure
 * skipped.
 */
import {
  assertModelRuns,
  commonPrefix,
  epochAt,
  isPrefix,
  modelCommand,
  recordId,
  failoverModelCommands,
  FailoverModelWorld,
  received,
  startEpoch,
  type ModelServer,
  type ReconcileDraw,
  type ReplicatedStream,
} from '@steward/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  planRoles,
  type NodeView,
  type PodFacts,
  type PrimaryMemory,
  type RoleAction,
  type RoleStatus,
} from './plan.js';

const PORT = 6379;
const T0 = Date.parse('2026-12-02T10:00:00.000Z');
const AFTER_MS = 10_000;

// ---- A dataset: the replication ids it went through (its epochs) and its offset (its end),
// compared by content (@steward/testing's ReplicatedStream).

type Data = ReplicatedStream<number>;

// ---- The world.

interface Server extends ModelServer {
  role: 'primary' | 'replica';
  runId: string;
  data: Data;
  primaryHost: string;
  /** Writes acknowledged while this server served as primary. */
  acked: { at: number; offset: number }[];
  /** Booted since it last served as primary (plan.ts: it must not return as one by itself). */
  rebootedSinceChosen: boolean;
  /** Writes acknowledged since it last became primary: the epoch and offset of each (invariant 8). */
  writes: { epoch: number; offset: number }[];
  /** A FAILOVER under way on it (Redis' `master_failover_state`), to `to`, aborted after `deadline`. */
  handover?: { to: string; deadline: number; state: 'waiting-for-sync' | 'failover-in-progress' };
}

interface Config {
  replicas: number;
  persistence: boolean;
  /**
   * spec.fencing: a primary acknowledges writes only while `minReplicas` replicas were linked to
   * it within `boundSeconds` (min-replicas-to-write with its bound); invariant 1 then holds with
   * no excuse for a partitioned primary.
   */
  fence?: { minReplicas: number; boundSeconds: number };
}

class World extends FailoverModelWorld<Server, RoleStatus, PrimaryMemory> {
  nextId = 1;
  nextRun = 1;
  /** A rolling update reached the primary: a switchover is asked for until one completes. */
  rolloutPending = false;
  /** Distinct switchover records decided so far (invariant 8). */
  switchoverRecords = 0;
  /** `replica>primary` → the last model time the replica was linked to that primary (the fence). */
  linkedAt = new Map<string, number>();

  constructor(readonly config: Config) {
    super(
      T0,
      Array.from({ length: config.replicas }, (_, i) => ({
        name: `c-${i}`,
        ordinal: i,
        ip: `10.88.0.${10 + i}`,
        container: true,
        partitioned: false,
        role: 'replica' as const,
        runId: '',
        data: { epoch: 0, end: 0, history: [] },
        primaryHost: '127.0.0.1',
        acked: [],
        rebootedSinceChosen: false,
        splitBrainExcused: false,
        writes: [],
      })),
    );
    for (const s of this.servers) this.boot(s, false);
  }

  protected describeServer(s: Server): string {
    return `${s.name}[${s.container ? s.role : 'down'}${s.handover ? `,${s.handover.state}>${s.handover.to}` : ''}${s.partitioned ? ',partitioned' : ''} of=${s.role === 'replica' ? s.primaryHost : '-'} l=${s.roleLabel ?? '-'} id${s.data.epoch}@${s.data.end}]`;
  }

  protected serves(s: Server): boolean {
    return s.container && s.role === 'primary';
  }

  /** A server starts: fenced (a replica of nowhere), empty without persistence, a new run id. */
  boot(s: Server, keep: boolean) {
    s.container = true;
    s.role = 'replica';
    s.primaryHost = '127.0.0.1';
    s.runId = `run-${this.nextRun++}`;
    if (!keep) s.data = { epoch: this.nextId++, end: 0, history: [] };
    s.acked = [];
    s.rebootedSinceChosen = true;
    s.splitBrainExcused = false;
    s.handover = undefined;
  }

  kill(s: Server) {
    s.container = false;
    s.splitBrainExcused = false;
    s.handover = undefined;
  }

  upstream(s: Server): Server | undefined {
    // Handing over, it asks its target for PSYNC FAILOVER, not for data.
    if (s.role !== 'replica' || !s.container || s.partitioned || s.handover) return undefined;
    const u = this.byIp(s.primaryHost);
    if (!u || u === s || !u.container || u.partitioned) return undefined;
    return u;
  }

  /** Replicas linked to a server sync from it: partial when their stream is a prefix, else full. */
  sync(s: Server, upTo?: number) {
    const u = this.upstream(s);
    if (!u) return;
    s.data = received(s.data, u.data, upTo); // not a prefix: a full resync replaces the dataset
  }

  /** Every replica linked now is remembered linked now (called whenever model time moves). */
  touchLinks() {
    for (const r of this.servers) {
      const u = this.upstream(r);
      if (u) this.linkedAt.set(`${r.name}>${u.name}`, this.now);
    }
  }

  /** Whether a primary's fence lets it acknowledge a write now (always, without a fence). */
  accepting(p: Server): boolean {
    const fence = this.config.fence;
    if (!fence) return true;
    const since = this.now - fence.boundSeconds * 1000;
    const good = this.servers.filter(
      (r) => r !== p && (this.linkedAt.get(`${r.name}>${p.name}`) ?? -Infinity) >= since,
    );
    return good.length >= fence.minReplicas;
  }

  write(bytes: number, lags: number[]) {
    this.now += 1;
    this.touchLinks();
    const acking = this.servers.filter(
      (p) => p.container && p.role === 'primary' && !p.handover && this.accepting(p),
    );
    // 1, with a fence: never two primaries acknowledging, partitioned or not.
    if (this.config.fence && acking.length > 1)
      this.fail(
        `invariant 1 (fenced): two primaries acknowledge writes: ${acking.map((p) => p.name).join(', ')}`,
      );
    for (const p of this.servers) {
      // A primary handing over pauses writes: nothing is acknowledged until it is done; a fenced
      // one refuses them (NOREPLICAS).
      if (!p.container || p.role !== 'primary' || p.handover || !this.accepting(p)) continue;
      p.data.end += bytes;
      p.acked.push({ at: this.now, offset: p.data.end });
      p.writes.push({ epoch: p.data.epoch, offset: p.data.end });
      for (const s of this.servers)
        if (this.upstream(s) === p) this.sync(s, p.data.end - (lags[s.ordinal % lags.length] ?? 0));
    }
  }

  catchUp() {
    for (const s of this.servers) this.sync(s);
  }

  passTime(seconds: number, catchUp: boolean) {
    this.touchLinks();
    this.now += seconds * 1000;
    this.touchLinks();
    if (catchUp) this.catchUp();
    this.handOver();
  }

  /** Every server with a FAILOVER under way moves it on one step, as Redis does (see the file's doc). */
  handOver(): string {
    const steps: string[] = [];
    for (const s of this.servers) {
      const h = s.handover;
      if (!h || !s.container) continue;
      const t = this.byName(h.to)!;
      if (h.state === 'waiting-for-sync') {
        const caughtUp = this.upstream(t) === s && isPrefix(s.data, t.data);
        if (caughtUp) {
          // Demotes itself first: never two primaries.
          s.role = 'replica';
          s.primaryHost = t.ip;
          h.state = 'failover-in-progress';
          steps.push(`${s.name} demoted itself for ${t.name}`);
        } else if (this.now >= h.deadline) {
          s.handover = undefined;
          steps.push(`${s.name}'s FAILOVER timed out: writes resume`);
        }
        continue;
      }
      // failover-in-progress: PSYNC FAILOVER to t.
      s.handover = undefined;
      // The target takes over only on the old primary's replication id (PSYNC FAILOVER's check).
      const sameHistory = t.data.epoch === s.data.epoch && isPrefix(s.data, t.data);
      if (!t.container || t.partitioned || s.partitioned || t.role !== 'replica' || !sameHistory) {
        s.role = 'primary';
        s.primaryHost = '127.0.0.1';
        steps.push(`${t.name} refused the handover: ${s.name} primary again`);
        continue;
      }
      for (const w of s.writes)
        if (!(t.data.end >= w.offset && epochAt(t.data, w.offset - 1) === w.epoch))
          this.fail(`invariant 8: ${t.name} took over without ${s.name}'s write at ${w.offset}`);
      startEpoch(t.data, this.nextId++);
      t.role = 'primary';
      t.acked = [];
      t.writes = [];
      t.rebootedSinceChosen = false;
      this.sync(s);
      steps.push(`${t.name} took over from ${s.name}`);
    }
    this.checkOneWriter();
    return steps.join('; ') || 'nothing to do';
  }

  promote(s: Server) {
    const st = this.status;
    // 2.
    if (st.primary !== s.name)
      this.fail(`invariant 2: ${s.name} promoted while the status names ${st.primary ?? 'nobody'}`);
    const f = st.failover;
    if (f && f.phase !== 'Completed' && f.to === s.name) {
      if (s.data.end < f.promotedOffset)
        this.fail(
          `invariant 2: ${s.name} promoted holding offset ${s.data.end}, chosen at ${f.promotedOffset}`,
        );
      // 3.
      const old = this.byName(f.from);
      if (old && f.dataLossRisk === 'Bounded' && !(old.container && old.role === 'primary')) {
        const ackedBy = old.acked
          .filter((a) => a.at <= Date.parse(f.primaryLastSeenAt!))
          .reduce((m, a) => Math.max(m, a.offset), 0);
        const lost = ackedBy - commonPrefix(old.data, s.data);
        if (lost > (f.bytesPossiblyLost ?? 0))
          this.fail(
            `invariant 3: ${lost} bytes acknowledged by ${f.primaryLastSeenAt} lost, more than bytesPossiblyLost ${f.bytesPossiblyLost}`,
          );
      }
    }
    if (s.role === 'primary') return;
    startEpoch(s.data, this.nextId++);
    s.role = 'primary';
    s.acked = [];
    s.writes = [];
    s.rebootedSinceChosen = false;
    for (const o of this.servers)
      if (o !== s && o.container && o.role === 'primary' && o.partitioned)
        o.splitBrainExcused = true;
    this.checkOneWriter();
  }

  // -- what the controller sees

  facts(): PodFacts[] {
    return this.servers.map((s) => {
      const u = this.upstream(s);
      const node: NodeView | undefined = !s.container
        ? undefined
        : s.partitioned
          ? { reachable: false, error: 'connect ETIMEDOUT' }
          : {
              reachable: true,
              role: s.role,
              runId: s.runId,
              // The id of the stream's last segment: two servers report one id only when one
              // writer produced both streams (each promotion and each empty boot takes a new id),
              // so their offsets are comparable. Stricter than Redis (a replica takes its
              // primary's id when it links, even below the primary's promotion point): here the
              // plan states Unknown in some cases where against Redis it could bound the loss.
              replId: `r${s.data.epoch}`,
              offset: s.data.end,
              ...(s.role === 'replica'
                ? { primary: { host: s.primaryHost, port: PORT, linkUp: u !== undefined } }
                : {}),
              loading: false,
              syncInProgress: false,
              ...(s.role === 'primary' && s.handover ? { failoverState: s.handover.state } : {}),
              ...(s.role === 'replica' && s.handover?.state === 'failover-in-progress'
                ? { failoverState: s.handover.state }
                : {}),
            };
      return {
        name: s.name,
        ordinal: s.ordinal,
        ip: s.ip,
        ready: s.container && (s.role === 'primary' || u !== undefined),
        deleting: false,
        ...(s.roleLabel ? { roleLabel: s.roleLabel } : {}),
        ...(node ? { node } : {}),
      };
    });
  }

  // -- the API server

  /** Writes the status, checking invariants 3 (the record), 4, 5, 7 and 8 on the transition. */
  writeStatus(next: RoleStatus) {
    const prev = this.status;
    const newFailover = this.isNewRecord(prev.failover, next.failover);
    // 8. Each switchover decided is counted once; one completes only as promised.
    if (this.isNewRecord(prev.switchover, next.switchover, 'Demoting')) {
      if (next.switchover!.phase !== 'Demoting')
        this.fail('invariant 8: a new switchover record not Demoting');
      this.switchoverRecords++;
    }
    if ((next.switchoverCount ?? 0) !== this.switchoverRecords)
      this.fail(
        `invariant 8: switchoverCount ${next.switchoverCount ?? 0} after ${this.switchoverRecords} switchovers`,
      );
    const sw = next.switchover;
    const completes =
      sw?.phase === 'Completed' &&
      prev.switchover?.phase === 'Demoting' &&
      recordId(sw) === recordId(prev.switchover);
    if (completes) {
      const from = this.byName(sw.from)!;
      const to = this.byName(sw.to)!;
      if (!to.container || to.role !== 'primary' || next.primary !== to.name)
        this.fail(`invariant 8: switchover to ${to.name} completed while it does not serve`);
      const lost = from.writes.filter(
        (w) => !(to.data.end >= w.offset && epochAt(to.data, w.offset - 1) === w.epoch),
      );
      if (lost.length > 0)
        this.fail(
          `invariant 8: switchover Completed while ${to.name} lacks ${lost.length} writes ${from.name} acknowledged (up to offset ${lost.at(-1)!.offset})`,
        );
    }
    if (sw?.phase === 'Completed' && !completes && prev.switchover?.phase !== 'Completed')
      this.fail('invariant 8: a switchover Completed that was not Demoting');
    // 3. (the record)
    if (newFailover) {
      const f = next.failover!;
      const target = this.byName(f.to);
      if (f.phase !== 'Promoting') this.fail('invariant 3: a new failover record not Promoting');
      if (!target || target.data.end < f.promotedOffset)
        this.fail(`invariant 3: promotedOffset ${f.promotedOffset} beyond what ${f.to} holds`);
      if (
        f.dataLossRisk === 'Bounded' &&
        f.bytesPossiblyLost !== Math.max(0, f.primaryLastOffset! - f.promotedOffset)
      )
        this.fail('invariant 3: bytesPossiblyLost is not primaryLastOffset − promotedOffset');
    }
    // 4, 5, 7 — the primary moves by a failover record, or by a switchover completing.
    const bySwitchover = completes && prev.primary === sw.from && next.primary === sw.to;
    this.checkFailoverRecords(prev, next, newFailover, bySwitchover);
    if (
      prev.switchover?.phase === 'Demoting' &&
      !completes &&
      next.primary !== prev.primary &&
      !newFailover
    )
      this.fail(`invariant 8: primary moved during a switchover without completing it`);
    this.status = next;
    this.statusVersion++;
  }

  // -- invariants checked after every command

  checkOneWriter() {
    const primaries = this.servers.filter((s) => s.container && s.role === 'primary');
    if (primaries.filter((s) => !s.splitBrainExcused).length > 1)
      this.fail(
        `invariant 1: two primaries accept writes: ${primaries.map((s) => s.name).join(', ')}`,
      );
    // 6.
    for (const s of primaries)
      if (s.rebootedSinceChosen)
        this.fail(`invariant 6: ${s.name} serves as primary after a restart by itself`);
  }

  protected checkAfterReconcile() {
    const recorded = this.byName(this.status.primary);
    // Only a serving primary has others follow it: while it is lost, nobody is repointed.
    const primary =
      recorded?.container &&
      !recorded.partitioned &&
      recorded.role === 'primary' &&
      recorded.runId === this.status.primaryRunId
        ? recorded
        : undefined;
    for (const s of this.servers) {
      if (s === recorded || !s.container || s.partitioned) continue;
      if (s.roleLabel === 'primary') this.fail(`invariant 1: ${s.name} labelled primary`);
      if (primary && s.role === 'primary')
        this.fail(`invariant 1: ${s.name} serves as a second primary, not fenced`);
    }
  }

  // -- the controller

  /** What `rolloutWantsSwitchover` answers (its retry guard; the pods' revisions are not modelled). */
  rolloutAsks(): boolean {
    const last = this.status.switchover;
    const failedAt =
      last?.reason === 'Rollout' && last.phase === 'Failed' ? Date.parse(last.completedAt!) : -1;
    return this.rolloutPending && (failedAt < 0 || this.now - failedAt >= 60_000);
  }

  reconcile(opts: ReconcileDraw): string {
    const basis = { status: this.status, version: this.statusVersion };
    if (opts.conflict) this.statusVersion++;
    const plan = planRoles({
      ...(this.rolloutAsks() ? { switchover: { reason: 'Rollout' as const } } : {}),
      mode: 'Replicated',
      replicas: this.config.replicas,
      failover: { enabled: true, afterMs: AFTER_MS },
      ...(this.config.fence ? { fence: this.config.fence } : {}),
      port: PORT,
      status: basis.status,
      pods: this.facts(),
      memory: this.memory ?? {},
      now: new Date(this.now).toISOString(),
    });
    this.memory = plan.memory;
    // A 409 is read again: the decision stands only if the primary and the records did not move
    // (roles.ts: decisionStale over roleMarksOf).
    const decidedOn = (s: RoleStatus) => [
      s.primary,
      s.failoverCount ?? 0,
      s.failover?.phase,
      s.switchoverCount ?? 0,
      s.switchover?.phase,
    ];
    if (plan.status && !this.writeDecision(plan.status, basis, decidedOn))
      return 'stale decision: starts over';
    if (this.status.switchover?.phase === 'Completed') this.rolloutPending = false;
    return this.carryOutPlan(plan, opts.crashAfter, (action) => this.carryOut(action));
  }

  carryOut(action: RoleAction) {
    const s = this.byName(action.pod)!;
    if (action.type === 'label') {
      s.roleLabel = action.role;
      return;
    }
    if (!s.container || s.partitioned) return; // the command fails
    if (action.type === 'promote') return this.promote(s);
    if (action.type === 'failover') {
      const t = this.byName(action.to)!;
      // Redis refuses FAILOVER on a replica, to a server that is not its linked replica at that
      // address, and answers an error when one is under way (the admin: nothing to do).
      if (s.role !== 'primary' || s.handover) return;
      if (t.ip !== action.host || this.upstream(t) !== s) return;
      s.handover = {
        to: t.name,
        deadline: this.now + action.timeoutMs,
        state: 'waiting-for-sync',
      };
      return;
    }
    s.role = 'replica';
    s.primaryHost = action.type === 'detach' ? '127.0.0.1' : action.host;
    s.splitBrainExcused = false;
    s.handover = undefined;
    this.sync(s);
  }
}

// ---- Commands.

const { onServer, standard } = failoverModelCommands<World>({
  cluster: 'c',
  followers: 'replicas',
});

const commands = [
  ...standard,
  onServer('its server dies', (w, s) => w.kill(s)),
  onServer('its server restarts (fenced)', (w, s) => {
    if (!s.container) w.boot(s, w.config.persistence);
  }),
  onServer('its pod is replaced (labels lost)', (w, s) => {
    w.kill(s);
    w.boot(s, w.config.persistence);
    s.roleLabel = undefined;
  }),
  onServer('partitioned from the controller (alive)', (_, s) => void (s.partitioned = true)),
  onServer('reachable again', (_, s) => void (s.partitioned = false)),
  // Drawn as often as a server's own command (each of those is drawn for seven targets).
  ...[0, 1, 2, 3].map(() =>
    fc.constant(
      modelCommand<World>(
        'a rolling update reaches the primary (a switchover is asked for)',
        (w) => void (w.rolloutPending = true),
        (w, outcome) => w.afterCommand('a rolling update', outcome),
      ),
    ),
  ),
  ...[0, 1, 2, 3, 4, 5].map(() =>
    fc.constant(
      modelCommand<World>(
        'the servers move their FAILOVER on a step',
        (w) => w.handOver(),
        (w, outcome) => w.afterCommand('FAILOVER steps', outcome),
      ),
    ),
  ),
  ...[0, 1].map(() =>
    fc.constant(
      modelCommand<World>(
        'the replicas catch up',
        (w) => w.catchUp(),
        (w, outcome) => w.afterCommand('catch up', outcome),
      ),
    ),
  ),
];

/** A new cluster brought up by the plan itself. */
function bootstrapped(config: Config): World {
  const w = new World(config);
  for (let round = 0; round < 6; round++) {
    w.reconcile({ conflict: false });
    w.catchUp();
    w.now += 1000;
  }
  return w;
}

const configs = fc.record({
  replicas: fc.constantFrom(2, 3),
  persistence: fc.boolean(),
});

/**
 * spec.fencing (minReplicas 1), three pods (a fence needs a replica left after a loss); the bound
 * (15 s) above failover.after (10 s), so that a promotion not waiting for it would overlap.
 */
const fencedConfigs = fc.record({
  replicas: fc.constant(3),
  persistence: fc.boolean(),
  fence: fc.constant({ minReplicas: 1, boundSeconds: 15 }),
});

describe('planRoles, proven by a model', () => {
  it('brings a new cluster up: one primary, every replica linked to it', () => {
    const w = bootstrapped({ replicas: 3, persistence: false });
    expect(w.status).toMatchObject({ primary: 'c-0', primaryRunId: w.servers[0]!.runId });
    expect(w.servers.map((s) => s.role)).toEqual(['primary', 'replica', 'replica']);
    expect(w.servers.map((s) => w.upstream(s)?.name)).toEqual([undefined, 'c-0', 'c-0']);
  });

  it('switches the primary over on a rolling update: writes paused, handed over with every byte, Completed', () => {
    const w = bootstrapped({ replicas: 3, persistence: false });
    w.write(500, [0, 0, 0]);
    w.rolloutPending = true;
    w.reconcile({ conflict: false });
    expect(w.status.switchover).toMatchObject({ phase: 'Demoting', from: 'c-0', to: 'c-1' });
    expect(w.servers[0]!.handover?.state).toBe('waiting-for-sync');
    const before = w.servers[0]!.data.end;
    w.write(100, [0, 0, 0]); // paused: not acknowledged
    expect(w.servers[0]!.data.end).toBe(before);
    w.handOver();
    w.handOver();
    expect(w.servers.map((s) => s.role)).toEqual(['replica', 'primary', 'replica']);
    w.now += 700;
    w.reconcile({ conflict: false });
    expect(w.status).toMatchObject({
      primary: 'c-1',
      switchoverCount: 1,
      switchover: { phase: 'Completed', writesResumedAt: new Date(w.now).toISOString() },
    });
    expect(w.status.failoverCount ?? 0).toBe(0);
    w.reconcile({ conflict: false });
    expect(w.servers.map((s) => w.upstream(s)?.name)).toEqual(['c-1', undefined, 'c-1']);
    expect(w.servers.map((s) => s.roleLabel)).toEqual(['replica', 'primary', 'replica']);
  });

  it('gives a switchover up when the replica does not catch up before FAILOVER’s timeout: writes resume on the old primary', () => {
    const w = bootstrapped({ replicas: 2, persistence: false });
    w.write(10, [0]); // the replica takes the primary's replication history
    w.rolloutPending = true;
    w.reconcile({ conflict: false });
    expect(w.status.switchover).toMatchObject({ phase: 'Demoting', to: 'c-1' });
    w.servers[1]!.partitioned = true; // cut off: it never catches up, the controller cannot see it
    w.write(10, [0]);
    w.passTime(11, false);
    expect(w.servers[0]!.handover).toBeUndefined();
    w.reconcile({ conflict: false });
    expect(w.status.switchover).toMatchObject({ phase: 'Failed' });
    expect(w.status.primary).toBe('c-0');
    expect(w.servers[0]!.roleLabel).toBe('primary');
    // The rollout asks again only a minute after the failure.
    w.servers[1]!.partitioned = false;
    w.catchUp();
    w.reconcile({ conflict: false });
    expect(w.status.switchoverCount).toBe(1);
    w.passTime(60, true);
    w.reconcile({ conflict: false });
    expect(w.status).toMatchObject({ switchoverCount: 2, switchover: { phase: 'Demoting' } });
  });

  it('keeps the invariants through random failures, crashes and conflicts', () => {
    // A random seed: every run explores new sequences (MODEL_RUNS, MODEL_SEED, MODEL_PATH: see
    // @steward/testing's model-runs.ts).
    assertModelRuns({ configs, commands, world: bootstrapped, runs: 50_000 });
  });

  it('with spec.fencing, never lets two primaries acknowledge writes — a partitioned one included', () => {
    assertModelRuns({ configs: fencedConfigs, commands, world: bootstrapped, runs: 20_000 });
  });
});
