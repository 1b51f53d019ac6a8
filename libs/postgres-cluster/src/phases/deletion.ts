import { TerminalError } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';
import {
  compareQuantity,
  deleteOwnVolumes,
  retainVolumes,
  volumesOf,
  type ImagePull,
  type PreDeleteOutcome,
} from '@steward/workload';
import { BackupReasons } from '../backup/reconcile.js';
import { childNames, DataVolumeName, Labels } from '../children/index.js';
import { resolveBackup } from '../resolve.js';
import { PostgresReasons } from '../status.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';

/**
 * The volumes of this cluster's instance sets (`data-<name>-<n>`, and a major upgrade's
 * `data-<name>-v<major>-<n>`) — not a same-named predecessor's retained ones.
 */
export function clusterVolumes(env: PhaseEnv, cluster: Cluster) {
  const name = cluster.metadata.name!;
  const prefix = `${DataVolumeName}-${name}-`;
  return volumesOf(env.claims(cluster.metadata.namespace!, name), cluster, (claim) => {
    const claimName = claim.metadata.name ?? '';
    return (
      claimName.startsWith(prefix) &&
      /^(v[0-9]+-)?(0|[1-9][0-9]{0,8})$/.test(claimName.slice(prefix.length))
    );
  });
}

/** The largest volume of the cluster: a final backup's scratch bound (a copy never exceeds it). */
function scratchOf(env: PhaseEnv, cluster: Cluster): string | undefined {
  let largest: string | undefined;
  for (const claim of env.claims(cluster.metadata.namespace!, cluster.metadata.name!)) {
    const size = claim.spec?.resources?.requests?.storage;
    if (size && (!largest || compareQuantity(size, largest) === 1)) largest = size;
  }
  return largest;
}

/** Where the backups stay after a deletion, for its Event. */
function backupsKept(cluster: Cluster): string {
  const b = cluster.status?.backup;
  if (!cluster.spec.backup) return '';
  return `; the backups stay in ${b?.destination ?? 'the bucket'}${b?.lastSuccessful ? ` (${b.count ?? 1}, the newest ${b.lastSuccessful.id})` : ''}, where nothing expires them any more`;
}

/** deletionPolicy Retain: volumes, Secrets and backups stay; the Event says where. */
export async function retainCluster(env: PhaseEnv, cluster: Cluster): Promise<void> {
  const names = childNames(cluster.metadata.name!);
  const message = await retainVolumes(
    env.client,
    env.children,
    cluster,
    clusterVolumes(env, cluster),
    [names.superuserSecret, names.appSecret, names.replicationSecret],
    backupsKept(cluster),
  );
  env.emit(cluster, 'Normal', 'Retained', message);
}

/** deletionPolicy Delete: the volumes are deleted; the children go with the PostgresCluster. */
export async function removeCluster(
  env: PhaseEnv,
  cluster: Cluster,
  backupNote?: string,
): Promise<void> {
  const message = await deleteOwnVolumes(
    env.client,
    cluster,
    clusterVolumes(env, cluster),
    'the StatefulSet, Services, Secrets and the rest',
    backupNote ? `; ${backupNote}` : '',
  );
  env.emit(cluster, 'Normal', 'Deleted', message);
}

/** Before a `Delete` deletion: the final backup (spec.backup, unless skipFinalBackup). */
export async function beforeDelete(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  profile: ProviderProfile | undefined,
): Promise<PreDeleteOutcome> {
  if (!cluster.spec.backup) return { done: true };
  const settled = resolveBackup(cluster, profile);
  if (!settled.allowed && !cluster.spec.skipFinalBackup)
    throw new TerminalError(
      settled.reason,
      `${settled.message}. The final backup cannot be taken: the volumes stay until this is fixed, or spec.skipFinalBackup is true`,
    );
  const final = await finalBackup(
    env,
    ctx,
    settled.allowed ? settled.cluster : cluster,
    finalBackupPull(cluster, profile),
  );
  if ('requeueAfter' in final) return { done: false, requeueAfter: final.requeueAfter };
  return { done: true, note: final.note };
}

/**
 * How a final backup's Job pulls the running image (status.image) — as the instances did: the
 * profile's `imagePullSecrets` and the `imagePullPolicy` of its catalogue entry for that image
 * (else for the running version). Read from the profile directly: a deletion is not admitted
 * again, and a guardrail tightened since must not take the pull secrets from the last backup.
 * Undefined without a kubernetes profile (the built-in catalogue: `DefaultImagePull`).
 */
export function finalBackupPull(
  cluster: Cluster,
  profile: ProviderProfile | undefined,
): ImagePull | undefined {
  const block = profile?.spec.kubernetes;
  if (!block) return undefined;
  const images = (block.images ?? []).filter((i) => i.engine === 'postgres');
  const version = cluster.status?.version ?? cluster.spec.version;
  const entry =
    images.find((i) => i.image === cluster.status?.image) ??
    images.find((i) => i.version === version);
  return {
    policy: entry?.imagePullPolicy ?? 'IfNotPresent',
    secrets: (block.imagePullSecrets ?? []).map((s) => s.name),
  };
}

/**
 * The final backup of a cluster deleted with deletionPolicy Delete and spec.backup (unless
 * skipFinalBackup): what the deletion Event says about the backups, or a wait (the volumes are
 * deleted only once the backup is in the bucket).
 */
async function finalBackup(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  pull: ImagePull | undefined,
): Promise<{ note: string } | { requeueAfter: number }> {
  const where = cluster.status?.backup?.destination ?? 'the bucket';
  if (cluster.spec.skipFinalBackup)
    return {
      note: `no final backup (spec.skipFinalBackup); the backups taken before stay in ${where}, where nothing expires them any more`,
    };
  const primary = env
    .pods(cluster.metadata.namespace!, cluster.metadata.name!)
    .find((p) => p.metadata.name === cluster.status?.primary);
  const serving =
    !!primary &&
    !primary.metadata.deletionTimestamp &&
    primary.metadata.labels?.[Labels.role] === 'primary' &&
    primary.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const final = await env.backups.finalBackup(
    cluster,
    {
      image: cluster.status?.image ?? '',
      ...(pull ? { pull } : {}),
      primaryHost: primary?.status?.podIP,
      primaryServing: serving && !!cluster.status?.image,
      ...(scratchOf(env, cluster) ? { scratchSize: scratchOf(env, cluster)! } : {}),
    },
    ctx.signal,
  );
  if (final.state === 'nothing') return { note: 'no final backup: no database was initialised' };
  if (final.state === 'failed')
    throw new TerminalError(BackupReasons.FinalBackupFailed, final.message, {
      recheckAfter: 60_000,
    });
  if (final.state === 'waiting') {
    await ctx.status.write({
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: PostgresReasons.FinalBackup,
          message: final.message,
        },
      ],
      fields: { phase: 'Deleting' },
    });
    return { requeueAfter: 5000 };
  }
  const b = final.backup;
  env.emit(
    cluster,
    'Normal',
    'FinalBackupCompleted',
    `final backup ${b.id}: ${b.sizeBytes} bytes, WAL ${b.startLsn} to ${b.stopLsn} on timeline ${b.timeline}, in ${final.destination}`,
  );
  return {
    note: `the final backup ${b.id} and the earlier ones stay in ${final.destination}, where nothing expires them any more`,
  };
}
