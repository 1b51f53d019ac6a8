/**
 * Who is primary, what each instance is told, and what the controller does about it: a pure
 * function over the instances as the controller sees them (Kubernetes facts + one `pg`
 * observation each), the PostgresCluster's status (the durable record: `primary`,
 * `systemIdentifier`, the newest `failover`) and the controller's memory of the primary (the last
 * WAL position it read — kept in memory, never written on every poll, so a converged cluster
 * costs no API writes; `status.primaryLastSeen` records it when it changes materially, for a
 * controller that restarts).
 *
 * Rules:
 * - `status.primary` is the authority, written before anything acts on it. A cluster
 *   without `systemIdentifier` is being initialised: its first instance is recorded as primary,
 *   then told `initdb`; the identifier is recorded once that instance serves as primary. From then
 *   on no instance is ever told `initdb` again: an instance that lost its data is cloned, never
 *   initialised into a second cluster.
 * - A new pod is told nothing, so it waits; the primary is told `primary`, every other instance
 *   `standby <primary's pod IP>` once the primary serves (it clones, or rewinds if it was a
 *   primary, then streams). Running standbys whose `primary_conninfo` names another host are
 *   repointed with ALTER SYSTEM; `synchronous_standby_names` on the primary names every other
 *   instance (`ANY n (…)`, n = spec.replication.sync.number) in sync mode, nothing in async mode;
 *   with durability `preferred`, n is lowered to the standbys streaming while fewer do (none:
 *   '') and raised again once they stream.
 * - An instance other than the primary found serving as a primary (a returning old primary that
 *   was not fenced in time, or a person's pg_promote) is fenced: out of the read-write Service and
 *   told `standby`, which stops it and rewinds it.
 * - The primary is lost when its pod is missing, being deleted, not running PostgreSQL or not
 *   answering, or answers in recovery or with another system identifier. After
 *   `failover.after` without it, the reachable standby with the highest received LSN (ties: the
 *   lowest ordinal) on the newest timeline — never one left on a timeline older than the
 *   primary's — is chosen — and promoted only if that loses at most `failover.maxLagBytes` of
 *   what the old primary was last seen to have (`Bounded`), unless sync replication had confirmed
 *   every commit on enough of the standbys that can be chosen (`None`: with `ANY n` of N named
 *   standbys a commit is on n of them, so the most advanced of at least N − n + 1 that answer has
 *   it: nothing committed is lost). What the old primary was last seen to have is this process's
 *   memory, else `status.primaryLastSeen` — rewritten when it changes materially, not on every
 *   poll: a position recorded by an earlier controller is a lower bound of what that controller
 *   saw last, by at most its `slackBytes`, so the bound checked is the lag plus that slack. A
 *   primary neither seen nor recorded gives `Unknown` (the bound cannot be checked; the
 *   promotion goes ahead and says so). Otherwise the failover is refused
 *   (`FailoverRefusedLagExceedsBound`) and the controller waits for the primary or a person.
 * - The decision is durable before it is carried out (`failover` phase Promoting, the new
 *   `primary`, `failoverCount + 1`), the old primary fenced first (role label removed,
 *   told `wait`), then the standby told `primary` and promoted. A restarted controller resumes it
 *   and never chooses again: promoting an instance that already left recovery is a no-op. An old
 *   primary that serves again before its fence was carried out is fenced, and the promotion waits
 *   until it has stopped.
 * - With a fence (`PlanInput.fence`: the pods renew a Lease and stop themselves when they cannot,
 *   docs/design/fencing.md), the Lease decides when, not `failover.after`: a lost primary is
 *   failed over once the Lease's current version has stood unchanged for the fence bound by this
 *   process's clock — by then the old primary has stopped accepting writes — and the Lease is
 *   taken for the chosen standby (`Plan.lease`, a write preconditioned on that version, made
 *   before the decision is recorded: a renewal meanwhile makes it fail, and nothing is decided).
 *   A switchover takes it once the old primary has stopped cleanly; an instance is only told to
 *   start as primary while the Lease names it.
 */
import {
  type DataLossRisk,
  type FailoverRecord,
  type InstanceStatus,
  type PostgresClusterStatus,
  type PrimaryLastSeen,
  type ReplicationMode,
  type SwitchoverRecord,
  type SyncDurability,
  type SynchronousStatus,
} from '@steward/postgres-cluster-api';
import { type PodBasics } from '@steward/workload';
import { podName, Roles } from '../children/names.js';
import { formatLsn, maxLsn, parseLsn } from '../pg/lsn.js';
import { type SalvageManifest } from '../pg/observation.js';

/** An instance as one observation saw it (structurally a subset of the pg layer's observation). */
export type InstanceView =
  | { reachable: false; error: string }
  | {
      reachable: true;
      systemIdentifier: string;
      inRecovery: boolean;
      timeline: number;
      currentLsn?: bigint;
      receiveLsn?: bigint;
      replayLsn?: bigint;
      /** The WAL receiver is streaming. */
      streaming: boolean;
      /** The host of `primary_conninfo` (standbys). */
      conninfoHost?: string;
      replication: { applicationName: string; state: string; syncState: string }[];
      synchronousStandbyNames: string;
      /** A standby's newest salvage manifest (what it kept before a rewind). */
      salvage?: SalvageManifest;
    };

/** One pod of the StatefulSet, as the cache and one observation see it. */
export interface InstanceFacts extends Omit<PodBasics, 'running'> {
  /** The instruction annotation it carries. */
  instruction?: string;
  /** The agent's last termination message (why its previous container stopped). */
  lastMessage?: string;
  /** Undefined when the pod has no IP or its container does not run. */
  view?: InstanceView;
}

export type LossReason =
  | 'PrimaryPodMissing'
  | 'PrimaryPodDeleted'
  | 'PrimaryNotRunning'
  | 'PrimaryUnreachable'
  | 'PrimaryInRecovery'
  | 'PrimaryForeign';

/** What the controller remembers between reconciles of one PostgresCluster (per process). */
export interface PlanMemory {
  /**
   * The primary as last seen serving: its WAL position then, a time no later than that position
   * was read (`PlanInput.observedAt`), and every standby that may have confirmed a commit: those
   * its `synchronous_standby_names` named (the value read, and the one this reconcile sets) and
   * those pg_stat_replication showed as sync or quorum. Not only the ones connected at that
   * moment: with `ANY 1`, a standby that confirmed a commit and disconnected before the
   * observation may be the only one holding it.
   */
  lastSeen?: {
    pod: string;
    lsn: bigint;
    at: string;
    syncStandbys: string[];
    timeline?: number;
    /**
     * The primary's position when this process first saw it with sync standbys, seen so at every
     * observation since: commits before it may have been acknowledged without a standby (async, or
     * a setting not yet in effect). A standby holds every acknowledged commit only from there on.
     */
    syncFromLsn?: bigint;
    /**
     * Every commit acknowledged since `syncFromLsn` is on at least this many of `syncStandbys`
     * (the smallest `ANY n` read or set since; default 1).
     */
    syncNumber?: number;
    /**
     * Set when this is `status.primaryLastSeen`, written by an earlier controller: it may have
     * seen the primary up to this much further on.
     */
    slackBytes?: bigint;
  };
  lostSince?: string;
  lostReason?: LossReason;
  /** The refusal last reported (one Event per refusal, not one per poll). */
  refusalReported?: string;
  /** `<pod>/<systemIdentifier>` on which the bootstrap SQL last succeeded. */
  bootstrapped?: string;
  /** Where and when (`PlanInput.now`) the synchronous_commit defaults were last held (sync mode). */
  synchronousCommitHeld?: { pod: string; at: string };
  /** The fence's Lease: its version and when this process first saw it (`FenceInput.quietSince`). */
  lease?: { resourceVersion: string; since: string };
}

export interface PlanInput {
  cluster: string;
  /** Instances desired (spec.replicas). */
  replicas: number;
  failover: { enabled: boolean; afterMs: number; maxLagBytes: bigint };
  replication: ReplicationMode;
  /** spec.replication.sync (mode sync): default `ANY 1`, durability required. */
  synchronous?: { number: number; durability: SyncDurability };
  /** `status.primaryLastSeen` as recorded (what a controller that restarted starts from). */
  lastSeenRecord?: PrimaryLastSeen;
  /**
   * How the first instance starts a new cluster: `initdb`, or `restore` (from a backup,
   * spec.bootstrap.recovery). Default initdb.
   */
  bootstrap?: 'initdb' | 'restore';
  /** The primary is restarting on the controller's own roll: its absence is no failover (yet). */
  holdFailover?: boolean;
  /**
   * A switchover asked for: by the annotation (`to` names the instance), by a scale-down that
   * would remove the primary or by a rolling update that reached it (`to` absent: the most
   * advanced ready standby that stays).
   */
  switchover?: { to?: string; reason: SwitchoverRecord['reason']; avoid?: string[] };
  status: PlanStatus;
  instances: InstanceFacts[];
  memory: PlanMemory;
  /** ISO time of this reconcile. */
  now: string;
  /** ISO time taken before any instance was observed (default `now`). */
  observedAt?: string;
  /**
   * The fence (status.fencing mode Lease), when the primary's pod renews the Lease; absent: no
   * fence, `failover.after` alone decides (pods from before fencing).
   */
  fence?: FenceInput;
}

