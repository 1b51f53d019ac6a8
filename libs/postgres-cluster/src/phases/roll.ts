import { type PrimaryUpdateMethod } from '@steward/crd';
import { isNotFound, Pods } from '@steward/kube';
import {
  drainWantsSwitchover,
  planRollout,
  rolloutWantsSwitchover,
  type RolloutPlan,
} from '@steward/workload';
import { type PlanHealth } from '../plan/plan.js';
import { type Pod } from '../pods.js';
import { type Cluster, type PhaseEnv } from './env.js';
import { type SwitchoverAsk } from './topology.js';

/** How long a primary restarted by the controller's own roll is not failed over. */
export const PLANNED_RESTART_MS = 60_000;

export interface RollFacts {
  /** The pods of the set that serves. */
  pods: Pod[];
  /** The StatefulSet's update revision (undefined: not known yet). */
  updateRevision: string | undefined;
  primary: string | undefined;
  /** `spec.rollout.primary`. */
  method: PrimaryUpdateMethod;
  health: PlanHealth;
  /** Instances observed this reconcile. */
  instances: number;
  /** Some action of this reconcile failed. */
  actionsFailed: boolean;
}

export type RollPlan = RolloutPlan;

/**
 * The controller's own roll (pure; the StatefulSet's updateStrategy is OnDelete): the shared
 * rollout (`planRollout`) — standbys first, the primary last, switched over first unless
 * `spec.rollout.primary` is Restart — moving only while every instance is ready in its role,
 * nothing is failing or switching over and nothing failed this reconcile.
 */
export function planRoll(facts: RollFacts): RollPlan {
  const settled =
    facts.health.readyReplicas === facts.instances &&
    facts.health.primaryServing &&
    !facts.health.failingOver &&
    !facts.health.switchingOver &&
    !facts.actionsFailed;
  return planRollout({ ...facts, settled });
}

/**
 * The switchover a rolling update asks for (pure, before the plan): when the primary is the only
 * instance left on the old template (see `rolloutWantsSwitchover`).
 */
export function rollSwitchover(
  cluster: Cluster,
  pods: Pod[],
  updateRevision: string | undefined,
  now: number,
): SwitchoverAsk | undefined {
  const wanted = rolloutWantsSwitchover({
    pods,
    updateRevision,
    primary: cluster.status?.primary,
    method: cluster.spec.rollout?.primary ?? 'Switchover',
    desired: cluster.spec.replicas ?? 1,
    lastSwitchover: cluster.status?.switchover,
    now,
  });
  return wanted ? { reason: 'Rollout' } : undefined;
}

/**
 * The switchover a drain asks for (pure, before the plan): the primary's pod is on a cordoned
 * node — its PodDisruptionBudget refuses its eviction while it is primary — so it moves to a
 * standby on another node (`drainWantsSwitchover`), whatever `spec.rollout` says.
 */
export function drainSwitchover(
  cluster: Cluster,
  pods: Pod[],
  cordoned: (nodeName: string) => boolean,
  now: number,
): SwitchoverAsk | undefined {
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
 * Carries out the roll's restart: a primary restarted on purpose is not failed over for
 * `PLANNED_RESTART_MS` (`plannedRestarts`).
 */
export async function rollPhase(
  env: PhaseEnv,
  cluster: Cluster,
  plan: RollPlan,
  plannedRestarts: Map<string, { pod: string; until: number }>,
): Promise<void> {
  const restart = plan.restart;
  if (!restart) return;
  if (restart.primary)
    plannedRestarts.set(cluster.metadata.uid ?? cluster.metadata.name!, {
      pod: restart.pod,
      until: env.now().getTime() + PLANNED_RESTART_MS,
    });
  await env.client.delete(Pods, restart.pod, cluster.metadata.namespace).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
  env.emit(
    cluster,
    'Normal',
    'Restarting',
    `${restart.pod} restarts with the new pod template (${restart.remaining} more to go)`,
  );
}

/** Whether the failover plan holds off: the primary is down because the roll restarted it. */
export function failoverHeld(
  plannedRestarts: Map<string, { pod: string; until: number }>,
  cluster: Cluster,
  now: number,
): boolean {
  const planned = plannedRestarts.get(cluster.metadata.uid ?? cluster.metadata.name!);
  return planned !== undefined && planned.pod === cluster.status?.primary && now < planned.until;
}
