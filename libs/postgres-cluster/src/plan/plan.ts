/**
 * Who is primary, what each instance is told, and what the controller does about it: a pure
 * function over the instances as the controller sees them (Kubernetes facts + one `pg`
 * observation each), the PostgresCluster's status (the durable record: `currentPrimary`,
 * `systemIdentifier`, the newest `failover`) and the controller's memory of the primary (the last
 * WAL position it read — kept in memory, never written on every poll, so a converged cluster
 * costs no API writes).
 *
 * Rules:
 * - `status.currentPrimary` is the authority, written before anything acts on it. A cluster
 *   without `systemIdentifier` is being initialised: its first instance is recorded as primary,
 *   then told `initdb`; the identifier is recorded once that instance serves as primary. From then
 *   on no instance is ever told `initdb` again: an instance that lost its data is cloned, never
 *   initialised into a second cluster.
 * - A new pod is told nothing, so it waits; the primary is told `primary`, every other instance
 *   `standby <primary's pod IP>` once the primary serves (it clones, or rewinds if it was a
 *   primary, then streams). Running standbys whose `primary_conninfo` names another host are
 *   repointed with ALTER SYSTEM; `synchronous_standby_names` on the primary names every other
 *   instance (`ANY 1 (…)`) in sync mode, nothing in async mode.
 * - An instance other than the primary found serving as a primary (a returning old primary that
 *   was not fenced in time, or a person's pg_promote) is fenced: out of the read-write Service and
 *   told `standby`, which stops it and rewinds it.
 * - The primary is lost when its pod is missing, being deleted, not running PostgreSQL or not
 *   answering, or answers in recovery or with another system identifier. After
 *   `failover.after` without it, the reachable standby with the highest received LSN (ties: the
 *   lowest ordinal) on the newest timeline — never one left on a timeline older than the
 *   primary's — is chosen — and promoted only if that loses at most `failover.maxLagBytes` of
 *   what the old primary was last seen to have (`Bounded`), unless sync replication had confirmed
 *   every commit on the standbys that could be chosen (`None`: nothing committed is lost). A
 *   primary never seen by this process gives `Unknown` (the bound cannot be checked; the
 *   promotion goes ahead and says so). Otherwise the failover is refused
 *   (`FailoverRefusedLagExceedsBound`) and the controller waits for the primary or a person.
 * - The decision is durable before it is carried out (`failover` phase Promoting, the new
 *   `currentPrimary`, `failoverCount + 1`), the old primary fenced first (role label removed,
 *   told `wait`), then the standby told `primary` and promoted. A restarted controller resumes it
 *   and never chooses again: promoting an instance that already left recovery is a no-op. An old
 *   primary that serves again before its fence was carried out is fenced, and the promotion waits
 *   until it has stopped.
 */
import {
  type DataLossRisk,
  type FailoverRecord,
  type InstanceStatus,
  type PostgresClusterStatus,
  type ReplicationMode,
  type SwitchoverRecord,
} from '@steward/postgres-cluster-api';
import { podName, Roles } from '../children/names.js';
import { formatLsn, maxLsn, parseLsn } from '../pg/lsn.js';

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
    };

/** One pod of the StatefulSet, as the cache and one observation see it. */
export interface InstanceFacts {
  name: string;
  ordinal: number;
  ip?: string;
  /** The pod's Ready condition. */
  ready: boolean;
  deleting: boolean;
  /** The role label the controller last gave it. */
  roleLabel?: string;
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
  lastSeen?: { pod: string; lsn: bigint; at: string; syncStandbys: string[]; timeline?: number };
  lostSince?: string;
  lostReason?: LossReason;
  /** The refusal last reported (one Event per refusal, not one per poll). */
  refusalReported?: string;
  /** `<pod>/<systemIdentifier>` on which the bootstrap SQL last succeeded. */
  bootstrapped?: string;
}