/** The Lease the primary renews, as this process has seen it. */
export interface FenceInput {
  /** The Lease's duration: the fence bound. */
  boundMs: number;
  /** The Lease's holder (undefined: none, or no Lease). */
  holder?: string;
  /** Its resourceVersion ('' when there is no Lease). */
  resourceVersion: string;
  /** ISO time this process first saw that version (or first saw it missing). */
  quietSince: string;
  /**
   * The primary's pod renews the Lease (its template has the fence): only then does the Lease
   * decide when a lost primary is failed over. Otherwise the Lease is only kept naming the primary.
   */
  enforced: boolean;
}

/** The Lease written before the decision is recorded: taken for `holder` from `resourceVersion` ('' creates it). */
export interface LeaseTake {
  holder: string;
  resourceVersion: string;
}

export type PlanAction =
  | { type: 'instruct'; pod: string; instruction: string }
  | { type: 'label'; pod: string; role: 'primary' | 'standby' | null }
  | { type: 'promote'; pod: string }
  | { type: 'repoint'; pod: string; host: string }
  | { type: 'synchronousStandbyNames'; pod: string; value: string }
  | { type: 'bootstrap'; pod: string; key: string }
  /** Sync mode: no role or database default weakens synchronous_commit (PgAdmin.holdSynchronousCommit). */
  | { type: 'synchronousCommit'; pod: string; at: string };

export interface PlanEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type PlanStatus = Pick<
  PostgresClusterStatus,
  | 'primary'
  | 'systemIdentifier'
  | 'failover'
  | 'failoverCount'
  | 'lastFailover'
  | 'switchover'
  | 'switchoverCount'
>;

export interface PlanHealth {
  primary?: string;
  /** The primary serves (reachable, out of recovery, this cluster's). */
  primaryServing: boolean;
  initialised: boolean;
  instances: InstanceStatus[];
  readyReplicas: number;
  timeline?: number;
  /** A failover is deciding or being carried out, or the primary is lost and one is pending. */
  failingOver: boolean;
  /** A switchover is being carried out. */
  switchingOver: boolean;
  /** Something a person should look at (a refused failover, no standby to promote…). */
  degraded?: { reason: string; message: string };
  /** Why the cluster is not yet where it is going. */
  progressing?: { reason: string; message: string };
  /**
   * `status.primaryLastSeen` to state: the recorded one, or a new one when the primary seen
   * since differs materially from it ({@link primaryRecord}).
   */
  primaryLastSeen?: PrimaryLastSeen;
  /** `status.synchronous` (mode sync, the primary serving). */
  synchronous?: SynchronousStatus;
}

export interface Plan {
  /** When set: written to status (with a precondition) before any action. */
  status?: PlanStatus;
  actions: PlanAction[];
  memory: PlanMemory;
  events: PlanEvent[];
  health: PlanHealth;
  /** Sooner than the usual poll (e.g. when the failover deadline falls). */
  requeueAfterMs?: number;
  /** The switchover request was dealt with (done, failed, or nothing to do): remove it. */
  switchoverHandled?: boolean;
  /**
   * The Lease to take first — before `status` is written and any action runs; if the write
   * conflicts (renewed meanwhile) nothing of this plan is carried out.
   */
  lease?: LeaseTake;
}

export const PlanReasons = {
  FailoverRefusedLagExceedsBound: 'FailoverRefusedLagExceedsBound',
  Recloned: 'Recloned',
  NoStandbyToPromote: 'NoStandbyToPromote',
  FailoverDisabled: 'FailoverDisabled',
  PrimaryLost: 'PrimaryLost',
  FailingOver: 'FailingOver',
  SplitBrainFenced: 'SplitBrainFenced',
  Initialising: 'Initialising',
  InstancesStarting: 'InstancesStarting',
  ForeignInstance: 'ForeignInstance',
  SwitchingOver: 'SwitchingOver',
  SwitchoverWaiting: 'SwitchoverWaiting',
  SwitchoverCompleted: 'SwitchoverCompleted',
  SwitchoverFailed: 'SwitchoverFailed',
  WaitingForFence: 'WaitingForFence',
  SynchronousStandbysLowered: 'SynchronousStandbysLowered',
  SynchronousStandbysRestored: 'SynchronousStandbysRestored',
} as const;

/** status.primaryLastSeen is rewritten at least this often while the primary's position moves. */
export const PRIMARY_RECORD_REFRESH_MS = 60_000;

/** How often the synchronous_commit defaults are checked on a primary in sync mode. */
export const SYNCHRONOUS_COMMIT_CHECK_MS = 30_000;

/** A standby further behind than this is not switched to: it catches up first. */
export const SWITCHOVER_MAX_LAG_BYTES = 16n * 1024n * 1024n;
/** How long the old primary may take to stop before the switchover is given up. */
export const SWITCHOVER_DEMOTE_TIMEOUT_MS = 60_000;

/** An instance's view when it answers. */
type ReachableView = Extract<InstanceView, { reachable: true }>;

const reachable = (f: InstanceFacts): ReachableView | undefined =>
  f.view?.reachable === true && !f.deleting ? f.view : undefined;

/** `ANY n ("a", "b")` for sync replication over these standbys; '' for none (or n 0). */
export function synchronousStandbyNames(
  mode: ReplicationMode,
  standbys: string[],
  number = 1,
): string {
  if (mode !== 'sync' || standbys.length === 0 || number < 1) return '';
  return `ANY ${Math.min(number, standbys.length)} (${standbys.map((s) => `"${s}"`).join(', ')})`;
}

/**
 * What a `synchronous_standby_names` value asks for (`ANY 2 ("a", "b")` → 2 of a, b; `FIRST 1
 * (a, b)`, `1 (a)` and the bare list `a, b` → 1 of them; '' → 0 of none): a commit waits for
 * `number` of `names`.
 */
export function synchronousSetting(value: string): { number: number; names: string[] } {
  const text = value.trim();
  if (text === '') return { number: 0, names: [] };
  const m = /^(?:(ANY|FIRST)\s+)?(\d+)\s*\((.*)\)$/is.exec(text);
  const list = m ? m[3]! : text;
  const names = list
    .split(',')
    .map((n) => n.trim().replace(/^"(.*)"$/, '$1'))
    .filter((n) => n !== '');
  return { number: m ? Number(m[2]) : 1, names };
}

const ms = (iso: string) => Date.parse(iso);

/**
 * What one reconcile has decided so far, threaded through the steps of {@link planInstances}.
 * Each step appends to `actions` and `events` in the order they are to be carried out and
 * reported (that order is part of the plan), and records what must be durable first in
 * `decided`: the status written, under a precondition, before any action runs.
 */
interface PlanContext {
  readonly input: PlanInput;
  /** ISO time taken before any instance was observed. */
  readonly observedAt: string;
  readonly byName: ReadonlyMap<string, InstanceFacts>;
  /** The instances whose pods are not being deleted. */
  readonly live: InstanceFacts[];
  /** The controller's memory as this reconcile leaves it (a copy, changed in place). */
  readonly memory: PlanMemory;
  readonly actions: PlanAction[];
  readonly events: PlanEvent[];
  /** The status to write before any action; undefined while nothing durable changes. */
  decided: PlanStatus | undefined;
  /** The switchover record as this reconcile leaves it (`status.switchover` until a step moves it). */
  switchover: SwitchoverRecord | undefined;
  requeueAfterMs: number | undefined;
  degraded: PlanHealth['degraded'];
  progressing: PlanHealth['progressing'];
  switchoverHandled: boolean | undefined;
  /** The Lease this reconcile takes first. */
  lease: LeaseTake | undefined;
  /** `status.synchronous` as the primary's setting is decided ({@link synchronousNames}). */
  synchronous?: SynchronousStatus;
}

/**
 * The recorded primary as this reconcile observed it, once the cluster is initialised. It stays
 * as observed for the whole reconcile: what a step decides goes to `PlanContext.decided`.
 */
interface PrimaryObservation {
  /** `status.primary` (or the first instance, recorded by this reconcile). */
  name: string;
  facts: InstanceFacts | undefined;
  /** Its view when it answers and its pod is not being deleted (of whichever cluster). */
  view: ReachableView | undefined;
  /** Its view when it serves: answers, out of recovery, with this cluster's identifier. */
  serving: ReachableView | undefined;
  systemIdentifier: string;
  /** The failover record as the reconcile began. */
  failover: FailoverRecord | undefined;
}

/** The standby chosen to replace a lost primary, with the WAL position it has. */
interface Candidate {
  facts: InstanceFacts;
  timeline: number;
  lsn: bigint;
}

/** Why the primary is lost, and since when (this process's memory). */
interface Loss {
  reason: LossReason;
  since: string;
}

/**
 * The plan of one reconcile (pure). Its steps, in order — the actions and events of each come
 * before those of the next: {@link initialise}; a switchover asked for
 * ({@link requestSwitchover}), and one stopping its old primary ({@link demote}, which ends the
 * plan); then the primary serves ({@link primaryServes}), or a decided promotion is carried out
 * ({@link resumePromotion}), or it is lost ({@link primaryLost}, which may fail over); every other
 * instance follows ({@link follow}); a resumed promotion is carried out — after the fences
 * `follow` gave, as a decided failover fences before it promotes; a failover or switchover whose
 * target serves completes.
 */
