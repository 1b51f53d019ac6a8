/**
 * The transitions of a major upgrade (pure): from what one reconcile observed (`UpgradeFacts`), what
 * to do, what to record in status.upgrade and what to report. `Upgrades.step` (upgrade.ts) gathers
 * the facts and carries the plan out.
 *
 *   phase (status.upgrade)  its work, done each reconcile     next, once the facts allow it
 *   (none, Completed,       readConnectionLimits of the old    StoppingWrites, with them (gate open,
 *    RolledBack)            primary, once it may start         image in the catalogue, every
 *                                                              instance ready)
 *   StoppingWrites          stopWrites on the old primary      Provisioning
 *   Provisioning            instruct initdb, observe the new   Restoring (the new instance serves)
 *   Restoring               createJob, read its outcome,       Switching, with the new version,
 *                           observe the new instance, then     image, set, primary and identifier
 *                           releaseConnections on it
 *   Switching               unlabel the old instances          Completing (the new primary serves)
 *   Completing              unlabel the old instances          Completed (every instance ready)
 *   RollingBack             (the new pod gone, the primary     RolledBack
 *                           reachable) deleteClaim,
 *                           resumeWrites
 * The write hold (stopWrites) is hard: while an upgrade is under way the read-write Service selects
 * only the new set's primary (none before the switch: children/services.ts), every database of
 * the old primary has CONNECTION LIMIT 0 (only the superuser — the controller, the Job — connects;
 * the limits before are in status.upgrade.heldDatabases, recorded before the hold), it is
 * read-only by default, and every other client session is ended. The dump carries the limits of 0
 * into the new instance: they are released there before the switch, and on the (old) primary by
 * a roll-back. All of it lives in status and in the databases, so a restarted controller finds it.
 * Before Switching, a failure (the old primary lost, the new instance not initialised within
 * PROVISION_TIMEOUT_MS, no IP for the Job, a failed dump and restore, the new instance not serving
 * after it) records RollingBack with the failure as its message; after the switch nothing rolls
 * back.
 *
 * Ordering, as the executor must keep it:
 * - A phase is recorded before its work is taken (a restarted controller resumes it): a plan's
 *   `actions` are the work of the phase status.upgrade records now (each idempotent: a crash
 *   before the record redoes them), its `record` the next phase, written after them and only over
 *   `expected` (the phase it was decided on: a newer status makes the write fail and nothing
 *   after it happens), its `events` emitted after the record. The work a record implies (the new
 *   StatefulSet rendered, the Job created, the old instances unlabelled…) comes in later plans.
 * - Some decisions need what an action returns: the sessions stopWrites ended (in the
 *   Provisioning record), the new instance's observation, the dump-and-restore Job's outcome
 *   (read from its pod only once the Job finished, and before anything is decided from it), the
 *   time writes resumed after a roll-back. Such a plan has `replan`: its actions are carried out,
 *   their answers added to `facts.answers`, and the facts planned again in the same reconcile.
 * - Before the switch, the old primary is checked first: a failover rolls back before the
 *   provisioning timeout, the Job or the new instance is looked at.
 * - A roll-back first records RollingBack (no action); the next reconcile waits for the new pod to
 *   be pruned, deletes its claims, makes the old instances writable, and records RolledBack only
 *   then (its times are those read after writes resumed), once the primary is reachable.
 */
import {
  DEFAULT_MAX_BACKUP_AGE,
  type PostgresCluster,
  type UpgradeStatus,
  type UpgradeStep,
} from '@steward/postgres-cluster-api';
import { upgradeJobName } from '../backup/job.js';
import { finished, type JobObject } from '../backup/reconcile.js';
import {
  DataVolumeName,
  InstructionAnnotation,
  Labels,
  ordinalOf,
  podName,
  upgradeInstanceSet,
} from '../children/names.js';
import { type DatabaseLimit } from '../pg/index.js';
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
export const PROVISION_TIMEOUT_MS = 10 * 60_000;

/** Phases in which the old primary is read-only and the new set not yet serving. */
const WRITES_STOPPED = new Set(['StoppingWrites', 'Provisioning', 'Restoring', 'Switching']);

export const isActive = (u: UpgradeStatus | undefined): boolean =>
  !!u && u.phase !== 'Completed' && u.phase !== 'RolledBack';

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

/** The new instance as `PgAdmin.observe` saw it (the part the plan reads). */
export type TargetView =
  | { reachable: false }
  | { reachable: true; inRecovery: boolean; systemIdentifier: string; timeline: number };

