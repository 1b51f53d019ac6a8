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
 *   resumes it.
 * - Every other reachable pod follows the primary: a replica of another address, or a second
 *   server claiming primary, is pointed at the primary (`REPLICAOF`, fencing the latter).
 * - Labels: only the primary's pod carries `role=primary`, so the read-write Service follows it;
 *   when the primary is lost its pod is labelled replica until a new primary exists.
 */
import { type CacheClusterStatus, type FailoverRecord } from '@steward/cache-cluster-api';

/** A Redis server as one observation saw it (structurally @steward/cache-cluster's RedisObservation). */
export type NodeView =
  | { reachable: false; error: string }
  | {
      reachable: true;
      role: 'primary' | 'replica';
      runId: string;
      offset: number;
      primary?: { host: string; port: number; linkUp: boolean };
      loading: boolean;
      syncInProgress: boolean;
    };

/** One pod of the StatefulSet, as the cache and one observation see it. */
export interface PodFacts {
  name: string;
  ordinal: number;
  /** The pod IP, once it has one. */
  ip?: string;
  /** The pod's Ready condition. */
  ready: boolean;
  /** `metadata.deletionTimestamp` is set. */
  deleting: boolean;
  /** The role label the controller last gave it. */
  roleLabel?: string;
  /** Undefined when the pod has no IP or is not running (not observed). */
  node?: NodeView;
}

/** What the controller remembers between reconciles of one CacheCluster (per process). */
export interface PrimaryMemory {
  /**
   * The primary as last seen serving: its offset then, and a time no later than that offset was
   * read (`RolePlanInput.observedAt`), so every write acknowledged by `at` is within `offset`.
   */
  lastSeen?: { pod: string; runId: string; offset: number; at: string };
  /** When the current primary was first seen lost. */
  lostSince?: string;
  lostReason?: LossReason;
}

export type LossReason =
  | 'PrimaryPodMissing'
  | 'PrimaryPodDeleted'
  | 'PrimaryUnreachable'
  | 'PrimaryRestarted'
  | 'PrimaryDemoted';

export interface RolePlanInput {
  mode: 'Standalone' | 'Replicated';
  /** Pods desired. */
  replicas: number;
  failover: { enabled: boolean; afterMs: number };
  port: number;
  status: Pick<
    CacheClusterStatus,
    'primary' | 'primaryRunId' | 'failover' | 'failoverCount' | 'lastFailover'
  >;
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

export type RoleAction =
  | { type: 'promote'; pod: string }
  | { type: 'replicaOf'; pod: string; primary: string; host: string; port: number; fence: boolean }
  | { type: 'label'; pod: string; role: 'primary' | 'replica' };

export interface RoleEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The durable part of the decision: written to status before any action is carried out. */
export type RoleStatus = Pick<
  CacheClusterStatus,
  'primary' | 'primaryRunId' | 'failover' | 'failoverCount' | 'lastFailover'
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
): { reason: LossReason; detail: string } | 'pending' | undefined {
  if (!pod) return { reason: 'PrimaryPodMissing', detail: 'its pod does not exist' };
  if (pod.deleting) return { reason: 'PrimaryPodDeleted', detail: 'its pod is being deleted' };
  const node = pod.node;
  if (!node) return { reason: 'PrimaryUnreachable', detail: 'its pod is not running' };
  if (!node.reachable) return { reason: 'PrimaryUnreachable', detail: node.error };
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
    },
    ...(node ? {} : { requeueAfterMs: 2000 }),
  };
}