export function planInstances(input: PlanInput): Plan {
  const ctx: PlanContext = {
    input,
    observedAt: input.observedAt ?? input.now,
    byName: new Map(input.instances.map((f) => [f.name, f])),
    live: input.instances.filter((f) => !f.deleting),
    memory: { ...input.memory },
    actions: [],
    events: [],
    decided: undefined,
    switchover: input.status.switchover,
    requeueAfterMs: undefined,
    degraded: undefined,
    progressing: undefined,
    switchoverHandled: undefined,
    lease: undefined,
  };
  const p = initialise(ctx);
  if (!p) return finish(ctx);

  // ---- The primary: serving, being promoted, or lost.
  const transitionActive =
    (p.failover !== undefined && p.failover.phase !== 'Completed') ||
    (ctx.switchover !== undefined &&
      ctx.switchover.phase !== 'Completed' &&
      ctx.switchover.phase !== 'Failed');
  if (input.switchover && p.serving && !transitionActive)
    requestSwitchover(ctx, p, p.serving, input.switchover);
  const switchover = ctx.switchover;
  if (switchover?.phase === 'Demoting' && switchover.from === p.name) {
    demote(ctx, p, switchover);
    return finish(ctx);
  }
  const promoting =
    (p.failover?.phase === 'Promoting' && p.failover.to === p.name) ||
    (switchover?.phase === 'Promoting' && switchover.to === p.name);
  let resumed = false;
  if (p.serving) primaryServes(ctx, p, p.serving, promoting);
  else if (promoting && p.facts && p.view && p.view.systemIdentifier === p.systemIdentifier)
    resumed = resumePromotion(ctx, p);
  else primaryLost(ctx, p);

  // ---- Everyone else follows the serving primary.
  const primaryIp = p.serving ? p.facts?.ip : undefined;
  for (const f of ctx.live) if (f.name !== p.name) follow(ctx, p, f, primaryIp);
  if (resumed) {
    instruct(ctx, p.facts, 'primary');
    ctx.actions.push({ type: 'promote', pod: p.name });
  }

  if (p.serving) {
    completeFailover(ctx, p, p.serving);
    completeSwitchover(ctx, p, p.serving);
  }
  return finish(ctx);
}

/** Tells an instance what to do, unless it is being deleted or already told so. */
function instruct(ctx: PlanContext, f: InstanceFacts | undefined, instruction: string) {
  if (f && !f.deleting && f.instruction !== instruction)
    ctx.actions.push({ type: 'instruct', pod: f.name, instruction });
}

/** The fence's Lease, and how long its current version has stood (ms), or undefined without a fence. */
function fenceOf(ctx: PlanContext): { fence: FenceInput; quietMs: number } | undefined {
  const fence = ctx.input.fence;
  return fence ? { fence, quietMs: ms(ctx.input.now) - ms(fence.quietSince) } : undefined;
}

/**
 * The Lease made to name `name`, the instance about to be (or being) primary: nothing to do when
 * it does (or there is no fence). `safe`: whoever held it cannot be writing (it stopped cleanly,
 * or `name` serves as the primary); otherwise its current version must have stood for the bound —
 * the holder has fenced itself by then. False when the Lease cannot be taken yet (and says why).
 */
function holdLease(ctx: PlanContext, name: string, safe: boolean): boolean {
  const f = fenceOf(ctx);
  if (!f || f.fence.holder === name) return true;
  if (!safe && f.fence.holder !== undefined && f.quietMs < f.fence.boundMs) {
    const left = f.fence.boundMs - f.quietMs;
    ctx.requeueAfterMs = Math.min(ctx.requeueAfterMs ?? Infinity, Math.max(100, left));
    ctx.progressing ??= {
      reason: PlanReasons.WaitingForFence,
      message: `${name} is to be primary, but the Lease names ${f.fence.holder}, renewed ${Math.floor(f.quietMs / 1000)}s ago: it is taken once ${f.fence.holder} has fenced itself (in ${Math.ceil(left / 1000)}s, unless it renews)`,
    };
    return false;
  }
  ctx.lease = { holder: name, resourceVersion: f.fence.resourceVersion };
  return true;
}

/** Gives an instance its role label (null: none), unless it is being deleted or has it. */
function label(ctx: PlanContext, f: InstanceFacts | undefined, role: 'primary' | 'standby' | null) {
  if (!f || f.deleting) return;
  if ((f.roleLabel ?? null) !== role) ctx.actions.push({ type: 'label', pod: f.name, role });
}

/** Raises the status this reconcile writes before it acts (decide before act). */
function decide(ctx: PlanContext, change: Partial<PlanStatus>) {
  ctx.decided = { ...(ctx.decided ?? ctx.input.status), ...change };
}

/** The instance's view when it answers as an instance of this cluster. */
function ours(p: PrimaryObservation, f: InstanceFacts): ReachableView | undefined {
  const v = reachable(f);
  return v && v.systemIdentifier === p.systemIdentifier ? v : undefined;
}

/**
 * Initialisation, and the primary observed. `status.primary` is the authority: a cluster
 * without one records its first instance as primary before anything acts on it. Until
 * `systemIdentifier` is recorded that instance is told `initdb` (or `restore`), the identifier is
 * recorded once it serves as primary, and the plan ends here (undefined). Once recorded, nothing
 * here tells any instance `initdb` again.
 */
function initialise(ctx: PlanContext): PrimaryObservation | undefined {
  const { input } = ctx;
  const { status } = input;
  let primaryName = status.primary;
  if (!primaryName) {
    primaryName = podName(input.cluster, 0);
    ctx.decided = { ...status, primary: primaryName };
  }
  const primary = ctx.byName.get(primaryName);
  const pView = primary ? reachable(primary) : undefined;
  if (!status.systemIdentifier) {
    const how = input.bootstrap ?? 'initdb';
    if (holdLease(ctx, primaryName, false)) instruct(ctx, primary, how);
    if (pView && !pView.inRecovery) {
      decide(ctx, { systemIdentifier: pView.systemIdentifier });
      ctx.events.push({
        type: 'Normal',
        reason: 'Initialised',
        message: `${primaryName} initialised the cluster (system identifier ${pView.systemIdentifier})`,
      });
    } else {
      ctx.progressing = {
        reason: PlanReasons.Initialising,
        message:
          how === 'restore'
            ? `${primaryName} is restoring the cluster from a backup (fetching it, replaying WAL, then promoted)`
            : `${primaryName} is initialising the cluster (initdb)`,
      };
      return undefined;
    }
  }
  const systemIdentifier = ctx.decided?.systemIdentifier ?? status.systemIdentifier!;
  return {
    name: primaryName,
    facts: primary,
    view: pView,
    serving:
      pView && pView.systemIdentifier === systemIdentifier && !pView.inRecovery ? pView : undefined,
    systemIdentifier,
    failover: ctx.decided?.failover ?? status.failover,
  };
}

/**
 * The primary serves: the loss timer and refusal are forgotten, its WAL position and every
 * standby that may have confirmed a commit remembered (the lag bound of a later failover is
 * measured from here); it is kept told `primary`, labelled, bootstrapped, with the
 * `synchronous_standby_names` of the replication mode. A promotion it carried out moves on to
 * Repointing (the others follow from here on).
 */
function primaryServes(
  ctx: PlanContext,
  p: PrimaryObservation,
  view: ReachableView,
  promoting: boolean,
) {
  const { input, memory } = ctx;
  memory.lostSince = undefined;
  memory.lostReason = undefined;
  memory.refusalReported = undefined;
  const standbys = desiredNames(input).filter((n) => n !== p.name);
  const names = synchronousNames(ctx, view, standbys);
  memory.lastSeen = seenServing(ctx, p, view, names);
  // It serves: whoever else the Lease names is not writing (a second primary `follow` fences).
  holdLease(ctx, p.name, true);
  // Looked at again when its Lease would run out unrenewed: a primary that hangs now is failed
  // over at the bound, not a poll later.
  const fence = fenceOf(ctx);
  if (fence?.fence.enforced && fence.fence.holder === p.name)
    ctx.requeueAfterMs = Math.min(
      ctx.requeueAfterMs ?? Infinity,
      Math.max(100, fence.fence.boundMs - fence.quietMs + 100),
    );
  instruct(ctx, p.facts, 'primary');
  label(ctx, p.facts, Roles.primary);
  const key = `${p.name}/${p.systemIdentifier}`;
  if (memory.bootstrapped !== key) ctx.actions.push({ type: 'bootstrap', pod: p.name, key });
  if (view.synchronousStandbyNames !== names)
    ctx.actions.push({ type: 'synchronousStandbyNames', pod: p.name, value: names });
  holdSynchronousCommit(ctx, p);
  const { failover } = p;
  if (promoting && failover?.phase === 'Promoting' && failover.to === p.name) {
    // Promoted: the others follow from here on.
    decide(ctx, { failover: { ...failover, phase: 'Repointing', newTimeline: view.timeline } });
  } else if (promoting && ctx.switchover) {
    // Labelled primary above: back in the read-write Service, writes resume.
    ctx.switchover = {
      ...ctx.switchover,
      phase: 'Repointing',
      newTimeline: view.timeline,
      writesResumedAt: input.now,
    };
    decide(ctx, { switchover: ctx.switchover });
  }
}

