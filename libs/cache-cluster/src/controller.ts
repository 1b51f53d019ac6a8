import { CACHE_PORT, CacheCluster } from '@steward/cache-cluster-api';
import {
  TerminalError,
  type Controller,
  type EventRecorder,
  type Fairness,
  type Manager,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Result,
  Priorities,
} from '@steward/controller';
import { type Selection } from '@steward/informer';
import {
  ConfigMaps,
  isNotFound,
  NetworkPolicies,
  PodDisruptionBudgets,
  Pods,
  Secrets,
  Services,
  StatefulSets,
  type KubeClient,
  type KubeObject,
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
  deleteOwnVolumes,
  durationMs,
  generatePassword,
  ordinalOf,
  recordDecision,
  retainVolumes,
  statefulSetRolloutStatus,
  VolumeGrowth,
  volumesOf,
  wireWorkload,
  type WorkloadChildren,
  workloadChanges,
  workloadReconciler,
  type ClaimObject,
  type DesiredChild,
} from '@steward/workload';
import { renderChildren, childNames, DataVolumeName, Labels } from './children/index.js';
import { podFacts, type Pod } from './pods.js';
import { redisAdmin, type RedisAdmin, type RedisEndpoint } from './redis/index.js';
import { resolveWorkload, type Resolution } from './resolve.js';
import { planRoles, type PrimaryMemory, type RoleAction } from './roles/plan.js';
import { cacheClusterGauges } from './metrics.js';
import { cacheStatus, CacheReasons } from './status.js';

type Cluster = CacheCluster;
type Profile = ProviderProfile;

/** The finalizer every CacheCluster carries while the controller may still have to clean up. */
export const CacheClusterFinalizer = 'cache.steward.dev/cleanup';

export interface CacheClusterControllerOptions {
  /** Which CacheClusters to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** CacheClusters reconciled at once. Default 4 (each waits on Redis, not on CPU). */
  maxConcurrentReconciles?: number;
  /** The work queue's order: `fair` (the default: namespaces take turns) or client-go's `fifo` (benchmarks compare the two). */
  fairness?: Fairness;
  /** The field manager of its server-side applies (the app's name). Default cache-cluster-controller. */
  fieldManager?: string;
  /** The kubernetes ProviderProfile of CacheClusters that name none. */
  defaultProfile?: string;
  /** Who else the NetworkPolicy admits: the controller's own pods. */
  controllerIdentity?: { namespace: string; podLabels: Record<string, string> };
  /** How often a converged cluster's servers are looked at. Default 5 s. */
  pollIntervalMs?: number;
  /** How often while something is moving. Default 1 s. */
  busyPollIntervalMs?: number;
  events?: EventRecorder;
  /** The Redis admin client (tests may pass one with other timeouts). */
  redis?: RedisAdmin;
  now?: () => Date;
}

const ByProfile = 'cache.steward.dev/profile';
const childKinds: ResourceType[] = [
  StatefulSets,
  Services,
  ConfigMaps,
  Secrets,
  PodDisruptionBudgets,
  NetworkPolicies,
];

/**
 * The CacheCluster controller: every CacheCluster of `options.selection` kept as a StatefulSet of
 * Redis/Valkey pods with their Services, Secret, ConfigMap, PDB and NetworkPolicy (the workload
 * toolkit applies them; a converged cluster costs no API writes), each server observed with
 * ioredis every poll, roles converged and failover carried out by the pure role plan
 * (roles/plan.ts), status and Events stated from what was seen.
 *
 * Woken by spec changes, by its children and pods changing, by the profile it uses changing, and
 * by its own poll (Redis has no watch).
 *
 * RBAC: cacheclusters get/list/watch/patch, cacheclusters/status patch, cacheclusters/finalizers
 * update; statefulsets, services, configmaps, secrets, poddisruptionbudgets, networkpolicies
 * get/list/watch/create/patch/delete; pods get/list/watch/patch; persistentvolumeclaims
 * get/list/watch/patch/delete; providerprofiles get/list/watch; events create/patch.
 */