export interface PlanInput {
  cluster: string;
  /** Instances desired (spec.replicas). */
  replicas: number;
  failover: { enabled: boolean; afterMs: number; maxLagBytes: bigint };
  replication: ReplicationMode;
  /**
   * How the first instance starts a new cluster: `initdb`, or `restore` (from a backup,
   * spec.bootstrap.recovery). Default initdb.
   */
  bootstrap?: 'initdb' | 'restore';
  /** The primary is restarting on the controller's own roll: its absence is no failover (yet). */
  holdFailover?: boolean;
  /**
   * A switchover asked for: by the annotation (`to` names the instance), or by a scale-down that
   * would remove the primary (`to` absent: the most advanced standby that stays).
   */
  switchover?: { to?: string; reason: SwitchoverRecord['reason'] };
  status: PlanStatus;
  instances: InstanceFacts[];
  memory: PlanMemory;
  /** ISO time of this reconcile. */
  now: string;
  /** ISO time taken before any instance was observed (default `now`). */
  observedAt?: string;
}

export type PlanAction =
  | { type: 'instruct'; pod: string; instruction: string }
  | { type: 'label'; pod: string; role: 'primary' | 'standby' | null }
  | { type: 'promote'; pod: string }
  | { type: 'repoint'; pod: string; host: string }
  | { type: 'synchronousStandbyNames'; pod: string; value: string }
  | { type: 'bootstrap'; pod: string; key: string };

export interface PlanEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type PlanStatus = Pick<
  PostgresClusterStatus,
  | 'currentPrimary'
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
  readyInstances: number;
  timeline?: number;
  /** A failover is deciding or being carried out, or the primary is lost and one is pending. */
  failingOver: boolean;
  /** A switchover is being carried out. */
  switchingOver: boolean;
  /** Something a person should look at (a refused failover, no standby to promote…). */
  degraded?: { reason: string; message: string };
  /** Why the cluster is not yet where it is going. */
  progressing?: { reason: string; message: string };
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
} as const;

/** A standby further behind than this is not switched to: it catches up first. */
export const SWITCHOVER_MAX_LAG_BYTES = 16n * 1024n * 1024n;
/** How long the old primary may take to stop before the switchover is given up. */
export const SWITCHOVER_DEMOTE_TIMEOUT_MS = 60_000;

const reachable = (f: InstanceFacts) =>
  f.view?.reachable === true && !f.deleting ? f.view : undefined;

/** `ANY 1 ("a", "b")` for sync replication over these standbys; '' for none. */
export function synchronousStandbyNames(mode: ReplicationMode, standbys: string[]): string {
  if (mode !== 'sync' || standbys.length === 0) return '';
  return `ANY 1 (${standbys.map((s) => `"${s}"`).join(', ')})`;
}