/**
 * The `synchronous_standby_names` the primary is to have: in sync mode `ANY n` over the other
 * instances the spec wants — with durability `preferred`, n lowered to the named standbys
 * streaming now while fewer stream (none: ''), a Warning Event when it is lowered and a Normal
 * one when it is raised back — and `status.synchronous` saying so.
 */
function synchronousNames(ctx: PlanContext, view: ReachableView, standbys: string[]): string {
  const { input } = ctx;
  if (input.replication !== 'sync' || standbys.length === 0) return '';
  const number = Math.min(input.synchronous?.number ?? 1, standbys.length);
  const durability = input.synchronous?.durability ?? 'required';
  const connected = view.replication.filter(
    (r) => r.state === 'streaming' && standbys.includes(r.applicationName),
  ).length;
  const effective = durability === 'required' ? number : Math.min(number, connected);
  const value = synchronousStandbyNames('sync', standbys, effective);
  const message =
    connected >= number
      ? `each commit waits until ${number} of the ${standbys.length} standbys have it on disk (ANY ${number}); ${connected} stream`
      : durability === 'required'
        ? `commits wait: ${connected} of the ${number} standbys each commit needs stream (durability required); writes resume once enough stream`
        : effective === 0
          ? `no standby streams: commits are acknowledged by the primary alone (durability preferred), and a failover may lose them, until one streams again`
          : `only ${connected} standbys stream: each commit waits for ${effective} instead of ${number} (durability preferred), and a failover may lose what fewer standbys hold, until ${number} stream again`;
  ctx.synchronous = { number, durability, connected, effective, message };
  const current = synchronousSetting(view.synchronousStandbyNames).number;
  if (value !== view.synchronousStandbyNames && durability === 'preferred') {
    if (effective < number && effective < current)
      ctx.events.push({
        type: 'Warning',
        reason: PlanReasons.SynchronousStandbysLowered,
        message,
      });
    else if (effective === number && current < number)
      ctx.events.push({
        type: 'Normal',
        reason: PlanReasons.SynchronousStandbysRestored,
        message: `${connected} standbys stream again: ${message}`,
      });
  }
  return value;
}

/**
 * In sync mode, every SYNCHRONOUS_COMMIT_CHECK_MS on the serving primary (and at once on a new
 * one): a role's or database's default that weakens synchronous_commit is reset, the owner's is
 * `on`. A session can still SET it for itself; PostgreSQL has no way to forbid that (README).
 */
function holdSynchronousCommit(ctx: PlanContext, p: PrimaryObservation) {
  const { input, memory } = ctx;
  if (input.replication !== 'sync') return;
  const held = memory.synchronousCommitHeld;
  if (held?.pod === p.name && ms(input.now) - ms(held.at) < SYNCHRONOUS_COMMIT_CHECK_MS) return;
  ctx.actions.push({ type: 'synchronousCommit', pod: p.name, at: input.now });
}

/**
 * The serving primary as this observation saw it (the memory's `lastSeen`), with the standbys
 * that may hold every commit acknowledged since `syncFromLsn`. The setting read and the one this
 * reconcile sets both count (the new one takes effect after this observation): their names
 * together, the smaller number, and synchronous only while both are. The span of positions it
 * covers goes on from an earlier observation of this primary when the standbys named are the same
 * or more (their union, the smaller number: a commit is on at least that many of them); when
 * standbys left the setting it starts again here (a commit only they confirmed is not counted on).
 */
function seenServing(
  ctx: PlanContext,
  p: PrimaryObservation,
  view: ReachableView,
  names: string,
): NonNullable<PlanMemory['lastSeen']> {
  const before = ctx.memory.lastSeen;
  const lsn = view.currentLsn ?? before?.lsn ?? 0n;
  const read = synchronousSetting(view.synchronousStandbyNames);
  const set = synchronousSetting(names);
  const now = new Set([
    ...view.replication
      .filter((r) => r.syncState === 'sync' || r.syncState === 'quorum')
      .map((r) => r.applicationName),
    ...read.names,
    ...set.names,
  ]);
  const number = Math.min(read.number, set.number);
  const inSync = number > 0 && read.names.length > 0 && set.names.length > 0;
  const earlier =
    inSync && before?.pod === p.name && before.syncFromLsn !== undefined ? before : undefined;
  const was = new Set(earlier?.syncStandbys ?? []);
  const left = earlier !== undefined && [...was].some((n) => !now.has(n));
  const goesOn = earlier !== undefined && !left;
  const syncStandbys = [...(goesOn ? new Set([...was, ...now]) : now)].sort();
  return {
    pod: p.name,
    lsn,
    at: ctx.observedAt,
    timeline: view.timeline,
    syncStandbys,
    ...(inSync
      ? {
          syncFromLsn: goesOn ? earlier.syncFromLsn! : lsn,
          syncNumber: goesOn ? Math.min(earlier.syncNumber ?? 1, number) : number,
        }
      : {}),
  };
}

/**
 * A promotion decided and not yet carried out (or this reconcile follows a crash): true when it
 * is carried out now (the target told `primary` and promoted, after the fences {@link follow}
 * gives). A recorded decision is never re-chosen; promoting an instance that already left
 * recovery is a no-op. Never two primaries: the old primary is fenced by {@link follow} (out of
 * the read-write Service, told to stop; its fast shutdown hands the streaming standbys its WAL)
 * before the promotion — a controller stopping in between must not leave it told `primary`,
 * which it would start as when its container restarts. If it serves again — it returned before
 * its fence was carried out (a controller that stopped between recording the decision and
 * acting) — promoting now would make two: the promotion waits until it stopped.
 */
function resumePromotion(ctx: PlanContext, p: PrimaryObservation): boolean {
  const switchover = ctx.switchover;
  const switching = switchover?.phase === 'Promoting' && switchover.to === p.name;
  const from = switching ? switchover!.from : p.failover!.from;
  const old = ctx.byName.get(from);
  const oldView = old ? ours(p, old) : undefined;
  if (oldView && !oldView.inRecovery) {
    ctx.requeueAfterMs = 500;
    ctx.progressing = {
      reason: switching ? PlanReasons.SwitchingOver : PlanReasons.FailingOver,
      message: `${from} serves as a primary again: it is told to stop before ${p.name} is promoted`,
    };
    return false;
  }
  if (!holdLease(ctx, p.name, switching)) return false;
  ctx.progressing = {
    reason: switching ? PlanReasons.SwitchingOver : PlanReasons.FailingOver,
    message: `promoting ${p.name} (${switching ? 'switchover' : 'failover'} from ${from})`,
  };
  return true;
}

/** Why the recorded primary does not serve. */
function lossReason(p: PrimaryObservation): LossReason {
  const primary = p.facts;
  if (!primary) return 'PrimaryPodMissing';
  if (primary.deleting) return 'PrimaryPodDeleted';
  if (!primary.view) return 'PrimaryNotRunning';
  if (!primary.view.reachable) return 'PrimaryUnreachable';
  if (primary.view.systemIdentifier !== p.systemIdentifier) return 'PrimaryForeign';
  return 'PrimaryInRecovery';
}

/**
 * Where no failover will happen (none is possible, allowed or wanted), a new pod of the primary
 * (a deleted pod comes back without an instruction) is told to be the primary again: PostgreSQL
 * recovers from its volume. Before failover.after it is not: a replaced primary pod is a lost
 * primary, and the failover decides.
 */
function letPrimaryReturn(ctx: PlanContext, p: PrimaryObservation) {
  const primary = p.facts;
  if (primary && !primary.deleting && primary.instruction !== 'primary')
    if (holdLease(ctx, p.name, false)) instruct(ctx, primary, 'primary');
}

/**
 * The primary is lost: the loss is remembered (since when, and why), and nothing is decided
 * until a failover is possible (enabled, a standby to promote), not held (the controller's own
 * roll) and `failover.after` has passed — then {@link failOver} decides.
 */
function primaryLost(ctx: PlanContext, p: PrimaryObservation) {
  const { input, memory } = ctx;
  const reason = lossReason(p);
  // Lost since the start of the first observation it failed (not its end: one that waited out
  // a timeout on a hung server has already gone unanswered for that long).
  const since = memory.lostSince ?? ctx.observedAt;
  memory.lostSince = since;
  memory.lostReason = reason;
  const gone = ms(input.now) - ms(since);
  const others = input.instances.filter((f) => f.name !== p.name);
  if (!input.failover.enabled || input.replicas < 2 || others.length === 0) {
    letPrimaryReturn(ctx, p);
    ctx.degraded = {
      reason: input.failover.enabled ? PlanReasons.PrimaryLost : PlanReasons.FailoverDisabled,
      message: `primary ${p.name} is lost (${reason}) since ${since}; ${input.failover.enabled ? 'there is no standby to promote' : 'spec.failover.enabled is false'}: waiting for it to return`,
    };
    return;
  }
  if (input.holdFailover) {
    letPrimaryReturn(ctx, p);
    ctx.requeueAfterMs = 1000;
    ctx.progressing = {
      reason: PlanReasons.PrimaryLost,
      message: `primary ${p.name} is restarting with the new pod template`,
    };
    return;
  }
  const fence = fenceOf(ctx);
  if (fence?.fence.enforced) {
    // The Lease decides: the old primary stops itself once it cannot renew for the bound, so a
    // promotion after that never overlaps it.
    if (fence.quietMs < fence.fence.boundMs) {
      const left = fence.fence.boundMs - fence.quietMs;
      // The next look decides after its observations, which take as long as this one's (an
      // unreachable primary's timeout): started that much earlier, it decides on time.
      const observing = Math.max(0, ms(input.now) - ms(ctx.observedAt));
      ctx.requeueAfterMs = Math.max(100, left - observing);
      ctx.progressing = {
        reason: PlanReasons.PrimaryLost,
        message: `primary ${p.name} is lost (${reason}) since ${since}; its Lease was last renewed ${Math.floor(fence.quietMs / 1000)}s ago: it fences itself, and a standby is promoted, in ${Math.ceil(left / 1000)}s unless it renews`,
      };
      return;
    }
  } else if (gone < input.failover.afterMs) {
    const left = input.failover.afterMs - gone;
    ctx.requeueAfterMs = Math.max(100, left);
    ctx.progressing = {
      reason: PlanReasons.PrimaryLost,
      message: `primary ${p.name} is lost (${reason}) since ${since}; failover in ${Math.ceil(left / 1000)}s unless it returns`,
    };
    return;
  }
  failOver(ctx, p, { reason, since }, others);
}

