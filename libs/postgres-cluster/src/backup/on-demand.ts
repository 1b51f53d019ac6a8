import {
  PostgresBackup,
  PostgresCluster,
  type BackupDestination,
  type PostgresBackupStatus,
} from '@steward/postgres-cluster-api';
import {
  controllerFor,
  TerminalError,
  type Controller,
  type EventRecorder,
  type Manager,
  type MapFunc,
  type ObjectReconciler,
} from '@steward/controller';
import { CleanupError, withFinalizer } from '@steward/finalizers';
import { objectKey, type Selection } from '@steward/informer';
import { Jobs, type KubeClient } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { resolveBackup } from '../resolve.js';
import { Labels } from '../children/names.js';
import {
  backupId,
  backupJobName,
  backupPrefix,
  BackupLabels,
  destinationOf,
  systemPrefix,
} from './layout.js';
import { Backups, finished, jobTerminationMessage, type JobObject } from './reconcile.js';
import { s3BackupStore, type BackupStore, type Credentials } from './store.js';

/** The finalizer of a PostgresBackup (its deletionPolicy is honoured before it goes). */
export const PostgresBackupFinalizer = 'postgres.steward.dev/backup';

export const PostgresBackupReasons = {
  Pending: 'Pending',
  Running: 'Running',
  Completed: 'Completed',
  BackupFailed: 'BackupFailed',
  ClusterNotFound: 'ClusterNotFound',
  BackupNotConfigured: 'BackupNotConfigured',
} as const;

/** The index of PostgresBackups by `<namespace>/<spec.cluster.name>`. */
export const ByCluster = 'postgres.steward.dev/cluster';

/** When the on-demand backup of `backup` is due: its creation time, to the second. */
export function requestedDue(backup: PostgresBackup): Date {
  const at = Date.parse(backup.metadata.creationTimestamp ?? '');
  return new Date(Math.floor((Number.isNaN(at) ? Date.now() : at) / 1000) * 1000);
}

/** Whether a PostgresBackup still waits for its Job (the PostgresCluster controller starts it). */
export function isOpenRequest(backup: PostgresBackup): boolean {
  const phase = backup.status?.phase;
  return !backup.metadata.deletionTimestamp && phase !== 'Completed' && phase !== 'Failed';
}

/** Indexes PostgresBackups by cluster on `informer` (once per manager). */
export function indexByCluster(store: {
  addIndexers(indexers: Record<string, (obj: PostgresBackup) => string[]>): void;
}): void {
  try {
    store.addIndexers({
      [ByCluster]: (obj) => [`${obj.metadata.namespace}/${obj.spec.cluster.name}`],
    });
  } catch {
    // indexed already by the other controller of this manager
  }
}

export interface PostgresBackupControllerOptions {
  /** Which PostgresBackups (and their clusters) to follow. Default: all. */
  selection?: Selection;
  events?: EventRecorder;
  /** The kubernetes ProviderProfile of PostgresClusters that name none (its backup destination). */
  defaultProfile?: string;
  /** The bucket client (default: the S3 API). */
  backupStore?: (destination: BackupDestination, credentials: Credentials) => BackupStore;
  now?: () => Date;
}

/**
 * The PostgresBackup controller: states each on-demand backup's progress from its Job and, once
 * the Job completed, from the backup.json in the cluster's bucket (the record is the truth, not
 * the Job). The PostgresCluster controller starts the Job — it runs one backup of a cluster at a
 * time, and a PostgresBackup goes before the schedule — so this one only reads and reports,
 * and honours deletionPolicy (Delete removes the backup from the bucket, never the newest).
 *
 * RBAC: postgresbackups get/list/watch/patch, postgresbackups/status patch; postgresclusters
 * and jobs get/list/watch; pods list (a failed Job's termination message); the credentials
 * Secret get; events create/patch.
 */
export function postgresBackupController(
  manager: Manager,
  options: PostgresBackupControllerOptions = {},
): Controller {
  const client = manager.client;
  const selection = options.selection ?? {};
  const childSelection: Selection = { ...selection, labelSelector: Labels.cluster };
  const requests = manager.informers.informerFor<PostgresBackup>(
    PostgresBackup.resourceType,
    selection,
  );
  const clusters = manager.informers.informerFor<PostgresCluster>(
    PostgresCluster.resourceType,
    selection,
  );
  const jobs = manager.informers.informerFor<JobObject>(Jobs, childSelection);
  const profiles = manager.informers.informerFor<ProviderProfile>(ProviderProfile.resourceType);
  indexByCluster(requests.store);
  const reconciler = postgresBackupReconciler({
    client,
    cluster: (namespace, name) => clusters.store.get(`${namespace}/${name}`),
    job: (namespace, name) => jobs.store.get(`${namespace}/${name}`),
    jobs: () => jobs.store.list(),
    profile: (cluster) => {
      const name = cluster.spec.providerProfileRef?.name ?? options.defaultProfile;
      return name ? profiles.store.get(name) : undefined;
    },
    options,
  });
  const byCluster: MapFunc = (cluster) =>
    requests.store
      .byIndex(ByCluster, `${cluster.metadata.namespace}/${cluster.metadata.name}`)
      .map(objectKey);
  const byRequest: MapFunc = (job) => {
    const name = job.metadata.labels?.[BackupLabels.requestedBy];
    return name && job.metadata.namespace ? [`${job.metadata.namespace}/${name}`] : [];
  };
  return controllerFor(manager, PostgresBackup.resourceType, { selection })
    .named('postgresbackup')
    .watches(PostgresCluster.resourceType, byCluster, { selection })
    .watches(Jobs, byRequest, { selection: childSelection })
    .completeObjects(reconciler);
}