/** What this reconcile's own actions returned (see `UpgradePlan.replan`). */
export interface UpgradeAnswers {
  /** readConnectionLimits: the old primary's databases and their limits. */
  limits?: DatabaseLimit[];
  /** stopWrites: how many client sessions it ended. */
  sessionsEnded?: number;
  /** observe: the new instance. */
  target?: TargetView;
  /** readJobOutcome: the termination message of the Job's pod (`text` undefined: none). */
  jobMessage?: { text: string | undefined };
  /** resumeWrites: the time (ISO) read once every instance was writable again. */
  writesResumedAt?: string;
}

/** What one reconcile observed, as the upgrade plan reads it. */
export interface UpgradeFacts {
  /** status.upgrade is the record the plan advances; metadata and spec name and gate it. */
  cluster: Cluster;
  /** The major the data directory holds (status.version). */
  running: string;
  /** The StatefulSet that serves (status.instanceSet). */
  currentSet: string;
  /** The images of the running major and of spec.version (undefined: not in the catalogue). */
  fromImage: string;
  toImage: string | undefined;
  /** The current set's instances, as the instance plan saw them, and its health. */
  instances: InstanceFacts[];
  health: PlanHealth;
  desired: number;
  /** Every pod of the cluster (both sets). */
  pods: Pod[];
  /** The Jobs in the cache (the plan looks for the upgrade's by namespace and name). */
  jobs: JobObject[];
  /** The names of the cluster's claims (both sets). */
  claims: string[];
  /** The time of this reconcile. */
  now: Date;
  answers?: UpgradeAnswers;
}

/** One effect of a plan, carried out by the executor in the order given. */
export type UpgradeAction =
  /** The connection limit of each database of the old primary: answers `limits`. */
  | { type: 'readConnectionLimits'; ip: string }
  /**
   * Every database's connection limit 0, ALTER SYSTEM default_transaction_read_only = on, then
   * every other client session ended: answers `sessionsEnded`.
   */
  | { type: 'stopWrites'; ip: string }
  /** The recorded connection limits back on the server at `ip` (a primary). */
  | { type: 'releaseConnections'; ip: string; limits: DatabaseLimit[] }
  /** Observe the new instance: answers `target`. */
  | { type: 'observe'; ip: string }
  /** Read the termination message of the Job's pod: answers `jobMessage`. */
  | { type: 'readJobOutcome'; job: JobObject }
  /**
   * Give the pod its set's fence Lease, then set its instruction annotation (the new instance's
   * agent runs initdb once the Lease names it).
   */
  | { type: 'instruct'; pod: string; set: string; instruction: 'initdb' }
  /** Create the dump-and-restore Job (renderUpgradeJob), owned by the cluster. */
  | { type: 'createJob'; image: string; fromIp: string; toIp: string; generation: number }
  /** Remove the pod's role label (it leaves the Services); a pod gone is fine. */
  | { type: 'unlabel'; pod: string }
  /** Delete a claim of the new set; a claim gone is fine. */
  | { type: 'deleteClaim'; claim: string }
  /**
   * ALTER SYSTEM RESET default_transaction_read_only on each of `ips`, the recorded connection
   * limits back on `primaryIp`: answers `writesResumedAt`.
   */
  | { type: 'resumeWrites'; ips: string[]; primaryIp: string; limits: DatabaseLimit[] };

export interface UpgradeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Fields of status to write, only if status.upgrade.phase is still `expected`. */
export interface UpgradeRecord {
  expected: UpgradeStatus['phase'] | undefined;
  fields: Record<string, unknown>;
}

export type UpgradePlan =
  /** Carry the actions out, add their answers to the facts and plan again (nothing else yet). */
  | { replan: true; actions: UpgradeAction[] }
  /** The actions, then the record, then the events; the outcome is the step's. */
  | {
      replan?: undefined;
      actions: UpgradeAction[];
      record?: UpgradeRecord;
      events: UpgradeEvent[];
      outcome: UpgradeOutcome;
    };

