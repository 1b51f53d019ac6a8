/**
 * Major version upgrades of a PostgresCluster: a state machine recorded in status.upgrade, each
 * phase written before its step is taken, so a restarted controller resumes where it was.
 *
 *   (spec.version > status.version) waits for spec.upgrade.approvedVersion and a restore
 *   rehearsal that passed on a backup younger than spec.upgrade.maxBackupAge, and for every
 *   instance ready; then
 *   StoppingWrites  the primary turned read-only (default_transaction_read_only), its client
 *                   sessions ended
 *   Provisioning    a new StatefulSet <name>-v<major> of one instance runs initdb with the new
 *                   version's image
 *   Restoring       a Job dumps the roles and every database from the old primary into it and
 *                   compares every table's row count (the check)
 *   Switching       the point of no return, in one status write: the new instance is primary, the
 *                   cluster's version, image, system identifier and instance set are the new ones;
 *                   the old pods lose their role labels (the Services follow the new primary)
 *   Completing      the new set grows to spec.replicas (standbys clone); once all are ready, the
 *                   old StatefulSet goes (its volumes stay: an Event names them)
 *   Completed
 * Before Switching, any failure rolls back: RollingBack (the new StatefulSet and its volumes go,
 * the old primary writes again) → RolledBack, with the reason; tried again only for a newer
 * metadata.generation.
 */