/**
 * The standbys a failover may promote, best first: reachable, of this cluster, in recovery, on
 * the newest timeline, then by the highest received LSN (ties: the lowest ordinal). A standby on
 * a timeline older than the primary's did not follow its promotion: its WAL positions are not the
 * primary's (it may hold WAL of the timeline the primary forked off), so they say nothing of what
 * it lacks. It is no candidate.
 */
function failoverCandidates(
  ctx: PlanContext,
  p: PrimaryObservation,
  others: InstanceFacts[],
): Candidate[] {
  const timelineFloor = Math.max(
    lastSeenOf(ctx, p)?.timeline ?? 0,
    (p.failover?.to === p.name ? p.failover?.newTimeline : undefined) ?? 0,
  );
  return others
    .filter((f) => {
      const v = ours(p, f);
      return v?.inRecovery === true && v.timeline >= timelineFloor;
    })
    .map((f) => {
      const v = ours(p, f)!;
      // The receive position restarts at a segment boundary when a standby restarts: the
      // replayed one may be ahead of it.
      return { facts: f, timeline: v.timeline, lsn: maxLsn(v.receiveLsn, v.replayLsn) ?? 0n };
    })
    .sort((a, b) =>
      a.timeline !== b.timeline
        ? b.timeline - a.timeline
        : a.lsn === b.lsn
          ? a.facts.ordinal - b.facts.ordinal
          : a.lsn > b.lsn
            ? -1
            : 1,
    );
}

/**
 * `failover.after` has passed without the primary: choose the best candidate and bound what
 * promoting it loses (the lag bound). `None` when sync replication had confirmed every commit on
 * enough standbys that answer ({@link quorumConfirmed}); `Bounded` by the primary's last seen WAL
 * position ({@link lastSeenOf}); `Unknown` when it was neither seen by this process nor recorded.
 * A `Bounded` lag (+ a record's slack) over `failover.maxLagBytes` refuses the
 * failover ({@link refuseFailover}); otherwise {@link decideFailover} decides it.
 */
function failOver(ctx: PlanContext, p: PrimaryObservation, loss: Loss, others: InstanceFacts[]) {
  const { input } = ctx;
  const candidates = failoverCandidates(ctx, p, others);
  const best = candidates[0];
  if (!best) {
    letPrimaryReturn(ctx, p);
    ctx.degraded = {
      reason: PlanReasons.NoStandbyToPromote,
      message: `primary ${p.name} is lost (${loss.reason}) since ${loss.since} and no standby of this cluster answers: waiting for the primary or a standby to return`,
    };
    return;
  }
  const seen = lastSeenOf(ctx, p);
  const lag = seen ? (seen.lsn > best.lsn ? seen.lsn - best.lsn : 0n) : undefined;
  const risk: DataLossRisk = quorumConfirmed(input, seen, candidates, best)
    ? 'None'
    : seen
      ? 'Bounded'
      : 'Unknown';
  // A recorded position may be short of what its controller saw last by its slack.
  if (risk === 'Bounded' && lag! + (seen!.slackBytes ?? 0n) > input.failover.maxLagBytes) {
    refuseFailover(ctx, p, loss, best, seen!, lag!);
    return;
  }
  decideFailover(ctx, p, loss, best, { seen, lag, risk });
}

/**
 * The primary as last seen: this process's memory, else `status.primaryLastSeen` when it
 * describes this primary since it became primary (with its `slackBytes`; with durability
 * `preferred` without its synchronous span: the controller that wrote it may have lowered the
 * setting after writing it).
 */
function lastSeenOf(ctx: PlanContext, p: PrimaryObservation): PlanMemory['lastSeen'] {
  const { input, memory } = ctx;
  const remembered = memory.lastSeen?.pod === p.name ? memory.lastSeen : undefined;
  const record = input.lastSeenRecord;
  // The newer of the two (another controller may have led in between).
  if (!record || record.pod !== p.name || (remembered && ms(remembered.at) >= ms(record.at)))
    return remembered;
  // Recorded before this pod last became primary: another stint, another history.
  const became = [p.failover, ctx.switchover]
    .filter((r) => r?.to === p.name)
    .map((r) => ms(r!.startedAt));
  if (became.some((t) => ms(record.at) < t)) return remembered;
  const synced = record.syncFromLsn !== undefined && input.synchronous?.durability !== 'preferred';
  return {
    pod: record.pod,
    lsn: parseLsn(record.lsn),
    at: record.at,
    ...(record.timeline !== undefined ? { timeline: record.timeline } : {}),
    syncStandbys: record.syncStandbys ?? [],
    ...(synced
      ? { syncFromLsn: parseLsn(record.syncFromLsn!), syncNumber: record.syncNumber ?? 1 }
      : {}),
    slackBytes: BigInt(record.slackBytes),
  };
}

/**
 * Sync replication confirmed every commit on the best candidate (`None`): the primary was seen
 * synchronous since a position the candidate holds (what was acknowledged before may be only on
 * the old primary), and every commit since is on `syncNumber` of the `syncStandbys` — so on one
 * of any N − n + 1 of those N, and the best candidate is the most advanced of at least that many
 * standbys that answer (candidates on the newest timeline).
 */
function quorumConfirmed(
  input: PlanInput,
  seen: PlanMemory['lastSeen'],
  candidates: Candidate[],
  best: Candidate,
): boolean {
  if (input.replication !== 'sync' || !seen || seen.syncFromLsn === undefined) return false;
  const named = seen.syncStandbys;
  if (named.length === 0 || best.lsn < seen.syncFromLsn) return false;
  const answering = new Set(
    candidates.filter((c) => c.timeline === best.timeline).map((c) => c.facts.name),
  );
  const among = named.filter((s) => answering.has(s)).length;
  return among >= named.length - (seen.syncNumber ?? 1) + 1;
}

/**
 * What `status.primaryLastSeen` is to say: the primary as this process last saw it serving when
 * that differs materially from the record — another primary, timeline or synchronous span, a
 * position more than the slack (maxLagBytes / 8) past the recorded one, or any other position a
 * minute after the record — else the record as it is (no write). So the record is never more
 * than the slack behind this process's last sight.
 */
export function primaryRecord(input: PlanInput, memory: PlanMemory): PrimaryLastSeen | undefined {
  const recorded = input.lastSeenRecord;
  const seen = memory.lastSeen;
  if (!seen) return recorded;
  const slack = input.failover.maxLagBytes / 8n;
  const fresh: PrimaryLastSeen = {
    pod: seen.pod,
    lsn: formatLsn(seen.lsn),
    at: seen.at,
    ...(seen.timeline !== undefined ? { timeline: seen.timeline } : {}),
    slackBytes: Number(slack),
    ...(seen.syncStandbys.length > 0 ? { syncStandbys: seen.syncStandbys } : {}),
    ...(seen.syncFromLsn !== undefined
      ? { syncFromLsn: formatLsn(seen.syncFromLsn), syncNumber: seen.syncNumber ?? 1 }
      : {}),
  };
  if (!recorded) return fresh;
  // Another controller recorded a later sight (it led in between): not overwritten with an older one.
  if (ms(recorded.at) > ms(seen.at)) return recorded;
  const same = (a: PrimaryLastSeen, b: PrimaryLastSeen) =>
    a.pod === b.pod &&
    a.timeline === b.timeline &&
    a.slackBytes === b.slackBytes &&
    a.syncFromLsn === b.syncFromLsn &&
    a.syncNumber === b.syncNumber &&
    (a.syncStandbys ?? []).join(',') === (b.syncStandbys ?? []).join(',');
  const was = parseLsn(recorded.lsn);
  const moved =
    seen.lsn < was ||
    seen.lsn - was > slack ||
    // A write a minute at most while it moves at all: primaryLastSeenAt stays recent.
    (seen.lsn !== was && ms(seen.at) - ms(recorded.at) >= PRIMARY_RECORD_REFRESH_MS);
  return !same(fresh, recorded) || moved ? fresh : recorded;
}

