import { TerminalError, type Result } from '@steward/controller';
import {
  nextLook,
  ordinalOf,
  readFailures,
  stateWorkloadStatus,
  templateStorageOf,
  type DecisionMarks,
} from '@steward/workload';
import { type BackupRequest } from '../backup/reconcile.js';
import { walArchivingOf } from '../backup/wal-archiving.js';
import { DataVolumeName } from '../children/index.js';
import { type PlanMemory } from '../plan/plan.js';
import { type Resolution } from '../resolve.js';
import { backupsPhase } from './backups.js';
import { desiredChildren, liveStatefulSet, syncChildren } from './children.js';
import {
  emptyOutcome,
  type Cluster,
  type Context,
  type PhaseEnv,
  type PhaseOutcome,
} from './env.js';
import { endpointWith, instancesPhase } from './instances.js';
import { parametersPhase, servingPrimary, type ParameterChecks } from './parameters.js';
import { restorePhase } from './restore.js';
import { drainSwitchover, failoverHeld, planRoll, rollPhase, rollSwitchover } from './roll.js';
import { clusterStatus } from './status.js';
import { fencingStatus, podFences } from '../fence/lease.js';
import { planTopology } from './topology.js';
import { upgradePhase } from './upgrade.js';

/** What a controller keeps between reconciles, and its settings, for `convergeCluster`. */
export interface ConvergeState {
  /** The failover plan's memory, per cluster uid (lost on a restart, by design). */
  memories: Map<string, PlanMemory>;
  /** The failover and switchover records this controller wrote last, per cluster uid. */
  marks: DecisionMarks;
  /** The parameter sets checked against the server, per cluster uid. */
  parameterChecks: ParameterChecks;
  /** Primaries restarted on purpose by the roll, per cluster uid. */
  plannedRestarts: Map<string, { pod: string; until: number }>;
  poll: { pollMs: number; busyMs: number };
  controllerIdentity?: { namespace: string; podLabels: Record<string, string> };
  /** The open PostgresBackups of a cluster, oldest first. */
  requests: (namespace: string, cluster: string) => BackupRequest[];
  /** The image, resources and volume of the cluster at a major version, or a refusal. */
  admission: (cluster: Cluster, version: string) => Resolution;
  /** The cluster with its backup settings resolved (credentials copied), or a refusal. */
  withBackupSettings: (cluster: Cluster, signal?: AbortSignal) => Promise<Cluster>;
}

/**
 * One reconcile: the phases in order, each a pure plan and its executor, their outcomes gathered
 * into one status write. Decisions (the restore chosen, a failover or switchover, an upgrade's
 * step) are recorded before they are carried out.
 */
