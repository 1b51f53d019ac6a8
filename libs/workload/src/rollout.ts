import { type PrimaryUpdateMethod } from '@steward/crd';
import { type WorkloadPod } from './pod-facts.js';

/**
 * A workload kind's own rolling update (pure; its StatefulSet's updateStrategy is OnDelete, the
 * controller re-creates the pods): pods whose `controller-revision-hash` is not the set's update
 * revision are re-created one at a time, replicas first (the highest ordinal first), each only
 * while the cluster is settled, the primary last — with `spec.rollout.primary: Switchover` (the
 * default), only once a switchover moved the primary role to an updated replica, so that the old
 * primary is restarted as a replica; with `Restart`, or when it is the only instance, in place.
 */

/** After a rollout's switchover failed, how long before the rollout asks for another. */
export const ROLLOUT_SWITCHOVER_RETRY_MS = 60_000;

/** The newest switchover record, as the rollout reads it (`status.switchover`). */
export interface SwitchoverSeen {
  reason: string;
  phase: string;
  completedAt?: string;
}

export interface RolloutFacts {
  /** The pods of the StatefulSet that serves. */
  pods: readonly WorkloadPod[];
  /** The StatefulSet's update revision (undefined: not known yet, nothing rolls). */
  updateRevision: string | undefined;
  /** `status.primary`. */
  primary: string | undefined;
  /** `spec.rollout.primary` (default Switchover). */
  method: PrimaryUpdateMethod;
  /**
   * Pods desired: a switchover is asked only once that many exist (a replica the roll just
   * deleted is not re-created yet, and the others alone would look up to date). Default: any.
   */
  desired?: number;
}

export interface RolloutPlan {
  /** Pods still to be re-created with the current template, by name. */
  outdated: string[];
  /** The pod to re-create now, if any. */
  restart?: { pod: string; primary: boolean; remaining: number };
  /** The primary is the only outdated pod and waits for a switchover before its restart. */
  awaitingSwitchover?: boolean;
}

const revisionOf = (p: WorkloadPod) => p.metadata.labels?.['controller-revision-hash'];
const live = (pods: readonly WorkloadPod[]) => pods.filter((p) => !p.metadata.deletionTimestamp);
const isReady = (p: WorkloadPod) =>
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The pods not on the update revision, by name (none while the revision is not known). */
export function outdatedPods(pods: readonly WorkloadPod[], revision: string | undefined): string[] {
  if (!revision) return [];
  return live(pods)
    .filter((p) => revisionOf(p) !== revision)
    .map((p) => p.metadata.name!)
    .sort();
}

/** Whether the primary is to be switched over rather than restarted in place. */
const switchesOver = (facts: RolloutFacts) =>
  facts.method === 'Switchover' && live(facts.pods).length > 1;

/**
 * The roll's next step (pure). `settled`: every instance ready in its role, nothing failing or
 * switching over, nothing failed this reconcile — the roll moves only then.
 */
export function planRollout(facts: RolloutFacts & { settled: boolean }): RolloutPlan {
  const outdated = outdatedPods(facts.pods, facts.updateRevision);
  if (outdated.length === 0 || !facts.settled) return { outdated };
  const replica = outdated.filter((p) => p !== facts.primary).reverse()[0];
  const pod = replica ?? outdated[0]!;
  const primary = pod === facts.primary;
  if (primary && switchesOver(facts)) return { outdated, awaitingSwitchover: true };
  return { outdated, restart: { pod, primary, remaining: outdated.length - 1 } };
}

/**
 * Whether the rollout asks for a switchover now (pure): the primary is the only outdated pod, it
 * is to be switched over, every other pod runs the update revision and is Ready — and a
 * switchover the rollout asked for did not fail in the last `ROLLOUT_SWITCHOVER_RETRY_MS` (no
 * retry storm: the kind's switchover record says why it failed).
 */
export function rolloutWantsSwitchover(
  facts: RolloutFacts & { lastSwitchover: SwitchoverSeen | undefined; now: number },
): boolean {
  const { primary, updateRevision, lastSwitchover: last } = facts;
  if (!primary || !updateRevision || !switchesOver(facts)) return false;
  const outdated = outdatedPods(facts.pods, updateRevision);
  if (outdated.length !== 1 || outdated[0] !== primary) return false;
  const pods = live(facts.pods);
  if (facts.desired !== undefined && pods.length < facts.desired) return false;
  const others = pods.filter((p) => p.metadata.name !== primary);
  if (!others.every(isReady)) return false;
  return !failedLately(last, 'Rollout', facts.now);
}

/**
 * Whether the newest switchover, asked for `reason`, failed less than
 * `ROLLOUT_SWITCHOVER_RETRY_MS` ago: the ask waits (no retry storm; the record says why it failed).
 */
export function failedLately(
  last: SwitchoverSeen | undefined,
  reason: string,
  now: number,
): boolean {
  if (last?.reason !== reason || last.phase !== 'Failed' || !last.completedAt) return false;
  return now - Date.parse(last.completedAt) < ROLLOUT_SWITCHOVER_RETRY_MS;
}
