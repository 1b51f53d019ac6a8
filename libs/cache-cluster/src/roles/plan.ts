/**
 * Who is primary, and what the controller does about it: a pure function over the pods as the
 * controller sees them (Kubernetes facts + one Redis observation each), the CacheCluster's status
 * (the durable record: `primary`, `primaryRunId`, the newest `failover`) and the controller's
 * memory of the primary (the last offset it read — kept in memory, never written on every poll,
 * so a converged cluster costs no API writes).
 *
 * Rules (Replicated):
 * - `status.primary` is the authority. Every pod boots *fenced* (a replica of an address that
 *   does not exist: it refuses writes, and refuses to feed replicas), so a restarted primary never
 *   returns as a second primary and never hands its empty dataset to the replicas.
 * - The primary is healthy when its pod is up, reachable, and its server is primary with the run
 *   id recorded in `status.primaryRunId` (recorded the first time it is seen serving).
 *   `status.primary` set but its server fenced with no run id recorded yet means a promotion was
 *   decided and not carried out (a first election, or a controller that died mid-failover):
 *   promote that same pod — never choose again — unless its server no longer holds what it held
 *   when a failover chose it (an offset below `failover.promotedOffset`: it restarted, empty):
 *   that pod is lost (PrimaryRestarted), and the failover goes to the replica holding the data.
 * - Lost (pod gone, being deleted, unreachable, or its server restarted — a new run id — or
 *   demoted): after `failover.after` without it, promote the reachable replica with the highest
 *   replication offset (ties: the lowest ordinal). The decision is written first (status
 *   `primary`, `failover` phase Promoting, `failoverCount + 1`), then carried out; a restart
 *   resumes it. The loss is bounded (old primary's last seen offset − the promoted offset) only
 *   when both offsets count bytes of one replication history (`master_replid`); else Unknown.
 * - Every other reachable pod follows the primary: a replica of another address, or a second
 *   server claiming primary, is pointed at the primary (`REPLICAOF`, fencing the latter).
 * - Labels: only the primary's pod carries `role=primary`, so the read-write Service follows it;
 *   when the primary is lost its pod is labelled replica until a new primary exists.
 * - Switchover (a rolling update reached the primary, asked for by `RolePlanInput.switchover`):
 *   while the primary serves, to the linked replica of its replication history with the highest
 *   offset, caught up to within `SWITCHOVER_MAX_LAG_BYTES`. Decided first (`switchover` Demoting,
 *   `switchoverCount + 1`), then carried out: the primary's pod labelled replica (out of the
 *   read-write Service), then `FAILOVER TO <replica> TIMEOUT` on the primary — the server pauses
 *   writes, waits until the replica has every byte of its stream, makes itself the replica's
 *   replica and hands over (PSYNC FAILOVER); without FORCE it aborts and resumes writes when the
 *   replica does not catch up in time. While Demoting nothing else runs (the replica serving as
 *   primary is the switchover's outcome, not a second primary to fence; the old primary a
 *   replica is not a lost primary): once the replica serves as primary holding at least the
 *   offset recorded, it becomes `status.primary` (Completed, the write pause recorded) and the
 *   usual rules go on from it; when the replica is lost, the old primary is lost, the FAILOVER
 *   ended without handing over, or `SWITCHOVER_TIMEOUT_MS` passed, the switchover is given up
 *   (Failed) and the usual rules go on from the old primary. A FAILOVER a controller restart
 *   lost is issued again (one in progress answers an error the admin treats as done).
 */
import {
  type CacheClusterStatus,
  type FailoverRecord,
  type SwitchoverRecord,
} from '@steward/cache-cluster-api';
import { type SwitchoverReason } from '@steward/crd';
import { type PodBasics } from '@steward/workload';

/** A Redis server as one observation saw it (structurally @steward/cache-cluster's RedisObservation). */
export type NodeView =
  | { reachable: false; error: string }
  | {
      reachable: true;
      role: 'primary' | 'replica';
      runId: string;
      /**
       * `master_replid`: the replication history the offset counts bytes of. Offsets of two
       * histories are not comparable (a primary partitioned during a failover writes its own).
       */
      replId: string;
      offset: number;
      primary?: { host: string; port: number; linkUp: boolean };
      loading: boolean;
      syncInProgress: boolean;
      /**
       * A primary's coordinated failover under way (`master_failover_state`): absent when there
       * is none (`no-failover`).
       */
      failoverState?: 'waiting-for-sync' | 'failover-in-progress';
      /** The replicas a primary lists (`INFO replication` `slaveN:`), when observed. */
      replicas?: readonly { host: string; port: number; state: string }[];
      /** `min-replicas-to-write` / `min-replicas-max-lag`, when observed (either 0: no fence). */
      fence?: { minReplicas: number; maxLagSeconds: number };
    };

/** One pod of the StatefulSet, as the cache and one observation see it. */
export interface PodFacts extends Omit<PodBasics, 'running'> {
  /** Undefined when the pod has no IP or is not running (not observed). */
  node?: NodeView;
}

/** What the controller remembers between reconciles of one CacheCluster (per process). */
export interface PrimaryMemory {
  /**
   * The primary as last seen serving: its offset then, and a time no later than that offset was
   * read (`RolePlanInput.observedAt`), so every write acknowledged by `at` is within `offset`
   * of the replication history `replId`.
   */
  lastSeen?: {
    pod: string;
    runId: string;
    replId: string;
    offset: number;
    at: string;
    /**
     * The fence its server applied when last seen (`min-replicas-to-write` ≥ 1 with a lag):
     * `none` when it applied none, absent when not observed.
     */
    fence?: PlanFence | 'none';
  };
  /**
   * While the primary is lost and may still serve (fenced mode): per other pod, the latest time
   * it may have been linked to the old primary (its acknowledgements keeping it writable) — when
   * it was last seen replicating from anything but the fence address, or detached.
   */
  links?: Record<string, string>;
  /** When its replicas were first detached from the lost primary (one Event). */
  detachedAt?: string;
  /** When the current primary was first seen lost. */
  lostSince?: string;
  lostReason?: LossReason;
  /** The switchover (its `startedAt`) whose FAILOVER this process sent. */
  failoverSent?: string;
}

export type LossReason =
  | 'PrimaryPodMissing'
  | 'PrimaryPodDeleted'
  | 'PrimaryUnreachable'
  | 'PrimaryRestarted'
  | 'PrimaryDemoted';

/** A fence (`min-replicas-to-write` and the bound it implies, fencing.ts). */
export interface PlanFence {
  minReplicas: number;
  boundSeconds: number;
}

/** Where every pod boots replicating from (redis.conf `replicaof 127.0.0.1 1`), and detached replicas point. */
export const FENCE_ADDRESS = { host: '127.0.0.1', port: 1 } as const;