/** The next thing to do for the upgrade of `facts.cluster` (pure; see the module doc). */
export function planUpgrade(facts: UpgradeFacts): UpgradePlan {
  const u = facts.cluster.status?.upgrade;
  if (!u || !isActive(u)) return planStart(facts, u);
  switch (u.phase) {
    case 'StoppingWrites':
      return planStoppingWrites(facts, u);
    case 'Provisioning':
      return planProvisioning(facts, u);
    case 'Restoring':
      return planRestoring(facts, u);
    case 'Switching':
      return planSwitching(facts, u);
    case 'Completing':
      return planCompleting(facts, u);
    case 'RollingBack':
      return planRollingBack(facts, u);
    default:
      return decided({ writesStopped: false, active: false, switched: false });
  }
}

/** No upgrade under way: the last one's condition, or whether (and why not) one starts. */
function planStart(facts: UpgradeFacts, u: UpgradeStatus | undefined): UpgradePlan {
  const { cluster, running, health, desired } = facts;
  const idle = { writesStopped: false, active: false, switched: false };
  if (Number(cluster.spec.version) <= Number(running)) {
    const condition =
      u?.phase === 'Completed'
        ? {
            status: 'False' as const,
            reason: UpgradeReasons.UpgradeCompleted,
            message: `upgraded from ${u.from} to ${u.to}: ${u.message}`,
          }
        : u?.phase === 'RolledBack'
          ? {
              status: 'False' as const,
              reason: UpgradeReasons.UpgradeRolledBack,
              message: u.message,
            }
          : undefined;
    return decided({ ...idle, ...(condition ? { condition } : {}) });
  }
  const gate = upgradeGate(cluster, running, facts.now);
  if (!gate.open)
    return decided({
      ...idle,
      condition: { status: 'False', reason: gate.reason, message: gate.message },
      ...(gate.reason === UpgradeReasons.UpgradeRolledBack
        ? { problem: { reason: gate.reason, message: gate.message } }
        : {}),
      requeueAfterMs: 30_000,
    });
  if (!facts.toImage)
    return decided({
      ...idle,
      condition: {
        status: 'False',
        reason: 'ImageNotInCatalogue',
        message: `no image for PostgreSQL ${cluster.spec.version} in the catalogue: the upgrade cannot start`,
      },
    });
  const primary = health.primary;
  if (
    !primary ||
    !health.primaryServing ||
    health.readyReplicas !== desired ||
    health.failingOver ||
    health.switchingOver
  )
    return decided({
      ...idle,
      condition: {
        status: 'False',
        reason: UpgradeReasons.WaitingForHealthyCluster,
        message: `the upgrade to ${cluster.spec.version} starts once every instance is ready (${health.readyReplicas} of ${desired})`,
      },
      requeueAfterMs: 5000,
    });
  // What the hold changes is recorded before it does: a roll-back restores it.
  const limits = facts.answers?.limits;
  if (!limits) {
    const ip = facts.instances.find((f) => f.name === primary)?.ip;
    if (!ip) return decided({ ...idle, requeueAfterMs: 1000 });
    return { replan: true, actions: [{ type: 'readConnectionLimits', ip }] };
  }
  const started: UpgradeStatus = {
    phase: 'StoppingWrites',
    from: running,
    to: cluster.spec.version,
    fromSet: facts.currentSet,
    toSet: upgradeInstanceSet(cluster.metadata.name!, cluster.spec.version),
    fromImage: facts.fromImage,
    toImage: facts.toImage,
    fromReplicas: desired,
    method: 'DumpRestore',
    generation: cluster.metadata.generation ?? 0,
    primary,
    startedAt: facts.now.toISOString(),
    verifiedBackup: gate.verifiedBackup,
    heldDatabases: limits,
    steps: [],
    message: `upgrading from ${running} to ${cluster.spec.version}: stopping writes on ${primary}`,
  };
  return {
    actions: [],
    record: { expected: u?.phase, fields: { upgrade: started } },
    events: [
      {
        type: 'Normal',
        reason: 'UpgradeStarted',
        message: `from PostgreSQL ${running} to ${cluster.spec.version} by dump and restore into ${started.toSet} (verified backup ${gate.verifiedBackup}); writes stop until the switch`,
      },
    ],
    outcome: { ...active(started), requeueAfterMs: 100 },
  };
}