import {
  DEFAULT_MAX_BACKUP_AGE,
  type PostgresCluster,
  type UpgradeStatus,
  type UpgradeStep,
} from '@steward/postgres-cluster-api';
import {
  isNotFound,
  PersistentVolumeClaims,
  Pods,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { renderUpgradeJob, upgradeJobName } from '../backup/job.js';
import {
  createOwnedJob,
  finished,
  jobTerminationMessage,
  type JobObject,
} from '../backup/reconcile.js';
import {
  DataVolumeName,
  InstructionAnnotation,
  Labels,
  ordinalOf,
  podName,
  upgradeInstanceSet,
} from '../children/names.js';
import { type PgAdmin, type PgEndpoint } from '../pg/index.js';
import { type InstanceFacts, type PlanHealth } from '../plan/plan.js';
import { type Pod } from '../pods.js';

type Cluster = PostgresCluster;

export const UpgradeReasons = {
  WaitingForApproval: 'WaitingForApproval',
  NoVerifiedBackup: 'NoVerifiedBackup',
  WaitingForHealthyCluster: 'WaitingForHealthyCluster',
  UpgradeCompleted: 'UpgradeCompleted',
  UpgradeRolledBack: 'UpgradeRolledBack',
} as const;

/** How long the new instance may take to initialise before the upgrade rolls back. */
const PROVISION_TIMEOUT_MS = 10 * 60_000;

/** Phases in which the old primary is read-only and the new set not yet serving. */
const WRITES_STOPPED = new Set(['StoppingWrites', 'Provisioning', 'Restoring', 'Switching']);
const PRE_SWITCH = new Set(['StoppingWrites', 'Provisioning', 'Restoring']);

export const isActive = (u: UpgradeStatus | undefined): boolean =>
  !!u && u.phase !== 'Completed' && u.phase !== 'RolledBack';

/** A second StatefulSet an upgrade has the reconcile render besides the current one. */
export interface ExtraInstanceSet {
  set: string;
  image: string;
  replicas: number;
}

/**
 * What an upgrade in status has rendered besides the current instance set: the new set of one
 * instance before the switch, the old set (as it was) after it until Completed.
 */
export function extraInstanceSet(cluster: Cluster): ExtraInstanceSet | undefined {
  const u = cluster.status?.upgrade;
  if (!u || !isActive(u)) return undefined;
  if (PRE_SWITCH.has(u.phase)) return { set: u.toSet, image: u.toImage, replicas: 1 };
  if (u.phase === 'Switching' || u.phase === 'Completing')
    return { set: u.fromSet, image: u.fromImage, replicas: u.fromReplicas };
  return undefined;
}

/** Parses spec.upgrade.maxBackupAge (`90m`, `24h`). */
export function backupAgeMs(text: string): number {
  const m = /^([1-9][0-9]*)(m|h)$/.exec(text);
  if (!m) throw new Error(`not an age: ${text}`);
  return Number(m[1]) * (m[2] === 'h' ? 3_600_000 : 60_000);
}

export type Gate =
  { open: false; reason: string; message: string } | { open: true; verifiedBackup: string };

/**
 * Whether an upgrade from `running` to spec.version may start now (pure): approved, a rehearsal
 * that passed on a backup younger than maxBackupAge, and not the generation of a rolled-back one.
 */
export function upgradeGate(cluster: Cluster, running: string, now: Date): Gate {
  const to = cluster.spec.version;
  const approved = cluster.spec.upgrade?.approvedVersion;
  if (approved !== to)
    return {
      open: false,
      reason: UpgradeReasons.WaitingForApproval,
      message: `spec.version ${to} is newer than the ${running} the cluster runs: set spec.upgrade.approvedVersion to "${to}" to upgrade (writes stop while every database is dumped from PostgreSQL ${running} and restored into ${to}); until then PostgreSQL ${running} keeps running${approved ? ` (approvedVersion is ${approved})` : ''}`,
    };
  const previous = cluster.status?.upgrade;
  if (
    previous?.phase === 'RolledBack' &&
    previous.to === to &&
    previous.generation === cluster.metadata.generation
  )
    return {
      open: false,
      reason: UpgradeReasons.UpgradeRolledBack,
      message: `the upgrade to ${to} was rolled back: ${previous.message}. PostgreSQL ${running} serves; fix the cause and change the spec (any change of this generation) to try again`,
    };
  const maxAge = cluster.spec.upgrade?.maxBackupAge ?? DEFAULT_MAX_BACKUP_AGE;
  const verification = cluster.status?.backup?.lastVerification;
  const rehearsed = cluster.status?.backup?.lastSuccessful;
  const why = !cluster.spec.backup
    ? 'the cluster has no spec.backup'
    : !cluster.spec.backup.verify
      ? 'spec.backup.verify is not set, so no restore is ever rehearsed'
      : !verification
        ? 'no restore rehearsal has run yet'
        : verification.result !== 'Passed'
          ? `the newest restore rehearsal (backup ${verification.backupId}) failed`
          : undefined;
  if (why)
    return {
      open: false,
      reason: UpgradeReasons.NoVerifiedBackup,
      message: `the upgrade to ${to} waits for a restore rehearsal that passed on a backup younger than ${maxAge}: ${why}`,
    };
  const completedAt =
    verification!.recoveryPoint ??
    (rehearsed?.id === verification!.backupId ? rehearsed.completedAt : undefined);
  const age = completedAt ? now.getTime() - Date.parse(completedAt) : Infinity;
  if (!(age < backupAgeMs(maxAge)))
    return {
      open: false,
      reason: UpgradeReasons.NoVerifiedBackup,
      message: `the upgrade to ${to} waits for a restore rehearsal that passed on a backup younger than ${maxAge}: the newest verified backup, ${verification!.backupId}, is ${Number.isFinite(age) ? `${Math.round(age / 60_000)} minutes` : 'of unknown age'} old (take one with a PostgresBackup; the next rehearsal verifies it)`,
    };
  return { open: true, verifiedBackup: verification!.backupId };
}

export interface UpgradeStepInput {
  cluster: Cluster;
  /** The major the data directory holds (status.version). */
  running: string;
  /** The StatefulSet that serves (status.instanceSet). */
  currentSet: string;
  /** The images of the running major and of spec.version (undefined: not in the catalogue). */
  fromImage: string;
  toImage: string | undefined;
  /** The current set's instances, as the plan saw them, and its health. */
  facts: InstanceFacts[];
  health: PlanHealth;
  desired: number;
  /** Every pod of the cluster (both sets). */
  pods: Pod[];
  endpoint: (ip: string) => PgEndpoint;
  /** Writes status.upgrade (and more) if the upgrade's phase is still `expected`. */
  write: (expected: string | undefined, fields: Record<string, unknown>) => Promise<void>;
  signal?: AbortSignal;
}

export interface UpgradeOutcome {
  condition?: { status: 'True' | 'False'; reason: string; message: string };
  /** Writes are stopped: Ready=False, phase Upgrading. */
  writesStopped: boolean;
  /** Under way (phase Upgrading). */
  active: boolean;
  /** A problem to state as Degraded. */
  problem?: { reason: string; message: string };
  /** The switch was written: the reconcile ends here and starts again from the new status. */
  switched: boolean;
  requeueAfterMs?: number;
}

export interface UpgradesDeps {
  client: KubeClient;
  pg: PgAdmin;
  jobs: () => JobObject[];
  /** The claims of one cluster's pods (by its label). */
  claims: (namespace: string, cluster: string) => KubeObject[];
  now: () => Date;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** The upgrade machine's steps (one call per reconcile, after the instances were looked at). */
export class Upgrades {
  constructor(private readonly deps: UpgradesDeps) {}

  async step(input: UpgradeStepInput): Promise<UpgradeOutcome> {
    const { cluster, running } = input;
    const u = cluster.status?.upgrade;
    const idle = { writesStopped: false, active: false, switched: false };
    if (!isActive(u)) {
      const done =
        u?.phase === 'Completed'
          ? {
              status: 'False' as const,
              reason: UpgradeReasons.UpgradeCompleted,
              message: `upgraded from ${u.from} to ${u.to}: ${u.message}`,
            }
          : undefined;
      if (Number(cluster.spec.version) <= Number(running))
        return {
          ...idle,
          ...(done ? { condition: done } : {}),
          ...(u?.phase === 'RolledBack'
            ? {
                condition: {
                  status: 'False' as const,
                  reason: UpgradeReasons.UpgradeRolledBack,
                  message: u.message,
                },
              }
            : {}),
        };
      const gate = upgradeGate(cluster, running, this.deps.now());
      if (!gate.open)
        return {
          ...idle,
          condition: { status: 'False', reason: gate.reason, message: gate.message },
          ...(gate.reason === UpgradeReasons.UpgradeRolledBack
            ? { problem: { reason: gate.reason, message: gate.message } }
            : {}),
          requeueAfterMs: 30_000,
        };
      if (!input.toImage)
        return {
          ...idle,
          condition: {
            status: 'False',
            reason: 'ImageNotInCatalogue',
            message: `no image for PostgreSQL ${cluster.spec.version} in the catalogue: the upgrade cannot start`,
          },
        };
      const primary = input.health.primary;
      if (
        !primary ||
        !input.health.primaryServing ||
        input.health.readyInstances !== input.desired ||
        input.health.failingOver ||
        input.health.switchingOver
      )
        return {
          ...idle,
          condition: {
            status: 'False',
            reason: UpgradeReasons.WaitingForHealthyCluster,
            message: `the upgrade to ${cluster.spec.version} starts once every instance is ready (${input.health.readyInstances} of ${input.desired})`,
          },
          requeueAfterMs: 5000,
        };
      const name = cluster.metadata.name!;
      const started: UpgradeStatus = {
        phase: 'StoppingWrites',
        from: running,
        to: cluster.spec.version,
        fromSet: input.currentSet,
        toSet: upgradeInstanceSet(name, cluster.spec.version),
        fromImage: input.fromImage,
        toImage: input.toImage,
        fromReplicas: input.desired,
        method: 'DumpRestore',
        generation: cluster.metadata.generation ?? 0,
        primary,
        startedAt: this.deps.now().toISOString(),
        verifiedBackup: gate.verifiedBackup,
        steps: [],
        message: `upgrading from ${running} to ${cluster.spec.version}: stopping writes on ${primary}`,
      };
      await input.write(u?.phase, { upgrade: started });
      this.deps.emit(
        cluster,
        'Normal',
        'UpgradeStarted',
        `from PostgreSQL ${running} to ${cluster.spec.version} by dump and restore into ${started.toSet} (verified backup ${gate.verifiedBackup}); writes stop until the switch`,
      );
      return { ...active(started), requeueAfterMs: 100 };
    }
    if (!u) throw new Error('unreachable: an active upgrade has a status');
    try {
      return await this.advance(input, u);
    } catch (error) {
      if (!(error instanceof RollBack)) throw error;
      return this.rollBack(input, u, error.message);
    }
  }

  private async advance(input: UpgradeStepInput, u: UpgradeStatus): Promise<UpgradeOutcome> {
    const { cluster } = input;
    const now = this.deps.now();
    const step = (name: string, message: string): UpgradeStep => ({
      name,
      outcome: 'Succeeded',
      at: now.toISOString(),
      message,
    });
    const oldPrimary = () => {
      const f = input.facts.find((x) => x.name === u.primary);
      if (
        cluster.status?.currentPrimary !== u.primary ||
        !f?.ip ||
        !f.view?.reachable ||
        f.view.inRecovery
      )
        throw new RollBack(
          `the old primary ${u.primary} ${cluster.status?.currentPrimary !== u.primary ? `is no longer primary (${cluster.status?.currentPrimary} is)` : 'no longer serves'}`,
        );
      return input.endpoint(f.ip);
    };
    const target = podName(u.toSet, 0);
    const targetPod = input.pods.find((p) => p.metadata.name === target);

    switch (u.phase) {
      case 'StoppingWrites': {
        const endpoint = oldPrimary();
        await this.deps.pg.alterSystem(endpoint, { default_transaction_read_only: 'on' });
        const ended = await this.deps.pg.endClientSessions(endpoint);
        const next: UpgradeStatus = {
          ...u,
          phase: 'Provisioning',
          writesStoppedAt: now.toISOString(),
          steps: [
            ...u.steps,
            step(
              'StopWrites',
              `${u.primary} is read-only (default_transaction_read_only), ${ended} client sessions ended`,
            ),
          ],
          message: `writes stopped; ${target} initialises PostgreSQL ${u.to}`,
        };
        await input.write(u.phase, { upgrade: next });
        return { ...active(next), requeueAfterMs: 500 };
      }
      case 'Provisioning': {
        oldPrimary();
        if (Date.now() - Date.parse(u.writesStoppedAt ?? u.startedAt) > PROVISION_TIMEOUT_MS)
          throw new RollBack(
            `${target} did not initialise PostgreSQL ${u.to} within ${PROVISION_TIMEOUT_MS / 60_000} minutes${lastMessage(targetPod)}`,
          );
        if (!targetPod?.status?.podIP) return { ...active(u), requeueAfterMs: 1000 };
        if (!targetPod.metadata.annotations?.[InstructionAnnotation]) {
          await this.deps.client.mergePatch(Pods, target, cluster.metadata.namespace, {
            metadata: { annotations: { [InstructionAnnotation]: 'initdb' } },
          });
          return { ...active(u), requeueAfterMs: 1000 };
        }
        const view = await this.deps.pg.observe(input.endpoint(targetPod.status.podIP), {
          ...(input.signal ? { signal: input.signal } : {}),
        });
        if (!view.reachable || view.inRecovery) return { ...active(u), requeueAfterMs: 1000 };
        const next: UpgradeStatus = {
          ...u,
          phase: 'Restoring',
          job: upgradeJobName(cluster.metadata.name!, u.generation),
          steps: [
            ...u.steps,
            step(
              'Provision',
              `${target} runs PostgreSQL ${u.to} (system identifier ${view.systemIdentifier})`,
            ),
          ],
          message: `dumping every database from ${u.primary} into ${target}`,
        };
        await input.write(u.phase, { upgrade: next });
        return { ...active(next), requeueAfterMs: 500 };
      }
      case 'Restoring': {
        const from = oldPrimary();
        const jobName = u.job ?? upgradeJobName(cluster.metadata.name!, u.generation);
        const job = this.deps
          .jobs()
          .find(
            (j) =>
              j.metadata.namespace === cluster.metadata.namespace && j.metadata.name === jobName,
          );
        if (!job) {
          const toIp = targetPod?.status?.podIP;
          if (!toIp) throw new RollBack(`${target} has no IP any more`);
          await createOwnedJob(
            this.deps.client,
            cluster,
            renderUpgradeJob({
              cluster,
              image: u.toImage,
              fromHost: from.host,
              toHost: toIp,
              generation: u.generation,
            }),
          );
          return { ...active(u), requeueAfterMs: 2000 };
        }
        const outcome = finished(job);
        if (!outcome) return { ...active(u), requeueAfterMs: 2000 };
        const text = await jobTerminationMessage(
          this.deps.client,
          job,
          cluster.metadata.namespace!,
        );
        const parsed = parseOutcome(text);
        if (outcome !== 'Complete' || parsed?.result !== 'Passed')
          throw new RollBack(
            `the dump and restore (Job ${jobName}) failed: ${parsed?.message ?? text ?? 'it left no outcome'}`,
          );
        const toIp = targetPod?.status?.podIP;
        const view = toIp
          ? await this.deps.pg.observe(input.endpoint(toIp), {
              ...(input.signal ? { signal: input.signal } : {}),
            })
          : undefined;
        if (!view?.reachable || view.inRecovery || !view.systemIdentifier)
          throw new RollBack(`${target} stopped serving after the restore`);
        const next: UpgradeStatus = {
          ...u,
          phase: 'Switching',
          steps: [
            ...u.steps,
            step(
              'Restore',
              `${parsed.databases} databases dumped from PostgreSQL ${u.from} and restored into ${u.to} in ${parsed.durationSeconds} s`,
            ),
            step('Check', `${parsed.tables} tables, ${parsed.rows} rows: every row count equal`),
          ],
          message: `switching the Services to ${target}`,
        };
        // Another database system: its backups start afresh in its own folder (a merge patch
        // clears what it sets to null); the last rehearsal stays as the old system's record.
        const backup = {
          destination: null,
          lastScheduleTime: null,
          lastSuccessful: null,
          lastFailed: null,
          firstRecoverabilityPoint: null,
          count: null,
          lastVerificationScheduleTime: null,
        };
        await input.write(u.phase, {
          upgrade: next,
          version: u.to,
          image: u.toImage,
          instanceSet: u.toSet,
          currentPrimary: target,
          systemIdentifier: view.systemIdentifier,
          timeline: view.timeline,
          backup,
        });
        this.deps.emit(
          cluster,
          'Normal',
          'UpgradeSwitching',
          `${target} (PostgreSQL ${u.to}) becomes primary: ${next.steps.at(-1)!.message}`,
        );
        return { ...active(next), switched: true, requeueAfterMs: 100 };
      }
      case 'Switching': {
        // The old instances leave the Services (nothing gives them roles any more).
        await this.unlabel(cluster, u.fromSet, input.pods);
        if (!input.health.primaryServing) return { ...active(u), requeueAfterMs: 500 };
        const next: UpgradeStatus = {
          ...u,
          phase: 'Completing',
          writesResumedAt: now.toISOString(),
          steps: [
            ...u.steps,
            step('Switch', `${target} is primary and takes writes; the Services follow it`),
          ],
          message: `${target} serves PostgreSQL ${u.to}; its standbys are cloned, then the old instances go`,
        };
        await input.write(u.phase, { upgrade: next });
        return { ...active(next), requeueAfterMs: 500 };
      }
      case 'Completing': {
        await this.unlabel(cluster, u.fromSet, input.pods);
        if (!input.health.primaryServing || input.health.readyInstances !== input.desired)
          return { ...active(u), requeueAfterMs: 1000 };
        const downtime =
          u.writesStoppedAt && u.writesResumedAt
            ? (Date.parse(u.writesResumedAt) - Date.parse(u.writesStoppedAt)) / 1000
            : undefined;
        const kept = this.claimsOf(cluster, u.fromSet);
        const next: UpgradeStatus = {
          ...u,
          phase: 'Completed',
          completedAt: now.toISOString(),
          steps: [
            ...u.steps,
            step(
              'Complete',
              `${input.desired} instances of PostgreSQL ${u.to} ready; StatefulSet ${u.fromSet} removed${kept.length ? `, its volumes ${kept.join(', ')} kept` : ''}`,
            ),
          ],
          message: `PostgreSQL ${u.to} serves${downtime !== undefined ? `; writes were stopped for ${downtime.toFixed(1)} s` : ''}`,
        };
        await input.write(u.phase, { upgrade: next });
        this.deps.emit(
          cluster,
          'Normal',
          'UpgradeCompleted',
          `from PostgreSQL ${u.from} to ${u.to}: ${next.message}.${kept.length ? ` The old volumes ${kept.join(', ')} stay (no owner) as a fallback: delete them when no longer needed` : ''}`,
        );
        return {
          writesStopped: false,
          active: false,
          switched: false,
          condition: {
            status: 'False',
            reason: UpgradeReasons.UpgradeCompleted,
            message: `upgraded from ${u.from} to ${u.to}: ${next.message}`,
          },
        };
      }
      case 'RollingBack':
        return this.rollBack(input, u, u.message);
      default:
        return { writesStopped: false, active: false, switched: false };
    }
  }

  /**
   * Back to the old version (before the switch only): the new set is no longer rendered (the
   * reconcile prunes it), its volumes are deleted, every old instance writable again.
   */
  private async rollBack(
    input: UpgradeStepInput,
    u: UpgradeStatus,
    why: string,
  ): Promise<UpgradeOutcome> {
    const { cluster } = input;
    if (u.phase !== 'RollingBack') {
      const rolling: UpgradeStatus = { ...u, phase: 'RollingBack', message: why };
      await input.write(u.phase, { upgrade: rolling });
      this.deps.emit(cluster, 'Warning', 'UpgradeRollingBack', `to PostgreSQL ${u.from}: ${why}`);
      return { ...active(rolling), requeueAfterMs: 500 };
    }
    // The new StatefulSet is pruned by this reconcile's sync; its pod must be gone before its
    // volume goes.
    if (input.pods.some((p) => ordinalOf(u.toSet, p.metadata.name ?? '') !== undefined))
      return { ...active(u), requeueAfterMs: 1000 };
    for (const claim of this.claimsOf(cluster, u.toSet))
      await this.deps.client
        .delete(PersistentVolumeClaims, claim, cluster.metadata.namespace)
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    for (const f of input.facts)
      if (f.ip && f.view?.reachable)
        await this.deps.pg.alterSystem(input.endpoint(f.ip), {
          default_transaction_read_only: null,
        });
    const primary = input.facts.find((f) => f.name === cluster.status?.currentPrimary);
    if (!primary?.view?.reachable) return { ...active(u), requeueAfterMs: 2000 };
    const now = this.deps.now().toISOString();
    const done: UpgradeStatus = {
      ...u,
      phase: 'RolledBack',
      writesResumedAt: now,
      completedAt: now,
      steps: [...u.steps, { name: 'RollBack', outcome: 'Failed', at: now, message: u.message }],
    };
    await input.write(u.phase, { upgrade: done });
    this.deps.emit(
      cluster,
      'Warning',
      UpgradeReasons.UpgradeRolledBack,
      `PostgreSQL ${u.from} serves and takes writes again; the upgrade to ${u.to} failed: ${u.message}`,
    );
    const message = `the upgrade to ${u.to} was rolled back: ${u.message}`;
    return {
      writesStopped: false,
      active: false,
      switched: false,
      condition: { status: 'False', reason: UpgradeReasons.UpgradeRolledBack, message },
      problem: { reason: UpgradeReasons.UpgradeRolledBack, message },
    };
  }

  /** Removes the role label from the pods of `set` (they serve no Service any more). */
  private async unlabel(cluster: Cluster, set: string, pods: Pod[]) {
    for (const pod of pods) {
      if (ordinalOf(set, pod.metadata.name ?? '') === undefined) continue;
      if (!pod.metadata.labels?.[Labels.role]) continue;
      await this.deps.client
        .mergePatch(Pods, pod.metadata.name!, cluster.metadata.namespace, {
          metadata: { labels: { [Labels.role]: null } },
        })
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    }
  }

  /** The claims of the instance set `set` (data-<set>-<n>). */
  private claimsOf(cluster: Cluster, set: string): string[] {
    return this.deps
      .claims(cluster.metadata.namespace!, cluster.metadata.name!)
      .filter((c) => ordinalOf(`${DataVolumeName}-${set}`, c.metadata.name ?? '') !== undefined)
      .map((c) => c.metadata.name!)
      .sort();
  }
}

/** A step that failed before the switch: the upgrade rolls back with this message. */
class RollBack extends Error {
  override readonly name = 'RollBack';
}

function active(u: UpgradeStatus): UpgradeOutcome {
  return {
    condition: { status: 'True', reason: u.phase, message: u.message },
    writesStopped: WRITES_STOPPED.has(u.phase) || u.phase === 'RollingBack',
    active: true,
    switched: false,
  };
}

function lastMessage(pod: Pod | undefined): string {
  const m = pod?.status?.containerStatuses?.[0]?.lastState?.terminated?.message?.trim();
  return m ? ` (its agent: ${m})` : '';
}

function parseOutcome(text: string | undefined):
  | {
      result: string;
      databases: number;
      tables: number;
      rows: number;
      durationSeconds: number;
      message: string;
    }
  | undefined {
  try {
    return JSON.parse(text ?? '') as never;
  } catch {
    return undefined;
  }
}