/**
 * The failover would lose more than `failover.maxLagBytes`: nothing is decided or recorded; the
 * primary may return, and the refusal is reported once (one Event per refusal, not per poll).
 */
function refuseFailover(
  ctx: PlanContext,
  p: PrimaryObservation,
  loss: Loss,
  best: Candidate,
  seen: NonNullable<PlanMemory['lastSeen']>,
  lag: bigint,
) {
  const { input, memory } = ctx;
  const recorded = seen.slackBytes !== undefined && seen.slackBytes > 0n;
  const message = `failover refused: the most advanced standby ${best.facts.name} has received WAL up to ${formatLsn(best.lsn)}, the primary ${p.name} was last seen at ${formatLsn(seen.lsn)} (${seen.at}${seen.slackBytes !== undefined ? ', as status.primaryLastSeen recorded it' : ''}): promoting it could lose ${lag}${recorded ? ` (+ up to ${seen.slackBytes} seen after the record)` : ''} bytes of WAL, more than spec.failover.maxLagBytes ${input.failover.maxLagBytes}. Waiting for ${p.name} to return; to accept the loss, raise spec.failover.maxLagBytes`;
  ctx.degraded = { reason: PlanReasons.FailoverRefusedLagExceedsBound, message };
  letPrimaryReturn(ctx, p);
  const key = `${p.name}/${loss.since}/${best.facts.name}/${best.lsn}`;
  if (memory.refusalReported !== key) {
    memory.refusalReported = key;
    ctx.events.push({
      type: 'Warning',
      reason: PlanReasons.FailoverRefusedLagExceedsBound,
      message,
    });
  }
}

/**
 * The failover decided: durable before it is carried out (phase Promoting, the new
 * `primary`, `failoverCount + 1` — counted once, in the same write as the record a later
 * reconcile resumes and never re-chooses). Fence first: the old primary out of the read-write
 * Service and told to stop, then the chosen standby told `primary` and promoted.
 */
function decideFailover(
  ctx: PlanContext,
  p: PrimaryObservation,
  loss: Loss,
  best: Candidate,
  assessed: { seen: PlanMemory['lastSeen']; lag: bigint | undefined; risk: DataLossRisk },
) {
  const { input, memory } = ctx;
  const { seen, lag, risk } = assessed;
  const to = best.facts.name;
  const fence = fenceOf(ctx);
  // By this time the old primary had stopped accepting writes: its last renewal began before this
  // process first saw the Lease's version, and it stops itself within the bound of it.
  const fencedBy = fence?.fence.enforced
    ? new Date(ms(fence.fence.quietSince) + fence.fence.boundMs).toISOString()
    : undefined;
  if (fence) ctx.lease = { holder: to, resourceVersion: fence.fence.resourceVersion };
  // What it may have acknowledged after it was last seen and before it fenced itself: no
  // position of it was read, so it is bounded in time, not in bytes (salvage saves it).
  const unobserved =
    fencedBy && seen && ms(fencedBy) > ms(seen.at)
      ? `, plus what ${p.name} acknowledged between ${seen.at} and ${fencedBy}, when it had fenced itself (nothing after)`
      : '';
  const riskWords =
    risk === 'None'
      ? `sync replication had confirmed every commit on ${seen!.syncNumber ?? 1} of ${seen!.syncStandbys.join(', ')}, and ${to} is the most advanced of enough of them: nothing committed is lost`
      : risk === 'Bounded'
        ? `at most ${lag} bytes of WAL written by ${seen!.at} may be lost (the bound is ${input.failover.maxLagBytes})${unobserved}`
        : `the old primary's last WAL position was never seen by this controller: what was lost is unknown`;
  const record: FailoverRecord = {
    phase: 'Promoting',
    from: p.name,
    to,
    reason: loss.reason,
    startedAt: input.now,
    primaryLostAt: loss.since,
    ...(fencedBy ? { primaryFencedBy: fencedBy } : {}),
    ...(seen ? { primaryLastLsn: formatLsn(seen.lsn), primaryLastSeenAt: seen.at } : {}),
    promotedLsn: formatLsn(best.lsn),
    ...(lag !== undefined ? { bytesPossiblyLost: Number(lag) } : {}),
    dataLossRisk: risk,
    maxLagBytes: Number(input.failover.maxLagBytes),
    // What the old primary had that the new timeline lacks is kept when it returns.
    salvage: {
      phase: 'Pending',
      message: `kept when ${p.name} returns, before it is rewound onto ${to}'s timeline`,
    },
    message: `failover from ${p.name} (${loss.reason}) to ${to} at ${formatLsn(best.lsn)}: ${riskWords}`,
  };
  decide(ctx, {
    primary: to,
    failover: record,
    failoverCount: (input.status.failoverCount ?? 0) + 1,
  });
  // Fence first: out of the read-write Service, told to stop; then promote.
  label(ctx, p.facts, null);
  instruct(ctx, p.facts, 'wait');
  instruct(ctx, best.facts, 'primary');
  ctx.actions.push({ type: 'promote', pod: to });
  ctx.events.push({
    type: risk === 'Unknown' ? 'Warning' : 'Normal',
    reason: 'FailingOver',
    message: record.message,
  });
  memory.lostSince = undefined;
  memory.lostReason = undefined;
  ctx.progressing = { reason: PlanReasons.FailingOver, message: record.message };
}

/** The old primary of a promotion under way (it stays fenced until the new primary serves). */
function demotedBy(ctx: PlanContext, p: PrimaryObservation, name: string): boolean {
  const switchover = ctx.switchover;
  return (
    (p.failover?.phase === 'Promoting' && p.failover.from === name) ||
    (switchover?.phase === 'Promoting' && switchover.from === name)
  );
}

/**
 * One instance other than the primary follows it. Never two primaries: one holding another
 * cluster is kept out of the Services; one serving as a primary is fenced (out of the read-write
 * Service, told to follow — the agent stops it, rewinds it, starts it as a standby — or to wait
 * while no primary serves); the old primary of a promotion under way stays fenced. Once the
 * primary serves (`primaryIp`), every other instance is told `standby`, labelled and repointed,
 * or re-cloned when pg_rewind could not bring it onto the primary's timeline.
 */
function follow(
  ctx: PlanContext,
  p: PrimaryObservation,
  f: InstanceFacts,
  primaryIp: string | undefined,
) {
  const view = reachable(f);
  if (view && view.systemIdentifier !== p.systemIdentifier) {
    ctx.degraded ??= {
      reason: PlanReasons.ForeignInstance,
      message: `${f.name} holds another cluster (system identifier ${view.systemIdentifier}, expected ${p.systemIdentifier}): it is kept out of the Services; move its volume away (or delete its PersistentVolumeClaim) to have it cloned afresh`,
    };
    label(ctx, f, null);
    return;
  }
  if (view && !view.inRecovery) {
    // A second primary: fence it (the agent stops it, rewinds it and starts it as a standby).
    label(ctx, f, null);
    if (primaryIp) instruct(ctx, f, `standby ${primaryIp}`);
    else instruct(ctx, f, 'wait');
    ctx.events.push({
      type: 'Warning',
      reason: PlanReasons.SplitBrainFenced,
      message: `${f.name} serves as a primary but ${p.name} is the primary: fenced (out of the read-write Service, stopped, rewound as a standby)`,
    });
    return;
  }
  if (demotedBy(ctx, p, f.name)) {
    // The old primary stays fenced until the new primary serves.
    label(ctx, f, null);
    instruct(ctx, f, 'wait');
    return;
  }
  if (!primaryIp) return;
  // An instance pg_rewind could not bring onto the primary's timeline (the WAL it needs is
  // gone) is re-cloned: its old data directory is moved aside, a fresh copy streams. Once it
  // serves as a standby it is told `standby` again (no restart), so a later restart never
  // re-clones.
  const rewindFailed = !view && /pg_rewind against \S+ failed/.test(f.lastMessage ?? '');
  const recloning = f.instruction?.startsWith('reclone ') && !view;
  if (rewindFailed || recloning) {
    if (!recloning || f.instruction !== `reclone ${primaryIp}`) {
      instruct(ctx, f, `reclone ${primaryIp}`);
      if (rewindFailed && !f.instruction?.startsWith('reclone '))
        ctx.events.push({
          type: 'Warning',
          reason: PlanReasons.Recloned,
          message: `${f.name} could not be rewound onto ${p.name}'s timeline (${f.lastMessage}): re-cloning it from ${p.name}; its old data directory is kept beside the new one until the next re-clone`,
        });
    }
    return;
  }
  instruct(ctx, f, `standby ${primaryIp}`);
  if (view) recordSalvage(ctx, f, view);
  if (view) {
    label(ctx, f, Roles.standby);
    if (view.conninfoHost !== primaryIp)
      ctx.actions.push({ type: 'repoint', pod: f.name, host: primaryIp });
  }
}

/**
 * The old primary of the newest failover, back as a standby: what its agent kept before the
 * rewind (its manifest, written after the failover began) goes into `status.failover.salvage`,
 * once.
 */