export interface RolePlanInput {
  mode: 'Standalone' | 'Replicated';
  /** Pods desired. */
  replicas: number;
  failover: { enabled: boolean; afterMs: number };
  /** The fence spec.fencing asks for (every pod's redis.conf), undefined without it. */
  fence?: PlanFence;
  port: number;
  status: RoleStatus;
  /**
   * A switchover asked for this reconcile: a rolling update reached the primary (the controller
   * asks while the primary is the only pod left on the old template, `rolloutWantsSwitchover`),
   * or (`NodeDrain`, with `drainWantsSwitchover`) its node is being drained. `avoid`: pods the
   * switchover must not go to (those on cordoned nodes).
   */
  switchover?: SwitchoverAsk;
  pods: PodFacts[];
  memory: PrimaryMemory;
  /** ISO time of this reconcile. */
  now: string;
  /**
   * ISO time taken before any pod was observed (default `now`): every observation was read after
   * it, so a primary's offset covers every write acknowledged by then. `memory.lastSeen.at` (and
   * so `status.failover.primaryLastSeenAt`, the time up to which `bytesPossiblyLost` bounds the
   * loss) is this time, never a later one — the observations may take seconds (a replica that
   * does not answer holds the reconcile for its timeouts), and writes acknowledged in between
   * are not in the offset read.
   */
  observedAt?: string;
}

/** A switchover asked for (`RolePlanInput.switchover`). */
export interface SwitchoverAsk {
  reason: SwitchoverReason;
  avoid?: readonly string[];
}

export type RoleAction =
  | { type: 'promote'; pod: string }
  | {
      type: 'replicaOf';
      pod: string;
      primary: string;
      host: string;
      port: number;
      fence: boolean;
      /**
       * The old primary of the newest failover returning: its dataset saved as `file` before it
       * follows (`salvageThenFollow`), the salvage recorded from `from` (the promoted offset).
       */
      salvage?: { file: string; from: number; failoverStartedAt: string };
    }
  /** A replica cut off from a lost primary (`REPLICAOF` the fence address), so it fences itself. */
  | { type: 'detach'; pod: string }
  | { type: 'label'; pod: string; role: 'primary' | 'replica' }
  /** `FAILOVER TO host port TIMEOUT timeoutMs` on `pod` (the primary), handing over to `to`. */
  | {
      type: 'failover';
      pod: string;
      to: string;
      host: string;
      port: number;
      timeoutMs: number;
    };

export interface RoleEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The durable part of the decision: written to status before any action is carried out. */
export type RoleStatus = Pick<
  CacheClusterStatus,
  | 'primary'
  | 'primaryRunId'
  | 'failover'
  | 'failoverCount'
  | 'lastFailover'
  | 'switchover'
  | 'switchoverCount'
>;

export interface Health {
  /** The primary serves writes (its pod labelled, reachable, primary with the recorded run id). */
  primaryServing: boolean;
  /** Pods ready and in their role (the primary, and replicas linked to it). */
  readyReplicas: number;
  /** Replicas not (yet) linked to the primary, with why. */
  lagging: string[];
  /** When the primary is lost: why, since when, and whether failover will act. */
  lost?: { reason: LossReason; since: string; message: string; waitingMs?: number };
  /** A failover is decided and not yet completed. */
  failingOver: boolean;
  /** A switchover is decided and not yet completed or given up (status.switchover Demoting). */
  switchingOver: boolean;
  /** What a switchover under way, or asked for and waiting for a replica, is doing. */
  switchover?: { message: string };
  /** Nothing can be done until something changes (no replica to promote, failover disabled). */
  stuck?: { reason: string; message: string };
}

export interface RolePlan {
  /** Status fields to write before the actions (undefined: nothing durable changes). */
  status?: RoleStatus;
  actions: RoleAction[];
  memory: PrimaryMemory;
  events: RoleEvent[];
  health: Health;
  /** Look again this soon (a failover timer running, a promotion to confirm). */
  requeueAfterMs?: number;
}

const RoleLabels = { primary: 'primary', replica: 'replica' } as const;

/** The fence's bound over min-replicas-max-lag (FENCING_BOUND_MARGIN_SECONDS of the API). */
export const FENCE_BOUND_MARGIN_SECONDS = 2;

/** How long a salvage's save may take before it is given up (Failed). */
export const SALVAGE_TIMEOUT_MS = 60_000;

/** A replica further behind the primary than this is not switched to: it catches up first. */
export const SWITCHOVER_MAX_LAG_BYTES = 1024 * 1024;
/**
 * FAILOVER's TIMEOUT: how long the old primary pauses writes waiting for the replica to have
 * every byte before it aborts and resumes them — the longest write pause a switchover costs.
 */
export const FAILOVER_TIMEOUT_MS = 10_000;
/** After this long in Demoting without the replica serving, the switchover is given up. */
export const SWITCHOVER_TIMEOUT_MS = 30_000;

type Serving = Extract<NodeView, { reachable: true }>;

function serving(pod: PodFacts | undefined): Serving | undefined {
  return pod?.node?.reachable ? pod.node : undefined;
}

/** The pod ordering of Dragonfly's rule: highest offset first, ties to the lowest ordinal. */
export function byPromotionOrder(a: PodFacts, b: PodFacts): number {
  const oa = serving(a)?.offset ?? -1;
  const ob = serving(b)?.offset ?? -1;
  return ob - oa || a.ordinal - b.ordinal;
}

/** Why the pod recorded as primary does not serve as primary, or undefined when it does. */
function lossOf(
  pod: PodFacts | undefined,
  status: RolePlanInput['status'],
): { reason: LossReason; detail: string; mayServe?: true } | 'pending' | undefined {
  if (!pod) return { reason: 'PrimaryPodMissing', detail: 'its pod does not exist' };
  const node = pod.node;
  // Being deleted, its server may still run (its node cut off from the kubelet's instruction): a
  // fence is waited for unless it answers as a replica. Without a fence the loss stays Bounded
  // (a graceful shutdown pauses writes), as documented.
  if (pod.deleting)
    return {
      reason: 'PrimaryPodDeleted',
      detail: 'its pod is being deleted',
      ...(node?.reachable && node.role === 'replica' ? {} : { mayServe: true as const }),
    };
  if (!node) return { reason: 'PrimaryUnreachable', detail: 'its pod is not running' };
  // Unanswered, not known to be stopped: it may be alive behind a partition, or hung, and serve again.
  // A refused connection says nothing listens there (the server died, or is restarting).
  if (!node.reachable)
    return {
      reason: 'PrimaryUnreachable',
      detail: node.error,
      ...(/ECONNREFUSED/.test(node.error) ? {} : { mayServe: true as const }),
    };
  if (node.role === 'primary') return undefined;
  if (!status.primaryRunId) {
    // A server that never served as primary under this record: the promotion is pending — if it
    // is still the server that was chosen. A failover chose it holding `promotedOffset`; one that
    // holds less has restarted since (booted fenced, empty without persistence), and promoting it
    // would hand its empty dataset to every replica. It is lost, like a restarted primary.
    const decided = status.failover;
    if (
      decided &&
      decided.phase !== 'Completed' &&
      decided.to === pod.name &&
      node.offset < decided.promotedOffset
    )
      return {
        reason: 'PrimaryRestarted',
        detail: `its server restarted after it was chosen (replication offset ${node.offset}, ${decided.promotedOffset} when chosen) and came back fenced without that data`,
      };
    return 'pending';
  }
  return node.runId !== status.primaryRunId
    ? {
        reason: 'PrimaryRestarted',
        detail: 'its server restarted (a new run id) and came back fenced',
      }
    : { reason: 'PrimaryDemoted', detail: 'its server was made a replica' };
}

