import {
  PostgresBackup,
  PostgresCluster,
  SwitchoverAnnotation,
  type BackupDestination,
} from '@steward/postgres-cluster-api';
import {
  or,
  type Controller,
  type Manager,
  type ObjectReconciler,
  type Predicate,
} from '@steward/controller';

import { Jobs, Leases, RoleBindings, Roles, ServiceAccounts } from '@steward/kube';
import {
  wireProfiledWorkload,
  workloadProfileUsers,
  WorkloadProfiles,
  type ProfileUser,
  type WorkloadReconcilerDeps,
} from '@steward/provider-profile';
import {
  DecisionMarks,
  VolumeGrowth,
  WorkloadChildKinds,
  refusalOf,
  type WorkloadControllerOptions,
  workloadChanges,
  workloadReconciler,
  workloadRuntime,
} from '@steward/workload';
import { Labels } from './children/index.js';
import { Upgrades } from './upgrade/upgrade.js';
import { indexByCluster, ByCluster, isOpenRequest, requestedDue } from './backup/on-demand.js';
import { Backups, type BackupRequest, type JobObject } from './backup/reconcile.js';
import { s3BackupStore, type BackupStore, type Credentials } from './backup/store.js';
import { pgAdmin, type PgAdmin } from './pg/index.js';
import { type LeaseObject, type LeaseSight } from './fence/lease.js';
import { type Pod } from './pods.js';
import { type PlanMemory } from './plan/plan.js';
import { resolvePostgres, type Resolution } from './resolve.js';
import { postgresClusterGauges } from './metrics.js';
import { beforeDelete, removeCluster, retainCluster } from './phases/deletion.js';
import { type PhaseEnv } from './phases/env.js';
import { withBackupSettings } from './phases/backup-settings.js';
import { convergeCluster, type ConvergeState } from './phases/converge.js';

type Cluster = PostgresCluster;

/** The finalizer every PostgresCluster carries while the controller may still have to clean up. */
export const PostgresClusterFinalizer = 'postgres.steward.dev/cleanup';

/** The controller's options: the shared workload ones (`WorkloadControllerOptions`) and its own. */
export interface PostgresClusterControllerOptions extends WorkloadControllerOptions {
  /** The PostgreSQL admin client (tests may pass one with other timeouts). */
  pg?: PgAdmin;
  /** The bucket client of spec.backup (default: the S3 API, @aws-sdk/client-s3). */
  backupStore?: (destination: BackupDestination, credentials: Credentials) => BackupStore;
}

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
 * get/list/watch/patch/delete; persistentvolumeclaims get/list/watch/patch/delete; core events
 * list (why a pod or volume is stuck); jobs get/list/watch/create (base backups); providerprofiles
 * get/list/watch; events.k8s.io events create/patch.
 */
export function postgresClusterController(
  manager: Manager,
  options: PostgresClusterControllerOptions = {},
): Controller {
  const selection = options.selection ?? {};
  const wired = wireProfiledWorkload<Cluster, Pod, PostgresClusterControllerOptions>(
    manager,
    options,
    {
      resourceType: PostgresCluster.resourceType,
      name: 'postgrescluster',
      selection,
      clusterLabel: Labels.cluster,
      alsoOwns: [Jobs],
      // The instances' own ServiceAccount, Role and RoleBinding (they renew the fence's Lease).
      childKinds: [...WorkloadChildKinds, ServiceAccounts, Roles, RoleBindings],
      defaultFieldManager: 'postgres-cluster-controller',
      // A switchover request is an annotation: it changes no generation.
      predicates: [or(workloadChanges, annotationChanged(SwitchoverAnnotation))],
      profileIndex: 'postgres.steward.dev/profile',
      // A primary on a node being drained is switched over before its pod can be evicted.
      watchNodes: true,
      watches: [
        {
          resourceType: PostgresBackup.resourceType,
          map: (backup) => [
            `${backup.metadata.namespace}/${(backup as PostgresBackup).spec.cluster.name}`,
          ],
          selection,
        },
      ],
    },
  );
  const jobs = manager.informers.informerFor<JobObject>(Jobs, wired.wiring.childSelection);
  // The fence's Leases: cached, not watched — a renewal every second must wake nothing; each
  // reconcile reads its cluster's, and the plan counts how long its version has stood.
  const leases = manager.informers.informerFor<LeaseObject>(Leases, wired.wiring.childSelection);
  // When this process first saw each version of each Lease, as its watch delivered it — not at
  // the next reconcile, which may come a poll later: the fence's clock starts at the sight.
  const sightings = new Map<string, LeaseSight>();
  const clock = options.now ?? (() => new Date());
  const sight = (lease: LeaseObject) => {
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const resourceVersion = lease.metadata.resourceVersion ?? '';
    if (sightings.get(key)?.resourceVersion !== resourceVersion)
      sightings.set(key, { resourceVersion, since: clock().toISOString() });
  };
  leases.addEventHandler({
    onAdd: sight,
    onUpdate: (_, lease) => sight(lease),
    onDelete: (lease) => {
      const obj = 'obj' in lease ? lease.obj : lease;
      sightings.delete(`${obj.metadata.namespace}/${obj.metadata.name}`);
    },
  });
  const requests = manager.informers.informerFor<PostgresBackup>(
    PostgresBackup.resourceType,
    selection,
  );
  indexByCluster(requests.store);
  const pg = options.pg ?? pgAdmin();
  wired.closeOnStop('postgres-cluster-connections', () => pg.close());
  const reconciler = postgresClusterReconciler({
    ...wired.deps,
    pg,
    jobs: () => jobs.store.list(),
    lease: (namespace, name) => leases.store.get(`${namespace}/${name}`),
    leaseSeen: (namespace, name) => sightings.get(`${namespace}/${name}`),
    requests: (namespace, name) =>
      requests.store
        .byIndex(ByCluster, `${namespace}/${name}`)
        .filter(isOpenRequest)
        .map((r) => ({ name: r.metadata.name!, due: requestedDue(r) }))
        .sort((a, b) => a.due.getTime() - b.due.getTime() || a.name.localeCompare(b.name)),
  });
  return wired.complete(reconciler, postgresClusterGauges);
}