interface ReconcilerDeps {
  client: KubeClient;
  cluster: (namespace: string, name: string) => PostgresCluster | undefined;
  job: (namespace: string, name: string) => JobObject | undefined;
  jobs: () => JobObject[];
  /** The cluster's kubernetes ProviderProfile, if it has one. */
  profile: (cluster: PostgresCluster) => ProviderProfile | undefined;
  options: PostgresBackupControllerOptions;
}

type Condition = { type: string; status: 'True' | 'False'; reason: string; message: string };
const ready = (status: 'True' | 'False', reason: string, message: string): Condition => ({
  type: 'Ready',
  status,
  reason,
  message,
});

/** The reconciler of one PostgresBackup (exported for tests that drive it with their own deps). */
export function postgresBackupReconciler(deps: ReconcilerDeps): ObjectReconciler<PostgresBackup> {
  const { client, options } = deps;
  const now = options.now ?? (() => new Date());
  const emit = (obj: PostgresBackup, type: 'Normal' | 'Warning', reason: string, message: string) =>
    options.events?.event(obj, type, reason, message);
  const backups = new Backups({
    client,
    jobs: deps.jobs,
    store:
      options.backupStore ??
      ((destination, credentials) => s3BackupStore(destination, credentials)),
    now,
    emit: () => undefined,
  });

  const env: RequestEnv = { deps, backups, emit };

  return async (ctx, obj) => {
    const outcome = await withFinalizer(
      client,
      PostgresBackup.resourceType,
      obj,
      PostgresBackupFinalizer,
      { apply: (o) => apply(env, ctx, o), cleanup: (o) => cleanup(env, o) },
    ).catch((error: unknown) => {
      throw error instanceof CleanupError ? (error.cause ?? error) : error;
    });
    if (outcome.action === 'finalizer-added') return { requeueAfter: 100 };
    return undefined;
  };
}