function elapsedMs(from: string, to: string): number {
  return Date.parse(to) - Date.parse(from);
}

/** Decides roles for one reconcile (pure). */
export function planRoles(input: RolePlanInput): RolePlan {
  return input.mode === 'Standalone' ? planStandalone(input) : planReplicated(input);
}

function labelActions(pods: PodFacts[], primary: string | undefined): RoleAction[] {
  // Demote labels first: the read-write Service never selects two pods.
  const demote: RoleAction[] = [];
  const promote: RoleAction[] = [];
  for (const pod of pods) {
    if (pod.deleting || pod.node === undefined) continue;
    const want = pod.name === primary ? RoleLabels.primary : RoleLabels.replica;
    if (pod.roleLabel === want) continue;
    (want === RoleLabels.primary ? promote : demote).push({
      type: 'label',
      pod: pod.name,
      role: want,
    });
  }
  return [...demote, ...promote];
}

function planStandalone(input: RolePlanInput): RolePlan {
  const pod = input.pods.find((p) => p.ordinal === 0);
  const node = serving(pod);
  const actions: RoleAction[] = [];
  let status: RoleStatus | undefined;
  const name = pod?.name;
  if (node && node.role === 'replica') actions.push({ type: 'promote', pod: pod!.name });
  if (
    node &&
    node.role === 'primary' &&
    (input.status.primary !== name || input.status.primaryRunId !== node.runId)
  ) {
    status = { ...input.status, primary: name, primaryRunId: node.runId };
  }
  const primaryServing = Boolean(node && node.role === 'primary' && pod!.ready);
  actions.push(...labelActions(input.pods, node ? name : undefined));
  return {
    ...(status ? { status } : {}),
    actions,
    memory: node
      ? {
          lastSeen: {
            pod: name!,
            runId: node.runId,
            replId: node.replId,
            offset: node.offset,
            at: input.observedAt ?? input.now,
          },
        }
      : input.memory,
    events: [],
    health: {
      primaryServing,
      readyReplicas: primaryServing ? 1 : 0,
      lagging: [],
      failingOver: false,
      switchingOver: false,
    },
    ...(node ? {} : { requeueAfterMs: 2000 }),
  };
}

/**
 * What one Replicated reconcile has decided so far, threaded through the steps of
 * {@link planReplicated}. Each step appends to `actions` and `events` in the order they are
 * carried out and reported, and changes `next`, the status as decided; `durable` says it must be
 * written (under a precondition) before any action runs.
 */
interface RoleContext {
  readonly input: RolePlanInput;
  readonly actions: RoleAction[];
  readonly events: RoleEvent[];
  /** The controller's memory as this reconcile leaves it. */
  memory: PrimaryMemory;
  /** The status as decided so far (`input.status` until a step changes it). */
  next: RoleStatus;
  /** `next` holds a decision to write before acting. */
  durable: boolean;
  requeueAfterMs: number | undefined;
  stuck: Health['stuck'];
  lost: Health['lost'];
  /** What a switchover under way or waiting is doing. */
  switchover: Health['switchover'];
}

/** A loss of the primary, as {@link lossOf} gives it. */
type Loss = Exclude<ReturnType<typeof lossOf>, 'pending' | undefined>;

/**
 * Roles in Replicated mode. Its steps, in order — the actions and events of each come before
 * those of the next: a first election ({@link electFirst}); a switchover asked for
 * ({@link requestSwitchover}) and one under way ({@link demote}, which ends the plan unless the
 * switchover completes or is given up); the primary resolved: serving, a
 * decided promotion carried out, or lost ({@link resolvePrimary}, which may fail over); the
 * serving primary recorded ({@link recordServing}); every other pod follows it
 * ({@link followPrimary}); a failover completes ({@link completeFailover}); labels; and the fence
 * actions moved first ({@link fencesFirst}).
 */
