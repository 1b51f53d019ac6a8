import { recordDecision } from '@steward/workload';
import { type InstanceFacts, type PlanHealth } from '../plan/plan.js';
import { type PgEndpoint } from '../pg/index.js';
import { type ResolvedPostgres } from '../resolve.js';
import { type UpgradeOutcome } from '../upgrade/upgrade.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';
import { type Topology } from './topology.js';

/**
 * The upgrade phase: a major upgrade (spec.version above the running one) — its gate, or its next
 * step (`Upgrades.step`); each transition recorded only over the upgrade phase it was decided on.
 * `images.to` is spec.version's resolution (undefined: refused): its image, and how the
 * dump-and-restore Job pulls it.
 */
export async function upgradePhase(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  topology: Topology,
  images: { from: string; to: Pick<ResolvedPostgres, 'image' | 'pull'> | undefined },
  facts: InstanceFacts[],
  health: PlanHealth,
  endpoint: (ip: string) => PgEndpoint,
  scratchSize: string,
): Promise<UpgradeOutcome> {
  const key = `${cluster.metadata.namespace}/${cluster.metadata.name}`;
  return env.upgrades.step({
    cluster,
    running: cluster.status?.version ?? cluster.spec.version,
    currentSet: topology.set,
    fromImage: images.from,
    toImage: images.to?.image,
    ...(images.to?.pull ? { toPull: images.to.pull } : {}),
    facts,
    health,
    desired: topology.desired,
    pods: topology.allPods,
    endpoint,
    scratchSize,
    write: (expected, fields) =>
      recordDecision(ctx.status, {
        stale: (latest) =>
          latest.status?.upgrade?.phase !== expected
            ? `status.upgrade of ${key} is ${latest.status?.upgrade?.phase ?? 'absent'}, not ${expected ?? 'absent'}: deciding again`
            : undefined,
        fields: () => fields,
      }),
    signal: ctx.signal,
  });
}