function planStoppingWrites(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  const old = oldPrimary(facts, u);
  if ('lost' in old) return rollingBack(u, old.lost);
  if (!u.heldDatabases) {
    // Recorded by a controller that did not hold connections: their limits first.
    const limits = facts.answers?.limits;
    if (!limits) return { replan: true, actions: [{ type: 'readConnectionLimits', ip: old.ip }] };
    return advanced(u, { ...u, heldDatabases: limits }, { requeueAfterMs: 100 });
  }
  const ended = facts.answers?.sessionsEnded;
  if (ended === undefined) return { replan: true, actions: [{ type: 'stopWrites', ip: old.ip }] };
  const next: UpgradeStatus = {
    ...u,
    phase: 'Provisioning',
    writesStoppedAt: facts.now.toISOString(),
    steps: [
      ...u.steps,
      step(
        facts,
        'StopWrites',
        `${u.primary} takes no writes: out of the read-write Service, only the superuser may connect (every database's connection limit 0), read-only by default; ${ended} client sessions ended`,
      ),
    ],
    message: `writes stopped; ${podName(u.toSet, 0)} initialises PostgreSQL ${u.to}`,
  };
  return advanced(u, next, { requeueAfterMs: 500 });
}

function planProvisioning(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  const old = oldPrimary(facts, u);
  if ('lost' in old) return rollingBack(u, old.lost);
  const target = podName(u.toSet, 0);
  const targetPod = facts.pods.find((p) => p.metadata.name === target);
  if (facts.now.getTime() - Date.parse(u.writesStoppedAt ?? u.startedAt) > PROVISION_TIMEOUT_MS)
    return rollingBack(
      u,
      `${target} did not initialise PostgreSQL ${u.to} within ${PROVISION_TIMEOUT_MS / 60_000} minutes${lastMessage(targetPod)}`,
    );
  const ip = targetPod?.status?.podIP;
  if (!ip) return waiting(u, 1000);
  if (!targetPod.metadata.annotations?.[InstructionAnnotation])
    return waiting(u, 1000, [
      { type: 'instruct', pod: target, set: u.toSet, instruction: 'initdb' },
    ]);
  const view = facts.answers?.target;
  if (!view) return { replan: true, actions: [{ type: 'observe', ip }] };
  if (!view.reachable || view.inRecovery) return waiting(u, 1000);
  const next: UpgradeStatus = {
    ...u,
    phase: 'Restoring',
    job: upgradeJobName(facts.cluster.metadata.name!, u.generation),
    steps: [
      ...u.steps,
      step(
        facts,
        'Provision',
        `${target} runs PostgreSQL ${u.to} (system identifier ${view.systemIdentifier})`,
      ),
    ],
    message: `dumping every database from ${u.primary} into ${target}`,
  };
  return advanced(u, next, { requeueAfterMs: 500 });
}

function planRestoring(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  const { cluster } = facts;
  const old = oldPrimary(facts, u);
  if ('lost' in old) return rollingBack(u, old.lost);
  const target = podName(u.toSet, 0);
  const toIp = facts.pods.find((p) => p.metadata.name === target)?.status?.podIP;
  const jobName = u.job ?? upgradeJobName(cluster.metadata.name!, u.generation);
  const job = facts.jobs.find(
    (j) => j.metadata.namespace === cluster.metadata.namespace && j.metadata.name === jobName,
  );
  if (!job) {
    if (!toIp) return rollingBack(u, `${target} has no IP any more`);
    return waiting(u, 2000, [
      { type: 'createJob', image: u.toImage, fromIp: old.ip, toIp, generation: u.generation },
    ]);
  }
  const outcome = finished(job);
  if (!outcome) return waiting(u, 2000);
  // The outcome is read from the Job's pod only once the Job finished, and before any decision.
  const message = facts.answers?.jobMessage;
  if (!message) return { replan: true, actions: [{ type: 'readJobOutcome', job }] };
  const parsed = parseOutcome(message.text);
  if (outcome !== 'Complete' || parsed?.result !== 'Passed')
    return rollingBack(
      u,
      `the dump and restore (Job ${jobName}) failed: ${parsed?.message ?? message.text ?? 'it left no outcome'}`,
    );
  if (toIp && !facts.answers?.target)
    return { replan: true, actions: [{ type: 'observe', ip: toIp }] };
  const view = toIp ? facts.answers?.target : undefined;
  if (!view?.reachable || view.inRecovery || !view.systemIdentifier)
    return rollingBack(u, `${target} stopped serving after the restore`);
  const next: UpgradeStatus = {
    ...u,
    phase: 'Switching',
    steps: [
      ...u.steps,
      step(
        facts,
        'Restore',
        `${parsed.databases} databases dumped from PostgreSQL ${u.from} and restored into ${u.to} in ${parsed.durationSeconds} s`,
      ),
      step(facts, 'Check', `${parsed.tables} tables, ${parsed.rows} rows: every row count equal`),
    ],
    message: `switching the Services to ${target}`,
  };
  // Another database system: its backups start afresh in its own folder (a merge patch clears
  // what it sets to null); the last rehearsal stays as the old system's record.
  const backup = {
    destination: null,
    lastScheduleTime: null,
    lastSuccessful: null,
    lastFailed: null,
    firstRecoverabilityPoint: null,
    count: null,
    lastVerificationScheduleTime: null,
  };
  return {
    // The dump brought the held limits of 0 along: the new instance's are the old ones.
    actions: [{ type: 'releaseConnections', ip: toIp!, limits: u.heldDatabases ?? [] }],
    record: {
      expected: u.phase,
      fields: {
        upgrade: next,
        version: u.to,
        image: u.toImage,
        instanceSet: u.toSet,
        primary: target,
        systemIdentifier: view.systemIdentifier,
        timeline: view.timeline,
        backup,
      },
    },
    events: [
      {
        type: 'Normal',
        reason: 'UpgradeSwitching',
        message: `${target} (PostgreSQL ${u.to}) becomes primary: ${next.steps.at(-1)!.message}`,
      },
    ],
    outcome: { ...active(next), switched: true, requeueAfterMs: 100 },
  };
}

