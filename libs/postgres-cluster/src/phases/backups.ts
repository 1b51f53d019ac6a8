import { type BackupRequest, type BackupStepOutcome } from '../backup/reconcile.js';
import { type InstanceFacts, type PlanHealth } from '../plan/plan.js';
import { type ResolvedPostgres } from '../resolve.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';

/**
 * The backups phase (spec.backup): Jobs on the schedule and on request, the bucket's catalogue,
 * retention, restore rehearsals (`Backups.step`). A Job connects to the primary's pod IP (a
 * ClusterIP is not reachable from every pod network); a failover during a backup fails that backup
 * and the next one runs as planned. The Jobs run the instances' image, pulled as they pull it
 * (`resolved.pull`), with a scratch volume bounded by their volume size.
 */
export async function backupsPhase(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  resolved: Pick<ResolvedPostgres, 'image' | 'pull' | 'storage'>,
  facts: InstanceFacts[],
  health: PlanHealth,
  requests: BackupRequest[],
): Promise<BackupStepOutcome> {
  return env.backups.step({
    cluster,
    image: resolved.image,
    ...(resolved.pull ? { pull: resolved.pull } : {}),
    primaryHost: facts.find((f) => f.name === cluster.status?.primary)?.ip,
    primaryServing: health.primaryServing,
    scratchSize: resolved.storage.size,
    requests,
    signal: ctx.signal,
  });
}
