import { createHash } from 'node:crypto';
import {
  DEFAULT_RETENTION_DAYS,
  DefaultCredentialKeys,
  PostgresCluster,
  type BackupDestination,
  type BackupRecord,
  type BackupStatus,
  type RestoreStatus,
} from '@steward/postgres-cluster-api';
import {
  isAlreadyExists,
  isNotFound,
  Jobs,
  Pods,
  Secrets,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { type ImagePull } from '@steward/workload';
import {
  backupIdTime,
  backupJobName,
  backupPrefix,
  BackupLabels,
  destinationOf,
  sourceDestinationOf,
  sourcePrefix,
  systemPrefix,
} from './layout.js';
import { BackupReasonAnnotation, renderBackupJob, renderVerifyJob } from './job.js';
import { dueBackup, expiredWal, parseSchedule, planBackupJob, retention } from './plan.js';
import { type BackupStore, type Catalogue, type Credentials } from './store.js';

type Cluster = PostgresCluster;

/** A Job as far as the backups read it. */
export type JobObject = KubeObject & {
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    completionTime?: string;
    conditions?: {
      type: string;
      status: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
};

/** How often the bucket is listed when nothing happened (a finished Job lists it at once). */
export const CATALOGUE_REFRESH_MS = 10 * 60_000;
/** How long an incomplete backup (objects, no backup.json) stays before retention removes it. */
const INCOMPLETE_GRACE_MS = 24 * 3600_000;

export const BackupReasons = {
  BackupFailed: 'BackupFailed',
  BackupStoreUnavailable: 'BackupStoreUnavailable',
  InvalidSchedule: 'InvalidSchedule',
  RecoveryBackupNotFound: 'RecoveryBackupNotFound',
  VerificationFailed: 'VerificationFailed',
  FinalBackupFailed: 'FinalBackupFailed',
} as const;

/** No backup of the recovery source fits: the user must change spec.bootstrap.recovery. */
export class RecoveryNotPossible extends Error {
  override readonly name = 'RecoveryNotPossible';
}

export interface BackupStepInput {
  cluster: Cluster;
  image: string;
  /** How the image is pulled, as for the instances (the profile's pull secrets, its entry's policy). */
  pull?: ImagePull;
  /** The primary's pod IP, when known. */
  primaryHost: string | undefined;
  /** The primary serves: a backup may start. */
  primaryServing: boolean;
  /** The bound of a Job's scratch volume (the cluster's volume size). */
  scratchSize?: string;
  /** PostgresBackups of this cluster not yet finished, oldest first: each gets its Job in turn. */
  requests?: BackupRequest[];
  signal?: AbortSignal;
}

/** An on-demand backup (a PostgresBackup): its Job is due at the object's creation time. */
export interface BackupRequest {
  name: string;
  due: Date;
}

/** Where a final backup (deletionPolicy Delete) stands. */
export type FinalBackupState =
  | { state: 'done'; backup: BackupRecord; destination: string }
  | { state: 'waiting'; message: string }
  | { state: 'failed'; message: string };

/** Final backups tried before the deletion waits for the user (skipFinalBackup, or Retain). */
export const FINAL_BACKUP_ATTEMPTS = 3;
/** The reason annotation of a final backup's Job. */
export const FinalBackupReason = 'Final';

export interface BackupStepOutcome {
  /** status.backup to state (undefined: leave it). */
  status?: BackupStatus;
  problems: { reason: string; message: string }[];
  /** When to look again for the schedule's sake. */
  requeueAfterMs?: number;
}

export interface BackupsDeps {
  client: KubeClient;
  jobs: () => JobObject[];
  store: (destination: BackupDestination, credentials: Credentials) => BackupStore;
  now: () => Date;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

interface Cached {
  at: number;
  catalogue: Catalogue;
  /** Finished Jobs the catalogue has seen. */
  seen: Set<string>;
  store: BackupStore;
  storeKey: string;
  /** The database system's folder listed (a major upgrade moves to a new one). */
  prefix: string;
  /** A hash of the keys the store was made with: rotated keys make a new store. */
  credentialsKey: string;
}

/** Whether a Job has finished, and how. */
export const finished = (job: JobObject) =>
  job.status?.conditions?.find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  )?.type as 'Complete' | 'Failed' | undefined;

/**
 * The backups of PostgresClusters with `spec.backup`: one base backup Job at a time — the first
 * as soon as the primary serves, then on the schedule (a missed run is taken once, not caught up)
 * — each Job's outcome recorded, the bucket's catalogue read back (the truth: status says what is
 * in the bucket, not what a Job said), and retention applied to what the catalogue lists.
 */
export class Backups {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly deps: BackupsDeps) {}

  forget(uid: string): void {
    this.cache.get(uid)?.store.close();
    this.cache.delete(uid);
  }

  close(): void {
    for (const c of this.cache.values()) c.store.close();
    this.cache.clear();
  }

  async step(input: BackupStepInput): Promise<BackupStepOutcome> {
    const { cluster } = input;
    const spec = cluster.spec.backup;
    if (!spec) return { problems: [] };
    const name = cluster.metadata.name!;
    const namespace = cluster.metadata.namespace!;
    const uid = cluster.metadata.uid ?? `${namespace}/${name}`;
    const previous = cluster.status?.backup ?? {};
    const problems: BackupStepOutcome['problems'] = [];
    const now = this.deps.now();
    const sysid = cluster.status?.systemIdentifier;
    if (!sysid) return { problems, requeueAfterMs: 5000 };
    const destination = destinationOf(cluster);
    const prefix = systemPrefix(backupPrefix(cluster), sysid);
    const status: BackupStatus = {
      ...previous,
      destination: `s3://${destination.bucket}/${prefix}`,
    };

    const cron = parseSchedule(spec.schedule ?? '0 3 * * *');
    if ('error' in cron) {
      problems.push({
        reason: BackupReasons.InvalidSchedule,
        message: `spec.backup.schedule "${spec.schedule}" is not a cron expression: ${cron.error}`,
      });
    }

    const jobs = this.jobsOf(cluster, BackupLabels.backupOf);

    // The bucket: listed when stale, or when a Job finished since it was last listed.
    const unseen = jobs.filter(
      (j) => finished(j) && !this.cache.get(uid)?.seen.has(j.metadata.name!),
    );
    let cached: Cached;
    try {
      cached = await this.catalogueOf(
        cluster,
        uid,
        destination,
        prefix,
        jobs,
        unseen.length > 0,
        now,
        input.signal,
      );
    } catch (error) {
      problems.push({
        reason: BackupReasons.BackupStoreUnavailable,
        message: `cannot read the backups in s3://${destination.bucket}/${prefix}: ${(error as Error).message}`,
      });
      return { status, problems, requeueAfterMs: 30_000 };
    }
    const catalogue = cached.catalogue;
    const backups = catalogue.backups;
    const newest = backups[backups.length - 1];
    if (newest) status.lastSuccessful = newest;
    else delete status.lastSuccessful;
    status.count = backups.length;
    if (backups[0]) status.firstRecoverabilityPoint = backups[0].completedAt;
    else delete status.firstRecoverabilityPoint;

    // Jobs that finished without a backup in the bucket: the newest such is lastFailed.
    for (const job of unseen) {
      const id = job.metadata.labels?.[BackupLabels.backupId] ?? '';
      if (backups.some((b) => b.id === id)) {
        this.deps.emit(
          cluster,
          'Normal',
          'BackupCompleted',
          this.describe(backups.find((b) => b.id === id)!),
        );
        continue;
      }
      const message = await this.failureOf(job, namespace);
      if (!status.lastFailed || status.lastFailed.id <= id) {
        status.lastFailed = {
          id,
          at: job.status?.completionTime ?? now.toISOString(),
          job: job.metadata.name!,
          message,
        };
      }
      this.deps.emit(
        cluster,
        'Warning',
        BackupReasons.BackupFailed,
        `backup ${id} (Job ${job.metadata.name}) failed: ${message}`,
      );
    }
    if (status.lastFailed && (!newest || newest.id < status.lastFailed.id)) {
      problems.push({
        reason: BackupReasons.BackupFailed,
        message: `the newest backup ${status.lastFailed.id} failed (Job ${status.lastFailed.job}): ${status.lastFailed.message}`,
      });
    }

    // The schedule: one Job at a time, deterministic names (planBackupJob).
    const next = planBackupJob({
      cluster: name,
      createdAt: new Date(cluster.metadata.creationTimestamp ?? now),
      systemIdentifier: sysid,
      cron,
      jobs: jobs.map((j) => ({
        name: j.metadata.name!,
        finished: finished(j) !== undefined,
        ...(j.metadata.labels?.[BackupLabels.systemIdentifier]
          ? { systemIdentifier: j.metadata.labels[BackupLabels.systemIdentifier] }
          : {}),
        ...(j.metadata.labels?.[BackupLabels.backupId]
          ? { backupId: j.metadata.labels[BackupLabels.backupId] }
          : {}),
      })),
      requests: input.requests ?? [],
      ...(previous.lastScheduleTime ? { lastScheduleTime: previous.lastScheduleTime } : {}),
      anyBackup: newest !== undefined,
      primaryReady: input.primaryServing && !!input.primaryHost,
      now,
    });
    let requeueAfterMs = next.requeueAfterMs;
    const create = next.create;
    if (create) {
      // "Back up now" goes before the schedule; the schedule's next slot follows as planned.
      await this.createJob(
        cluster,
        input,
        create.due,
        create.reason,
        create.requestedBy ? { [BackupLabels.requestedBy]: create.requestedBy } : {},
      );
      if (!create.requestedBy) status.lastScheduleTime = create.due.toISOString();
    }
    const rehearsal = await this.rehearse(cluster, input, status, previous, now, problems);
    if (rehearsal !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? rehearsal, rehearsal);
    return { status, problems, ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) };
  }

  /**
   * The bucket's catalogue of a cluster's system folder: listed again when stale
   * (`CATALOGUE_REFRESH_MS`), when a Job finished since the last listing, or when the destination,
   * the folder or the credentials changed (rotated keys make a new store); retention is applied to
   * each fresh listing.
   */
  private async catalogueOf(
    cluster: Cluster,
    uid: string,
    destination: BackupDestination,
    prefix: string,
    jobs: JobObject[],
    unseenJobs: boolean,
    now: Date,
    signal?: AbortSignal,
  ): Promise<Cached> {
    const cached = this.cache.get(uid);
    const storeKey = JSON.stringify(destination);
    if (
      cached &&
      cached.storeKey === storeKey &&
      cached.prefix === prefix &&
      !unseenJobs &&
      now.getTime() - cached.at <= CATALOGUE_REFRESH_MS
    )
      return cached;
    const credentials = await this.credentials(cluster.metadata.namespace!, destination);
    const credentialsKey = createHash('sha256')
      .update(`${credentials.accessKeyId}\0${credentials.secretAccessKey}`)
      .digest('hex');
    const store =
      cached && cached.storeKey === storeKey && cached.credentialsKey === credentialsKey
        ? cached.store
        : this.deps.store(destination, credentials);
    if (cached && cached.store !== store) cached.store.close();
    const catalogue = await store.catalogue(prefix, signal);
    const fresh: Cached = {
      at: now.getTime(),
      catalogue,
      seen: new Set(jobs.filter((j) => finished(j)).map((j) => j.metadata.name!)),
      store,
      storeKey,
      prefix,
      credentialsKey,
    };
    this.cache.set(uid, fresh);
    await this.applyRetention(
      cluster,
      fresh,
      prefix,
      jobs,
      cluster.spec.backup?.retentionDays ?? DEFAULT_RETENTION_DAYS,
      now,
      signal,
    );
    return fresh;
  }

  /**
   * Restore rehearsals (spec.backup.verify): the newest backup restored by a Job — the first as
   * soon as there is a backup, then on the schedule, one at a time — and its outcome (the Job's
   * JSON termination message) recorded as status.backup.lastVerification. Returns when to look
   * again, if there is a reason to.
   */
  private async rehearse(
    cluster: Cluster,
    input: BackupStepInput,
    status: BackupStatus,
    previous: BackupStatus,
    now: Date,
    problems: BackupStepOutcome['problems'],
  ): Promise<number | undefined> {
    const verify = cluster.spec.backup?.verify;
    const namespace = cluster.metadata.namespace!;
    if (!verify) {
      delete status.lastVerification;
      delete status.lastVerificationScheduleTime;
      return undefined;
    }
    const jobs = this.jobsOf(cluster, BackupLabels.verifyOf);
    const done = jobs.filter((j) => finished(j));
    const latest = done[done.length - 1];
    if (latest && previous.lastVerification?.job !== latest.metadata.name) {
      const outcome = await this.verificationOf(latest, namespace);
      status.lastVerification = outcome;
      if (outcome.result === 'Passed')
        this.deps.emit(
          cluster,
          'Normal',
          'VerificationPassed',
          `${outcome.message} (${(outcome.checks ?? []).join('; ')})`,
        );
      else
        this.deps.emit(
          cluster,
          'Warning',
          BackupReasons.VerificationFailed,
          `restore rehearsal of backup ${outcome.backupId} (Job ${outcome.job}) failed: ${outcome.message}`,
        );
    }
    if (status.lastVerification?.result === 'Failed')
      problems.push({
        reason: BackupReasons.VerificationFailed,
        message: `the newest restore rehearsal (backup ${status.lastVerification.backupId}, Job ${status.lastVerification.job}) failed: ${status.lastVerification.message}`,
      });

    const cron = parseSchedule(verify.schedule ?? '0 5 * * *');
    if ('error' in cron) {
      problems.push({
        reason: BackupReasons.InvalidSchedule,
        message: `spec.backup.verify.schedule "${verify.schedule}" is not a cron expression: ${cron.error}`,
      });
      return undefined;
    }
    if (jobs.some((j) => !finished(j))) return 5000;
    const backup = status.lastSuccessful;
    const sysid = cluster.status?.systemIdentifier;
    if (!backup || !sysid) return undefined;
    let due: Date | undefined;
    let next: number | undefined;
    const last = previous.lastVerificationScheduleTime;
    if (!last) due = new Date(Math.floor(now.getTime() / 1000) * 1000);
    else {
      const planned = dueBackup(cron, new Date(last), now);
      due = planned.due;
      if (planned.next) next = Math.max(1000, planned.next.getTime() - now.getTime());
    }
    if (!due) return next;
    const job = renderVerifyJob({
      cluster,
      image: input.image,
      ...(input.pull ? { pull: input.pull } : {}),
      systemIdentifier: sysid,
      backup,
      due,
      ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
    });
    await this.createOwned(cluster, job);
    this.deps.emit(
      cluster,
      'Normal',
      'VerificationStarted',
      `restore rehearsal of backup ${backup.id}: Job ${job.metadata.name}`,
    );
    status.lastVerificationScheduleTime = due.toISOString();
    return 5000;
  }

  /**
   * The backup a cluster bootstrapped from spec.bootstrap.recovery starts from: the one named,
   * else the newest completed at or before targetTime (else the newest), among the source's
   * database systems (or the one named). Throws RecoveryNotPossible when none fits.
   */
  async chooseRestore(cluster: Cluster, signal?: AbortSignal): Promise<RestoreStatus> {
    const recovery = cluster.spec.bootstrap!.recovery!;
    const destination: BackupDestination = sourceDestinationOf(cluster);
    const prefix = sourcePrefix(cluster)!;
    const where = `s3://${destination.bucket}/${prefix}/`;
    const credentials = await this.credentials(cluster.metadata.namespace!, destination);
    const store = this.deps.store(destination, credentials);
    try {
      const systems = recovery.source.systemIdentifier
        ? [recovery.source.systemIdentifier]
        : await store.systems(prefix, signal);
      const target = recovery.targetTime ? Date.parse(recovery.targetTime) : undefined;
      let best: { system: string; backup: BackupRecord } | undefined;
      let seen = 0;
      for (const system of systems) {
        const { backups } = await store.catalogue(systemPrefix(prefix, system), signal);
        seen += backups.length;
        for (const backup of backups) {
          if (recovery.backupId ? backup.id !== recovery.backupId : false) continue;
          if (target !== undefined && Date.parse(backup.completedAt) >= target) continue;
          if (!best || backup.completedAt > best.backup.completedAt) best = { system, backup };
        }
      }
      if (!best) {
        const why = recovery.backupId
          ? `no complete backup ${recovery.backupId}`
          : target !== undefined
            ? `no backup completed at or before spec.bootstrap.recovery.targetTime ${recovery.targetTime}`
            : 'no complete backup';
        throw new RecoveryNotPossible(
          `${why} in ${where} (${systems.length} database systems, ${seen} backups there): correct spec.bootstrap.recovery, or delete this PostgresCluster and create it again`,
        );
      }
      return {
        source: `s3://${destination.bucket}/${systemPrefix(prefix, best.system)}`,
        systemIdentifier: best.system,
        backupId: best.backup.id,
        backupCompletedAt: best.backup.completedAt,
        ...(recovery.targetTime ? { targetTime: recovery.targetTime } : {}),
      };
    } finally {
      store.close();
    }
  }

  /**
   * The final backup of a cluster being deleted with deletionPolicy Delete: one Job (due at the
   * deletion time, so a restarted controller finds the same one), after any backup still running;
   * retried as a new Job up to FINAL_BACKUP_ATTEMPTS times. Done once its backup.json is in the
   * bucket; `nothing` for a cluster that never initialised a database.
   */
  async finalBackup(
    cluster: Cluster,
    input: {
      image: string;
      pull?: ImagePull | undefined;
      primaryHost?: string | undefined;
      primaryServing: boolean;
      scratchSize?: string | undefined;
    },
    signal?: AbortSignal,
  ): Promise<FinalBackupState | { state: 'nothing' }> {
    const sysid = cluster.status?.systemIdentifier;
    if (!sysid) return { state: 'nothing' };
    const name = cluster.metadata.name!;
    const namespace = cluster.metadata.namespace!;
    const prefix = systemPrefix(backupPrefix(cluster), sysid);
    const bucket = destinationOf(cluster);
    const destination = `s3://${bucket.bucket}/${prefix}`;
    const jobs = this.jobsOf(cluster, BackupLabels.backupOf);
    const finals = jobs.filter(
      (j) => j.metadata.annotations?.[BackupReasonAnnotation] === FinalBackupReason,
    );
    const ended = finals.filter((j) => finished(j));
    if (ended.some((j) => finished(j) === 'Complete')) {
      const { backups } = await this.listOnce(namespace, bucket, prefix, signal);
      for (const job of ended) {
        const backup = backups.find((b) => b.id === job.metadata.labels?.[BackupLabels.backupId]);
        if (backup) return { state: 'done', backup, destination };
      }
    }
    const active = jobs.find((j) => !finished(j));
    if (active) {
      const id = active.metadata.labels?.[BackupLabels.backupId];
      return {
        state: 'waiting',
        message: finals.includes(active)
          ? `the final backup ${id} runs (Job ${active.metadata.name}); the volumes are deleted once it is in ${destination}`
          : `backup ${id} runs (Job ${active.metadata.name}); the final backup follows it`,
      };
    }
    if (ended.length >= FINAL_BACKUP_ATTEMPTS) {
      const last = ended[ended.length - 1]!;
      return {
        state: 'failed',
        message: `the final backup failed ${ended.length} times (last: Job ${last.metadata.name}: ${await this.failureOf(last, namespace)}). The volumes and Secrets are kept: fix the cause and delete the failed Jobs to try again, or set spec.skipFinalBackup: true (or deletionPolicy: Retain) to finish the deletion`,
      };
    }
    if (!input.primaryServing || !input.primaryHost)
      return {
        state: 'waiting',
        message: `the final backup waits for the primary to serve (set spec.skipFinalBackup: true to delete the volumes without it)`,
      };
    const deletedAt = Date.parse(
      cluster.metadata.deletionTimestamp ?? this.deps.now().toISOString(),
    );
    const due = new Date(Math.floor(deletedAt / 1000) * 1000 + ended.length * 1000);
    await this.createJob(cluster, input, due, FinalBackupReason);
    return {
      state: 'waiting',
      message: `the final backup ${backupJobName(name, due)} started${ended.length ? ` (attempt ${ended.length + 1} of ${FINAL_BACKUP_ATTEMPTS})` : ''}; the volumes are deleted once it is in ${destination}`,
    };
  }

  /** The record of backup `id` of the cluster's system `systemIdentifier`, if it is complete. */
  async backupRecord(
    cluster: Cluster,
    systemIdentifier: string,
    id: string,
    signal?: AbortSignal,
  ): Promise<BackupRecord | undefined> {
    const destination = destinationOf(cluster);
    const prefix = systemPrefix(backupPrefix(cluster), systemIdentifier);
    const { backups } = await this.listOnce(
      cluster.metadata.namespace!,
      destination,
      prefix,
      signal,
    );
    return backups.find((b) => b.id === id);
  }

  /**
   * Deletes backup `id` from the bucket — never the newest complete one of its system (a restore
   * to now needs it): `newest` then, and nothing is deleted.
   */
  async removeBackup(
    cluster: Cluster,
    systemIdentifier: string,
    id: string,
    signal?: AbortSignal,
  ): Promise<'removed' | 'absent' | 'newest'> {
    const destination = destinationOf(cluster);
    const prefix = systemPrefix(backupPrefix(cluster), systemIdentifier);
    const namespace = cluster.metadata.namespace!;
    const store = this.deps.store(destination, await this.credentials(namespace, destination));
    try {
      const { backups, incomplete } = await store.catalogue(prefix, signal);
      if (backups[backups.length - 1]?.id === id) return 'newest';
      if (!backups.some((b) => b.id === id) && !incomplete.includes(id)) return 'absent';
      await store.remove(prefix, { backups: [id], wal: [] }, signal);
      this.cache.delete(cluster.metadata.uid ?? '');
      return 'removed';
    } finally {
      store.close();
    }
  }

  /** One listing of a system's folder, with a store made for it and closed after. */
  private async listOnce(
    namespace: string,
    destination: BackupDestination,
    prefix: string,
    signal?: AbortSignal,
  ): Promise<Catalogue> {
    const store = this.deps.store(destination, await this.credentials(namespace, destination));
    try {
      return await store.catalogue(prefix, signal);
    } finally {
      store.close();
    }
  }

  private describe(b: {
    id: string;
    sizeBytes: number;
    startLsn: string;
    stopLsn: string;
    timeline: number;
  }) {
    return `backup ${b.id}: ${b.sizeBytes} bytes, WAL ${b.startLsn} to ${b.stopLsn} on timeline ${b.timeline}`;
  }

  private async createJob(
    cluster: Cluster,
    input: {
      image: string;
      pull?: ImagePull | undefined;
      primaryHost?: string | undefined;
      scratchSize?: string | undefined;
    },
    due: Date,
    reason: string,
    labels: Record<string, string> = {},
  ) {
    const sysid = cluster.status?.systemIdentifier;
    const job = renderBackupJob({
      cluster,
      image: input.image,
      ...(input.pull ? { pull: input.pull } : {}),
      primaryHost: input.primaryHost!,
      due,
      reason,
      labels: { ...labels, ...(sysid ? { [BackupLabels.systemIdentifier]: sysid } : {}) },
      ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
    });
    if (await this.createOwned(cluster, job))
      this.deps.emit(
        cluster,
        'Normal',
        'BackupStarted',
        `backup ${job.metadata.labels[BackupLabels.backupId]} (${reason}): Job ${job.metadata.name}`,
      );
  }

  private createOwned(
    cluster: Cluster,
    job: { metadata: { name: string } & Record<string, unknown> } & Record<string, unknown>,
  ): Promise<boolean> {
    return createOwnedJob(this.deps.client, cluster, job);
  }

  private async applyRetention(
    cluster: Cluster,
    cached: Cached,
    prefix: string,
    jobs: JobObject[],
    retentionDays: number,
    now: Date,
    signal?: AbortSignal,
  ) {
    const { keep, expire } = retention(cached.catalogue.backups, retentionDays, now);
    const running = new Set(
      jobs.filter((j) => !finished(j)).map((j) => j.metadata.labels?.[BackupLabels.backupId]),
    );
    const abandoned = cached.catalogue.incomplete.filter(
      (id) => !running.has(id) && now.getTime() - backupIdTime(id).getTime() > INCOMPLETE_GRACE_MS,
    );
    const wal = expiredWal(cached.catalogue.wal, keep);
    if (!expire.length && !abandoned.length && !wal.length) return;
    const removed = await cached.store.remove(
      prefix,
      { backups: [...expire.map((b) => b.id), ...abandoned], wal },
      signal,
    );
    const gone = new Set(expire.map((b) => b.id));
    cached.catalogue = {
      backups: cached.catalogue.backups.filter((b) => !gone.has(b.id)),
      incomplete: cached.catalogue.incomplete.filter((id) => !abandoned.includes(id)),
      wal: cached.catalogue.wal.filter((f) => !wal.includes(f)),
    };
    this.deps.emit(
      cluster,
      'Normal',
      'BackupsExpired',
      `retention ${retentionDays} days: ${expire.length ? `backups ${expire.map((b) => b.id).join(', ')}` : 'no backup'}${abandoned.length ? `, incomplete ${abandoned.join(', ')}` : ''} and ${wal.length} WAL files deleted (${removed} objects); the oldest backup kept is ${keep[0]?.id ?? 'none'}`,
    );
  }

  private credentials(namespace: string, destination: BackupDestination): Promise<Credentials> {
    return readCredentials(this.deps.client, namespace, destination);
  }

  /** The cluster's Jobs labelled `label` (backup-of or verify-of), oldest name first. */
  private jobsOf(cluster: Cluster, label: string): JobObject[] {
    return this.deps
      .jobs()
      .filter(
        (j) =>
          j.metadata.namespace === cluster.metadata.namespace &&
          j.metadata.labels?.[label] === cluster.metadata.name,
      )
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  }

  /** A rehearsal Job's outcome: the JSON its pod left as termination message. */
  private async verificationOf(
    job: JobObject,
    namespace: string,
  ): Promise<NonNullable<BackupStatus['lastVerification']>> {
    const text = await this.terminationMessage(job, namespace);
    const at =
      job.status?.completionTime ??
      job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')
        ?.lastTransitionTime ??
      this.deps.now().toISOString();
    const base = {
      at,
      job: job.metadata.name!,
      backupId: job.metadata.labels?.[BackupLabels.backupId] ?? '',
    };
    try {
      const parsed = JSON.parse(text ?? '') as {
        result?: string;
        durationSeconds?: number;
        recoveryPoint?: string;
        checks?: string[];
        message?: string;
      };
      const passed = parsed.result === 'Passed' && finished(job) === 'Complete';
      return {
        ...base,
        result: passed ? 'Passed' : 'Failed',
        ...(typeof parsed.durationSeconds === 'number'
          ? { durationSeconds: parsed.durationSeconds }
          : {}),
        ...(parsed.recoveryPoint ? { recoveryPoint: parsed.recoveryPoint } : {}),
        ...(Array.isArray(parsed.checks) ? { checks: parsed.checks.map(String) } : {}),
        message: parsed.message ?? (passed ? 'passed' : 'failed'),
      };
    } catch {
      const condition = job.status?.conditions?.find(
        (c) => c.type === 'Failed' && c.status === 'True',
      );
      return {
        ...base,
        result: 'Failed',
        message:
          text ??
          (condition
            ? `${condition.reason ?? 'Failed'}: ${condition.message ?? ''}`.trim()
            : 'the rehearsal left no outcome'),
      };
    }
  }

  private terminationMessage(job: JobObject, namespace: string): Promise<string | undefined> {
    return jobTerminationMessage(this.deps.client, job, namespace);
  }

  /** Why a backup Job failed: its pod's termination message, else the Job's condition. */
  private async failureOf(job: JobObject, namespace: string): Promise<string> {
    const message = await this.terminationMessage(job, namespace);
    if (message) return message;
    const condition = job.status?.conditions?.find(
      (c) => c.type === 'Failed' && c.status === 'True',
    );
    if (condition) return `${condition.reason ?? 'Failed'}: ${condition.message ?? ''}`.trim();
    return 'the Job completed but no backup.json is in the bucket';
  }
}