/** After the switch: the old instances leave the Services (nothing gives them roles any more). */
function planSwitching(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  const actions = unlabelled(facts, u.fromSet);
  if (!facts.health.primaryServing) return waiting(u, 500, actions);
  const target = podName(u.toSet, 0);
  const next: UpgradeStatus = {
    ...u,
    phase: 'Completing',
    writesResumedAt: facts.now.toISOString(),
    steps: [
      ...u.steps,
      step(facts, 'Switch', `${target} is primary and takes writes; the Services follow it`),
    ],
    message: `${target} serves PostgreSQL ${u.to}; its standbys are cloned, then the old instances go`,
  };
  return advanced(u, next, { requeueAfterMs: 500 }, actions);
}

function planCompleting(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  const actions = unlabelled(facts, u.fromSet);
  if (!facts.health.primaryServing || facts.health.readyReplicas !== facts.desired)
    return waiting(u, 1000, actions);
  const downtime =
    u.writesStoppedAt && u.writesResumedAt
      ? (Date.parse(u.writesResumedAt) - Date.parse(u.writesStoppedAt)) / 1000
      : undefined;
  const kept = claimsOf(facts, u.fromSet);
  const next: UpgradeStatus = {
    ...u,
    phase: 'Completed',
    completedAt: facts.now.toISOString(),
    steps: [
      ...u.steps,
      step(
        facts,
        'Complete',
        `${facts.desired} instances of PostgreSQL ${u.to} ready; StatefulSet ${u.fromSet} removed${kept.length ? `, its volumes ${kept.join(', ')} kept` : ''}`,
      ),
    ],
    message: `PostgreSQL ${u.to} serves${downtime !== undefined ? `; writes were stopped for ${downtime.toFixed(1)} s` : ''}`,
  };
  return {
    actions,
    record: { expected: u.phase, fields: { upgrade: next } },
    events: [
      {
        type: 'Normal',
        reason: 'UpgradeCompleted',
        message: `from PostgreSQL ${u.from} to ${u.to}: ${next.message}.${kept.length ? ` The old volumes ${kept.join(', ')} stay (no owner) as a fallback: delete them when no longer needed` : ''}`,
      },
    ],
    outcome: {
      writesStopped: false,
      active: false,
      switched: false,
      condition: {
        status: 'False',
        reason: UpgradeReasons.UpgradeCompleted,
        message: `upgraded from ${u.from} to ${u.to}: ${next.message}`,
      },
    },
  };
}

/** A failure before the switch: RollingBack, with why as its message. */
function rollingBack(u: UpgradeStatus, why: string): UpgradePlan {
  const rolling: UpgradeStatus = { ...u, phase: 'RollingBack', message: why };
  return {
    actions: [],
    record: { expected: u.phase, fields: { upgrade: rolling } },
    events: [
      { type: 'Warning', reason: 'UpgradeRollingBack', message: `to PostgreSQL ${u.from}: ${why}` },
    ],
    outcome: { ...active(rolling), requeueAfterMs: 500 },
  };
}

/**
 * Back to the old version: the new set is no longer rendered (the reconcile prunes it); once its
 * pod is gone its volumes are deleted and every old instance reachable is writable again.
 */
