import {
  PostgresBackup,
  PostgresCluster,
  SwitchoverAnnotation,
  type BackupDestination,
} from '@steward/postgres-cluster-api';
import {
  or,
  TerminalError,
  type Controller,
  type EventRecorder,
  type Manager,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Predicate,
  type Result,
} from '@steward/controller';
import { type Selection } from '@steward/informer';
import {
  ConfigMaps,
  Jobs,
  NetworkPolicies,
  PodDisruptionBudgets,
  Secrets,
  Services,
  StatefulSets,
  type KubeClient,
  type ResourceType,
} from '@steward/kube';
import {
  namespaceDirectory,
  WorkloadProfiles,
  type NamespaceFacts,
  type ProfileUser,
} from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  nextLook,
  scalingEvent,
  stateStatus,
  templateStorageOf,
  VolumeGrowth,
  wireWorkload,
  workloadChanges,
  workloadReconciler,
  type ClaimObject,
  type WorkloadChildren,
} from '@steward/workload';
import { DataVolumeName, Labels, ordinalOf } from './children/index.js';
import { Upgrades } from './upgrade/upgrade.js';
import { copyBackupCredentials, CredentialsSourceMissing } from './backup/credentials.js';
import { indexByCluster, ByCluster, isOpenRequest, requestedDue } from './backup/on-demand.js';
import { Backups, type BackupRequest, type JobObject } from './backup/reconcile.js';
import { s3BackupStore, type BackupStore, type Credentials } from './backup/store.js';
import { pgAdmin, type PgAdmin } from './pg/index.js';
import { type Pod } from './pods.js';
import { type PlanMemory } from './plan/plan.js';
import { resolveBackup, resolvePostgres, type Resolution } from './resolve.js';
import { postgresClusterGauges } from './metrics.js';
import { PostgresReasons } from './status.js';
import { desiredChildren, liveStatefulSet, syncChildren } from './phases/children.js';
import { beforeDelete, removeCluster, retainCluster } from './phases/deletion.js';
import { emptyOutcome, type PhaseEnv, type PhaseOutcome } from './phases/env.js';
import { endpointWith, instancesPhase } from './phases/instances.js';
import { restorePhase } from './phases/restore.js';
import { failoverHeld, planRoll, rollPhase } from './phases/roll.js';
import { backupsPhase } from './phases/backups.js';
import { upgradePhase } from './phases/upgrade.js';
import { clusterStatus } from './phases/status.js';
import { planTopology } from './phases/topology.js';

type Cluster = PostgresCluster;
type Profile = ProviderProfile;

/** The finalizer every PostgresCluster carries while the controller may still have to clean up. */
export const PostgresClusterFinalizer = 'postgres.steward.dev/cleanup';

export interface PostgresClusterControllerOptions {
  /** Which PostgresClusters to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** PostgresClusters reconciled at once. Default 4 (each waits on PostgreSQL, not on CPU). */
  maxConcurrentReconciles?: number;
  /** The field manager of its server-side applies (the app's name). Default postgres-cluster-controller. */
  fieldManager?: string;
  /** The kubernetes ProviderProfile of PostgresClusters that name none. */
  defaultProfile?: string;
  /** Who else the NetworkPolicy admits: the controller's own pods. */
  controllerIdentity?: { namespace: string; podLabels: Record<string, string> };
  /** How often a converged cluster's instances are looked at. Default 5 s. */
  pollIntervalMs?: number;
  /** How often while something is moving. Default 1 s. */
  busyPollIntervalMs?: number;
  events?: EventRecorder;
  /** The PostgreSQL admin client (tests may pass one with other timeouts). */
  pg?: PgAdmin;
  /** The bucket client of spec.backup (default: the S3 API, @aws-sdk/client-s3). */
  backupStore?: (destination: BackupDestination, credentials: Credentials) => BackupStore;
  now?: () => Date;
}

const ByProfile = 'postgres.steward.dev/profile';
const childKinds: ResourceType[] = [
  StatefulSets,
  Services,
  ConfigMaps,
  Secrets,
  PodDisruptionBudgets,
  NetworkPolicies,
];

