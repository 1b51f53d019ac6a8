import { CACHE_PORT, CacheCluster } from '@steward/cache-cluster-api';
import {
  TerminalError,
  type Controller,
  type Manager,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Result,
} from '@steward/controller';

import { StatefulSets } from '@steward/kube';
import {
  wireProfiledWorkload,
  workloadProfileUsers,
  WorkloadProfiles,
  type ProfileUser,
  type WorkloadReconcilerDeps,
} from '@steward/provider-profile';
import {
  DecisionMarks,
  durationMs,
  nextLook,
  readFailures,
  stateWorkloadStatus,
  syncOwnChildren,
  templateStorageOf,
  VolumeGrowth,
  refusalOf,
  type WorkloadControllerOptions,
  workloadChanges,
  workloadReconciler,
  workloadRuntime,
  type StatefulSetWithClaims,
} from '@steward/workload';
import { Passwords, passwordSecretOf } from './phases/auth.js';
import { desiredChildren } from './phases/children.js';
import { removeCluster, retainCluster } from './phases/deletion.js';
import { desiredReplicas } from './phases/replicas.js';
import { planRoll, rollPhase, rollStatus, switchoverAsk } from './phases/roll.js';
import { rolesPhase } from './phases/roles.js';
import { childNames, Labels } from './children/index.js';
import { type Pod } from './pods.js';
import { redisAdmin, type RedisAdmin } from './redis/index.js';
import { resolveWorkload, type Resolution } from './resolve.js';
import { type PrimaryMemory } from './roles/plan.js';
import { cacheClusterGauges } from './metrics.js';
import { cacheStatus, CacheReasons } from './status.js';

type Cluster = CacheCluster;

/** The finalizer every CacheCluster carries while the controller may still have to clean up. */
export const CacheClusterFinalizer = 'cache.steward.dev/cleanup';

/** The controller's options: the shared workload ones (`WorkloadControllerOptions`) and its own. */
export interface CacheClusterControllerOptions extends WorkloadControllerOptions {
  /** The Redis admin client (tests may pass one with other timeouts). */
  redis?: RedisAdmin;
}

/**
 * The CacheCluster controller: every CacheCluster of `options.selection` kept as a StatefulSet of
 * Redis/Valkey pods with their Services, Secret, ConfigMap, PDB and NetworkPolicy (the workload
 * toolkit applies them; a converged cluster costs no API writes), each server observed with
 * ioredis every poll, roles converged and failover carried out by the pure role plan
 * (roles/plan.ts), status and Events stated from what was seen.
 *
 * Woken by spec changes, by its children and pods changing, by the profile it uses changing, by
 * a node of one of its pods being cordoned or uncordoned (a drain of the primary's node asks for a
 * switchover first; its PodDisruptionBudget `<name>-primary` refuses the eviction until then), and
 * by its own poll (Redis has no watch).
 *
 * RBAC: cacheclusters get/list/watch/patch, cacheclusters/status patch, cacheclusters/finalizers
 * update; statefulsets, services, configmaps, secrets, poddisruptionbudgets, networkpolicies
 * get/list/watch/create/patch/delete; pods get/list/watch/patch/delete (its own roll);
 * persistentvolumeclaims
 * get/list/watch/patch/delete; core events list (why a pod or volume is stuck); nodes
 * get/list/watch (cordoned or not); providerprofiles get/list/watch; events.k8s.io events create/patch.
 */
export function cacheClusterController(
  manager: Manager,
  options: CacheClusterControllerOptions = {},
): Controller {
  const wired = wireProfiledWorkload<Cluster, Pod, CacheClusterControllerOptions>(
    manager,
    options,
    {
      resourceType: CacheCluster.resourceType,
      name: 'cachecluster',
      clusterLabel: Labels.cluster,
      defaultFieldManager: 'cache-cluster-controller',
      predicates: [workloadChanges],
      profileIndex: 'cache.steward.dev/profile',
      // A primary on a node being drained is switched over before its pod can be evicted.
      watchNodes: true,
    },
  );
  const redis = options.redis ?? redisAdmin();
  wired.closeOnStop('cache-cluster-redis-connections', () => redis.close());
  return wired.complete(cacheClusterReconciler({ ...wired.deps, redis }), cacheClusterGauges);
}

interface ReconcilerDeps extends WorkloadReconcilerDeps<Pod, CacheClusterControllerOptions> {
  redis: RedisAdmin;
}