/** The keys in a destination's credentials Secret (a missing Secret or key says which). */
export async function readCredentials(
  client: KubeClient,
  namespace: string,
  destination: BackupDestination,
): Promise<Credentials> {
  const ref = destination.credentialsSecretRef;
  const secret = await client
    .get<KubeObject & { data?: Record<string, string> }>(Secrets, ref.name, namespace)
    .catch((error: unknown) => {
      if (isNotFound(error))
        throw new Error(
          `the credentials Secret ${ref.name} does not exist in namespace ${namespace}`,
        );
      throw error;
    });
  const value = (key: string) => {
    const raw = secret.data?.[key];
    if (raw === undefined) throw new Error(`the credentials Secret ${ref.name} has no key ${key}`);
    return Buffer.from(raw, 'base64').toString('utf8');
  };
  return {
    accessKeyId: value(ref.accessKeyIdKey ?? DefaultCredentialKeys.accessKeyId),
    secretAccessKey: value(ref.secretAccessKeyKey ?? DefaultCredentialKeys.secretAccessKey),
  };
}

/** The termination message of a Job's pod, if it left one. */
export async function jobTerminationMessage(
  client: KubeClient,
  job: JobObject,
  namespace: string,
): Promise<string | undefined> {
  const pods = await client
    .list<
      KubeObject & {
        status?: {
          containerStatuses?: { state?: { terminated?: { message?: string; reason?: string } } }[];
        };
      }
    >(Pods, { namespace, labelSelector: `batch.kubernetes.io/job-name=${job.metadata.name}` })
    .catch(() => ({ items: [] }));
  for (const pod of pods.items) {
    const message = pod.status?.containerStatuses?.[0]?.state?.terminated?.message?.trim();
    if (message) return message;
  }
  return undefined;
}

/** Creates a Job owned by the cluster; false when it exists already (decided before). */
export async function createOwnedJob(
  client: KubeClient,
  cluster: Cluster,
  job: { metadata: { name: string } & Record<string, unknown> } & Record<string, unknown>,
): Promise<boolean> {
  const owned = {
    ...job,
    metadata: {
      ...job.metadata,
      ownerReferences: [
        {
          apiVersion: PostgresCluster.apiVersion,
          kind: 'PostgresCluster',
          name: cluster.metadata.name!,
          uid: cluster.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  };
  try {
    await client.create(Jobs, owned as never);
    return true;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    return false;
  }
}