/** What a PostgresBackup's apply and cleanup act with. */
interface RequestEnv {
  deps: ReconcilerDeps;
  backups: Backups;
  emit: (obj: PostgresBackup, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** The cluster with its backup destination resolved against its profile, or a refusal. */
function settled(deps: ReconcilerDeps, cluster: PostgresCluster): PostgresCluster {
  const resolved = resolveBackup(cluster, deps.profile(cluster));
  if (!resolved.allowed)
    throw new TerminalError(
      resolved.reason,
      `PostgresCluster ${cluster.metadata.name}: ${resolved.message}`,
      { recheckAfter: 60_000 },
    );
  return resolved.cluster;
}

async function apply(
  env: RequestEnv,
  ctx: Parameters<ObjectReconciler<PostgresBackup>>[0],
  obj: PostgresBackup,
): Promise<void> {
  const { deps, backups } = env;
  const namespace = obj.metadata.namespace!;
  const previous = obj.status ?? {};
  if (previous.phase === 'Completed') {
    await ctx.status.write({
      conditions: [ready('True', PostgresBackupReasons.Completed, previous.message ?? '')],
    });
    return;
  }
  if (previous.phase === 'Failed')
    throw new TerminalError(PostgresBackupReasons.BackupFailed, previous.message ?? 'failed');

  const clusterName = obj.spec.cluster.name;
  const found = deps.cluster(namespace, clusterName);
  if (!found)
    throw new TerminalError(
      PostgresBackupReasons.ClusterNotFound,
      `PostgresCluster ${clusterName} does not exist in namespace ${namespace}: create it, or delete this PostgresBackup`,
      { recheckAfter: 60_000 },
    );
  if (!found.spec.backup)
    throw new TerminalError(
      PostgresBackupReasons.BackupNotConfigured,
      `PostgresCluster ${clusterName} has no spec.backup: set it, then this backup is taken`,
    );
  const cluster = settled(deps, found);
  const due = requestedDue(obj);
  const id = backupId(due);
  const jobName = backupJobName(clusterName, due);
  const job = deps.job(namespace, jobName);
  const sysid = cluster.status?.systemIdentifier;
  const destination = sysid
    ? `s3://${destinationOf(cluster).bucket}/${systemPrefix(backupPrefix(cluster), sysid)}base/${id}/`
    : undefined;
  const base: PostgresBackupStatus = {
    backupId: id,
    job: jobName,
    ...(destination ? { destination } : {}),
    ...(sysid ? { systemIdentifier: sysid } : {}),
  };

  if (!job) {
    const running = deps
      .jobs()
      .find(
        (j) =>
          j.metadata.namespace === namespace &&
          j.metadata.labels?.[BackupLabels.backupOf] === clusterName &&
          !finished(j),
      );
    const message = running
      ? `waiting for backup Job ${running.metadata.name} of ${clusterName} to finish: one backup of a cluster runs at a time`
      : `waiting for PostgresCluster ${clusterName}'s primary to serve`;
    await ctx.status.write({
      conditions: [ready('False', PostgresBackupReasons.Pending, message)],
      fields: { ...base, phase: 'Pending', message },
    });
    return;
  }
  const outcome = finished(job);
  const startedAt =
    (job.status as { startTime?: string } | undefined)?.startTime ?? job.metadata.creationTimestamp;
  if (!outcome) {
    const message = `Job ${jobName} takes backup ${id}`;
    await ctx.status.write({
      conditions: [ready('False', PostgresBackupReasons.Running, message)],
      fields: { ...base, phase: 'Running', message, ...(startedAt ? { startedAt } : {}) },
    });
    return;
  }
  const record =
    outcome === 'Complete' && sysid
      ? await backups.backupRecord(cluster, sysid, id, ctx.signal)
      : undefined;
  if (record) {
    const message = `backup ${id}: ${record.sizeBytes} bytes, WAL ${record.startLsn} to ${record.stopLsn} on timeline ${record.timeline}, in ${destination}`;
    await ctx.status.write({
      conditions: [ready('True', PostgresBackupReasons.Completed, message)],
      fields: {
        ...base,
        phase: 'Completed',
        message,
        startedAt: record.startedAt,
        completedAt: record.completedAt,
        sizeBytes: record.sizeBytes,
        startLsn: record.startLsn,
        stopLsn: record.stopLsn,
        timeline: record.timeline,
        systemIdentifier: record.systemIdentifier,
      },
    });
    env.emit(obj, 'Normal', 'BackupCompleted', message);
    return;
  }
  const why =
    (await jobTerminationMessage(deps.client, job, namespace)) ??
    (outcome === 'Complete'
      ? `the Job completed but ${destination ?? 'the bucket'} has no backup.json`
      : (job.status?.conditions?.find((c) => c.type === 'Failed')?.message ?? 'the Job failed'));
  const message = `backup ${id} (Job ${jobName}) failed: ${why}. Create another PostgresBackup to try again`;
  await ctx.status.write({
    fields: { ...base, phase: 'Failed', message, ...(startedAt ? { startedAt } : {}) },
  });
  throw new TerminalError(PostgresBackupReasons.BackupFailed, message);
}

async function cleanup(env: RequestEnv, obj: PostgresBackup): Promise<void> {
  const { deps, backups, emit } = env;
  const policy = obj.spec.deletionPolicy ?? 'Retain';
  const id = obj.status?.backupId;
  const where = obj.status?.destination ?? 'the bucket';
  if (!id || obj.status?.phase !== 'Completed') return;
  if (policy === 'Retain') {
    emit(
      obj,
      'Normal',
      'Retained',
      `deletionPolicy Retain: backup ${id} stays in ${where}; the cluster's retention expires it like any other`,
    );
    return;
  }
  const found = deps.cluster(obj.metadata.namespace!, obj.spec.cluster.name);
  const resolved = found ? resolveBackup(found, deps.profile(found)) : undefined;
  const cluster = resolved?.allowed ? resolved.cluster : undefined;
  const sysid = obj.status?.systemIdentifier;
  if (!cluster?.spec.backup || !sysid) {
    emit(
      obj,
      'Warning',
      'BackupNotDeleted',
      `deletionPolicy Delete: backup ${id} stays in ${where}: PostgresCluster ${obj.spec.cluster.name} (with spec.backup and its destination) is gone, and with it the credentials to reach the bucket`,
    );
    return;
  }
  const outcome = await backups.removeBackup(cluster, sysid, id);
  if (outcome === 'newest')
    emit(
      obj,
      'Warning',
      'BackupNotDeleted',
      `deletionPolicy Delete: backup ${id} stays in ${where}: it is the cluster's newest backup, which is never deleted`,
    );
  else
    emit(
      obj,
      'Normal',
      'Deleted',
      outcome === 'removed'
        ? `deletionPolicy Delete: backup ${id} deleted from ${where}`
        : `deletionPolicy Delete: backup ${id} was no longer in ${where}`,
    );
}
