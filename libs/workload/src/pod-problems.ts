import { CoreEvents, type KubeClient, type KubeObject } from '@steward/kube';
import { type ClaimObject } from './volumes.js';

/** The parts of a Pod the failure reader looks at. */
export interface PodLike extends KubeObject {
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: ContainerStatusLike[];
    initContainerStatuses?: ContainerStatusLike[];
  };
}

export interface ContainerStatusLike {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    running?: unknown;
    waiting?: { reason?: string; message?: string };
    terminated?: { exitCode?: number; reason?: string; message?: string };
  };
  lastState?: { terminated?: { exitCode?: number; reason?: string; message?: string } };
}

/** A PersistentVolumeClaim as the failure reader looks at it. */
export type ClaimLike = ClaimObject;

/** The parts of a core Event the failure reader looks at. */
export interface EventLike {
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  metadata?: { creationTimestamp?: string };
}

/**
 * Why a workload's pods or volumes do not come up, in words a user can act on — the same reasons
 * for every workload kind (`Ready=False` and `Degraded=True` name the first).
 */
export const FailureReasons = {
  /** The scheduler places no pod (its own message says why: resources, taints, affinity). */
  Unschedulable: 'Unschedulable',
  /** A volume is not provisioned (the provisioner's or the PV controller's event says why). */
  VolumeNotProvisioned: 'VolumeNotProvisioned',
  /** A volume the pod mounts cannot be set up (e.g. a Secret or ConfigMap that does not exist). */
  VolumeMountFailed: 'VolumeMountFailed',
  /** A Secret, ConfigMap or key the container's environment references does not exist. */
  ReferencedObjectMissing: 'ReferencedObjectMissing',
  /** The image cannot be pulled (a wrong name or tag, a registry that refuses, no pull secret). */
  ImagePullFailed: 'ImagePullFailed',
  /** The server starts and stops again and again (its own last error line says why). */
  CrashLooping: 'CrashLooping',
} as const;

export interface Failure {
  reason: string;
  message: string;
}

/** How long a pod or claim may be on its way before its Events are read. */
export const STUCK_AFTER_MS = 20_000;

const imagePullReasons = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
]);
const configReasons = new Set(['CreateContainerConfigError']);

/** The last non-empty line of a termination message (the server's own last error). */
export function lastLine(text: string | undefined): string | undefined {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1);
}

function containerFailure(pod: string, c: ContainerStatusLike): Failure | undefined {
  const waiting = c.state?.waiting;
  const reason = waiting?.reason;
  if (reason && imagePullReasons.has(reason))
    return {
      reason: FailureReasons.ImagePullFailed,
      message: `pod ${pod}: the image of container ${c.name} cannot be pulled (${reason}${waiting?.message ? `: ${waiting.message}` : ''})`,
    };
  if (reason && configReasons.has(reason))
    return {
      reason: FailureReasons.ReferencedObjectMissing,
      message: `pod ${pod}: container ${c.name} cannot be created: ${waiting?.message ?? reason}`,
    };
  if (reason === 'CrashLoopBackOff') {
    const last = c.lastState?.terminated;
    const line = lastLine(last?.message);
    return {
      reason: FailureReasons.CrashLooping,
      message: `pod ${pod}: container ${c.name} keeps stopping (${c.restartCount ?? 0} restarts${last?.exitCode !== undefined ? `, last exit code ${last.exitCode}` : ''})${line ? `: ${line}` : last?.reason ? `: ${last.reason}` : ''}`,
    };
  }
  return undefined;
}

/**
 * What to do when the scheduler's message says `spec.scheduling` held a pod back, or undefined:
 * the spread (pod anti-affinity, topology spread constraints), node labels (nodeSelector,
 * nodeAffinity) or taints without a toleration — each named once, in that order.
 */
export function schedulingHint(schedulerMessage: string): string | undefined {
  const hints: string[] = [];
  if (/anti-affinity|topology spread constraint/i.test(schedulerMessage)) {
    const unlabelled = /missing required label/i.test(schedulerMessage)
      ? ' (a node without the spread’s topology label, e.g. topology.kubernetes.io/zone, is in no zone)'
      : '';
    hints.push(
      `the spread of spec.scheduling leaves no node for it${unlabelled}: add nodes or zones, or set spec.scheduling.spread to Preferred (or relax its affinity / topologySpreadConstraints)`,
    );
  }
  if (/node affinity\/selector/i.test(schedulerMessage))
    hints.push(
      'no node that fits has the labels spec.scheduling.nodeSelector / affinity.nodeAffinity ask for',
    );
  if (/untolerated taint/i.test(schedulerMessage))
    hints.push('a tainted node needs a toleration in spec.scheduling.tolerations');
  return hints.length ? hints.join('; ') : undefined;
}

/** The pod's own account of why it does not run (pure): scheduling, then its containers. */
export function podFailure(pod: PodLike): Failure | undefined {
  if (pod.metadata.deletionTimestamp) return undefined;
  const name = pod.metadata.name ?? '';
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    const said = scheduled.message ?? 'no node fits';
    const hint = schedulingHint(said);
    return {
      reason: FailureReasons.Unschedulable,
      message: `pod ${name} cannot be scheduled: ${said}${hint ? ` — ${hint}` : ''}`,
    };
  }
  for (const c of [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ]) {
    const failure = containerFailure(name, c);
    if (failure) return failure;
  }
  return undefined;
}