function recordSalvage(ctx: PlanContext, f: InstanceFacts, view: ReachableView) {
  const failover = ctx.decided?.failover ?? ctx.input.status.failover;
  const kept = view.salvage;
  if (!failover || failover.from !== f.name || !kept) return;
  if (failover.salvage?.phase !== undefined && failover.salvage.phase !== 'Pending') return;
  if (ms(kept.savedAt) < ms(failover.startedAt) - 1000) return;
  decide(ctx, {
    failover: {
      ...failover,
      salvage: {
        phase: kept.phase,
        ...(kept.from ? { from: kept.from } : {}),
        ...(kept.to ? { to: kept.to } : {}),
        ...(kept.bytes !== undefined ? { bytes: kept.bytes } : {}),
        ...(kept.location ? { location: kept.location } : {}),
        savedAt: kept.savedAt,
        message: `${f.name}: ${kept.message}`,
      },
    },
  });
  ctx.events.push({
    type: kept.phase === 'Failed' ? 'Warning' : 'Normal',
    reason:
      kept.phase === 'Saved'
        ? 'Salvaged'
        : kept.phase === 'Failed'
          ? 'SalvageFailed'
          : 'NothingToSalvage',
    message: `${f.name}: ${kept.message}${kept.location ? ` (${kept.location})` : ''}`,
  });
}

/**
 * A failover whose new primary serves is complete once the others were told to follow
 * (Repointing → Completed, `lastFailover`): a failover is `Completed` only once its target serves.
 */
function completeFailover(ctx: PlanContext, p: PrimaryObservation, view: ReachableView) {
  const { input } = ctx;
  const current = ctx.decided?.failover ?? input.status.failover;
  if (current?.phase !== 'Repointing' || current.to !== p.name) return;
  decide(ctx, {
    failover: { ...current, phase: 'Completed', completedAt: input.now },
    lastFailover: input.now,
  });
  ctx.events.push({
    type: current.dataLossRisk === 'None' ? 'Normal' : 'Warning',
    reason: 'FailoverCompleted',
    message: `${p.name} is the primary (timeline ${current.newTimeline ?? view.timeline}); ${current.message}`,
  });
}

/** Likewise a switchover whose target serves: Completed, and the request removed. */
function completeSwitchover(ctx: PlanContext, p: PrimaryObservation, view: ReachableView) {
  const { input } = ctx;
  const current = ctx.switchover;
  if (current?.phase !== 'Repointing' || current.to !== p.name) return;
  ctx.switchover = {
    ...current,
    phase: 'Completed',
    completedAt: input.now,
    message: `switchover from ${current.from} to ${p.name} (${current.reason}): ${current.from} stopped cleanly at or after ${current.primaryLastLsn ?? 'its last position'} and ${p.name} had received all of it (${current.promotedLsn ?? '?'}) before its promotion to timeline ${current.newTimeline ?? view.timeline}: nothing committed is lost${writePause(current)}`,
  };
  decide(ctx, { switchover: ctx.switchover });
  ctx.switchoverHandled = true;
  ctx.events.push({
    type: 'Normal',
    reason: PlanReasons.SwitchoverCompleted,
    message: ctx.switchover.message,
  });
}

/** `; writes paused for 1.4 s` when the record has both ends of the pause, else ''. */
function writePause(record: SwitchoverRecord): string {
  if (!record.writesStoppedAt || !record.writesResumedAt) return '';
  const paused = ms(record.writesResumedAt) - ms(record.writesStoppedAt);
  return `; writes paused for ${(paused / 1000).toFixed(1)} s`;
}

/** A standby a switchover may go to: of this cluster, streaming, ready, and staying. */
function switchoverReady(p: PrimaryObservation, stays: Set<string>, f: InstanceFacts): boolean {
  const v = ours(p, f);
  return v !== undefined && v.inRecovery && v.streaming && f.ready && stays.has(f.name);
}

/** How far a standby of this cluster is behind the serving primary's current WAL position. */
function switchoverLag(p: PrimaryObservation, view: ReachableView, f: InstanceFacts): bigint {
  const v = ours(p, f)!;
  const got = maxLsn(v.receiveLsn, v.replayLsn) ?? 0n;
  const has = view.currentLsn ?? got;
  return has > got ? has - got : 0n;
}

/**
 * A switchover asked for while the primary serves and nothing else is under way: to a standby
 * of this cluster that stays (ordinal below spec.replicas), streaming and nearly caught up.
 * A request that cannot be met is refused once (Failed, Event); one that must wait says why.
 * Decided before acted on: the Demoting record and `switchoverCount + 1` are written first.
 */
function requestSwitchover(
  ctx: PlanContext,
  p: PrimaryObservation,
  view: ReachableView,
  request: NonNullable<PlanInput['switchover']>,
) {
  const { input } = ctx;
  const target = switchoverTarget(ctx, p, view, request);
  if (!target) return;
  const lag = switchoverLag(p, view, target);
  if (lag > SWITCHOVER_MAX_LAG_BYTES) {
    ctx.progressing = {
      reason: PlanReasons.SwitchoverWaiting,
      message: `switchover to ${target.name} waits for it to catch up: ${lag} bytes behind ${p.name}`,
    };
    return;
  }
  ctx.switchover = {
    phase: 'Demoting',
    from: p.name,
    to: target.name,
    reason: request.reason,
    startedAt: input.now,
    // demote() takes it out of the read-write Service and stops it in this same plan.
    writesStoppedAt: input.now,
    ...(view.currentLsn !== undefined ? { primaryLastLsn: formatLsn(view.currentLsn) } : {}),
    message: `switchover from ${p.name} to ${target.name} (${request.reason}): stopping ${p.name}`,
  };
  decide(ctx, {
    switchover: ctx.switchover,
    switchoverCount: (input.status.switchoverCount ?? 0) + 1,
  });
  ctx.events.push({
    type: 'Normal',
    reason: PlanReasons.SwitchingOver,
    message: ctx.switchover.message,
  });
}

/**
 * The instance a switchover request goes to: the one named (refused when it is the primary
 * already or no instance of this cluster, waited for until it is a ready standby), or the most
 * advanced ready standby that stays. Undefined when the request was dealt with or must wait.
 */
function switchoverTarget(
  ctx: PlanContext,
  p: PrimaryObservation,
  view: ReachableView,
  request: NonNullable<PlanInput['switchover']>,
): InstanceFacts | undefined {
  const { input } = ctx;
  const stays = new Set(desiredNames(input));
  if (request.to === undefined) {
    const avoid = new Set(request.avoid ?? []);
    const target = ctx.live
      .filter((f) => f.name !== p.name && !avoid.has(f.name) && switchoverReady(p, stays, f))
      .sort((a, b) => {
        const la = switchoverLag(p, view, a);
        const lb = switchoverLag(p, view, b);
        return la === lb ? a.ordinal - b.ordinal : la < lb ? -1 : 1;
      })[0];
    if (!target)
      ctx.progressing = {
        reason: PlanReasons.SwitchoverWaiting,
        message:
          request.reason === 'Rollout'
            ? `the rolling update reached the primary ${p.name}: it is restarted once a switchover to a ready standby streaming from it has moved the primary, and none is ready`
            : request.reason === 'NodeDrain'
              ? `the node of the primary ${p.name} is being drained: its eviction waits until a switchover moved the primary to a ready standby on another node, and none is ready${avoid.size > 1 ? ` (${[...avoid].filter((n) => n !== p.name).join(', ')} on cordoned nodes too)` : ''}`
              : `${p.name} is beyond spec.replicas ${input.replicas}: it is kept until a switchover to a ready standby can move the primary, and none is ready`,
      };
    return target;
  }
  if (request.to === p.name) {
    ctx.switchoverHandled = true;
    if (request.reason === 'Requested')
      ctx.events.push({
        type: 'Normal',
        reason: PlanReasons.SwitchoverCompleted,
        message: `switchover to ${request.to} asked for: it is the primary already`,
      });
    return undefined;
  }
  if (!stays.has(request.to)) {
    ctx.switchover = {
      phase: 'Failed',
      from: p.name,
      to: request.to,
      reason: request.reason,
      startedAt: input.now,
      completedAt: input.now,
      message: `switchover to ${request.to} refused: it is not an instance of this cluster (the instances are ${[...stays].join(', ')}); ${p.name} stays primary`,
    };
    decide(ctx, { switchover: ctx.switchover });
    ctx.switchoverHandled = true;
    ctx.events.push({
      type: 'Warning',
      reason: PlanReasons.SwitchoverFailed,
      message: ctx.switchover.message,
    });
    return undefined;
  }
  const target = ctx.byName.get(request.to);
  if (!target || !switchoverReady(p, stays, target)) {
    ctx.progressing = {
      reason: PlanReasons.SwitchoverWaiting,
      message: `switchover to ${request.to} waits until it is a ready standby streaming from ${p.name}`,
    };
    return undefined;
  }
  return target;
}

/**
 * The old primary is taken out of the read-write Service and stopped with a fast shutdown,
 * which ends only once every streaming standby has flushed all of its WAL (the shutdown
 * checkpoint included). Once PostgreSQL no longer runs there (the port refuses connections),
 * the target — still in recovery, having received at least the newest position seen on the
 * old primary — is promoted. A target that is lost meanwhile, or a shutdown that does not
 * end in time, gives the switchover up: the old primary is told to run as primary again.
 * Never two primaries, decided before acted on: the new `primary` is written with the
 * Promoting record, the old primary kept fenced, and only then the target promoted.
 */