export function cacheClusterController(
  manager: Manager,
  options: CacheClusterControllerOptions = {},
): Controller {
  const client = manager.client;
  const profiles = manager.informers.informerFor<Profile>(ProviderProfile.resourceType);
  const namespaces = namespaceDirectory(manager);
  const wiring = wireWorkload<Cluster, Pod>(manager, {
    resourceType: CacheCluster.resourceType,
    name: 'cachecluster',
    ...(options.selection ? { selection: options.selection } : {}),
    clusterLabel: Labels.cluster,
    childKinds,
    fieldManager: options.fieldManager ?? 'cache-cluster-controller',
    predicates: [workloadChanges],
    references: {
      resourceType: ProviderProfile.resourceType,
      index: ByProfile,
      nameOf: (obj) => obj.spec.providerProfileRef?.name ?? options.defaultProfile,
    },
    maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4,
    ...(options.fairness ? { fairness: options.fairness } : {}),
  });
  const namespaceWatch = namespaces.watchFor(wiring.objects);
  const redis = options.redis ?? redisAdmin();
  manager.add({
    name: 'cache-cluster-redis-connections',
    needsLeaderElection: false,
    stop: () => redis.close(),
  });

  const reconciler = cacheClusterReconciler({
    client,
    children: wiring.children,
    redis,
    pods: wiring.podsOf,
    claims: wiring.claimsOf,
    profile: (name) => profiles.store.get(name),
    namespace: (name) => namespaces.facts(name),
    options,
  });
  return wiring.builder
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .gauges(...cacheClusterGauges)
    .completeObjects(reconciler);
}

interface ReconcilerDeps {
  client: KubeClient;
  children: WorkloadChildren;
  redis: RedisAdmin;
  /** The pods of one cluster (by its label). */
  pods: (namespace: string, name: string) => Pod[];
  /** The claims of one cluster's pods (by its label). */
  claims: (namespace: string, name: string) => ClaimObject[];
  profile: (name: string) => Profile | undefined;
  /** The namespace's name and labels, for the profile's namespace binding. */
  namespace: (name: string) => NamespaceFacts;
  options: CacheClusterControllerOptions;
}