const eventTime = (e: EventLike) =>
  Date.parse(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '') || 0;

/** The newest Warning of `reasons` among an object's Events (pure), or undefined. */
export function newestWarning(
  events: readonly EventLike[],
  reasons: readonly string[],
): EventLike | undefined {
  return events
    .filter((e) => e.type === 'Warning' && reasons.includes(e.reason ?? ''))
    .sort((a, b) => eventTime(b) - eventTime(a))[0];
}

/** What to read Events of (pure): claims still Pending, pods not started, both for a while. */
export function stuckObjects(
  pods: readonly PodLike[],
  claims: readonly ClaimLike[],
  now: number,
): { kind: 'Pod' | 'PersistentVolumeClaim'; name: string }[] {
  const since = (o: KubeObject) => now - (Date.parse(o.metadata.creationTimestamp ?? '') || now);
  const stuck: { kind: 'Pod' | 'PersistentVolumeClaim'; name: string }[] = [];
  for (const c of claims)
    if (c.status?.phase === 'Pending' && since(c) >= STUCK_AFTER_MS)
      stuck.push({ kind: 'PersistentVolumeClaim', name: c.metadata.name! });
  for (const p of pods) {
    const creating = (p.status?.containerStatuses ?? []).some(
      (c) => c.state?.waiting?.reason === 'ContainerCreating',
    );
    const scheduled = p.status?.conditions?.some(
      (c) => c.type === 'PodScheduled' && c.status === 'True',
    );
    if (
      !p.metadata.deletionTimestamp &&
      p.status?.phase === 'Pending' &&
      scheduled &&
      (creating || !p.status?.containerStatuses?.length) &&
      since(p) >= STUCK_AFTER_MS
    )
      stuck.push({ kind: 'Pod', name: p.metadata.name! });
  }
  return stuck;
}

/**
 * Every failure a user can act on among a workload's pods and volumes (pure), one per object, in
 * the order: volumes not provisioned, pods that cannot be scheduled, volumes that cannot be
 * mounted, images, references, crash loops. `events` holds the Events read for the objects
 * `stuckObjects` named (`Kind/name`).
 */
export function workloadFailures(
  pods: readonly PodLike[],
  claims: readonly ClaimLike[],
  events: ReadonlyMap<string, readonly EventLike[]>,
): Failure[] {
  const failures: Failure[] = [];
  for (const c of claims) {
    const warning = newestWarning(events.get(`PersistentVolumeClaim/${c.metadata.name}`) ?? [], [
      'ProvisioningFailed',
      'FailedBinding',
    ]);
    if (c.status?.phase === 'Pending' && warning)
      failures.push({
        reason: FailureReasons.VolumeNotProvisioned,
        message: `PersistentVolumeClaim ${c.metadata.name} is not provisioned${c.spec?.storageClassName ? ` (StorageClass ${c.spec.storageClassName})` : ''}: ${warning.message ?? warning.reason}`,
      });
  }
  const order: string[] = [
    FailureReasons.Unschedulable,
    FailureReasons.VolumeMountFailed,
    FailureReasons.ImagePullFailed,
    FailureReasons.ReferencedObjectMissing,
    FailureReasons.CrashLooping,
  ];
  const byPod: Failure[] = [];
  for (const p of pods) {
    const own = podFailure(p);
    if (own) {
      byPod.push(own);
      continue;
    }
    const mount = newestWarning(events.get(`Pod/${p.metadata.name}`) ?? [], [
      'FailedMount',
      'FailedAttachVolume',
    ]);
    if (mount && p.status?.phase === 'Pending')
      byPod.push({
        reason: FailureReasons.VolumeMountFailed,
        message: `pod ${p.metadata.name} cannot start: ${mount.message ?? mount.reason}`,
      });
  }
  byPod.sort((a, b) => order.indexOf(a.reason) - order.indexOf(b.reason));
  return [...failures, ...byPod];
}

/**
 * The Events of the objects `stuckObjects` names, read from the API server (one list per object,
 * only while it is stuck: a healthy workload costs no request). A failure to read leaves that
 * object out: the condition then says less, never something wrong.
 */
export async function eventsOf(
  client: Pick<KubeClient, 'list'>,
  namespace: string,
  objects: readonly { kind: string; name: string }[],
  signal?: AbortSignal,
): Promise<Map<string, EventLike[]>> {
  const events = new Map<string, EventLike[]>();
  for (const o of objects) {
    signal?.throwIfAborted();
    try {
      const list = await client.list<KubeObject & EventLike>(CoreEvents, {
        namespace,
        fieldSelector: `involvedObject.kind=${o.kind},involvedObject.name=${o.name}`,
      });
      events.set(`${o.kind}/${o.name}`, list.items);
    } catch {
      // Events are best effort (RBAC, a slow API server): the pods' own state still speaks.
    }
  }
  return events;
}

/**
 * The failures of a workload's pods and volumes this reconcile: their own state, and the Events of
 * those stuck for `STUCK_AFTER_MS` (read only then).
 */
export async function readFailures(
  client: Pick<KubeClient, 'list'>,
  namespace: string,
  pods: readonly PodLike[],
  claims: readonly ClaimLike[],
  now: number,
  signal?: AbortSignal,
): Promise<Failure[]> {
  const stuck = stuckObjects(pods, claims, now);
  const events = stuck.length ? await eventsOf(client, namespace, stuck, signal) : new Map();
  return workloadFailures(pods, claims, events);
}