function planReplicated(input: RolePlanInput): RolePlan {
  const { status, pods, now } = input;
  const events: RoleEvent[] = [];
  const actions: RoleAction[] = [];
  let memory: PrimaryMemory = { ...input.memory };
  let next: RoleStatus = { ...status };
  let durable = false;
  let requeueAfterMs: number | undefined;
  let stuck: Health['stuck'];
  let lost: Health['lost'];

  // 1. No primary recorded: elect one (a first election, not a failover) — the decision is
  //    written before the promotion, so a restart carries it out instead of choosing again.
  if (!status.primary) {
    const primaries = pods.filter((p) => serving(p)?.role === 'primary' && !p.deleting);
    const candidates = (
      primaries.length ? primaries : pods.filter((p) => serving(p) && !p.deleting)
    ).sort(byPromotionOrder);
    // A first election waits for every desired pod (a fresh cluster: all at offset 0, so the
    // lowest ordinal wins), unless one already serves as primary.
    const all = Array.from({ length: input.replicas }, (_, i) => pods.find((p) => p.ordinal === i));
    const everyoneUp = all.every((p) => p && serving(p) && !p.deleting);
    const chosen = primaries.length || everyoneUp ? candidates[0] : undefined;
    if (!chosen) {
      return {
        actions: [],
        memory,
        events,
        health: { primaryServing: false, readyReplicas: 0, lagging: [], failingOver: false },
        requeueAfterMs: 2000,
      };
    }
    next = { ...next, primary: chosen.name };
    delete next.primaryRunId;
    durable = true;
    events.push({
      type: 'Normal',
      reason: 'PrimaryElected',
      message: `${chosen.name} is the first primary (replication offset ${serving(chosen)!.offset})`,
    });
  }

  let primaryPod = pods.find((p) => p.name === next.primary);
  let loss = lossOf(primaryPod, next);

  if (loss === 'pending') {
    actions.push({ type: 'promote', pod: primaryPod!.name });
    requeueAfterMs = 500;
    loss = undefined;
  } else if (loss) {
    // 2. The primary is lost.
    const since = memory.lostSince && memory.lostReason ? memory.lostSince : now;
    memory = { ...memory, lostSince: since, lostReason: loss.reason };
    const waited = elapsedMs(since, now);
    const message = `primary ${next.primary} is lost: ${loss.detail}`;
    const candidates = pods
      .filter((p) => p.name !== next.primary && !p.deleting && serving(p)?.role === 'replica')
      .filter((p) => !serving(p)!.loading)
      .sort(byPromotionOrder);
    if (!input.failover.enabled) {
      stuck = {
        reason: 'FailoverDisabled',
        message: `${message}; spec.failover.enabled is false, so no replica is promoted`,
      };
      lost = { reason: loss.reason, since, message };
    } else if (waited < input.failover.afterMs) {
      const waitingMs = input.failover.afterMs - waited;
      lost = {
        reason: loss.reason,
        since,
        message: `${message}; a replica is promoted if it is still lost in ${Math.ceil(waitingMs / 1000)}s`,
        waitingMs,
      };
      requeueAfterMs = Math.max(100, Math.min(waitingMs, 1000));
    } else if (!candidates.length) {
      stuck = {
        reason: 'NoReplicaToPromote',
        message: `${message}; no reachable replica to promote`,
      };
      lost = { reason: loss.reason, since, message };
      requeueAfterMs = 1000;
    } else {
      const to = candidates[0]!;
      const promotedOffset = serving(to)!.offset;
      const seen =
        memory.lastSeen &&
        memory.lastSeen.pod === next.primary &&
        memory.lastSeen.runId === next.primaryRunId
          ? memory.lastSeen
          : undefined;
      const bytesPossiblyLost = seen ? Math.max(0, seen.offset - promotedOffset) : undefined;
      const record: FailoverRecord = {
        phase: 'Promoting',
        from: next.primary!,
        to: to.name,
        reason: loss.reason,
        startedAt: now,
        primaryLostAt: since,
        promotedOffset,
        ...(seen
          ? { primaryLastOffset: seen.offset, primaryLastSeenAt: seen.at, bytesPossiblyLost }
          : {}),
        lossBound: seen ? 'Bounded' : 'Unknown',
        message: seen
          ? `${to.name} (offset ${promotedOffset}) replaces ${next.primary} (${loss.detail}; last seen at offset ${seen.offset} at ${seen.at}): at most ${bytesPossiblyLost} bytes of the replication stream seen on the old primary were not on the new one; writes after ${seen.at} are not covered by this bound`
          : `${to.name} (offset ${promotedOffset}) replaces ${next.primary} (${loss.detail}); this controller never saw the old primary serve, so what was lost is unknown`,
      };
      next = {
        ...next,
        primary: to.name,
        failover: record,
        failoverCount: (next.failoverCount ?? 0) + 1,
      };
      delete next.primaryRunId;
      durable = true;
      memory = {};
      events.push({ type: 'Warning', reason: 'FailoverStarted', message: record.message });
      actions.push({ type: 'promote', pod: to.name });
      primaryPod = to;
      requeueAfterMs = 500;
      loss = undefined;
    }
  }

  // 3. The primary serves: record its run id once, remember its offset, everyone follows it.
  const primaryNode = loss ? undefined : serving(primaryPod);
  const primaryServing = Boolean(
    primaryPod && primaryNode && primaryNode.role === 'primary' && !primaryPod.deleting,
  );
  const lagging: string[] = [];
  let readyReplicas = 0;
  if (primaryServing && primaryPod && primaryNode) {
    if (next.primaryRunId !== primaryNode.runId) {
      next = { ...next, primaryRunId: primaryNode.runId };
      durable = true;
    }
    memory = {
      lastSeen: {
        pod: primaryPod.name,
        runId: primaryNode.runId,
        offset: primaryNode.offset,
        at: input.observedAt ?? now,
      },
    };
    if (primaryPod.ready) readyReplicas++;
  }
  const primaryIp = primaryPod?.ip;
  if (!loss && primaryPod && primaryIp) {
    for (const pod of pods) {
      if (pod.name === primaryPod.name || pod.deleting) continue;
      const node = serving(pod);
      if (!node) {
        if (pod.node) lagging.push(`${pod.name}: ${(pod.node as { error: string }).error}`);
        continue;
      }
      const follows =
        node.role === 'replica' &&
        node.primary?.host === primaryIp &&
        node.primary.port === input.port;
      if (!follows) {
        const fence = node.role === 'primary';
        actions.push({
          type: 'replicaOf',
          pod: pod.name,
          primary: primaryPod.name,
          host: primaryIp,
          port: input.port,
          fence,
        });
        if (fence)
          events.push({
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
  }

  // 4. A decided failover completes once the new primary serves and every reachable pod follows it.
  if (next.failover && next.failover.phase !== 'Completed' && primaryServing) {
    const others = pods.filter((p) => p.name !== next.primary && !p.deleting && serving(p));
    const repointing = actions.some((a) => a.type === 'replicaOf');
    if (
      !repointing &&
      others.length > 0 &&
      lagging.filter((l) => l.includes('not yet a replica')).length === 0
    ) {
      next = {
        ...next,
        failover: { ...next.failover, phase: 'Completed', completedAt: now },
        lastFailover: now,
      };
      durable = true;
      events.push({
        type: 'Normal',
        reason: 'FailoverCompleted',
        message: `${next.failover!.to} is primary; ${others.map((p) => p.name).join(', ')} follow it`,
      });
    } else if (next.failover.phase === 'Promoting') {
      next = { ...next, failover: { ...next.failover, phase: 'Repointing' } };
      durable = true;
    }
    requeueAfterMs = requeueAfterMs ?? 500;
  }

  actions.push(...labelActions(pods, primaryServing ? next.primary : undefined));
  // A second server claiming primary is fenced before anything is promoted: a promotion resumed
  // after a crash may find the old primary back (its partition healed before its fence).
  const fences = actions.filter((a) => a.type === 'replicaOf' && a.fence);
  const ordered = [...fences, ...actions.filter((a) => !fences.includes(a))];
  const failingOver = Boolean(next.failover && next.failover.phase !== 'Completed');
  return {
    ...(durable ? { status: next } : {}),
    actions: ordered,
    memory,
    events,
    health: {
      primaryServing,
      readyReplicas,
      lagging,
      ...(lost ? { lost } : {}),
      failingOver,
      ...(stuck ? { stuck } : {}),
    },
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}