/** Passes updates that change the value of one annotation. */
function annotationChanged(key: string): Predicate {
  return {
    update: (old, obj) => old.metadata?.annotations?.[key] !== obj.metadata?.annotations?.[key],
  };
}

interface ReconcilerDeps extends WorkloadReconcilerDeps<Pod, PostgresClusterControllerOptions> {
  pg: PgAdmin;
  jobs: () => JobObject[];
  /** The fence's Lease of a cluster (`<name>-primary`), from the cache. */
  lease: (namespace: string, name: string) => LeaseObject | undefined;
  /** When this process's watch first delivered the Lease's current version. */
  leaseSeen: (namespace: string, name: string) => LeaseSight | undefined;
  /** The open PostgresBackups of a cluster, oldest first. */
  requests: (namespace: string, cluster: string) => BackupRequest[];
}

/** The reconciler of one PostgresCluster (exported for tests that drive it with their own deps). */
export function postgresClusterReconciler(deps: ReconcilerDeps): ObjectReconciler<Cluster> {
  const { client, options } = deps;
  const memories = new Map<string, PlanMemory>();
  const plannedRestarts = new Map<string, { pod: string; until: number }>();
  const { now, poll, emit } = workloadRuntime<Cluster>(options);
  const profiles = new WorkloadProfiles<Cluster>(deps.profile, options.defaultProfile);
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
      lease: deps.lease,
      now,
      emit,
    }),
    volumes: new VolumeGrowth(client),
    pods: deps.pods,
    claims: deps.claims,
    nodeCordoned: deps.nodeCordoned,
    lease: deps.lease,
    leaseSeen: deps.leaseSeen,
    now,
    emit,
  };

  const admission = (obj: Cluster, version: string): Resolution =>
    profiles.admit(obj, (profile) =>
      resolvePostgres(obj, profile, version, deps.namespace(obj.metadata.namespace ?? '')),
    );

  const marks = new DecisionMarks();
  const state: ConvergeState = {
    parameterChecks: new Map(),
    memories,
    marks,
    plannedRestarts,
    poll,
    ...(options.controllerIdentity ? { controllerIdentity: options.controllerIdentity } : {}),
    requests: deps.requests,
    admission,
    withBackupSettings: (obj, signal) => withBackupSettings(env, profiles, obj, signal),
  };

  return workloadReconciler<Cluster>(client, {
    resourceType: PostgresCluster.resourceType,
    finalizer: PostgresClusterFinalizer,
    refusal: (obj) => refusalOf(admission(obj, obj.status?.version ?? obj.spec.version)),
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) =>
      profiles.deletionRefusal('PostgresCluster', obj, 'its volumes and Secrets'),
    preDelete: (ctx, obj) => beforeDelete(env, ctx, obj, profiles.of(obj)),
    converge: (ctx, obj) => convergeCluster(env, state, ctx, obj),
    retain: (_ctx, obj) => retainCluster(env, obj),
    remove: (_ctx, obj, note) => removeCluster(env, obj, note),
    forget: (obj) => {
      memories.delete(obj.metadata.uid ?? '');
      env.backups.forget(obj.metadata.uid ?? '');
      plannedRestarts.delete(obj.metadata.uid ?? '');
      marks.forget(obj.metadata.uid ?? '');
      state.parameterChecks.delete(obj.metadata.uid ?? '');
    },
  });
}

/**
 * PostgresClusters as users of ProviderProfiles (for `status.usedBy` and the in-use finalizer):
 * the profile each names, or the default profile when it names none.
 */
export const postgresClusterUsers = (defaultProfile?: string): ProfileUser<Cluster> =>
  workloadProfileUsers<Cluster>(PostgresCluster.resourceType, defaultProfile);