/** The standbys a `synchronous_standby_names` value names (`ANY 1 ("a", "b")` → a, b). */
function namedIn(value: string): string[] {
  return [...value.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

const ms = (iso: string) => Date.parse(iso);

/** The plan of one reconcile (pure). */
export function planInstances(input: PlanInput): Plan {
  const { status, now } = input;
  const observedAt = input.observedAt ?? now;
  const memory: PlanMemory = { ...input.memory };
  const actions: PlanAction[] = [];
  const events: PlanEvent[] = [];
  const byName = new Map(input.instances.map((f) => [f.name, f]));
  const live = input.instances.filter((f) => !f.deleting);
  let decided: PlanStatus | undefined;
  let requeueAfterMs: number | undefined;
  let degraded: PlanHealth['degraded'];
  let progressing: PlanHealth['progressing'];
  let switchoverHandled: boolean | undefined;

  const instruct = (f: InstanceFacts | undefined, instruction: string) => {
    if (f && !f.deleting && f.instruction !== instruction)
      actions.push({ type: 'instruct', pod: f.name, instruction });
  };
  const label = (f: InstanceFacts | undefined, role: 'primary' | 'standby' | null) => {
    if (!f || f.deleting) return;
    if ((f.roleLabel ?? null) !== role) actions.push({ type: 'label', pod: f.name, role });
  };

  // ---- Initialisation: the first instance is recorded as primary, then told initdb.
  let primaryName = status.currentPrimary;
  if (!primaryName) {
    primaryName = podName(input.cluster, 0);
    decided = { ...status, currentPrimary: primaryName };
  }
  const primary = byName.get(primaryName);
  const pView = primary ? reachable(primary) : undefined;
  if (!status.systemIdentifier) {
    const how = input.bootstrap ?? 'initdb';
    instruct(primary, how);
    if (pView && !pView.inRecovery) {
      decided = { ...(decided ?? status), systemIdentifier: pView.systemIdentifier };
      events.push({
        type: 'Normal',
        reason: 'Initialised',
        message: `${primaryName} initialised the cluster (system identifier ${pView.systemIdentifier})`,
      });
    } else {
      progressing = {
        reason: PlanReasons.Initialising,
        message:
          how === 'restore'
            ? `${primaryName} is restoring the cluster from a backup (fetching it, replaying WAL, then promoted)`
            : `${primaryName} is initialising the cluster (initdb)`,
      };
      return finish();
    }
  }
  const systemIdentifier = decided?.systemIdentifier ?? status.systemIdentifier!;
  const ours = (f: InstanceFacts) => {
    const v = reachable(f);
    return v && v.systemIdentifier === systemIdentifier ? v : undefined;
  };

  // ---- The primary: serving, being promoted, or lost.
  const failover = decided?.failover ?? status.failover;
  const serving =
    primary && pView && pView.systemIdentifier === systemIdentifier && !pView.inRecovery;
  let switchover = status.switchover;
  const transitionActive =
    (failover !== undefined && failover.phase !== 'Completed') ||
    (switchover !== undefined && switchover.phase !== 'Completed' && switchover.phase !== 'Failed');
  if (input.switchover && serving && !transitionActive) requestSwitchover(input.switchover);
  if (switchover?.phase === 'Demoting' && switchover.from === primaryName) {
    demote(switchover);
    return finish();
  }
  const promoting =
    (failover?.phase === 'Promoting' && failover.to === primaryName) ||
    (switchover?.phase === 'Promoting' && switchover.to === primaryName);
  const demoted = (name: string) =>
    (failover?.phase === 'Promoting' && failover.from === name) ||
    (switchover?.phase === 'Promoting' && switchover.from === name);
  const lossReason = (): LossReason => {
    if (!primary) return 'PrimaryPodMissing';
    if (primary.deleting) return 'PrimaryPodDeleted';
    if (!primary.view) return 'PrimaryNotRunning';
    if (!primary.view.reachable) return 'PrimaryUnreachable';
    if (primary.view.systemIdentifier !== systemIdentifier) return 'PrimaryForeign';
    return 'PrimaryInRecovery';
  };

  if (serving) {
    memory.lostSince = undefined;
    memory.lostReason = undefined;
    memory.refusalReported = undefined;
    const standbys = desiredNames(input).filter((n) => n !== primaryName);
    const names = synchronousStandbyNames(input.replication, standbys);
    memory.lastSeen = {
      pod: primaryName,
      lsn: pView.currentLsn ?? memory.lastSeen?.lsn ?? 0n,
      at: observedAt,
      timeline: pView.timeline,
      syncStandbys: [
        ...new Set([
          ...pView.replication
            .filter((r) => r.syncState === 'sync' || r.syncState === 'quorum')
            .map((r) => r.applicationName),
          ...namedIn(pView.synchronousStandbyNames),
          ...namedIn(names),
        ]),
      ].sort(),
    };
    instruct(primary, 'primary');
    label(primary, Roles.primary);
    const key = `${primaryName}/${systemIdentifier}`;
    if (memory.bootstrapped !== key) actions.push({ type: 'bootstrap', pod: primaryName, key });
    if (pView.synchronousStandbyNames !== names)
      actions.push({ type: 'synchronousStandbyNames', pod: primaryName, value: names });
    if (promoting && failover?.phase === 'Promoting' && failover.to === primaryName) {
      // Promoted: the others follow from here on.
      decided = {
        ...(decided ?? status),
        failover: { ...failover, phase: 'Repointing', newTimeline: pView.timeline },
      };
    } else if (promoting && switchover) {
      switchover = { ...switchover, phase: 'Repointing', newTimeline: pView.timeline };
      decided = { ...(decided ?? status), switchover };
    }
  } else if (promoting && primary && pView && pView.systemIdentifier === systemIdentifier) {
    // Decided and not yet carried out (or this reconcile follows a crash): carry it out. Never
    // choose again; promoting an instance that already left recovery is a no-op. Unless the old
    // primary serves again — it returned before its fence was carried out (a controller that
    // stopped between recording the decision and acting): promoting now would make two
    // primaries. It is fenced below (out of the read-write Service, told to stop; its fast
    // shutdown hands the streaming standbys its WAL) and the promotion waits until it stopped.
    const switching = switchover?.phase === 'Promoting' && switchover.to === primaryName;
    const from = switching ? switchover!.from : failover!.from;
    const old = byName.get(from);
    const oldView = old ? ours(old) : undefined;
    if (oldView && !oldView.inRecovery) {
      requeueAfterMs = 500;
      progressing = {
        reason: switching ? PlanReasons.SwitchingOver : PlanReasons.FailingOver,
        message: `${from} serves as a primary again: it is told to stop before ${primaryName} is promoted`,
      };
    } else {
      instruct(primary, 'primary');
      actions.push({ type: 'promote', pod: primaryName });
      progressing = {
        reason: switching ? PlanReasons.SwitchingOver : PlanReasons.FailingOver,
        message: `promoting ${primaryName} (${switching ? 'switchover' : 'failover'} from ${from})`,
      };
    }
  } else {
    lost();
  }

  // ---- Everyone else follows the serving primary.
  const primaryIp = serving ? primary.ip : undefined;
  for (const f of live) {
    if (f.name === primaryName) continue;
    const view = reachable(f);
    if (view && view.systemIdentifier !== systemIdentifier) {
      degraded ??= {
        reason: PlanReasons.ForeignInstance,
        message: `${f.name} holds another cluster (system identifier ${view.systemIdentifier}, expected ${systemIdentifier}): it is kept out of the Services; move its volume away (or delete its PersistentVolumeClaim) to have it cloned afresh`,
      };
      label(f, null);
      continue;
    }
    if (view && !view.inRecovery) {
      // A second primary: fence it (the agent stops it, rewinds it and starts it as a standby).
      label(f, null);
      if (primaryIp) instruct(f, `standby ${primaryIp}`);
      else instruct(f, 'wait');
      events.push({
        type: 'Warning',
        reason: PlanReasons.SplitBrainFenced,
        message: `${f.name} serves as a primary but ${primaryName} is the primary: fenced (out of the read-write Service, stopped, rewound as a standby)`,
      });
      continue;
    }
    if (demoted(f.name)) {
      // The old primary stays fenced until the new primary serves.
      label(f, null);
      instruct(f, 'wait');
      continue;
    }
    if (!primaryIp) continue;
    // An instance pg_rewind could not bring onto the primary's timeline (the WAL it needs is
    // gone) is re-cloned: its old data directory is moved aside, a fresh copy streams. Once it
    // serves as a standby it is told `standby` again (no restart), so a later restart never
    // re-clones.
    const rewindFailed = !view && /pg_rewind against \S+ failed/.test(f.lastMessage ?? '');
    const recloning = f.instruction?.startsWith('reclone ') && !view;
    if (rewindFailed || recloning) {
      if (!recloning || f.instruction !== `reclone ${primaryIp}`) {
        instruct(f, `reclone ${primaryIp}`);
        if (rewindFailed && !f.instruction?.startsWith('reclone '))
          events.push({
            type: 'Warning',
            reason: PlanReasons.Recloned,
            message: `${f.name} could not be rewound onto ${primaryName}'s timeline (${f.lastMessage}): re-cloning it from ${primaryName}; its old data directory is kept beside the new one until the next re-clone`,
          });
      }
      continue;
    }
    instruct(f, `standby ${primaryIp}`);
    if (view) {
      label(f, Roles.standby);
      if (view.conninfoHost !== primaryIp)
        actions.push({ type: 'repoint', pod: f.name, host: primaryIp });
    }
  }

  // ---- A failover whose new primary serves is complete once the others were told to follow.
  const current = decided?.failover ?? status.failover;
  if (serving && current?.phase === 'Repointing' && current.to === primaryName) {
    decided = {
      ...(decided ?? status),
      failover: { ...current, phase: 'Completed', completedAt: now },
      lastFailover: now,
    };
    events.push({
      type: current.dataLossRisk === 'None' ? 'Normal' : 'Warning',
      reason: 'FailoverCompleted',
      message: `${primaryName} is the primary (timeline ${current.newTimeline ?? pView.timeline}); ${current.message}`,
    });
  }
  if (serving && switchover?.phase === 'Repointing' && switchover.to === primaryName) {
    switchover = {
      ...switchover,
      phase: 'Completed',
      completedAt: now,
      message: `switchover from ${switchover.from} to ${primaryName} (${switchover.reason}): ${switchover.from} stopped cleanly at or after ${switchover.primaryLastLsn ?? 'its last position'} and ${primaryName} had received all of it (${switchover.promotedLsn ?? '?'}) before its promotion to timeline ${switchover.newTimeline ?? pView.timeline}: nothing committed is lost`,
    };
    decided = { ...(decided ?? status), switchover };
    switchoverHandled = true;
    events.push({
      type: 'Normal',
      reason: PlanReasons.SwitchoverCompleted,
      message: switchover.message,
    });
  }

  return finish();

  /**
   * A switchover asked for while the primary serves and nothing else is under way: to a standby
   * of this cluster that stays (ordinal below spec.replicas), streaming and nearly caught up.
   * A request that cannot be met is refused once (Failed, Event); one that must wait says why.
   */
  function requestSwitchover(request: NonNullable<PlanInput['switchover']>) {
    const stays = new Set(desiredNames(input));
    const standbyOk = (f: InstanceFacts) => {
      const v = ours(f);
      return v !== undefined && v.inRecovery && v.streaming && f.ready && stays.has(f.name);
    };
    const lagOf = (f: InstanceFacts) => {
      const v = ours(f)!;
      const got = maxLsn(v.receiveLsn, v.replayLsn) ?? 0n;
      const has = pView!.currentLsn ?? got;
      return has > got ? has - got : 0n;
    };
    let target: InstanceFacts | undefined;
    if (request.to !== undefined) {
      if (request.to === primaryName) {
        switchoverHandled = true;
        if (request.reason === 'Requested')
          events.push({
            type: 'Normal',
            reason: PlanReasons.SwitchoverCompleted,
            message: `switchover to ${request.to} asked for: it is the primary already`,
          });
        return;
      }
      if (!stays.has(request.to)) {
        switchover = {
          phase: 'Failed',
          from: primaryName!,
          to: request.to,
          reason: request.reason,
          startedAt: now,
          completedAt: now,
          message: `switchover to ${request.to} refused: it is not an instance of this cluster (the instances are ${[...stays].join(', ')}); ${primaryName} stays primary`,
        };
        decided = { ...(decided ?? status), switchover };
        switchoverHandled = true;
        events.push({
          type: 'Warning',
          reason: PlanReasons.SwitchoverFailed,
          message: switchover.message,
        });
        return;
      }
      target = byName.get(request.to);
      if (!target || !standbyOk(target)) {
        progressing = {
          reason: PlanReasons.SwitchoverWaiting,
          message: `switchover to ${request.to} waits until it is a ready standby streaming from ${primaryName}`,
        };
        return;
      }
    } else {
      target = live
        .filter((f) => f.name !== primaryName && standbyOk(f))
        .sort((a, b) => {
          const la = lagOf(a);
          const lb = lagOf(b);
          return la === lb ? a.ordinal - b.ordinal : la < lb ? -1 : 1;
        })[0];
      if (!target) {
        progressing = {
          reason: PlanReasons.SwitchoverWaiting,
          message: `${primaryName} is beyond spec.replicas ${input.replicas}: it is kept until a switchover to a ready standby can move the primary, and none is ready`,
        };
        return;
      }
    }
    const lag = lagOf(target);
    if (lag > SWITCHOVER_MAX_LAG_BYTES) {
      progressing = {
        reason: PlanReasons.SwitchoverWaiting,
        message: `switchover to ${target.name} waits for it to catch up: ${lag} bytes behind ${primaryName}`,
      };
      return;
    }
    switchover = {
      phase: 'Demoting',
      from: primaryName!,
      to: target.name,
      reason: request.reason,
      startedAt: now,
      ...(pView!.currentLsn !== undefined ? { primaryLastLsn: formatLsn(pView!.currentLsn) } : {}),
      message: `switchover from ${primaryName} to ${target.name} (${request.reason}): stopping ${primaryName}`,
    };
    decided = {
      ...(decided ?? status),
      switchover,
      switchoverCount: (status.switchoverCount ?? 0) + 1,
    };
    events.push({ type: 'Normal', reason: PlanReasons.SwitchingOver, message: switchover.message });
  }

  /**
   * The old primary is taken out of the read-write Service and stopped with a fast shutdown,
   * which ends only once every streaming standby has flushed all of its WAL (the shutdown
   * checkpoint included). Once PostgreSQL no longer runs there (the port refuses connections),
   * the target — still in recovery, having received at least the newest position seen on the
   * old primary — is promoted. A target that is lost meanwhile, or a shutdown that does not
   * end in time, gives the switchover up: the old primary is told to run as primary again.
   */
  function demote(record: SwitchoverRecord) {
    const target = byName.get(record.to);
    const tView = target ? ours(target) : undefined;
    if (serving) {
      memory.lastSeen = {
        pod: primaryName!,
        lsn: pView.currentLsn ?? memory.lastSeen?.lsn ?? 0n,
        at: observedAt,
        timeline: pView.timeline,
        syncStandbys: memory.lastSeen?.syncStandbys ?? [],
      };
    }
    const giveUp = (why: string) => {
      instruct(primary, 'primary');
      if (serving) label(primary, Roles.primary);
      switchover = {
        ...record,
        phase: 'Failed',
        completedAt: now,
        message: `switchover from ${record.from} to ${record.to} given up: ${why}; ${record.from} is told to run as primary again`,
      };
      decided = { ...(decided ?? status), switchover };
      switchoverHandled = true;
      events.push({
        type: 'Warning',
        reason: PlanReasons.SwitchoverFailed,
        message: switchover.message,
      });
    };
    if (!target || target.deleting || !tView || !tView.inRecovery) {
      giveUp(`${record.to} is no longer a standby of this cluster that answers`);
      return;
    }
    if (!primary || primary.deleting || !primary.view) {
      // Not a clean stop the controller asked for: what it may have lost is for the failover
      // rules to bound and publish.
      giveUp(
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
    const seen = lastSeen && lastSeen.pod === primaryName ? lastSeen.lsn : undefined;
    const recorded = record.primaryLastLsn ? parseLsn(record.primaryLastLsn) : undefined;
    const last = maxLsn(seen, recorded);
    const received = maxLsn(tView.receiveLsn, tView.replayLsn) ?? 0n;
    const elapsed = ms(now) - ms(record.startedAt);
    if (!stopped || (last !== undefined && received < last)) {
      if (elapsed > SWITCHOVER_DEMOTE_TIMEOUT_MS) {
        giveUp(
          !stopped
            ? `${record.from} did not stop within ${SWITCHOVER_DEMOTE_TIMEOUT_MS / 1000}s`
            : `${record.to} received WAL up to ${formatLsn(received)} only, short of ${formatLsn(last!)} seen on ${record.from}`,
        );
        return;
      }
      label(primary, null);
      instruct(primary, 'wait');
      requeueAfterMs = 500;
      progressing = {
        reason: PlanReasons.SwitchingOver,
        message: !stopped
          ? `switchover to ${record.to}: ${record.from} is out of the read-write Service and stopping`
          : `switchover to ${record.to}: waiting for it to receive ${formatLsn(last!)} (has ${formatLsn(received)})`,
      };
      return;
    }
    // Stopped, and the target has it all: promote.
    switchover = {
      ...record,
      phase: 'Promoting',
      ...(last !== undefined ? { primaryLastLsn: formatLsn(last) } : {}),
      promotedLsn: formatLsn(received),
      message: `switchover from ${record.from} to ${record.to} (${record.reason}): promoting ${record.to} at ${formatLsn(received)}`,
    };
    decided = { ...(decided ?? status), currentPrimary: record.to, switchover };
    label(primary, null);
    instruct(primary, 'wait');
    instruct(target, 'primary');
    actions.push({ type: 'promote', pod: record.to });
    progressing = { reason: PlanReasons.SwitchingOver, message: switchover.message };
  }

  function lost() {
    const reason = lossReason();
    const since = memory.lostSince ?? now;
    memory.lostSince = since;
    memory.lostReason = reason;
    const gone = ms(now) - ms(since);
    const others = input.instances.filter((f) => f.name !== primaryName);
    // Where no failover will happen (none is possible, allowed or wanted), a new pod of the
    // primary (a deleted pod comes back without an instruction) is told to be the primary again:
    // PostgreSQL recovers from its volume. Before failover.after it is not: a replaced primary pod
    // is a lost primary, and the failover decides.
    const letPrimaryReturn = () => {
      if (primary && !primary.deleting && primary.instruction !== 'primary')
        instruct(primary, 'primary');
    };
    if (!input.failover.enabled || input.replicas < 2 || others.length === 0) {
      letPrimaryReturn();
      degraded = {
        reason: input.failover.enabled ? PlanReasons.PrimaryLost : PlanReasons.FailoverDisabled,
        message: `primary ${primaryName} is lost (${reason}) since ${since}; ${input.failover.enabled ? 'there is no standby to promote' : 'spec.failover.enabled is false'}: waiting for it to return`,
      };
      return;
    }
    if (input.holdFailover) {
      letPrimaryReturn();
      requeueAfterMs = 1000;
      progressing = {
        reason: PlanReasons.PrimaryLost,
        message: `primary ${primaryName} is restarting with the new pod template`,
      };
      return;
    }
    if (gone < input.failover.afterMs) {
      const left = input.failover.afterMs - gone;
      requeueAfterMs = Math.max(100, left);
      progressing = {
        reason: PlanReasons.PrimaryLost,
        message: `primary ${primaryName} is lost (${reason}) since ${since}; failover in ${Math.ceil(left / 1000)}s unless it returns`,
      };
      return;
    }
    // A standby on a timeline older than the primary's did not follow its promotion: its WAL
    // positions are not the primary's (it may hold WAL of the timeline the primary forked off),
    // so they say nothing of what it lacks. It is no candidate; the newest timeline comes first.
    const timelineFloor = Math.max(
      (memory.lastSeen?.pod === primaryName ? memory.lastSeen?.timeline : undefined) ?? 0,
      (failover?.to === primaryName ? failover?.newTimeline : undefined) ?? 0,
    );
    const candidates = others
      .filter((f) => {
        const v = ours(f);
        return v?.inRecovery === true && v.timeline >= timelineFloor;
      })
      .map((f) => {
        const v = ours(f)!;
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
    const best = candidates[0];
    if (!best) {
      letPrimaryReturn();
      degraded = {
        reason: PlanReasons.NoStandbyToPromote,
        message: `primary ${primaryName} is lost (${reason}) since ${since} and no standby of this cluster answers: waiting for the primary or a standby to return`,
      };
      return;
    }
    const seen = memory.lastSeen?.pod === primaryName ? memory.lastSeen : undefined;
    const lag = seen ? (seen.lsn > best.lsn ? seen.lsn - best.lsn : 0n) : undefined;
    const names = new Set(candidates.map((c) => c.facts.name));
    const confirmed =
      input.replication === 'sync' &&
      seen !== undefined &&
      seen.syncStandbys.length > 0 &&
      seen.syncStandbys.every((s) => names.has(s));
    const risk: DataLossRisk = confirmed ? 'None' : seen ? 'Bounded' : 'Unknown';
    if (risk === 'Bounded' && lag! > input.failover.maxLagBytes) {
      const message = `failover refused: the most advanced standby ${best.facts.name} has received WAL up to ${formatLsn(best.lsn)}, the primary ${primaryName} was last seen at ${formatLsn(seen!.lsn)} (${seen!.at}): promoting it could lose ${lag} bytes of WAL, more than spec.failover.maxLagBytes ${input.failover.maxLagBytes}. Waiting for ${primaryName} to return; to accept the loss, raise spec.failover.maxLagBytes`;
      degraded = { reason: PlanReasons.FailoverRefusedLagExceedsBound, message };
      letPrimaryReturn();
      const key = `${primaryName}/${since}/${best.facts.name}/${best.lsn}`;
      if (memory.refusalReported !== key) {
        memory.refusalReported = key;
        events.push({
          type: 'Warning',
          reason: PlanReasons.FailoverRefusedLagExceedsBound,
          message,
        });
      }
      return;
    }
    const to = best.facts.name;
    const riskWords =
      risk === 'None'
        ? `sync replication had confirmed every commit on ${seen!.syncStandbys.join(', ')}: nothing committed is lost`
        : risk === 'Bounded'
          ? `at most ${lag} bytes of WAL written by ${seen!.at} may be lost (the bound is ${input.failover.maxLagBytes})`
          : `the old primary's last WAL position was never seen by this controller: what was lost is unknown`;
    const record: FailoverRecord = {
      phase: 'Promoting',
      from: primaryName!,
      to,
      reason,
      startedAt: now,
      primaryLostAt: since,
      ...(seen ? { primaryLastLsn: formatLsn(seen.lsn), primaryLastSeenAt: seen.at } : {}),
      promotedLsn: formatLsn(best.lsn),
      ...(lag !== undefined ? { lagBytes: Number(lag) } : {}),
      dataLossRisk: risk,
      maxLagBytes: Number(input.failover.maxLagBytes),
      message: `failover from ${primaryName} (${reason}) to ${to} at ${formatLsn(best.lsn)}: ${riskWords}`,
    };
    decided = {
      ...(decided ?? status),
      currentPrimary: to,
      failover: record,
      failoverCount: (status.failoverCount ?? 0) + 1,
    };
    // Fence first: out of the read-write Service, told to stop; then promote.
    label(primary, null);
    instruct(primary, 'wait');
    instruct(best.facts, 'primary');
    actions.push({ type: 'promote', pod: to });
    events.push({
      type: risk === 'Unknown' ? 'Warning' : 'Normal',
      reason: 'FailingOver',
      message: record.message,
    });
    memory.lostSince = undefined;
    memory.lostReason = undefined;
    progressing = { reason: PlanReasons.FailingOver, message: record.message };
  }

  function finish(): Plan {
    const health = healthOf(input, decided ?? status, memory, degraded, progressing);
    return {
      ...(decided ? { status: decided } : {}),
      actions,
      memory,
      events,
      health,
      ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
      ...(switchoverHandled ? { switchoverHandled } : {}),
    };
  }
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
  const primaryName = status.currentPrimary;
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
  const readyInstances = instances.filter((i) => i.ready).length;
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
    readyInstances,
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