export async function convergeCluster(
  env: PhaseEnv,
  state: ConvergeState,
  ctx: Context,
  given: Cluster,
): Promise<Result> {
  const { memories, plannedRestarts, now, emit } = { ...state, now: env.now, emit: env.emit };
  const namespace = given.metadata.namespace!;
  const name = given.metadata.name!;
  // The major the data directory holds: what the instances keep running until an upgrade.
  const running = given.status?.version ?? given.spec.version;
  const resolution = state.admission(given, running);
  if (!resolution.allowed) throw new TerminalError(resolution.reason, resolution.message);
  const resolved = resolution.resolved;
  // From here on, spec.backup and the recovery source have their destinations.
  const obj = await state.withBackupSettings(given, ctx.signal);
  const restore = await restorePhase(env, ctx, obj);
  const topology = planTopology(obj, env.pods(namespace, name));
  // A parameter change the server refuses is not rendered: the instances keep their settings.
  const parameters = await parametersPhase(
    env,
    obj,
    () => servingPrimary(env, obj, topology),
    state.parameterChecks,
  );
  const synced = await syncChildren(
    env,
    ctx,
    obj,
    desiredChildren({
      cluster: parameters.cluster,
      resolved,
      topology,
      ...(restore ? { restore } : {}),
      templateStorage: (set) => templateStorageOf(liveStatefulSet(env, obj, set)),
      // A major upgrade's other set pulls as its own version's catalogue entry says.
      pullOf: (version) => {
        const r = state.admission(given, version);
        return r.allowed ? r.resolved.pull : undefined;
      },
      ...(state.controllerIdentity ? { controller: state.controllerIdentity } : {}),
    }),
  );
  const updateRevision = liveStatefulSet(env, obj, topology.set)?.status?.updateRevision;
  // A drain of the primary's node, else a rolling update that reached the primary, asks for a
  // switchover (unless one is asked already: a scale-down's, or a person's).
  const ask =
    topology.switchover ??
    drainSwitchover(obj, topology.pods, env.nodeCordoned, now().getTime()) ??
    rollSwitchover(obj, topology.pods, updateRevision, now().getTime());
  const planned = ask ? { ...topology, switchover: ask } : topology;
  const outcome: PhaseOutcome = emptyOutcome();
  outcome.notes.push(...topology.notes);
  const volumes = await volumesPhase(env, obj, topology.set, resolved.storage.size);
  outcome.problems.push(...volumes.problems);
  outcome.notes.push(...volumes.notes);
  const refusals = [...parameters.refusals, ...volumes.refusals];
  const instances = await instancesPhase(
    env,
    ctx,
    obj,
    planned,
    synced,
    memories,
    failoverHeld(plannedRestarts, obj, now().getTime()),
    state.marks,
  );
  outcome.problems.push(...instances.problems);
  const { plan, facts } = instances;
  const roll = planRoll({
    pods: topology.pods,
    updateRevision,
    primary: obj.status?.primary,
    method: obj.spec.rollout?.primary ?? 'Switchover',
    health: plan.health,
    instances: facts.length,
    actionsFailed: instances.failed.length > 0,
  });
  await rollPhase(env, obj, roll, plannedRestarts);
  const backup = await backupsPhase(
    env,
    ctx,
    obj,
    resolved,
    facts,
    plan.health,
    state.requests(namespace, name),
  );
  outcome.problems.push(...backup.problems);
  const backupStatus = withWalArchiving(backup.status, instances.archiver, outcome);
  const target = state.admission(given, obj.spec.version);
  const upgrade = await upgradePhase(
    env,
    ctx,
    obj,
    topology,
    { from: resolved.image, to: target.allowed ? target.resolved : undefined },
    facts,
    plan.health,
    endpointWith(synced.superuserPassword),
    resolved.storage.size,
  );
  // The switch was written: everything above described the old set, and what the plan
  // remembered was about the old instances.
  if (upgrade.switched) {
    memories.delete(obj.metadata.uid ?? name);
    return { requeueAfter: 100 };
  }
  if (upgrade.problem) outcome.problems.push(upgrade.problem);
  // Why instances do not come up (unschedulable, a volume not provisioned, an image, a crash loop).
  const failures = await readFailures(
    env.client,
    namespace,
    topology.pods,
    env.claims(namespace, name),
    now().getTime(),
    ctx.signal,
  );

  const gathered = {
    failures,
    refusals,
    desired: topology.desired,
    podCount: topology.pods.filter((p) => !p.metadata.deletionTimestamp).length,
    health: plan.health,
    // The fence as the primary's pod runs it (a pod from before fencing: None until rolled).
    fencing: fencingStatus(
      obj,
      podFences(
        topology.pods.find((p) => p.metadata.name === (plan.health.primary ?? obj.status?.primary)),
      ),
    ),
    outdated: roll.outdated,
    image: resolved.image,
    version: obj.status?.version ?? running,
    problems: outcome.problems,
    notes: outcome.notes,
    upgrade,
    ...(backupStatus ? { backup: backupStatus } : {}),
    ...(restore ? { restore } : {}),
    now: now().toISOString(),
  };
  const change = await stateWorkloadStatus(
    ctx.status,
    (latest) => clusterStatus(latest, gathered),
    `${topology.desired} instances desired, ${plan.health.readyReplicas} ready`,
    (reason, message) => emit(obj, 'Normal', reason, message),
  );
  return nextLook(
    change.phase,
    plan.requeueAfterMs,
    change.phase === 'Ready' && instances.failed.length === 0,
    [backup.requeueAfterMs, upgrade.requeueAfterMs],
    state.poll,
  );
}

/** Volumes grow with spec.storage.size: the claims of the instance set that serves. */
function volumesPhase(env: PhaseEnv, obj: Cluster, set: string, size: string) {
  const claims = env
    .claims(obj.metadata.namespace!, obj.metadata.name!)
    .filter((c) => ordinalOf(`${DataVolumeName}-${set}`, c.metadata.name ?? '') !== undefined);
  return env.volumes.step(claims, size, env.now().getTime(), (message) =>
    env.emit(obj, 'Normal', 'VolumeExpanding', message),
  );
}

/** status.backup with the primary's WAL archiving: a failure fills its volume (a problem). */
function withWalArchiving<B extends object>(
  backup: B | undefined,
  archiver: Parameters<typeof walArchivingOf>[0] | undefined,
  outcome: PhaseOutcome,
): (B & { walArchiving: ReturnType<typeof walArchivingOf>['status'] }) | B | undefined {
  if (!backup || !archiver) return backup;
  const wal = walArchivingOf(archiver);
  if (wal.problem) outcome.problems.push(wal.problem);
  return { ...backup, walArchiving: wal.status };
}