/** The reconciler of one CacheCluster (exported for tests that drive it with their own deps). */
export function cacheClusterReconciler(deps: ReconcilerDeps): ObjectReconciler<Cluster> {
  const { client, children, redis, options } = deps;
  const memories = new Map<string, PrimaryMemory>();
  const volumes = new VolumeGrowth(client);
  const profiles = new WorkloadProfiles<Cluster>(deps.profile, options.defaultProfile);
  const passwords = new Map<string, { password: string; resourceVersion: string; at: number }>();
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollIntervalMs ?? 5000;
  const busyMs = options.busyPollIntervalMs ?? 1000;
  const events = options.events;

  const emit = (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) =>
    events?.event(obj, type, reason, message);

  /** The password: the generated Secret (a child) or the user's (read at most once a minute). */
  async function passwordOf(obj: Cluster, secrets: Map<string, KubeObject>): Promise<string> {
    const names = childNames(obj.metadata.name!);
    const existing = obj.spec.auth?.existingSecret;
    let value: string | undefined;
    if (existing) {
      const key = `${obj.metadata.namespace}/${existing.name}`;
      const cached = passwords.get(key);
      if (cached && now().getTime() - cached.at < 60_000) value = cached.password;
      else {
        let secret: KubeObject & { data?: Record<string, string> };
        try {
          secret = await client.get(Secrets, existing.name, obj.metadata.namespace);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          throw new TerminalError(
            CacheReasons.AuthSecretNotFound,
            `spec.auth.existingSecret ${existing.name} does not exist in namespace ${obj.metadata.namespace}: create it with the password under key ${existing.key ?? 'password'}`,
            { recheckAfter: 30_000 },
          );
        }
        const raw = secret.data?.[existing.key ?? 'password'];
        if (raw === undefined)
          throw new TerminalError(
            CacheReasons.AuthSecretNotFound,
            `Secret ${existing.name} has no key ${existing.key ?? 'password'}`,
            { recheckAfter: 30_000 },
          );
        value = Buffer.from(raw, 'base64').toString('utf8');
        passwords.set(key, {
          password: value,
          resourceVersion: secret.metadata.resourceVersion ?? '',
          at: now().getTime(),
        });
      }
    } else {
      const secret = secrets.get(`Secret/${names.authSecret}`) as
        (KubeObject & { data?: Record<string, string> }) | undefined;
      const raw = secret?.data?.['password'];
      if (raw === undefined) throw new Error(`Secret ${names.authSecret} has no password yet`);
      value = Buffer.from(raw, 'base64').toString('utf8');
    }
    if (!/^[\x21-\x7e]{1,512}$/.test(value) || /["'\\]/.test(value)) {
      throw new TerminalError(
        CacheReasons.InvalidPassword,
        `the password in ${existing ? `Secret ${existing.name}` : names.authSecret} must be 1–512 printable ASCII characters without spaces, quotes or backslashes (redis.conf syntax)`,
      );
    }
    return value;
  }

  function admission(obj: Cluster): Resolution {
    const missing = profiles.missing(obj);
    if (missing) return { allowed: false, ...missing };
    return resolveWorkload(obj, profiles.of(obj), deps.namespace(obj.metadata.namespace ?? ''));
  }

  async function converge(ctx: ObjectReconcileContext<Cluster>, obj: Cluster): Promise<Result> {
    const resolution = admission(obj);
    if (!resolution.allowed) throw new TerminalError(resolution.reason, resolution.message);
    const resolved = resolution.resolved;
    const name = obj.metadata.name!;
    const namespace = obj.metadata.namespace!;
    const names = childNames(name);
    const liveSts = children.get<
      KubeObject & {
        spec?: {
          volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[];
        };
      }
    >(obj, StatefulSets, names.statefulSet);
    const templateStorage =
      liveSts?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
    const passwordSecret = obj.spec.auth?.existingSecret
      ? {
          name: obj.spec.auth.existingSecret.name,
          key: obj.spec.auth.existingSecret.key ?? 'password',
        }
      : { name: names.authSecret, key: 'password' };
    const rendered = renderChildren({
      cluster: obj,
      image: resolved.image,
      ...(resolved.resources ? { resources: resolved.resources } : {}),
      ...(resolved.maxMemoryBytes !== undefined ? { maxMemoryBytes: resolved.maxMemoryBytes } : {}),
      ...(resolved.storage ? { storage: resolved.storage } : {}),
      ...(templateStorage ? { existingTemplateStorage: templateStorage } : {}),
      passwordSecret,
      ...(options.controllerIdentity ? { controller: options.controllerIdentity } : {}),
    });
    const desired: DesiredChild[] = [];
    const authSecret = rendered.authSecret;
    if (authSecret)
      desired.push({
        resourceType: Secrets,
        mode: 'create-once',
        name: names.authSecret,
        object: () => authSecret(generatePassword()) as never,
      });
    desired.push(
      { resourceType: ConfigMaps, object: rendered.configMap as never },
      { resourceType: Services, object: rendered.headless as never },
      { resourceType: Services, object: rendered.readWrite as never },
      ...(obj.spec.mode === 'Replicated'
        ? [{ resourceType: Services, object: rendered.readOnly as never }]
        : []),
      { resourceType: PodDisruptionBudgets, object: rendered.podDisruptionBudget as never },
      { resourceType: NetworkPolicies, object: rendered.networkPolicy as never },
      { resourceType: StatefulSets, object: rendered.statefulSet as never },
    );
    const sync = await children.sync(obj, desired, { signal: ctx.signal });
    if (sync.conflicts.length) {
      throw new TerminalError(
        CacheReasons.ChildConflict,
        `${sync.conflicts.map((c) => c.message).join('; ')}: Steward adopts nothing it did not create; delete or rename it`,
        { recheckAfter: 60_000 },
      );
    }
    const password = await passwordOf(obj, sync.children);

    // Volumes grow with spec.persistence.size (StatefulSet templates cannot change).
    const problems: { reason: string; message: string }[] = [];
    if (resolved.storage) {
      const grown = await volumes.step(
        deps.claims(namespace, name),
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
      problems.push(...grown.problems);
    }

    // Observe every running pod.
    const podList = deps.pods(namespace, name);
    // Before any INFO is sent: the primary's offset covers every write acknowledged by then.
    const observedAt = now().toISOString();
    const facts = await podFacts(podList, name, (ip) =>
      redis.observe(endpoint(ip, password), { signal: ctx.signal }),
    );
    const uid = obj.metadata.uid ?? name;
    const replicas = desiredReplicas(obj);
    const plan = planRoles({
      mode: obj.spec.mode ?? 'Standalone',
      replicas,
      failover: {
        enabled: obj.spec.mode === 'Replicated' && (obj.spec.failover?.enabled ?? true),
        afterMs: durationMs(obj.spec.failover?.after ?? '10s'),
      },
      port: CACHE_PORT,
      status: {
        ...(obj.status?.primary ? { primary: obj.status.primary } : {}),
        ...(obj.status?.primaryRunId ? { primaryRunId: obj.status.primaryRunId } : {}),
        ...(obj.status?.failover ? { failover: obj.status.failover } : {}),
        ...(obj.status?.failoverCount !== undefined
          ? { failoverCount: obj.status.failoverCount }
          : {}),
        ...(obj.status?.lastFailover ? { lastFailover: obj.status.lastFailover } : {}),
      },
      pods: facts,
      memory: memories.get(uid) ?? {},
      now: now().toISOString(),
      observedAt,
    });
    memories.set(uid, plan.memory);
    if (plan.status) {
      // The decision is durable before it is carried out: a restart resumes it. It was taken over
      // the status this reconcile read; if the API server holds a newer one (another reconcile's
      // decision the cache had not shown yet), nothing is written and the reconcile starts over.
      const decided = plan.status;
      const basis = obj.status ?? {};
      await recordDecision(ctx.status, {
        stale: (latest) => {
          const now = latest.status ?? {};
          return now.primary !== basis.primary ||
            (now.failoverCount ?? 0) !== (basis.failoverCount ?? 0)
            ? `status of ${namespace}/${name} changed since it was read (primary ${basis.primary ?? '-'} → ${now.primary ?? '-'}): deciding again`
            : undefined;
        },
        fields: () => ({
          primary: decided.primary,
          primaryRunId: decided.primaryRunId,
          failover: decided.failover,
          failoverCount: decided.failoverCount,
          lastFailover: decided.lastFailover,
        }),
      });
    }
    for (const event of plan.events) emit(obj, event.type, event.reason, event.message);
    const failed = await carryOut(plan.actions, facts, namespace, password);
    for (const f of failed) problems.push({ reason: 'ActionFailed', message: f });

    const sts = sync.children.get(`StatefulSet/${names.statefulSet}`);
    const rollout = sts ? statefulSetRolloutStatus(sts as never) : undefined;
    const statusOf = (cluster: Cluster) =>
      cacheStatus({
        cluster,
        replicas,
        podCount: podList.filter((p) => !p.metadata.deletionTimestamp).length,
        health: plan.health,
        rollout,
        image: resolved.image,
        endpoints: {
          readWrite: `${names.readWrite}.${namespace}.svc`,
          readOnly: `${names.readOnly}.${namespace}.svc`,
          port: CACHE_PORT,
          secretName: passwordSecret.name,
          secretKey: passwordSecret.key,
        },
        durable: Boolean(resolved.storage),
        problems,
      });
    // Stated over the newest copy the writer has (recomputed over the API server's on a
    // conflict): the phase before this write — whether the cluster was Scaling — is then not
    // that of a stale cache, which a reconcile right after the previous one's write may still see.
    let before = ctx.status.object.status?.phase;
    let statusChange = statusOf(ctx.status.object);
    await ctx.status.write((latest) => {
      before = latest.status?.phase;
      statusChange = statusOf(latest);
      return { conditions: statusChange.conditions, fields: statusChange.fields };
    });
    if (
      before &&
      before !== statusChange.phase &&
      (statusChange.phase === 'Scaling' || before === 'Scaling')
    )
      emit(
        obj,
        'Normal',
        statusChange.phase === 'Scaling' ? 'Scaling' : 'Scaled',
        `${replicas} pods desired, ${plan.health.readyReplicas} ready`,
      );
    const settled = statusChange.phase === 'Ready' && failed.length === 0;
    // A failover's next steps go ahead of bulk work (a flood of new objects in any namespace).
    const urgent = statusChange.phase === 'FailingOver';
    return {
      requeueAfter: plan.requeueAfterMs ?? (settled ? pollMs : busyMs),
      ...(urgent ? { priority: Priorities.high } : {}),
    };
  }

  function endpoint(ip: string, password: string): RedisEndpoint {
    return { host: ip, port: CACHE_PORT, password };
  }

  async function carryOut(
    actions: RoleAction[],
    facts: { name: string; ip?: string }[],
    namespace: string,
    password: string,
  ): Promise<string[]> {
    const failed: string[] = [];
    const ipOf = (pod: string) => facts.find((f) => f.name === pod)?.ip;
    for (const action of actions) {
      try {
        if (action.type === 'label') {
          await client.mergePatch(Pods, action.pod, namespace, {
            metadata: { labels: { [Labels.role]: action.role } },
          });
          continue;
        }
        const ip = ipOf(action.pod);
        if (!ip) throw new Error(`${action.pod} has no IP`);
        if (action.type === 'promote') await redis.promote(endpoint(ip, password));
        else
          await redis.replicaOf(endpoint(ip, password), { host: action.host, port: action.port });
      } catch (error) {
        if (isNotFound(error)) continue;
        failed.push(`${action.type} ${action.pod}: ${(error as Error).message}`);
      }
    }
    return failed;
  }

  /** The volumes of this cluster's StatefulSet (not a same-named predecessor's). */
  const volumesOfCluster = (obj: Cluster) =>
    volumesOf(
      deps.claims(obj.metadata.namespace!, obj.metadata.name!),
      obj,
      (claim) =>
        ordinalOf(
          `${DataVolumeName}-${childNames(obj.metadata.name!).statefulSet}`,
          claim.metadata.name ?? '',
        ) !== undefined,
    );

  /** deletionPolicy Retain: the volumes and the generated Secret stay, without owner. */
  async function retain(obj: Cluster): Promise<void> {
    const generated = !obj.spec.auth?.existingSecret;
    const message = await retainVolumes(
      client,
      children,
      obj,
      volumesOfCluster(obj),
      generated ? [childNames(obj.metadata.name!).authSecret] : [],
      generated ? '' : ' (the password Secret is the user’s)',
    );
    emit(obj, 'Normal', 'Retained', message);
  }

  /** deletionPolicy Delete: the volumes are deleted; the children go with the CacheCluster. */
  async function remove(obj: Cluster): Promise<void> {
    const generated = !obj.spec.auth?.existingSecret;
    const message = await deleteOwnVolumes(
      client,
      obj,
      volumesOfCluster(obj),
      `the StatefulSet, Services${generated ? ', the auth Secret' : ''} and the rest`,
    );
    emit(obj, 'Normal', 'Deleted', message);
  }

  return workloadReconciler<Cluster>(client, {
    resourceType: CacheCluster.resourceType,
    finalizer: CacheClusterFinalizer,
    refusal: (obj) => {
      const resolution = admission(obj);
      return resolution.allowed
        ? undefined
        : { reason: resolution.reason, message: resolution.message };
    },
    deletionPolicy: (obj) => obj.spec.deletionPolicy ?? 'Retain',
    deletionRefusal: (obj) =>
      profiles.deletionRefusal('CacheCluster', obj, 'its volumes and Secret'),
    converge,
    retain: (_ctx, obj) => retain(obj),
    remove: (_ctx, obj) => remove(obj),
    forget: (obj) => memories.delete(obj.metadata.uid ?? ''),
  });
}

/**
 * CacheClusters as users of ProviderProfiles (for `status.usedBy` and the in-use finalizer): the
 * profile each names, or the default profile when it names none.
 */
export function cacheClusterUsers(defaultProfile?: string): ProfileUser<Cluster> {
  return {
    resourceType: CacheCluster.resourceType,
    profileNameOf: (obj) => obj.spec.providerProfileRef?.name ?? defaultProfile,
  };
}

/** Pods desired: Standalone 1, Replicated spec.replicas (default 2). */
export function desiredReplicas(obj: Cluster): number {
  return obj.spec.mode === 'Replicated' ? (obj.spec.replicas ?? 2) : 1;
}
