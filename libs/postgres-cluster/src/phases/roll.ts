import { isNotFound, Pods } from '@steward/kube';
import { type PlanHealth } from '../plan/plan.js';
import { type Pod } from '../pods.js';
import { type Cluster, type PhaseEnv } from './env.js';

/** How long a primary restarted by the controller's own roll is not failed over. */
export const PLANNED_RESTART_MS = 60_000;

export interface RollFacts {
  /** The pods of the set that serves. */
  pods: Pod[];
  /** The StatefulSet's update revision (undefined: not known yet). */
  updateRevision: string | undefined;
  primary: string | undefined;
  health: PlanHealth;
  /** Instances observed this reconcile. */
  instances: number;
  /** Some action of this reconcile failed. */
  actionsFailed: boolean;
}

export interface RollPlan {
  /** Pods still to be re-created with the current template, by name. */
  outdated: string[];
  /** The pod to re-create now, if any. */
  restart?: { pod: string; primary: boolean; remaining: number };
}

/**
 * The controller's own roll (pure; the StatefulSet's updateStrategy is OnDelete): pods whose
 * revision is not the update revision are re-created one at a time, standbys first (the highest
 * ordinal first), the primary last — and only while every instance is ready in its role, nothing
 * is failing over and nothing failed this reconcile.
 */
export function planRoll(facts: RollFacts): RollPlan {
  const revision = facts.updateRevision;
  const outdated = revision
    ? facts.pods
        .filter(
          (p) =>
            !p.metadata.deletionTimestamp &&
            p.metadata.labels?.['controller-revision-hash'] !== revision,
        )
        .map((p) => p.metadata.name!)
        .sort()
    : [];
  const settled =
    facts.health.readyReplicas === facts.instances &&
    facts.health.primaryServing &&
    !facts.health.failingOver &&
    !facts.actionsFailed;
  if (outdated.length === 0 || !settled) return { outdated };
  const standby = outdated.filter((p) => p !== facts.primary).reverse()[0];
  const pod = standby ?? outdated[0]!;
  return {
    outdated,
    restart: { pod, primary: pod === facts.primary, remaining: outdated.length - 1 },
  };
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