function planReplicated(input: RolePlanInput): RolePlan {
  const ctx: RoleContext = {
    input,
    actions: [],
    events: [],
    memory: { ...input.memory },
    next: { ...input.status },
    durable: false,
    requeueAfterMs: undefined,
    stuck: undefined,
    lost: undefined,
    switchover: undefined,
  };
  if (!input.status.primary && !electFirst(ctx)) {
    return {
      actions: [],
      memory: ctx.memory,
      events: ctx.events,
      health: {
        primaryServing: false,
        readyReplicas: 0,
        lagging: [],
        failingOver: false,
        switchingOver: false,
      },
      requeueAfterMs: 2000,
    };
  }
  const record = ctx.next.switchover;
  const transitionActive =
    (ctx.next.failover !== undefined && ctx.next.failover.phase !== 'Completed') ||
    record?.phase === 'Demoting';
  if (input.switchover && !transitionActive) requestSwitchover(ctx, input.switchover);
  if (ctx.next.switchover?.phase === 'Demoting' && !demote(ctx, ctx.next.switchover))
    return finishDemoting(ctx);
  const primaryPod = resolvePrimary(ctx);
  const primaryServing = recordServing(ctx, primaryPod);
  const followers = followPrimary(ctx, primaryPod, primaryServing);
  const { lagging } = followers;
  const readyReplicas = (primaryServing && primaryPod!.ready ? 1 : 0) + followers.readyReplicas;
  completeFailover(ctx, primaryServing, lagging);
  ctx.actions.push(...labelActions(input.pods, primaryServing ? ctx.next.primary : undefined));
  const { next, durable, memory, events, lost, stuck, requeueAfterMs, switchover } = ctx;
  const failingOver = Boolean(next.failover && next.failover.phase !== 'Completed');
  return {
    ...(durable ? { status: next } : {}),
    actions: fencesFirst(ctx.actions),
    memory,
    events,
    health: {
      primaryServing,
      readyReplicas,
      lagging,
      ...(lost ? { lost } : {}),
      failingOver,
      switchingOver: false,
      ...(switchover ? { switchover } : {}),
      ...(stuck ? { stuck } : {}),
    },
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}

/**
 * No primary recorded: elect one (a first election, not a failover) — the decision is written
 * before the promotion, so a restart carries it out instead of choosing again. A server already
 * serving as primary is kept; otherwise the election waits for every desired pod (a fresh
 * cluster: all at offset 0, so the lowest ordinal wins). False while it waits.
 */
function electFirst(ctx: RoleContext): boolean {
  const { pods, replicas } = ctx.input;
  const primaries = pods.filter((p) => serving(p)?.role === 'primary' && !p.deleting);
  const candidates = (
    primaries.length ? primaries : pods.filter((p) => serving(p) && !p.deleting)
  ).sort(byPromotionOrder);
  const all = Array.from({ length: replicas }, (_, i) => pods.find((p) => p.ordinal === i));
  const everyoneUp = all.every((p) => p && serving(p) && !p.deleting);
  const chosen = primaries.length || everyoneUp ? candidates[0] : undefined;
  if (!chosen) return false;
  ctx.next = { ...ctx.next, primary: chosen.name };
  delete ctx.next.primaryRunId;
  ctx.durable = true;
  ctx.events.push({
    type: 'Normal',
    reason: 'PrimaryElected',
    message: `${chosen.name} is the first primary (replication offset ${serving(chosen)!.offset})`,
  });
  return true;
}

/**
 * The pod the others follow: the recorded primary when it serves, or when its promotion was
 * decided and not carried out (promoted now: a recorded decision is never re-chosen), or the
 * replica a failover promotes; undefined while the primary is lost ({@link primaryLost}).
 */
function resolvePrimary(ctx: RoleContext): PodFacts | undefined {
  const primaryPod = ctx.input.pods.find((p) => p.name === ctx.next.primary);
  const loss = lossOf(primaryPod, ctx.next);
  if (loss === 'pending') {
    ctx.actions.push({ type: 'promote', pod: primaryPod!.name });
    ctx.requeueAfterMs = 500;
    return primaryPod;
  }
  return loss ? primaryLost(ctx, loss) : primaryPod;
}

/**
 * The primary is lost: the loss is remembered (since when, and why) and reported; nothing is
 * decided while failover is disabled, before `failover.after`, or with no reachable replica
 * that has finished loading. Then the replica with the highest offset (ties: the lowest
 * ordinal) is promoted ({@link decideFailover}), and returned.
 */
function primaryLost(ctx: RoleContext, loss: Loss): PodFacts | undefined {
  const { input, next } = ctx;
  const { now } = input;
  // Lost since the start of the first observation it failed (`observedAt`), not its end: one that
  // waited out a command timeout on a hung server (a stopped node) had gone unanswered that long.
  const since =
    ctx.memory.lostSince && ctx.memory.lostReason
      ? ctx.memory.lostSince
      : (input.observedAt ?? now);
  ctx.memory = { ...ctx.memory, lostSince: since, lostReason: loss.reason };
  const waited = elapsedMs(since, now);
  const message = `primary ${next.primary} is lost: ${loss.detail}`;
  const candidates = input.pods
    .filter((p) => p.name !== next.primary && !p.deleting && serving(p)?.role === 'replica')
    .filter((p) => !serving(p)!.loading)
    .sort(byPromotionOrder);
  // A primary that may still serve, with a fence: its replicas are tracked (and detached from it
  // from failover.after − the bound on), and the promotion waits until it has fenced itself.
  const fence = loss.mayServe ? fenceInForce(ctx) : undefined;
  if (fence && input.failover.enabled) {
    trackLinks(ctx);
    if (waited >= input.failover.afterMs - fence.boundSeconds * 1000) detachReplicas(ctx);
  }
  if (!input.failover.enabled) {
    ctx.stuck = {
      reason: 'FailoverDisabled',
      message: `${message}; spec.failover.enabled is false, so no replica is promoted`,
    };
    ctx.lost = { reason: loss.reason, since, message };
    return undefined;
  }
  if (waited < input.failover.afterMs) {
    const waitingMs = input.failover.afterMs - waited;
    ctx.lost = {
      reason: loss.reason,
      since,
      message: `${message}; a replica is promoted if it is still lost in ${Math.ceil(waitingMs / 1000)}s`,
      waitingMs,
    };
    ctx.requeueAfterMs = Math.max(100, Math.min(waitingMs, 1000));
    return undefined;
  }
  const to = candidates[0];
  if (!to) {
    ctx.stuck = {
      reason: 'NoReplicaToPromote',
      message: `${message}; no reachable replica to promote`,
    };
    ctx.lost = { reason: loss.reason, since, message };
    ctx.requeueAfterMs = 1000;
    return undefined;
  }
  let fencedBy: string | undefined;
  if (fence) {
    fencedBy = fencedByOf(ctx, fence, since);
    if (fencedBy === undefined || Date.parse(fencedBy) > Date.parse(now)) {
      const unknown = input.pods.filter(
        (p) => p.name !== next.primary && ctx.memory.links?.[p.name] === undefined,
      );
      ctx.lost = {
        reason: loss.reason,
        since,
        message: `${message}; ${to.name} is promoted once the old primary has fenced itself (min-replicas-to-write ${fence.minReplicas}, bound ${fence.boundSeconds}s): ${
          fencedBy
            ? `by ${fencedBy}`
            : `${unknown.map((p) => p.name).join(', ')} cannot be shown cut off from it (not reachable)`
        }`,
      };
      ctx.requeueAfterMs = fencedBy
        ? Math.max(100, Math.min(Date.parse(fencedBy) - Date.parse(now), 1000))
        : 1000;
      return undefined;
    }
  }
  decideFailover(ctx, loss, since, to, fence ? { ...fence, fencedBy: fencedBy! } : undefined);
  return to;
}

/**
 * The fence the lost primary applied: as its server was last seen (`min-replicas-to-write` ≥ 1),
 * else — not seen by this process (a restart) — the one spec.fencing asks for every pod to boot
 * with (`assumed`). Undefined: no fence.
 */
function fenceInForce(ctx: RoleContext): (PlanFence & { assumed: boolean }) | undefined {
  const { memory, next, input } = ctx;
  const seen =
    memory.lastSeen?.pod === next.primary && memory.lastSeen?.runId === next.primaryRunId
      ? memory.lastSeen
      : undefined;
  if (seen?.fence === 'none') return undefined;
  if (seen?.fence) return { ...seen.fence, assumed: false };
  return input.fence ? { ...input.fence, assumed: true } : undefined;
}

const detachedFrom = (v: Serving) =>
  v.role !== 'replica' ||
  (v.primary?.host === FENCE_ADDRESS.host && v.primary.port === FENCE_ADDRESS.port);

/**
 * Per other pod, the latest time it may have been linked to the lost primary
 * (`memory.links`): now, when it replicates from anything but the fence address — or when this
 * process sees it for the first time (it may have been linked until just now), or not running. A pod not
 * answering keeps what was known (nothing: it may be linked).
 */
function trackLinks(ctx: RoleContext) {
  const { pods, now } = ctx.input;
  const links = { ...ctx.memory.links };
  for (const pod of pods) {
    if (pod.name === ctx.next.primary) continue;
    // Not running (as its kubelet reports): no link now, perhaps one until just now.
    if (!pod.node) {
      if (links[pod.name] === undefined) links[pod.name] = now;
      continue;
    }
    const v = serving(pod);
    if (!v) continue;
    if (!detachedFrom(v) || links[pod.name] === undefined) links[pod.name] = now;
  }
  ctx.memory = { ...ctx.memory, links };
}

/**
 * Every answering replica still replicating from the lost primary is pointed at the fence address
 * (it closes its link: no more acknowledgements reach the old primary, which then refuses writes
 * within the bound). The roles phase records when each detach was answered (`memory.links`).
 */
function detachReplicas(ctx: RoleContext) {
  const detach = ctx.input.pods.filter((p) => {
    const v = serving(p);
    return p.name !== ctx.next.primary && v !== undefined && !detachedFrom(v);
  });
  for (const pod of detach) ctx.actions.push({ type: 'detach', pod: pod.name });
  if (detach.length && !ctx.memory.detachedAt) {
    ctx.memory = { ...ctx.memory, detachedAt: ctx.input.now };
    ctx.events.push({
      type: 'Warning',
      reason: 'ReplicasDetached',
      message: `primary ${ctx.next.primary} is lost and may still serve: ${detach.map((p) => p.name).join(', ')} detached from it, so that it refuses writes by itself before a replica is promoted`,
    });
  }
}

/**
 * When the lost primary had fenced itself for sure (pure): it accepts writes only while
 * `minReplicas` replicas acknowledged within the bound, so once fewer than that can have been
 * linked to it since, it refuses them — from the `minReplicas`-th latest link + the bound.
 * Undefined while too many pods cannot be shown cut off (never seen detached: not answering).
 */
function fencedByOf(ctx: RoleContext, fence: PlanFence, since: string): string | undefined {
  const others = ctx.input.pods.filter((p) => p.name !== ctx.next.primary);
  const times = others
    .map((p) => ctx.memory.links?.[p.name])
    .map((t) => (t === undefined ? Number.POSITIVE_INFINITY : Date.parse(t)))
    .sort((a, b) => b - a);
  const boundMs = fence.boundSeconds * 1000;
  // Fewer pods than it needs: it could not have accepted writes since it was lost.
  const nth = times.length < fence.minReplicas ? Date.parse(since) : times[fence.minReplicas - 1]!;
  return Number.isFinite(nth) ? new Date(nth + boundMs).toISOString() : undefined;
}

/**
 * The failover decided, written before it is carried out (status `primary`, `failover` phase
 * Promoting, `failoverCount + 1` — counted once: a restart resumes this record, never chooses
 * again), then the promotion. The bound: what the old primary was last seen to hold (its offset
 * at `primaryLastSeenAt`) beyond the promoted replica's offset; `Unknown` when this process never
 * saw it serve, or when the replica holds another replication history than the one the old
 * primary was seen on (one that served as primary on its own, e.g. partitioned during an earlier
 * failover): its offset is not a position in the old primary's stream, and everything the old
 * primary acknowledged may be lost.
 */
function decideFailover(
  ctx: RoleContext,
  loss: Loss,
  since: string,
  to: PodFacts,
  fence?: PlanFence & { fencedBy: string; assumed: boolean },
) {
  const { next, memory } = ctx;
  const { now } = ctx.input;
  const { offset: promotedOffset, replId } = serving(to)!;
  const seen =
    memory.lastSeen &&
    memory.lastSeen.pod === next.primary &&
    memory.lastSeen.runId === next.primaryRunId
      ? memory.lastSeen
      : undefined;
  const sameHistory = seen?.replId === replId;
  const bytesPossiblyLost =
    seen && sameHistory ? Math.max(0, seen.offset - promotedOffset) : undefined;
  // Unanswered and not fenced: it may have gone on acknowledging writes, lost with it.
  const unfenced = loss.reason === 'PrimaryUnreachable' && loss.mayServe === true && !fence;
  const fenceSaid = fence
    ? `; the old primary had fenced itself by ${fence.fencedBy} (min-replicas-to-write ${fence.minReplicas}, bound ${fence.boundSeconds}s${fence.assumed ? ', as spec.fencing sets it: this controller did not see its settings' : ''}): writes it acknowledged after ${seen?.at ?? 'it was last seen'} and before then may be lost unless salvaged, none after`
    : unfenced
      ? '; it did not answer and has no fence (spec.fencing): it may have gone on acknowledging writes that are lost, so what was lost is unknown'
      : '';
  const record: FailoverRecord = {
    phase: 'Promoting',
    from: next.primary!,
    to: to.name,
    reason: loss.reason,
    startedAt: now,
    primaryLostAt: since,
    promotedOffset,
    ...(seen ? { primaryLastOffset: seen.offset, primaryLastSeenAt: seen.at } : {}),
    ...(bytesPossiblyLost !== undefined ? { bytesPossiblyLost } : {}),
    ...(fence ? { primaryFencedBy: fence.fencedBy } : {}),
    dataLossRisk: bytesPossiblyLost !== undefined && !unfenced ? 'Bounded' : 'Unknown',
    salvage: {
      phase: 'Pending',
      message: `${next.primary} has not returned: when it does, its dataset is saved before it is resynchronised from ${to.name}`,
    },
    message:
      (!seen
        ? `${to.name} (offset ${promotedOffset}) replaces ${next.primary} (${loss.detail}); this controller never saw the old primary serve, so what was lost is unknown`
        : !sameHistory
          ? `${to.name} (offset ${promotedOffset}) replaces ${next.primary} (${loss.detail}; last seen at offset ${seen.offset} at ${seen.at}): ${to.name} holds another replication history than the old primary (replication id ${replId}, not ${seen.replId}), so what was lost is unknown — up to everything the old primary acknowledged`
          : `${to.name} (offset ${promotedOffset}) replaces ${next.primary} (${loss.detail}; last seen at offset ${seen.offset} at ${seen.at}): at most ${bytesPossiblyLost} bytes of the replication stream seen on the old primary were not on the new one; writes after ${seen.at} are not covered by this bound`) +
      fenceSaid,
  };
  ctx.next = {
    ...next,
    primary: to.name,
    failover: record,
    failoverCount: (next.failoverCount ?? 0) + 1,
  };
  delete ctx.next.primaryRunId;
  ctx.durable = true;
  ctx.memory = {};
  ctx.events.push({ type: 'Warning', reason: 'FailoverStarted', message: record.message });
  ctx.actions.push({ type: 'promote', pod: to.name });
  ctx.requeueAfterMs = 500;
}

/**
 * Whether the primary serves (its pod up and not being deleted, its server primary). When it
 * does, its run id is recorded once (from then on a new run id is a restart, not the primary)
 * and its offset remembered (the lag bound of a later failover is measured from here).
 */
function recordServing(ctx: RoleContext, primaryPod: PodFacts | undefined): boolean {
  const primaryNode = serving(primaryPod);
  if (!primaryPod || !primaryNode || primaryNode.role !== 'primary' || primaryPod.deleting)
    return false;
  if (ctx.next.primaryRunId !== primaryNode.runId) {
    ctx.next = { ...ctx.next, primaryRunId: primaryNode.runId };
    ctx.durable = true;
  }
  const f = primaryNode.fence;
  ctx.memory = {
    lastSeen: {
      pod: primaryPod.name,
      runId: primaryNode.runId,
      replId: primaryNode.replId,
      offset: primaryNode.offset,
      at: ctx.input.observedAt ?? ctx.input.now,
      ...(f
        ? {
            fence:
              f.minReplicas > 0 && f.maxLagSeconds > 0
                ? {
                    minReplicas: f.minReplicas,
                    boundSeconds: f.maxLagSeconds + FENCE_BOUND_MARGIN_SECONDS,
                  }
                : ('none' as const),
          }
        : {}),
    },
  };
  return true;
}

/**
 * Every other reachable pod follows the primary: a replica of another address, or a second
 * server claiming primary, is pointed at it (`REPLICAOF`; the latter fenced and reported). Gives
 * the pods not (yet) linked to it, with why, and the replicas ready and linked.
 */
function followPrimary(
  ctx: RoleContext,
  primaryPod: PodFacts | undefined,
  primaryServing: boolean,
): { lagging: string[]; readyReplicas: number } {
  const lagging: string[] = [];
  let readyReplicas = 0;
  const primaryIp = primaryPod?.ip;
  if (!primaryPod || !primaryIp) return { lagging, readyReplicas };
  const { port } = ctx.input;
  for (const pod of ctx.input.pods) {
    if (pod.name === primaryPod.name || pod.deleting) continue;
    const node = serving(pod);
    if (!node) {
      if (pod.node) lagging.push(`${pod.name}: ${(pod.node as { error: string }).error}`);
      continue;
    }
    const follows =
      node.role === 'replica' && node.primary?.host === primaryIp && node.primary.port === port;
    if (!follows) {
      const fence = node.role === 'primary';
      const salvage = salvageOf(ctx, pod, node, primaryPod);
      if (salvage === 'keptOut') {
        lagging.push(
          `${pod.name}: kept out of the cluster, its salvage failed (${ctx.next.failover!.salvage!.message})`,
        );
        continue;
      }
      ctx.actions.push({
        type: 'replicaOf',
        pod: pod.name,
        primary: primaryPod.name,
        host: primaryIp,
        port,
        fence,
        ...(salvage ? { salvage } : {}),
      });
      if (fence)
        ctx.events.push({
          type: 'Warning',
          reason: 'PrimaryFenced',
          message: `${pod.name} claimed primary while ${primaryPod.name} is primary: made a replica of ${primaryPod.name}`,
        });
      lagging.push(`${pod.name}: not yet a replica of ${primaryPod.name}`);
    } else if (!node.primary!.linkUp || node.syncInProgress || node.loading) {
      lagging.push(`${pod.name}: syncing from ${primaryPod.name}`);
    } else if (pod.ready && primaryServing) {
      readyReplicas++;
    }
  }
  return { lagging, readyReplicas };
}

/**
 * The old primary of the newest failover, back (answering, not yet following the new primary):
 * before it follows — a full resync would discard its dataset — what it holds is saved, unless
 * it holds nothing the new primary lacks (its offset at most the promoted one: salvage NotNeeded,
 * recorded now). Answers the salvage to carry out with its REPLICAOF, `keptOut` when an earlier
 * salvage failed (it stays out until a person decides), or undefined (nothing to save).
 */
function salvageOf(
  ctx: RoleContext,
  pod: PodFacts,
  node: Serving,
  primaryPod: PodFacts,
): Extract<RoleAction, { type: 'replicaOf' }>['salvage'] | 'keptOut' | undefined {
  const f = ctx.next.failover;
  if (!f || f.from !== pod.name || f.to !== primaryPod.name || !f.salvage) return undefined;
  if (f.salvage.phase === 'Failed') return 'keptOut';
  if (f.salvage.phase !== 'Pending') return undefined;
  if (node.offset <= f.promotedOffset) {
    ctx.next = {
      ...ctx.next,
      failover: {
        ...f,
        salvage: {
          phase: 'NotNeeded',
          from: String(f.promotedOffset),
          to: String(node.offset),
          bytes: 0,
          message: `${pod.name} came back at offset ${node.offset}, not beyond the ${f.promotedOffset} ${f.to} was promoted at: it holds nothing the new primary lacks`,
        },
      },
    };
    ctx.durable = true;
    return undefined;
  }
  const stamp = f.startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
  return { file: `salvage-${stamp}.rdb`, from: f.promotedOffset, failoverStartedAt: f.startedAt };
}

/**
 * A decided failover completes once the new primary serves and every reachable pod follows it
 * (Completed, `lastFailover`); until then a promotion carried out moves on to Repointing.
 */
function completeFailover(ctx: RoleContext, primaryServing: boolean, lagging: string[]) {
  const { next, input } = ctx;
  if (!next.failover || next.failover.phase === 'Completed' || !primaryServing) return;
  const others = input.pods.filter((p) => p.name !== next.primary && !p.deleting && serving(p));
  const repointing = ctx.actions.some((a) => a.type === 'replicaOf');
  if (
    !repointing &&
    others.length > 0 &&
    lagging.filter((l) => l.includes('not yet a replica')).length === 0
  ) {
    ctx.next = {
      ...next,
      failover: { ...next.failover, phase: 'Completed', completedAt: input.now },
      lastFailover: input.now,
    };
    ctx.durable = true;
    ctx.events.push({
      type: 'Normal',
      reason: 'FailoverCompleted',
      message: `${ctx.next.failover!.to} is primary; ${others.map((p) => p.name).join(', ')} follow it`,
    });
  } else if (next.failover.phase === 'Promoting') {
    ctx.next = { ...next, failover: { ...next.failover, phase: 'Repointing' } };
    ctx.durable = true;
  }
  ctx.requeueAfterMs = ctx.requeueAfterMs ?? 500;
}

/**
 * Fence actions first: a second server claiming primary is fenced before anything is promoted —
 * a promotion resumed after a crash may find the old primary back (its partition healed before
 * its fence). Otherwise the order is kept.
 */
function fencesFirst(actions: RoleAction[]): RoleAction[] {
  const fences = actions.filter((a) => a.type === 'replicaOf' && a.fence);
  return [...fences, ...actions.filter((a) => !fences.includes(a))];
}

// ---- Switchover (a rolling update reached the primary).

/** The primary as it serves under the recorded run id, or undefined. */
function servingPrimary(ctx: RoleContext): { pod: PodFacts; node: Serving } | undefined {
  const { next, input } = ctx;
  const pod = input.pods.find((p) => p.name === next.primary);
  const node = serving(pod);
  if (!pod || pod.deleting || !node || node.role !== 'primary') return undefined;
  if (!next.primaryRunId || node.runId !== next.primaryRunId) return undefined;
  return { pod, node };
}

/**
 * The replica a switchover from `primary` goes to: a pod that stays (ordinal below
 * spec.replicas), ready, linked to the primary (and listed online by it, when its list is
 * observed), done loading and syncing, on the primary's replication history and caught up to
 * within `SWITCHOVER_MAX_LAG_BYTES`, and not one the ask avoids — the highest offset first,
 * ties to the lowest ordinal.
 */
function switchoverTarget(
  ctx: RoleContext,
  primary: PodFacts,
  node: Serving,
  avoid: readonly string[],
): PodFacts | undefined {
  const { pods, replicas, port } = ctx.input;
  return pods
    .filter((p) => {
      const v = serving(p);
      if (p.name === primary.name || p.deleting || !p.ready || p.ordinal >= replicas) return false;
      if (avoid.includes(p.name)) return false;
      if (!v || v.role !== 'replica' || v.loading || v.syncInProgress) return false;
      const link = v.primary;
      if (!link || link.host !== primary.ip || link.port !== port || !link.linkUp) return false;
      if (
        node.replicas &&
        !node.replicas.some((r) => r.host === p.ip && r.port === port && r.state === 'online')
      )
        return false;
      return v.replId === node.replId && node.offset - v.offset <= SWITCHOVER_MAX_LAG_BYTES;
    })
    .sort(byPromotionOrder)[0];
}

/**
 * A switchover asked for while the primary serves and no failover or switchover is under way:
 * decided (status `switchover` Demoting, `switchoverCount + 1`) before {@link demote} carries it
 * out in this same plan. With no replica to go to, nothing is decided and the plan says why.
 */
function requestSwitchover(ctx: RoleContext, ask: SwitchoverAsk) {
  const primary = servingPrimary(ctx);
  if (!primary || primary.node.failoverState) return;
  const { pod, node } = primary;
  const target = switchoverTarget(ctx, pod, node, ask.avoid ?? []);
  if (!target) {
    const why =
      ask.reason === 'NodeDrain'
        ? `the node of the primary ${pod.name} is being drained: its eviction waits until a switchover moved the primary role to a replica on another node`
        : `the rolling update reached the primary ${pod.name}: it is restarted once a switchover moved the primary role to a replica`;
    ctx.switchover = {
      message: `${why}, and no replica is linked to it and caught up${ask.avoid?.length ? ` (on another node than ${ask.avoid.join(', ')})` : ''}`,
    };
    ctx.requeueAfterMs = 1000;
    return;
  }
  const { now } = ctx.input;
  const behind = node.offset - serving(target)!.offset;
  const record: SwitchoverRecord = {
    phase: 'Demoting',
    from: pod.name,
    to: target.name,
    reason: ask.reason,
    startedAt: now,
    // demote() takes it out of the read-write Service and sends FAILOVER in this same plan.
    writesStoppedAt: now,
    primaryLastOffset: node.offset,
    message: `switchover from ${pod.name} to ${target.name} (${ask.reason}): ${pod.name} out of the read-write Service, FAILOVER TO ${target.name} (${behind} bytes behind at offset ${node.offset})`,
  };
  ctx.next = {
    ...ctx.next,
    switchover: record,
    switchoverCount: (ctx.next.switchoverCount ?? 0) + 1,
  };
  ctx.durable = true;
  const { failoverSent: _sent, ...memory } = ctx.memory;
  ctx.memory = memory;
  ctx.events.push({ type: 'Normal', reason: 'SwitchingOver', message: record.message });
}

/**
 * A switchover under way (status.switchover Demoting). Answers true when it completed or was
 * given up this reconcile — the usual rules go on, from the new primary or the old one — and
 * false while it is under way: the plan ends with {@link finishDemoting}, so that neither the
 * replica serving as primary (the handover's outcome) is fenced as a second primary nor the old
 * primary, a replica once it handed over, failed over as a lost one.
 *
 * - Completed: the replica serves as primary holding at least the offset recorded on the old
 *   primary, and the old primary no longer serves as one (FAILOVER makes it the replica's
 *   replica before the handover; a snapshot that still shows it primary is older: wait).
 * - Given up: the replica lost (gone, restarted, following another), the old primary lost (gone
 *   or restarted), a FAILOVER this process sent ended without handing over (the replica did not
 *   catch up within `FAILOVER_TIMEOUT_MS`, or refused), a replica serving as primary without the
 *   old primary's data, or `SWITCHOVER_TIMEOUT_MS` passed — never while the old primary reports
 *   a FAILOVER under way (its own timeout ends it first).
 * - Otherwise a third server claiming primary is fenced (made a replica of the old primary),
 *   every pod is labelled replica and, while the old primary serves as primary with no
 *   FAILOVER under way that this process sent, FAILOVER TO the replica is sent (again, after a
 *   controller restart) — only while it can end before `SWITCHOVER_TIMEOUT_MS`.
 */
function demote(ctx: RoleContext, record: SwitchoverRecord): boolean {
  const { input } = ctx;
  const { pods, port, now } = input;
  const from = pods.find((p) => p.name === record.from);
  const to = pods.find((p) => p.name === record.to);
  const fromNode = from && !from.deleting ? serving(from) : undefined;
  const toNode = to && !to.deleting ? serving(to) : undefined;
  const primary = servingPrimary(ctx);
  if (primary)
    ctx.memory = {
      ...ctx.memory,
      lastSeen: {
        pod: primary.pod.name,
        runId: primary.node.runId,
        replId: primary.node.replId,
        offset: primary.node.offset,
        at: input.observedAt ?? now,
      },
    };
  const last = record.primaryLastOffset ?? 0;
  const handing = Boolean(fromNode?.failoverState);
  if (to && toNode?.role === 'primary') {
    if (toNode.offset < last && !handing) {
      giveUpSwitchover(
        ctx,
        record,
        `${to.name} serves as primary at offset ${toNode.offset}, short of the ${last} ${record.from} had when the switchover was decided (not its handover)`,
      );
      return true;
    }
    if (toNode.offset >= last && fromNode?.role !== 'primary') {
      completeSwitchover(ctx, record, to, toNode);
      return true;
    }
  }
  const elapsed = elapsedMs(record.startedAt, now);
  const toFollows =
    toNode?.role === 'replica' &&
    toNode.primary?.host === from?.ip &&
    toNode.primary?.port === port;
  const why = handing
    ? undefined
    : !to || to.deleting || !to.node
      ? `${record.to}'s pod is gone or not running`
      : !from || from.deleting || !from.node
        ? `${record.from}'s pod is gone or not running before it handed over; if it does not return, the failover rules apply`
        : fromNode && fromNode.runId !== ctx.next.primaryRunId
          ? `${record.from}'s server restarted before it handed over (it came back fenced); the failover rules apply`
          : toNode && toNode.role === 'replica' && !toFollows
            ? `${record.to} no longer replicates from ${record.from} (its server restarted, or follows another)`
            : primary && ctx.memory.failoverSent === record.startedAt
              ? `FAILOVER on ${record.from} ended without handing over (${record.to} did not have every byte within ${FAILOVER_TIMEOUT_MS / 1000}s, or refused)`
              : elapsed >= SWITCHOVER_TIMEOUT_MS
                ? `${record.to} did not serve as primary within ${SWITCHOVER_TIMEOUT_MS / 1000}s`
                : primary && !toNode
                  ? `${record.to} does not answer (${(to.node as { error: string }).error})`
                  : undefined;
  if (why) {
    giveUpSwitchover(ctx, record, why);
    return true;
  }
  // A third server claiming primary (back from a partition) is fenced as usual, to the old primary.
  for (const p of pods) {
    if (p === from || p === to || p.deleting || serving(p)?.role !== 'primary' || !from?.ip)
      continue;
    ctx.actions.push({
      type: 'replicaOf',
      pod: p.name,
      primary: from.name,
      host: from.ip,
      port,
      fence: true,
    });
    ctx.events.push({
      type: 'Warning',
      reason: 'PrimaryFenced',
      message: `${p.name} claimed primary while ${from.name} hands over to ${record.to}: made a replica of ${from.name}`,
    });
  }
  // Nobody in the read-write Service while the role moves: the old primary out of it first.
  ctx.actions.push(...labelActions(pods, undefined));
  const canEnd = elapsed + FAILOVER_TIMEOUT_MS < SWITCHOVER_TIMEOUT_MS;
  const toIp = to?.ip;
  const send = primary !== undefined && !handing && toFollows && toIp !== undefined && canEnd;
  if (send) {
    ctx.actions.push({
      type: 'failover',
      pod: record.from,
      to: record.to,
      host: toIp,
      port,
      timeoutMs: FAILOVER_TIMEOUT_MS,
    });
    ctx.memory = { ...ctx.memory, failoverSent: record.startedAt };
  }
  ctx.switchover = {
    message: `switching over from ${record.from} to ${record.to} (${record.reason}): ${
      fromNode?.failoverState === 'failover-in-progress'
        ? `${record.from} handing over`
        : handing
          ? `${record.from} paused writes until ${record.to} has every byte`
          : send
            ? `FAILOVER TO ${record.to} sent`
            : `waiting for ${record.to} to serve as primary`
    }`,
  };
  ctx.requeueAfterMs = 250;
  return false;
}

/** The plan of a reconcile that ends in {@link demote}: its actions, and a cluster switching over. */
function finishDemoting(ctx: RoleContext): RolePlan {
  const { next, durable, memory, events, actions, requeueAfterMs, switchover } = ctx;
  const readyReplicas = ctx.input.pods.filter((p) => p.ready && !p.deleting && serving(p)).length;
  return {
    ...(durable ? { status: next } : {}),
    actions,
    memory,
    events,
    health: {
      primaryServing: false,
      readyReplicas,
      lagging: [],
      failingOver: false,
      switchingOver: true,
      ...(switchover ? { switchover } : {}),
    },
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}

/**
 * The replica serves as primary: it becomes `status.primary` with its run id, the record
 * Completed with the write pause (writes resume once this reconcile labels it primary).
 */
function completeSwitchover(
  ctx: RoleContext,
  record: SwitchoverRecord,
  to: PodFacts,
  toNode: Serving,
) {
  const { now } = ctx.input;
  const paused = elapsedMs(record.writesStoppedAt ?? record.startedAt, now);
  const completed: SwitchoverRecord = {
    ...record,
    phase: 'Completed',
    completedAt: now,
    writesResumedAt: now,
    promotedOffset: toNode.offset,
    message: `switchover from ${record.from} to ${to.name} (${record.reason}): ${record.from} paused writes and handed over with FAILOVER only once ${to.name} had every byte of its replication stream (${to.name} serves at offset ${toNode.offset}, ${record.from} was at ${record.primaryLastOffset ?? '?'} when it was decided): nothing acknowledged is lost; writes paused for ${(paused / 1000).toFixed(1)} s`,
  };
  ctx.next = { ...ctx.next, primary: to.name, primaryRunId: toNode.runId, switchover: completed };
  ctx.durable = true;
  ctx.memory = {};
  ctx.events.push({ type: 'Normal', reason: 'SwitchoverCompleted', message: completed.message });
}

/** The switchover given up (Failed, Event): the usual rules go on from the old primary. */
function giveUpSwitchover(ctx: RoleContext, record: SwitchoverRecord, why: string) {
  const { now } = ctx.input;
  const serves = servingPrimary(ctx) !== undefined;
  const failed: SwitchoverRecord = {
    ...record,
    phase: 'Failed',
    completedAt: now,
    ...(serves ? { writesResumedAt: now } : {}),
    message: `switchover from ${record.from} to ${record.to} (${record.reason}) given up: ${why}; ${record.from} stays primary${serves ? ' and is put back in the read-write Service' : ''}`,
  };
  ctx.next = { ...ctx.next, switchover: failed };
  ctx.durable = true;
  const { failoverSent: _sent, ...memory } = ctx.memory;
  ctx.memory = memory;
  ctx.events.push({ type: 'Warning', reason: 'SwitchoverFailed', message: failed.message });
}