/**
 * The PostgresCluster controller: every PostgresCluster of `options.selection` kept as a
 * StatefulSet of PostgreSQL instances with their Services, Secrets, ConfigMap, PDB and
 * NetworkPolicy (the workload toolkit applies them; a converged cluster costs no API writes),
 * each instance observed with `pg` every poll, told its role through its pod's instruction
 * annotation, and failed over by the pure plan (plan/plan.ts); status and Events stated from what
 * was seen.
 *
 * RBAC: postgresclusters get/list/watch/patch, postgresclusters/status patch,
 * postgresclusters/finalizers update; statefulsets, services, configmaps, secrets,
 * poddisruptionbudgets, networkpolicies get/list/watch/create/patch/delete; pods
 * get/list/watch/patch/delete; persistentvolumeclaims get/list/watch/patch/delete; jobs
 * get/list/watch/create (base backups);
 * providerprofiles get/list/watch; events create/patch.
 */
export function postgresClusterController(
  manager: Manager,
  options: PostgresClusterControllerOptions = {},
): Controller {
  const client = manager.client;
  const selection = options.selection ?? {};
  const profiles = manager.informers.informerFor<Profile>(ProviderProfile.resourceType);
  const namespaces = namespaceDirectory(manager);
  const wiring = wireWorkload<Cluster, Pod>(manager, {
    resourceType: PostgresCluster.resourceType,
    name: 'postgrescluster',
    selection,
    clusterLabel: Labels.cluster,
    childKinds,
    alsoOwns: [Jobs],
    fieldManager: options.fieldManager ?? 'postgres-cluster-controller',
    // A switchover request is an annotation: it changes no generation.
    predicates: [or(workloadChanges, annotationChanged(SwitchoverAnnotation))],
    references: {
      resourceType: ProviderProfile.resourceType,
      index: ByProfile,
      nameOf: (obj) => obj.spec.providerProfileRef?.name ?? options.defaultProfile,
    },
    watches: [
      {
        resourceType: PostgresBackup.resourceType,
        map: (backup) => [
          `${backup.metadata.namespace}/${(backup as PostgresBackup).spec.cluster.name}`,
        ],
        selection,
      },
    ],
    maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4,
  });
  const jobs = manager.informers.informerFor<JobObject>(Jobs, wiring.childSelection);
  const requests = manager.informers.informerFor<PostgresBackup>(
    PostgresBackup.resourceType,
    selection,
  );
  indexByCluster(requests.store);
  const pg = options.pg ?? pgAdmin();
  manager.add({
    name: 'postgres-cluster-connections',
    needsLeaderElection: false,
    stop: () => pg.close(),
  });

  const reconciler = postgresClusterReconciler({
    client,
    children: wiring.children,
    pg,
    pods: wiring.podsOf,
    claims: wiring.claimsOf,
    jobs: () => jobs.store.list(),
    requests: (namespace, name) =>
      requests.store
        .byIndex(ByCluster, `${namespace}/${name}`)
        .filter(isOpenRequest)
        .map((r) => ({ name: r.metadata.name!, due: requestedDue(r) }))
        .sort((a, b) => a.due.getTime() - b.due.getTime() || a.name.localeCompare(b.name)),
    profile: (name) => profiles.store.get(name),
    namespace: (name) => namespaces.facts(name),
    options,
  });
  const namespaceWatch = namespaces.watchFor(wiring.objects);
  return wiring.builder
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .gauges(...postgresClusterGauges)
    .completeObjects(reconciler);
}

/** Passes updates that change the value of one annotation. */
function annotationChanged(key: string): Predicate {
  return {
    update: (old, obj) => old.metadata?.annotations?.[key] !== obj.metadata?.annotations?.[key],
  };
}

interface ReconcilerDeps {
  client: KubeClient;
  children: WorkloadChildren;
  pg: PgAdmin;
  /** The pods of one cluster (both instance sets), by its label. */
  pods: (namespace: string, name: string) => Pod[];
  /** The claims of one cluster's pods, by its label. */
  claims: (namespace: string, name: string) => ClaimObject[];
  jobs: () => JobObject[];
  /** The open PostgresBackups of a cluster, oldest first. */
  requests: (namespace: string, cluster: string) => BackupRequest[];
  profile: (name: string) => Profile | undefined;
  /** The namespace's name and labels, for the profile's namespace binding. */
  namespace: (name: string) => NamespaceFacts;
  options: PostgresClusterControllerOptions;
}