function demote(ctx: PlanContext, p: PrimaryObservation, record: SwitchoverRecord) {
  const { input, memory } = ctx;
  const primary = p.facts;
  const target = ctx.byName.get(record.to);
  const tView = target ? ours(p, target) : undefined;
  if (p.serving) {
    memory.lastSeen = {
      pod: p.name,
      lsn: p.serving.currentLsn ?? memory.lastSeen?.lsn ?? 0n,
      at: ctx.observedAt,
      timeline: p.serving.timeline,
      syncStandbys: memory.lastSeen?.syncStandbys ?? [],
      ...(memory.lastSeen?.pod === p.name && memory.lastSeen.syncFromLsn !== undefined
        ? { syncFromLsn: memory.lastSeen.syncFromLsn }
        : {}),
    };
  }
  if (!target || target.deleting || !tView || !tView.inRecovery) {
    giveUpSwitchover(
      ctx,
      p,
      record,
      `${record.to} is no longer a standby of this cluster that answers`,
    );
    return;
  }
  if (!primary || primary.deleting || !primary.view) {
    // Not a clean stop the controller asked for: what it may have lost is for the failover
    // rules to bound and publish.
    giveUpSwitchover(
      ctx,
      p,
      record,
      `${record.from} was lost while it stopped (its pod or container is gone); if it does not return, the failover rules apply`,
    );
    return;
  }
  // The agent stopped PostgreSQL as told: nothing listens on the port any more.
  const stopped =
    primary.instruction === 'wait' &&
    !primary.view.reachable &&
    /ECONNREFUSED/.test(primary.view.error);
  const lastSeen = memory.lastSeen;
  const seen = lastSeen && lastSeen.pod === p.name ? lastSeen.lsn : undefined;
  const recorded = record.primaryLastLsn ? parseLsn(record.primaryLastLsn) : undefined;
  const last = maxLsn(seen, recorded);
  const received = maxLsn(tView.receiveLsn, tView.replayLsn) ?? 0n;
  const elapsed = ms(input.now) - ms(record.startedAt);
  if (!stopped || (last !== undefined && received < last)) {
    if (elapsed > SWITCHOVER_DEMOTE_TIMEOUT_MS) {
      giveUpSwitchover(
        ctx,
        p,
        record,
        !stopped
          ? `${record.from} did not stop within ${SWITCHOVER_DEMOTE_TIMEOUT_MS / 1000}s`
          : `${record.to} received WAL up to ${formatLsn(received)} only, short of ${formatLsn(last!)} seen on ${record.from}`,
      );
      return;
    }
    label(ctx, primary, null);
    instruct(ctx, primary, 'wait');
    ctx.requeueAfterMs = 500;
    ctx.progressing = {
      reason: PlanReasons.SwitchingOver,
      message: !stopped
        ? `switchover to ${record.to}: ${record.from} is out of the read-write Service and stopping`
        : `switchover to ${record.to}: waiting for it to receive ${formatLsn(last!)} (has ${formatLsn(received)})`,
    };
    return;
  }
  // Stopped, and the target has it all: promote — the Lease first (the old primary stopped
  // cleanly: nothing to wait for).
  holdLease(ctx, record.to, true);
  ctx.switchover = {
    ...record,
    phase: 'Promoting',
    ...(last !== undefined ? { primaryLastLsn: formatLsn(last) } : {}),
    promotedLsn: formatLsn(received),
    message: `switchover from ${record.from} to ${record.to} (${record.reason}): promoting ${record.to} at ${formatLsn(received)}`,
  };
  decide(ctx, { primary: record.to, switchover: ctx.switchover });
  label(ctx, primary, null);
  instruct(ctx, primary, 'wait');
  instruct(ctx, target, 'primary');
  ctx.actions.push({ type: 'promote', pod: record.to });
  ctx.progressing = { reason: PlanReasons.SwitchingOver, message: ctx.switchover.message };
}

/** The switchover given up (Failed, Event, the request removed): the old primary runs as primary again. */
function giveUpSwitchover(
  ctx: PlanContext,
  p: PrimaryObservation,
  record: SwitchoverRecord,
  why: string,
) {
  instruct(ctx, p.facts, 'primary');
  if (p.serving) label(ctx, p.facts, Roles.primary);
  ctx.switchover = {
    ...record,
    phase: 'Failed',
    completedAt: ctx.input.now,
    message: `switchover from ${record.from} to ${record.to} given up: ${why}; ${record.from} is told to run as primary again`,
  };
  decide(ctx, { switchover: ctx.switchover });
  ctx.switchoverHandled = true;
  ctx.events.push({
    type: 'Warning',
    reason: PlanReasons.SwitchoverFailed,
    message: ctx.switchover.message,
  });
}

/** The plan as the steps left it, with the health of the status it decides. */
function finish(ctx: PlanContext): Plan {
  const { input, memory, actions, events, decided, requeueAfterMs, switchoverHandled } = ctx;
  const health = healthOf(input, decided ?? input.status, memory, ctx.degraded, ctx.progressing);
  const record = primaryRecord(input, memory);
  if (record) health.primaryLastSeen = record;
  if (ctx.synchronous) health.synchronous = ctx.synchronous;
  return {
    ...(decided ? { status: decided } : {}),
    actions,
    memory,
    events,
    health,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
    ...(switchoverHandled ? { switchoverHandled } : {}),
    ...(ctx.lease ? { lease: ctx.lease } : {}),
  };
}

/** The instances the spec wants: ordinals 0 … replicas − 1 (the primary's kept beyond them). */
function desiredNames(input: PlanInput): string[] {
  return Array.from({ length: input.replicas }, (_, i) => podName(input.cluster, i));
}

function healthOf(
  input: PlanInput,
  status: PlanStatus,
  memory: PlanMemory,
  degraded: PlanHealth['degraded'],
  progressing: PlanHealth['progressing'],
): PlanHealth {
  const primaryName = status.primary;
  const primary = input.instances.find((f) => f.name === primaryName);
  const pView = primary?.view?.reachable && !primary.deleting ? primary.view : undefined;
  const serving =
    pView !== undefined && !pView.inRecovery && pView.systemIdentifier === status.systemIdentifier;
  const failover = status.failover;
  const instances: InstanceStatus[] = input.instances
    .slice()
    .sort((a, b) => a.ordinal - b.ordinal)
    .map((f) => {
      const v = f.view?.reachable ? f.view : undefined;
      const row = pView?.replication.find((r) => r.applicationName === f.name);
      const isPrimary = f.name === primaryName && v !== undefined && !v.inRecovery;
      const sw = status.switchover;
      const fenced =
        f.name !== primaryName &&
        ((failover?.from === f.name && failover.phase !== 'Completed') ||
          (sw?.from === f.name && (sw.phase === 'Promoting' || sw.phase === 'Repointing')) ||
          (v !== undefined && !v.inRecovery));
      const role: InstanceStatus['role'] = isPrimary
        ? 'primary'
        : fenced
          ? 'fenced'
          : v?.inRecovery
            ? 'standby'
            : 'unknown';
      const lag =
        !isPrimary && serving && pView.currentLsn !== undefined && v?.receiveLsn !== undefined
          ? pView.currentLsn > v.receiveLsn
            ? pView.currentLsn - v.receiveLsn
            : 0n
          : undefined;
      const ready =
        f.ready &&
        !f.deleting &&
        v !== undefined &&
        v.systemIdentifier === status.systemIdentifier &&
        (isPrimary || (role === 'standby' && v.streaming));
      const message = f.deleting
        ? 'being deleted'
        : !f.view
          ? f.lastMessage
            ? `not running: ${f.lastMessage}`
            : f.instruction
              ? 'starting'
              : 'waiting for an instruction'
          : !f.view.reachable
            ? f.instruction === 'wait'
              ? 'stopped: told to wait'
              : f.view.error
            : role === 'standby' && !f.view.streaming
              ? 'not streaming from the primary'
              : undefined;
      return {
        name: f.name,
        role,
        ready,
        ...(v ? { timeline: v.timeline } : {}),
        ...(lag !== undefined ? { lagBytes: Number(lag) } : {}),
        ...(row ? { replicationState: row.state, syncState: row.syncState } : {}),
        ...(message ? { message } : {}),
      };
    });
  const readyReplicas = instances.filter((i) => i.ready).length;
  const failingOver =
    (failover !== undefined && failover.phase !== 'Completed') ||
    (memory.lostSince !== undefined && input.failover.enabled && degraded === undefined);
  const switchingOver =
    status.switchover !== undefined &&
    status.switchover.phase !== 'Completed' &&
    status.switchover.phase !== 'Failed';
  const waiting = instances.filter((i) => !i.ready);
  return {
    ...(primaryName ? { primary: primaryName } : {}),
    primaryServing: serving,
    initialised: status.systemIdentifier !== undefined,
    instances,
    readyReplicas,
    ...(serving ? { timeline: pView.timeline } : {}),
    failingOver,
    switchingOver,
    ...(degraded ? { degraded } : {}),
    ...(progressing
      ? { progressing }
      : serving && waiting.length > 0
        ? {
            progressing: {
              reason: PlanReasons.InstancesStarting,
              message: waiting.map((i) => `${i.name}: ${i.message ?? 'not ready'}`).join('; '),
            },
          }
        : {}),
  };
}