/** The reconciler of one CacheCluster (exported for tests that drive it with their own deps). */
export function cacheClusterReconciler(deps: ReconcilerDeps): ObjectReconciler<Cluster> {
  const { client, children, options } = deps;
  const memories = new Map<string, PrimaryMemory>();
  const marks = new DecisionMarks();
  const volumes = new VolumeGrowth(client);
  const profiles = new WorkloadProfiles<Cluster>(deps.profile, options.defaultProfile);
  const { now, poll, emit } = workloadRuntime<Cluster>(options);
  const passwords = new Passwords(client, now);
  const rolesEnv = { client, redis: deps.redis, now, emit };

  const admission = (obj: Cluster): Resolution =>
    profiles.admit(obj, (profile) =>
      resolveWorkload(obj, profile, deps.namespace(obj.metadata.namespace ?? '')),
    );

  /** One reconcile: children, volumes, roles, then the one status write. */
  async function converge(ctx: ObjectReconcileContext<Cluster>, obj: Cluster): Promise<Result> {
    const resolution = admission(obj);
    if (!resolution.allowed) throw new TerminalError(resolution.reason, resolution.message);
    const resolved = resolution.resolved;
    const name = obj.metadata.name!;
    const namespace = obj.metadata.namespace!;
    const names = childNames(name);
    const live = children.get<StatefulSetWithClaims>(obj, StatefulSets, names.statefulSet);
    const synced = await syncOwnChildren(
      children,
      obj,
      desiredChildren(obj, resolved, templateStorageOf(live), options.controllerIdentity),
      ctx.signal,
    );
    const password = await passwords.of(obj, synced);
    // Volumes grow with spec.persistence.size (StatefulSet templates cannot change).
    const problems: { reason: string; message: string }[] = [];
    const refusals: { reason: string; message: string }[] = [];
    if (resolved.storage) {
      const grown = await volumes.step(
        deps.claims(namespace, name),
        resolved.storage.size,
        now().getTime(),
        (message) => emit(obj, 'Normal', 'VolumeExpanding', message),
      );
      problems.push(...grown.problems);
      refusals.push(...grown.refusals);
    }
    const pods = deps.pods(namespace, name);
    // A drain of the primary's node, else a rolling update that reached the primary (the
    // controller rolls the pods itself, OnDelete), asks the role plan for a switchover.
    const current = children.get<StatefulSetWithClaims>(obj, StatefulSets, names.statefulSet);
    const updateRevision = current?.status?.updateRevision;
    const ask = switchoverAsk(obj, pods, updateRevision, deps.nodeCordoned, now().getTime());
    const { plan, failed } = await rolesPhase(
      rolesEnv,
      ctx,
      obj,
      pods,
      password,
      memories,
      marks,
      ask,
    );
    for (const f of failed) problems.push({ reason: CacheReasons.InstanceFailing, message: f });
    const replicas = desiredReplicas(obj);
    const roll = planRoll({
      pods,
      updateRevision,
      primary: obj.status?.primary,
      method: obj.spec.rollout?.primary ?? 'Switchover',
      health: plan.health,
      replicas,
      actionsFailed: failed.length > 0,
    });
    await rollPhase({ client, emit }, obj, roll);
    // Why pods do not come up (unschedulable, a volume not provisioned, an image, a crash loop).
    const failures = await readFailures(
      client,
      namespace,
      pods,
      deps.claims(namespace, name),
      now().getTime(),
      ctx.signal,
    );
    const secret = passwordSecretOf(obj);
    const change = await stateWorkloadStatus(
      ctx.status,
      (cluster) =>
        cacheStatus({
          cluster,
          replicas,
          podCount: pods.filter((p) => !p.metadata.deletionTimestamp).length,
          health: plan.health,
          rollout: rollStatus(current ?? synced.get(`StatefulSet/${names.statefulSet}`), roll),
          image: resolved.image,
          endpoints: {
            readWrite: `${names.readWrite}.${namespace}.svc`,
            readOnly: `${names.readOnly}.${namespace}.svc`,
            port: CACHE_PORT,
            secretName: secret.name,
            secretKey: secret.key,
          },
          durable: Boolean(resolved.storage),
          problems,
          failures,
          refusals,
        }),
      `${replicas} pods desired, ${plan.health.readyReplicas} ready`,
      (reason, message) => emit(obj, 'Normal', reason, message),
    );
    return nextLook(
      change.phase,
      plan.requeueAfterMs,
      change.phase === 'Ready' && failed.length === 0,
      [primaryWatchMs(obj, poll.pollMs)],
      poll,
    );
  }

  const deletion = { client, children, claims: deps.claims, emit };

  return workloadReconciler<Cluster>(client, {
    resourceType: CacheCluster.resourceType,
    finalizer: CacheClusterFinalizer,
    refusal: (obj) => refusalOf(admission(obj)),
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) =>
      profiles.deletionRefusal('CacheCluster', obj, 'its volumes and Secret'),
    converge,
    retain: (_ctx, obj) => retainCluster(deletion, obj),
    remove: (_ctx, obj) => removeCluster(deletion, obj),
    forget: (obj) => {
      memories.delete(obj.metadata.uid ?? '');
      marks.forget(obj.metadata.uid ?? '');
    },
  });
}

/** The shortest look between two observations of a primary that failover watches. */
export const MIN_PRIMARY_WATCH_MS = 500;

/**
 * How often a Replicated cluster with failover on is looked at, at most (pure): a fifth of
 * `failover.after` (at least MIN_PRIMARY_WATCH_MS), or the poll when that is sooner. Redis has no
 * watch, so a hung or cut-off primary is first seen lost at the next look: with the plain poll
 * (5 s) a primary hung at most `failover.after` + 5 s + an observation's timeout before the
 * failover — a Redis primary hung for 12 s with `failover.after: 5s` was back before any
 * failover. Undefined for a cluster that is never failed over.
 */
export function primaryWatchMs(cluster: Cluster, pollMs: number): number | undefined {
  if (cluster.spec.mode !== 'Replicated' || cluster.spec.failover?.enabled === false)
    return undefined;
  const afterMs = durationMs(cluster.spec.failover?.after ?? '10s');
  return Math.min(pollMs, Math.max(MIN_PRIMARY_WATCH_MS, Math.floor(afterMs / 5)));
}

/**
 * CacheClusters as users of ProviderProfiles (for `status.usedBy` and the in-use finalizer): the
 * profile each names, or the default profile when it names none.
 */
export const cacheClusterUsers = (defaultProfile?: string): ProfileUser<Cluster> =>
  workloadProfileUsers<Cluster>(CacheCluster.resourceType, defaultProfile);

export { desiredReplicas };