/** The reconciler of one PostgresCluster (exported for tests that drive it with their own deps). */
export function postgresClusterReconciler(deps: ReconcilerDeps): ObjectReconciler<Cluster> {
  const { client, options } = deps;
  const memories = new Map<string, PlanMemory>();
  const plannedRestarts = new Map<string, { pod: string; until: number }>();
  const now = options.now ?? (() => new Date());
  const poll = {
    pollMs: options.pollIntervalMs ?? 5000,
    busyMs: options.busyPollIntervalMs ?? 1000,
  };
  const profiles = new WorkloadProfiles<Cluster>(deps.profile, options.defaultProfile);
  const emit = (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) =>
    options.events?.event(obj, type, reason, message);
  const env: PhaseEnv = {
    client,
    pg: deps.pg,
    children: deps.children,
    backups: new Backups({
      client,
      jobs: deps.jobs,
      store:
        options.backupStore ??
        ((destination, credentials) => s3BackupStore(destination, credentials)),
      now,
      emit,
    }),
    upgrades: new Upgrades({
      client,
      pg: deps.pg,
      jobs: deps.jobs,
      claims: deps.claims,
      now,
      emit,
    }),
    volumes: new VolumeGrowth(client),
    pods: deps.pods,
    claims: deps.claims,
    now,
    emit,
  };

  /**
   * The cluster with its backup settings resolved against its profile, or a refusal — before
   * anything connects to a bucket. A profile that copies its credentials Secret into workload
   * namespaces gets the copy made here, before a pod or Job needs it.
   */
  async function withBackupSettings(obj: Cluster, signal?: AbortSignal): Promise<Cluster> {
    const resolved = resolveBackup(obj, profiles.of(obj));
    if (!resolved.allowed) throw new TerminalError(resolved.reason, resolved.message);
    const copy = resolved.credentialsCopy;
    if (copy) {
      const namespace = obj.metadata.namespace!;
      const outcome = await copyBackupCredentials(client, copy, namespace, signal).catch(
        (error: unknown) => {
          if (!(error instanceof CredentialsSourceMissing)) throw error;
          throw new TerminalError(
            PostgresReasons.BackupCredentialsNotCopied,
            `${error.message}: the platform team must create it (ProviderProfile ${profiles.nameOf(obj)}, spec.kubernetes.backup.copyCredentialsToWorkloadNamespaces)`,
            { recheckAfter: 60_000 },
          );
        },
      );
      if (outcome === 'created' || outcome === 'updated')
        emit(
          obj,
          'Normal',
          'BackupCredentialsCopied',
          `Secret ${copy.to} ${outcome} in namespace ${namespace} from ${copy.from.namespace}/${copy.from.name} (the ProviderProfile copies its backup credentials into workload namespaces)`,
        );
    }
    return resolved.cluster;
  }

  function admission(obj: Cluster, version: string): Resolution {
    const missing = profiles.missing(obj);
    if (missing) return { allowed: false, ...missing };
    return resolvePostgres(
      obj,
      profiles.of(obj),
      version,
      deps.namespace(obj.metadata.namespace ?? ''),
    );
  }

  /**
   * One reconcile: the phases in order, each a pure plan and its executor, their outcomes gathered
   * into one status write. Decisions (the restore chosen, a failover or switchover, an upgrade's
   * step) are recorded before they are carried out.
   */
  async function converge(ctx: ObjectReconcileContext<Cluster>, given: Cluster): Promise<Result> {
    const namespace = given.metadata.namespace!;
    const name = given.metadata.name!;
    // The major the data directory holds: what the instances keep running until an upgrade.
    const running = given.status?.version ?? given.spec.version;
    const resolution = admission(given, running);
    if (!resolution.allowed) throw new TerminalError(resolution.reason, resolution.message);
    const resolved = resolution.resolved;
    // From here on, spec.backup and the recovery source have their destinations.
    const obj = await withBackupSettings(given, ctx.signal);
    const restore = await restorePhase(env, ctx, obj);
    const topology = planTopology(obj, env.pods(namespace, name));
    const synced = await syncChildren(
      env,
      ctx,
      obj,
      desiredChildren({
        cluster: obj,
        resolved,
        topology,
        ...(restore ? { restore } : {}),
        templateStorage: (set) => templateStorageOf(liveStatefulSet(env, obj, set)),
        ...(options.controllerIdentity ? { controller: options.controllerIdentity } : {}),
      }),
    );
    const outcome: PhaseOutcome = emptyOutcome();
    outcome.notes.push(...topology.notes);
    const volumes = await env.volumes.step(
      env
        .claims(namespace, name)
        .filter(
          (c) =>
            ordinalOf(`${DataVolumeName}-${topology.set}`, c.metadata.name ?? '') !== undefined,
        ),
      resolved.storage.size,
      now().getTime(),
      (claim, from, to) =>
        emit(
          obj,
          'Normal',
          'VolumeExpanding',
          `PersistentVolumeClaim ${claim} grows from ${from} to ${to}`,
        ),
    );
    outcome.problems.push(...volumes.problems);
    outcome.notes.push(...volumes.notes);
    const instances = await instancesPhase(
      env,
      ctx,
      obj,
      topology,
      synced,
      memories,
      failoverHeld(plannedRestarts, obj, now().getTime()),
    );
    outcome.problems.push(...instances.problems);
    const { plan, facts } = instances;
    const roll = planRoll({
      pods: topology.pods,
      updateRevision: liveStatefulSet(env, obj, topology.set)?.status?.updateRevision,
      primary: obj.status?.currentPrimary,
      health: plan.health,
      instances: facts.length,
      actionsFailed: instances.failed.length > 0,
    });
    await rollPhase(env, obj, roll, plannedRestarts);
    const backup = await backupsPhase(
      env,
      ctx,
      obj,
      resolved.image,
      facts,
      plan.health,
      deps.requests(namespace, name),
    );
    outcome.problems.push(...backup.problems);
    const target = admission(given, obj.spec.version);
    const upgrade = await upgradePhase(
      env,
      ctx,
      obj,
      topology,
      { from: resolved.image, to: target.allowed ? target.resolved.image : undefined },
      facts,
      plan.health,
      endpointWith(synced.superuserPassword),
    );
    // The switch was written: everything above described the old set, and what the plan
    // remembered was about the old instances.
    if (upgrade.switched) {
      memories.delete(obj.metadata.uid ?? name);
      return { requeueAfter: 100 };
    }
    if (upgrade.problem) outcome.problems.push(upgrade.problem);

    const gathered = {
      desired: topology.desired,
      podCount: topology.pods.filter((p) => !p.metadata.deletionTimestamp).length,
      health: plan.health,
      outdated: roll.outdated,
      image: resolved.image,
      version: obj.status?.version ?? running,
      problems: outcome.problems,
      notes: outcome.notes,
      upgrade,
      ...(backup.status ? { backup: backup.status } : {}),
      ...(restore ? { restore } : {}),
      now: now().toISOString(),
    };
    const { before, change } = await stateStatus(ctx.status, (latest) =>
      clusterStatus(latest, gathered),
    );
    const scaled = scalingEvent(
      before,
      change.phase,
      `${topology.desired} instances desired, ${plan.health.readyInstances} ready`,
    );
    if (scaled) emit(obj, 'Normal', scaled.reason, scaled.message);
    return nextLook(
      change.phase,
      plan.requeueAfterMs,
      change.phase === 'Ready' && instances.failed.length === 0,
      [backup.requeueAfterMs, upgrade.requeueAfterMs],
      poll,
    );
  }

  return workloadReconciler<Cluster>(client, {
    resourceType: PostgresCluster.resourceType,
    finalizer: PostgresClusterFinalizer,
    refusal: (obj) => {
      const resolution = admission(obj, obj.status?.version ?? obj.spec.version);
      return resolution.allowed
        ? undefined
        : { reason: resolution.reason, message: resolution.message };
    },
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) =>
      profiles.deletionRefusal('PostgresCluster', obj, 'its volumes and Secrets'),
    preDelete: (ctx, obj) => beforeDelete(env, ctx, obj, profiles.of(obj)),
    converge,
    retain: (_ctx, obj) => retainCluster(env, obj),
    remove: (_ctx, obj, note) => removeCluster(env, obj, note),
    forget: (obj) => {
      memories.delete(obj.metadata.uid ?? '');
      env.backups.forget(obj.metadata.uid ?? '');
      plannedRestarts.delete(obj.metadata.uid ?? '');
    },
  });
}

/**
 * PostgresClusters as users of ProviderProfiles (for `status.usedBy` and the in-use finalizer):
 * the profile each names, or the default profile when it names none.
 */
export function postgresClusterUsers(defaultProfile?: string): ProfileUser<Cluster> {
  return {
    resourceType: PostgresCluster.resourceType,
    profileNameOf: (obj) => obj.spec.providerProfileRef?.name ?? defaultProfile,
  };
}