function planRollingBack(facts: UpgradeFacts, u: UpgradeStatus): UpgradePlan {
  // The new StatefulSet is pruned by this reconcile's sync; its pod must be gone before its
  // volume goes.
  if (facts.pods.some((p) => ordinalOf(u.toSet, p.metadata.name ?? '') !== undefined))
    return waiting(u, 1000);
  // The connection limits are a catalog change: given back on the primary (the old one, or the
  // standby a failover promoted), they replicate.
  const primary = facts.instances.find((f) => f.name === facts.cluster.status?.primary);
  if (!primary?.ip || !primary.view?.reachable || primary.view.inRecovery) return waiting(u, 2000);
  const resumedAt = facts.answers?.writesResumedAt;
  if (resumedAt === undefined)
    return {
      replan: true,
      actions: [
        ...claimsOf(facts, u.toSet).map((claim): UpgradeAction => ({ type: 'deleteClaim', claim })),
        {
          type: 'resumeWrites',
          ips: facts.instances.filter((f) => f.ip && f.view?.reachable).map((f) => f.ip!),
          primaryIp: primary.ip,
          limits: u.heldDatabases ?? [],
        },
      ],
    };
  const done: UpgradeStatus = {
    ...u,
    phase: 'RolledBack',
    writesResumedAt: resumedAt,
    completedAt: resumedAt,
    steps: [...u.steps, { name: 'RollBack', outcome: 'Failed', at: resumedAt, message: u.message }],
  };
  const message = `the upgrade to ${u.to} was rolled back: ${u.message}`;
  return {
    actions: [],
    record: { expected: u.phase, fields: { upgrade: done } },
    events: [
      {
        type: 'Warning',
        reason: UpgradeReasons.UpgradeRolledBack,
        message: `PostgreSQL ${u.from} serves and takes writes again; the upgrade to ${u.to} failed: ${u.message}`,
      },
    ],
    outcome: {
      writesStopped: false,
      active: false,
      switched: false,
      condition: { status: 'False', reason: UpgradeReasons.UpgradeRolledBack, message },
      problem: { reason: UpgradeReasons.UpgradeRolledBack, message },
    },
  };
}

/** The old primary's IP while it serves as the primary, else why the upgrade rolls back. */
function oldPrimary(facts: UpgradeFacts, u: UpgradeStatus): { ip: string } | { lost: string } {
  const current = facts.cluster.status?.primary;
  const f = facts.instances.find((x) => x.name === u.primary);
  if (current !== u.primary || !f?.ip || !f.view?.reachable || f.view.inRecovery)
    return {
      lost: `the old primary ${u.primary} ${current !== u.primary ? `is no longer primary (${current} is)` : 'no longer serves'}`,
    };
  return { ip: f.ip };
}

/** The pods of `set` that still carry a role label, to unlabel. */
function unlabelled(facts: UpgradeFacts, set: string): UpgradeAction[] {
  return facts.pods
    .filter(
      (p) =>
        ordinalOf(set, p.metadata.name ?? '') !== undefined && p.metadata.labels?.[Labels.role],
    )
    .map((p): UpgradeAction => ({ type: 'unlabel', pod: p.metadata.name! }));
}

/** The claims of the instance set `set` (data-<set>-<n>), sorted. */
function claimsOf(facts: UpgradeFacts, set: string): string[] {
  return facts.claims.filter((c) => ordinalOf(`${DataVolumeName}-${set}`, c) !== undefined).sort();
}

function step(facts: UpgradeFacts, name: string, message: string): UpgradeStep {
  return { name, outcome: 'Succeeded', at: facts.now.toISOString(), message };
}

function decided(outcome: UpgradeOutcome): UpgradePlan {
  return { actions: [], events: [], outcome };
}

/** The phase stays: its actions, and a look again after `ms`. */
function waiting(u: UpgradeStatus, ms: number, actions: UpgradeAction[] = []): UpgradePlan {
  return { actions, events: [], outcome: { ...active(u), requeueAfterMs: ms } };
}

/** `next` recorded over `u`'s phase, after `actions`. */
function advanced(
  u: UpgradeStatus,
  next: UpgradeStatus,
  outcome: Partial<UpgradeOutcome>,
  actions: UpgradeAction[] = [],
): UpgradePlan {
  return {
    actions,
    record: { expected: u.phase, fields: { upgrade: next } },
    events: [],
    outcome: { ...active(next), ...outcome },
  };
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
