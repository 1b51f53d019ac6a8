/**
 * The CacheCluster's own rolling update (its StatefulSet's updateStrategy is OnDelete): the
 * shared rollout of @steward/workload (`planRollout`, `rolloutWantsSwitchover`) — replicas first,
 * the highest ordinal first, one at a time and only while the cluster is settled, the primary
 * last: with `spec.rollout.primary: Switchover` (the default) once a switchover (FAILOVER TO an
 * updated replica, roles/plan.ts) made it a replica, with `Restart` or as the only pod in place.
 *
 * `Restart` holds no failover off (PostgresCluster's `failoverHeld` does): a Redis primary
 * restarted in place comes back fenced with a new run id — without persistence, empty — and
 * handing the role back to it would hand that dataset to every replica. Its restart is a loss of
 * the primary like any other: the failover rules promote the replica with the highest offset
 * after `failover.after` and record it in status.failover (today's behaviour before the
 * controller rolled the pods itself).
 */
import { type CacheCluster } from '@steward/cache-cluster-api';
import { type PrimaryUpdateMethod, type SwitchoverReason } from '@steward/crd';
import { isNotFound, Pods, type KubeClient } from '@steward/kube';
import {
  drainWantsSwitchover,
  planRollout,
  rolloutWantsSwitchover,
  type RolloutPlan,
} from '@steward/workload';
import { type Pod } from '../pods.js';
import { type Health, type SwitchoverAsk } from '../roles/plan.js';
import { desiredReplicas } from './replicas.js';

type Cluster = CacheCluster;

export interface RollFacts {
  pods: Pod[];
  /** The StatefulSet's update revision (undefined: not known yet, nothing rolls). */
  updateRevision: string | undefined;
  /** `status.primary`. */
  primary: string | undefined;
  /** `spec.rollout.primary` (default Switchover). */
  method: PrimaryUpdateMethod;
  health: Health;
  /** Pods desired. */
  replicas: number;
  /** Some action of this reconcile failed. */
  actionsFailed: boolean;
}

/**
 * The roll's next step (pure): the shared `planRollout`, moving only while every desired pod is
 * ready in its role, the primary serves, no failover or switchover is under way, no replica is
 * still syncing and no action failed this reconcile.
 */
export function planRoll(facts: RollFacts): RolloutPlan {
  const { health } = facts;
  const settled =
    health.primaryServing &&
    health.readyReplicas >= facts.replicas &&
    health.lagging.length === 0 &&
    !health.failingOver &&
    !health.switchingOver &&
    health.lost === undefined &&
    !facts.actionsFailed;
  return planRollout({ ...facts, settled });
}

/**
 * The switchover a rolling update asks for (pure, before the role plan): when every desired pod
 * exists — a replica the roll just deleted is not yet re-created, and the others alone would
 * look up to date — the primary is the only one left on the old template, every other pod is
 * Ready, and no switchover the rollout asked for failed in the last minute
 * (`rolloutWantsSwitchover`).
 */
export function rollSwitchover(
  cluster: Cluster,
  pods: Pod[],
  updateRevision: string | undefined,
  now: number,
): { reason: SwitchoverReason } | undefined {
  if ((cluster.spec.mode ?? 'Standalone') !== 'Replicated') return undefined;
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  if (live.length !== desiredReplicas(cluster)) return undefined;
  const wanted = rolloutWantsSwitchover({
    pods,
    updateRevision,
    primary: cluster.status?.primary,
    method: cluster.spec.rollout?.primary ?? 'Switchover',
    lastSwitchover: cluster.status?.switchover,
    now,
  });
  return wanted ? { reason: 'Rollout' } : undefined;
}

/**
 * The switchover a drain asks for (pure, before the role plan; it takes precedence over the
 * rollout's): Replicated, the primary's pod on a cordoned node — its PodDisruptionBudget
 * (`<name>-primary`) refuses its eviction while it carries the eviction-protected label — and
 * another pod to switch to: FAILOVER TO a caught-up replica on a node not cordoned (`avoid`:
 * the pods on cordoned nodes), whatever `spec.rollout` says. One that failed in the last minute
 * waits (`drainWantsSwitchover` with the last switchover and `now`).
 */
export function drainSwitchover(
  cluster: Cluster,
  pods: Pod[],
  cordoned: (nodeName: string) => boolean,
  now: number,
): SwitchoverAsk | undefined {
  if ((cluster.spec.mode ?? 'Standalone') !== 'Replicated') return undefined;
  const drain = drainWantsSwitchover({
    pods,
    primary: cluster.status?.primary,
    cordoned,
    lastSwitchover: cluster.status?.switchover,
    now,
  });
  return drain ? { reason: 'NodeDrain', avoid: drain.avoid } : undefined;
}

/**
 * The switchover asked of the role plan this reconcile (pure): a drain's (`drainSwitchover`)
 * first, else a rolling update's (`rollSwitchover`).
 */
export function switchoverAsk(
  cluster: Cluster,
  pods: Pod[],
  updateRevision: string | undefined,
  cordoned: (nodeName: string) => boolean,
  now: number,
): SwitchoverAsk | undefined {
  return (
    drainSwitchover(cluster, pods, cordoned, now) ??
    rollSwitchover(cluster, pods, updateRevision, now)
  );
}

/**
 * The roll as the status reads it (pure): complete once the StatefulSet controller has seen the
 * current template (its update revision is this generation's) and no pod is left on an older one.
 */
export function rollStatus(
  sts: { metadata?: { generation?: number }; status?: { observedGeneration?: number } } | undefined,
  plan: RolloutPlan,
): { complete: boolean; message: string } | undefined {
  if (!sts) return undefined;
  const observed = (sts.status?.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 1);
  if (!observed) return { complete: false, message: 'waiting for the StatefulSet to be observed' };
  if (plan.outdated.length === 0) return { complete: true, message: 'every pod is up to date' };
  return {
    complete: false,
    message: `restarting with the new pod template: ${plan.outdated.join(', ')} still to go${
      plan.awaitingSwitchover ? ' (the primary once a switchover made it a replica)' : ''
    }`,
  };
}

/** What the roll phase acts with. */
export interface RollEnv {
  client: Pick<KubeClient, 'delete'>;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** Carries out the roll's step: the pod deleted (the StatefulSet re-creates it on the new template). */
export async function rollPhase(env: RollEnv, cluster: Cluster, plan: RolloutPlan): Promise<void> {
  const restart = plan.restart;
  if (!restart) return;
  await env.client.delete(Pods, restart.pod, cluster.metadata.namespace).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
  env.emit(
    cluster,
    'Normal',
    'Restarting',
    `${restart.pod} restarts with the new pod template (${restart.remaining} more to go)${
      restart.primary
        ? (cluster.spec.mode ?? 'Standalone') === 'Replicated'
          ? ': the primary, in place (spec.rollout.primary Restart): the failover rules promote a replica'
          : ': the only pod, in place'
        : ''
    }`,
  );
}
