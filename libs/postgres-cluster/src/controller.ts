import {
  POSTGRES_PORT,
  PostgresBackup,
  PostgresCluster,
  DEFAULT_MAX_LAG_BYTES,
  SwitchoverAnnotation,
  type BackupDestination,
} from '@steward/postgres-cluster-api';
import {
  controllerFor,
  or,
  TerminalError,
  type Controller,
  type EventRecorder,
  type Manager,
  type MapFunc,
  type ObjectReconcileContext,
  type ObjectReconciler,
  type Predicate,
  type Result,
  Priorities,
} from '@steward/controller';
import { objectKey, type Selection } from '@steward/informer';
import {
  ConfigMaps,
  isForbidden,
  isInvalid,
  isNotFound,
  Jobs,
  NetworkPolicies,
  PersistentVolumeClaims,
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
  compareQuantities,
  namespaceDirectory,
  type NamespaceFacts,
  type ProfileUser,
} from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  generatePassword,
  WorkloadChildren,
  claimNamesOf,
  deletionGuardrailRefusal,
  workloadChanges,
  workloadReconciler,
  type DesiredChild,
  type PreDeleteOutcome,
} from '@steward/workload';
import {
  bootstrapOf,
  childNames,
  conninfoHost,
  currentInstanceSet,
  DataVolumeName,
  InstructionAnnotation,
  Labels,
  ordinalOf,
  renderChildren,
  SecretKeys,
  standbyConninfo,
  Superuser,
  type RenderInput,
} from './children/index.js';
import { renderStatefulSet } from './children/stateful-set.js';
import { extraInstanceSet, Upgrades } from './upgrade/upgrade.js';
import { sourceDestinationOf, sourcePrefix } from './backup/layout.js';
import { copyBackupCredentials, CredentialsSourceMissing } from './backup/credentials.js';
import { indexByCluster, ByCluster, isOpenRequest, requestedDue } from './backup/on-demand.js';
import {
  BackupReasons,
  Backups,
  RecoveryNotPossible,
  type BackupRequest,
  type JobObject,
} from './backup/reconcile.js';
import { s3BackupStore, type BackupStore, type Credentials } from './backup/store.js';
import { pgAdmin, type PgAdmin, type PgEndpoint, type PgObservation } from './pg/index.js';
import { instanceFacts, type Pod } from './pods.js';
import {
  planInstances,
  type InstanceFacts,
  type InstanceView,
  type PlanAction,
  type PlanMemory,
} from './plan/plan.js';
import { resolveBackup, resolvePostgres, type Resolution } from './resolve.js';
import { postgresClusterGauges } from './metrics.js';
import { postgresStatus, PostgresReasons } from './status.js';

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
/** How long a refused PVC growth is not asked again (unless the claim or the size changes). */
const EXPANSION_RECHECK_MS = 10 * 60_000;
/** How long a primary restarted by the controller's own roll is not failed over. */
const PLANNED_RESTART_MS = 60_000;
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
  const childSelection: Selection = { ...selection, labelSelector: Labels.cluster };
  const clusters = manager.informers.informerFor<Cluster>(PostgresCluster.resourceType, selection);
  const profiles = manager.informers.informerFor<Profile>(ProviderProfile.resourceType);
  const namespaces = namespaceDirectory(manager);
  const pods = manager.informers.informerFor<Pod>(Pods, childSelection);
  const claims = manager.informers.informerFor<KubeObject>(PersistentVolumeClaims, childSelection);
  const jobs = manager.informers.informerFor<JobObject>(Jobs, childSelection);
  const requests = manager.informers.informerFor<PostgresBackup>(
    PostgresBackup.resourceType,
    selection,
  );
  indexByCluster(requests.store);
  try {
    clusters.store.addIndexers({
      [ByProfile]: (obj) => {
        const name = obj.spec.providerProfileRef?.name ?? options.defaultProfile;
        return name ? [name] : [];
      },
    });
  } catch {
    // indexed already by another controller of this manager
  }
  const children = new WorkloadChildren({
    client,
    informers: manager.informers,
    fieldManager: options.fieldManager ?? 'postgres-cluster-controller',
    kinds: childKinds,
    selection: childSelection,
  });
  const pg = options.pg ?? pgAdmin();
  manager.add({
    name: 'postgres-cluster-connections',
    needsLeaderElection: false,
    stop: () => pg.close(),
  });

  const reconciler = postgresClusterReconciler({
    client,
    children,
    pg,
    pods: () => pods.store.list(),
    claims: () => claims.store.list(),
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

  const byProfile: MapFunc = (profile) =>
    clusters.store.byIndex(ByProfile, profile.metadata.name ?? '').map(objectKey);
  const byClusterLabel: MapFunc = (obj) => {
    const cluster = obj.metadata.labels?.[Labels.cluster];
    return cluster && obj.metadata.namespace ? [`${obj.metadata.namespace}/${cluster}`] : [];
  };

  const namespaceWatch = namespaces.watchFor(clusters);
  let builder = controllerFor(manager, PostgresCluster.resourceType, {
    selection,
    // A switchover request is an annotation: it changes no generation.
    predicates: [or(workloadChanges, annotationChanged(SwitchoverAnnotation))],
  })
    .named('postgrescluster')
    .gauges(...postgresClusterGauges)
    .watches(ProviderProfile.resourceType, byProfile)
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .watches(Pods, byClusterLabel, { selection: childSelection })
    .watches(PersistentVolumeClaims, byClusterLabel, { selection: childSelection })
    .watches(
      PostgresBackup.resourceType,
      (backup) => [`${backup.metadata.namespace}/${(backup as PostgresBackup).spec.cluster.name}`],
      { selection },
    );
  for (const kind of [...childKinds, Jobs])
    builder = builder.owns(kind, { selection: childSelection });
  return builder
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4 })
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
  pods: () => Pod[];
  claims: () => KubeObject[];
  jobs: () => JobObject[];
  /** The open PostgresBackups of a cluster, oldest first. */
  requests: (namespace: string, cluster: string) => BackupRequest[];
  profile: (name: string) => Profile | undefined;
  /** The namespace's name and labels, for the profile's namespace binding. */
  namespace: (name: string) => NamespaceFacts;
  options: PostgresClusterControllerOptions;
}

/** Parses `10s`, `500ms`, `2m` (the API's pattern). */
export function durationMs(text: string): number {
  const match = /^([0-9]+)(ms|s|m)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n : match[2] === 's' ? n * 1000 : n * 60_000;
}

/** An observation as the plan sees it. */
export function viewOf(o: PgObservation): InstanceView {
  if (!o.reachable) return { reachable: false, error: o.error };
  const host = conninfoHost(o.primaryConninfo);
  return {
    reachable: true,
    systemIdentifier: o.systemIdentifier,
    inRecovery: o.inRecovery,
    timeline: o.timeline,
    ...(o.currentLsn !== undefined ? { currentLsn: o.currentLsn } : {}),
    ...(o.receiveLsn !== undefined ? { receiveLsn: o.receiveLsn } : {}),
    ...(o.replayLsn !== undefined ? { replayLsn: o.replayLsn } : {}),
    streaming: o.walReceiver?.status === 'streaming',
    ...(host ? { conninfoHost: host } : {}),
    replication: o.replication.map((r) => ({
      applicationName: r.applicationName,
      state: r.state,
      syncState: r.syncState,
    })),
    synchronousStandbyNames: o.synchronousStandbyNames,
  };
}

type SecretObject = KubeObject & { data?: Record<string, string> };

/** The reconciler of one PostgresCluster (exported for tests that drive it with their own deps). */
export function postgresClusterReconciler(deps: ReconcilerDeps): ObjectReconciler<Cluster> {
  const { client, children, pg, options } = deps;
  const memories = new Map<string, PlanMemory>();
  const plannedRestarts = new Map<string, { pod: string; until: number }>();
  const expansionRefusals = new Map<
    string,
    { size: string; resourceVersion: string; message: string; at: number }
  >();
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollIntervalMs ?? 5000;
  const busyMs = options.busyPollIntervalMs ?? 1000;
  const events = options.events;

  const emit = (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) =>
    events?.event(obj, type, reason, message);
  const backups = new Backups({
    client,
    jobs: deps.jobs,
    store:
      options.backupStore ??
      ((destination, credentials) => s3BackupStore(destination, credentials)),
    now,
    emit,
  });

  function profileOf(obj: Cluster): Profile | undefined {
    const profileName = obj.spec.providerProfileRef?.name ?? options.defaultProfile;
    return profileName ? deps.profile(profileName) : undefined;
  }

  /**
   * The cluster with its backup settings resolved against its profile, or a refusal — before
   * anything connects to a bucket. A profile that copies its credentials Secret into workload
   * namespaces gets the copy made here, before a pod or Job needs it.
   */
  async function withBackupSettings(obj: Cluster, signal?: AbortSignal): Promise<Cluster> {
    const resolved = resolveBackup(obj, profileOf(obj));
    if (!resolved.allowed) throw new TerminalError(resolved.reason, resolved.message);
    const copy = resolved.credentialsCopy;
    if (copy) {
      const namespace = obj.metadata.namespace!;
      const outcome = await copyBackupCredentials(client, copy, namespace, signal).catch(
        (error: unknown) => {
          if (!(error instanceof CredentialsSourceMissing)) throw error;
          throw new TerminalError(
            PostgresReasons.BackupCredentialsNotCopied,
            `${error.message}: the platform team must create it (ProviderProfile ${profileOf(obj)?.metadata.name}, spec.kubernetes.backup.copyCredentialsToWorkloadNamespaces)`,
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

  const upgrades = new Upgrades({
    client,
    pg,
    jobs: deps.jobs,
    claims: deps.claims,
    now,
    emit,
  });

  function admission(obj: Cluster, version: string): Resolution {
    const profileName = obj.spec.providerProfileRef?.name ?? options.defaultProfile;
    const profile = profileName ? deps.profile(profileName) : undefined;
    if (profileName && !profile) {
      return {
        allowed: false,
        reason: PostgresReasons.ProviderProfileNotFound,
        message: `ProviderProfile ${profileName} not found: create it, or reference an existing kubernetes profile`,
      };
    }
    return resolvePostgres(obj, profile, version, deps.namespace(obj.metadata.namespace ?? ''));
  }

  function secretValue(secrets: Map<string, KubeObject>, name: string, key: string): string {
    const raw = (secrets.get(`Secret/${name}`) as SecretObject | undefined)?.data?.[key];
    if (raw === undefined) throw new Error(`Secret ${name} has no ${key} yet`);
    return Buffer.from(raw, 'base64').toString('utf8');
  }

  async function converge(ctx: ObjectReconcileContext<Cluster>, given: Cluster): Promise<Result> {
    const name = given.metadata.name!;
    const namespace = given.metadata.namespace!;
    const names = childNames(name);
    const uid = given.metadata.uid ?? name;
    // The major the data directory holds: what the instances keep running until an upgrade.
    const running = given.status?.version ?? given.spec.version;
    const problems: { reason: string; message: string }[] = [];
    const notes: { reason: string; message: string }[] = [];
    const resolution = admission(given, running);
    if (!resolution.allowed) throw new TerminalError(resolution.reason, resolution.message);
    const resolved = resolution.resolved;
    // From here on, spec.backup and the recovery source have their destinations.
    const obj = await withBackupSettings(given, ctx.signal);

    // Bootstrapped from a backup: which one is decided once, before any instance exists, and
    // recorded (status.restore) — a newer backup appearing later never changes it.
    const recovery = obj.spec.bootstrap?.recovery;
    let restore = obj.status?.restore;
    if (recovery && !restore && !obj.status?.systemIdentifier) {
      try {
        restore = await backups.chooseRestore(obj, ctx.signal);
      } catch (error) {
        if (error instanceof RecoveryNotPossible)
          throw new TerminalError(BackupReasons.RecoveryBackupNotFound, error.message, {
            recheckAfter: 5 * 60_000,
          });
        throw error;
      }
      const chosen = restore;
      await ctx.status.write(() => ({ fields: { restore: chosen } }));
      emit(
        obj,
        'Normal',
        'RestoreChosen',
        `restoring backup ${chosen.backupId} (completed ${chosen.backupCompletedAt}) from ${chosen.source}${chosen.targetTime ? ` up to ${chosen.targetTime}` : ' to the end of its archived WAL'}`,
      );
    }

    // Every pod of the cluster (a major upgrade runs two instance sets), and those of the set
    // that serves: the plan, the roll and the status are about these.
    const allPods = deps
      .pods()
      .filter(
        (p) => p.metadata.namespace === namespace && p.metadata.labels?.[Labels.cluster] === name,
      );
    const set = currentInstanceSet(obj);
    const podList = allPods.filter((p) => ordinalOf(set, p.metadata.name ?? '') !== undefined);
    const desired = obj.spec.replicas ?? 1;
    const primaryOrdinal = obj.status?.currentPrimary
      ? (ordinalOf(set, obj.status.currentPrimary) ?? 0)
      : 0;
    // Never scale the primary away: the StatefulSet keeps it until a switchover moved it.
    const stsReplicas = Math.max(desired, primaryOrdinal + 1);
    const requested = obj.metadata.annotations?.[SwitchoverAnnotation]?.trim();
    const switchover =
      stsReplicas > desired
        ? { reason: 'ScaleDown' as const }
        : requested
          ? { to: requested, reason: 'Requested' as const }
          : undefined;
    if (stsReplicas > desired)
      notes.push({
        reason: PostgresReasons.Scaling,
        message: `spec.replicas ${desired} would remove the primary ${obj.status?.currentPrimary}: it is kept until a switchover moved the primary to a standby that stays`,
      });

    const liveSts = children.get<
      KubeObject & {
        spec?: {
          volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[];
        };
        status?: { updateRevision?: string };
      }
    >(obj, StatefulSets, set);
    const templateStorage =
      liveSts?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
    // A major upgrade's second instance set (the new one before the switch, the old one after).
    const extra = extraInstanceSet(obj);
    const renderInput: RenderInput = {
      cluster: obj,
      image: resolved.image,
      instanceSet: set,
      ...(extra ? { primaryOnlyReads: true } : {}),
      replicas: stsReplicas,
      ...(resolved.resources ? { resources: resolved.resources } : {}),
      storage: resolved.storage,
      ...(templateStorage ? { existingTemplateStorage: templateStorage } : {}),
      ...(options.controllerIdentity ? { controller: options.controllerIdentity } : {}),
      ...(recovery && restore
        ? {
            restore: {
              destination: sourceDestinationOf(obj),
              systemPrefix: `${sourcePrefix(obj)!}/${restore.systemIdentifier}`,
              backupId: restore.backupId,
              ...(restore.targetTime ? { targetTime: restore.targetTime } : {}),
            },
          }
        : {}),
    };
    const rendered = renderChildren(renderInput);
    const want: DesiredChild[] = [
      {
        resourceType: Secrets,
        mode: 'create-once',
        name: names.superuserSecret,
        object: () => rendered.superuserSecret(generatePassword()) as never,
      },
      {
        resourceType: Secrets,
        mode: 'create-once',
        name: names.appSecret,
        object: () => rendered.appSecret(generatePassword()) as never,
      },
      { resourceType: ConfigMaps, object: rendered.configMap as never },
      { resourceType: Services, object: rendered.headless as never },
      { resourceType: Services, object: rendered.readWrite as never },
      { resourceType: Services, object: rendered.readOnly as never },
      { resourceType: Services, object: rendered.any as never },
      { resourceType: PodDisruptionBudgets, object: rendered.podDisruptionBudget as never },
      { resourceType: NetworkPolicies, object: rendered.networkPolicy as never },
      { resourceType: StatefulSets, object: rendered.statefulSet as never },
    ];
    if (extra) {
      const live = children.get<
        KubeObject & {
          spec?: {
            volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[];
          };
        }
      >(obj, StatefulSets, extra.set);
      const storage = live?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
      const { restore: _restore, existingTemplateStorage: _storage, ...base } = renderInput;
      want.push({
        resourceType: StatefulSets,
        object: renderStatefulSet({
          ...base,
          instanceSet: extra.set,
          image: extra.image,
          replicas: extra.replicas,
          ...(storage ? { existingTemplateStorage: storage } : {}),
        }) as never,
      });
    }
    const sync = await children.sync(obj, want, { signal: ctx.signal });
    if (sync.conflicts.length) {
      throw new TerminalError(
        PostgresReasons.ChildConflict,
        `${sync.conflicts.map((c) => c.message).join('; ')}: Steward adopts nothing it did not create; delete or rename it`,
        { recheckAfter: 60_000 },
      );
    }
    const superPassword = secretValue(sync.children, names.superuserSecret, SecretKeys.password);
    const endpoint = (ip: string): PgEndpoint => ({
      host: ip,
      port: POSTGRES_PORT,
      user: Superuser,
      password: superPassword,
    });

    await growClaims(obj, set, resolved.storage.size, problems, notes);

    // Before any instance is observed: the primary's LSN covers every commit acknowledged by then.
    const observedAt = now().toISOString();
    const facts = await instanceFacts(podList, set, async (ip) =>
      viewOf(await pg.observe(endpoint(ip), { signal: ctx.signal })),
    );
    const planned = plannedRestarts.get(uid);
    const holdFailover =
      planned !== undefined &&
      planned.pod === obj.status?.currentPrimary &&
      Date.now() < planned.until;
    const plan = planInstances({
      cluster: set,
      replicas: desired,
      failover: {
        enabled: obj.spec.failover?.enabled ?? true,
        afterMs: durationMs(obj.spec.failover?.after ?? '10s'),
        maxLagBytes: BigInt(obj.spec.failover?.maxLagBytes ?? DEFAULT_MAX_LAG_BYTES),
      },
      holdFailover,
      ...(switchover ? { switchover } : {}),
      replication: obj.spec.replication?.mode ?? 'async',
      bootstrap: recovery ? 'restore' : 'initdb',
      status: {
        ...(obj.status?.currentPrimary ? { currentPrimary: obj.status.currentPrimary } : {}),
        ...(obj.status?.systemIdentifier ? { systemIdentifier: obj.status.systemIdentifier } : {}),
        ...(obj.status?.failover ? { failover: obj.status.failover } : {}),
        ...(obj.status?.failoverCount !== undefined
          ? { failoverCount: obj.status.failoverCount }
          : {}),
        ...(obj.status?.lastFailover ? { lastFailover: obj.status.lastFailover } : {}),
        ...(obj.status?.switchover ? { switchover: obj.status.switchover } : {}),
        ...(obj.status?.switchoverCount !== undefined
          ? { switchoverCount: obj.status.switchoverCount }
          : {}),
      },
      instances: facts,
      memory: memories.get(uid) ?? {},
      now: now().toISOString(),
      observedAt,
    });
    const memory = plan.memory;
    memories.set(uid, memory);
    if (plan.status) {
      // Durable before it is carried out: a restart resumes it. Taken over the status this
      // reconcile read; if the API server holds a newer one, nothing is written and the
      // reconcile starts over.
      const decidedStatus = plan.status;
      const basis = obj.status ?? {};
      await ctx.status.write((latest) => {
        const current = latest.status ?? {};
        if (
          current.currentPrimary !== basis.currentPrimary ||
          (current.failoverCount ?? 0) !== (basis.failoverCount ?? 0) ||
          current.failover?.phase !== basis.failover?.phase ||
          (current.switchoverCount ?? 0) !== (basis.switchoverCount ?? 0) ||
          current.switchover?.phase !== basis.switchover?.phase
        )
          throw new StaleDecisionError(
            `status of ${namespace}/${name} changed since it was read (primary ${basis.currentPrimary ?? '-'} → ${current.currentPrimary ?? '-'}): deciding again`,
          );
        return {
          fields: {
            currentPrimary: decidedStatus.currentPrimary,
            systemIdentifier: decidedStatus.systemIdentifier,
            failover: decidedStatus.failover,
            failoverCount: decidedStatus.failoverCount,
            lastFailover: decidedStatus.lastFailover,
            switchover: decidedStatus.switchover,
            switchoverCount: decidedStatus.switchoverCount,
            version: latest.status?.version ?? running,
          },
        };
      });
    }
    for (const event of plan.events) emit(obj, event.type, event.reason, event.message);
    if (plan.switchoverHandled && requested) await clearSwitchoverRequest(obj, requested);
    const failed = await carryOut(obj, plan.actions, facts, endpoint, memory, sync.children);
    for (const f of failed) problems.push({ reason: PostgresReasons.InstanceFailing, message: f });
    for (const f of facts) {
      if (f.lastMessage?.startsWith('PostgreSQL refuses the configuration'))
        problems.push({
          reason: PostgresReasons.InvalidParameters,
          message: `${f.name}: ${f.lastMessage} — fix spec.parameters`,
        });
    }

    // The controller's own roll (updateStrategy OnDelete): standbys first, one at a time, while
    // everything else is ready; the primary last.
    const updateRevision = liveSts?.status?.updateRevision;
    const outdated = updateRevision
      ? podList
          .filter(
            (p) =>
              !p.metadata.deletionTimestamp &&
              p.metadata.labels?.['controller-revision-hash'] !== updateRevision,
          )
          .map((p) => p.metadata.name!)
          .sort()
      : [];
    const allReady = plan.health.readyInstances === facts.length && plan.health.primaryServing;
    if (outdated.length > 0 && allReady && !plan.health.failingOver && failed.length === 0) {
      const primaryName = obj.status?.currentPrimary;
      const standby = outdated.filter((p) => p !== primaryName).reverse()[0];
      const next = standby ?? outdated[0]!;
      if (next === primaryName)
        plannedRestarts.set(uid, { pod: next, until: Date.now() + PLANNED_RESTART_MS });
      await client.delete(Pods, next, namespace).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      emit(
        obj,
        'Normal',
        'Restarting',
        `${next} restarts with the new pod template (${outdated.length - 1} more to go)`,
      );
    }

    // Backups (spec.backup): Jobs on the schedule, the bucket's catalogue, retention.
    // The Job connects to the primary's pod IP: a ClusterIP is not reachable from every pod
    // network, and a failover during a backup fails that backup (the next one runs as planned).
    const primaryIp = facts.find((f) => f.name === obj.status?.currentPrimary)?.ip;
    const backup = await backups.step({
      cluster: obj,
      image: resolved.image,
      primaryHost: primaryIp,
      primaryServing: plan.health.primaryServing,
      requests: deps.requests(namespace, name),
      signal: ctx.signal,
    });
    problems.push(...backup.problems);

    // A major upgrade (spec.version above the running one): its gate, or its next step.
    const target = admission(given, obj.spec.version);
    const upgrade = await upgrades.step({
      cluster: obj,
      running,
      currentSet: set,
      fromImage: resolved.image,
      toImage: target.allowed ? target.resolved.image : undefined,
      facts,
      health: plan.health,
      desired,
      pods: allPods,
      endpoint,
      write: async (expected, fields) => {
        await ctx.status.write((latest) => {
          if (latest.status?.upgrade?.phase !== expected)
            throw new StaleDecisionError(
              `status.upgrade of ${namespace}/${name} is ${latest.status?.upgrade?.phase ?? 'absent'}, not ${expected ?? 'absent'}: deciding again`,
            );
          return { fields };
        });
      },
      signal: ctx.signal,
    });
    // The switch was written: everything above described the old set.
    if (upgrade.switched) {
      // What the plan remembered was about the old instances.
      memories.delete(uid);
      return { requeueAfter: 100 };
    }
    if (upgrade.problem) problems.push(upgrade.problem);

    const version = obj.status?.version ?? running;
    const baseStatusOf = (cluster: Cluster) =>
      postgresStatus({
        cluster,
        replicas: desired,
        podCount: podList.filter((p) => !p.metadata.deletionTimestamp).length,
        health: plan.health,
        outdated,
        image: resolved.image,
        version,
        endpoints: {
          readWrite: `${names.readWrite}.${namespace}.svc`,
          readOnly: `${names.readOnly}.${namespace}.svc`,
          any: `${names.any}.${namespace}.svc`,
          port: POSTGRES_PORT,
          superuserSecret: names.superuserSecret,
          appSecret: names.appSecret,
        },
        problems,
        notes,
      });
    // An upgrade under way: phase Upgrading, Progressing; Ready=False while writes are stopped.
    const statusOf = (cluster: Cluster) => {
      const change = baseStatusOf(cluster);
      if (!upgrade.condition) return change;
      const says = upgrade.condition;
      const conditions = change.conditions.map((c) =>
        upgrade.writesStopped && c.type === 'Ready'
          ? { ...c, status: 'False' as const, reason: 'Upgrading', message: says.message }
          : upgrade.active && c.type === 'Progressing'
            ? { ...c, status: 'True' as const, reason: 'Upgrading', message: says.message }
            : c,
      );
      conditions.push({ type: 'Upgrading', ...says });
      const phase = upgrade.active ? ('Upgrading' as const) : change.phase;
      return { phase, conditions, fields: { ...change.fields, phase } };
    };
    let before = ctx.status.object.status?.phase;
    let change = statusOf(ctx.status.object);
    await ctx.status.write((latest) => {
      before = latest.status?.phase;
      change = statusOf(latest);
      return {
        conditions: change.conditions,
        fields: {
          ...change.fields,
          ...(backup.status ? { backup: backup.status } : {}),
          // A restored cluster's first primary serving: the restore is complete.
          ...(restore && !restore.completedAt && plan.health.primaryServing
            ? { restore: { ...restore, completedAt: now().toISOString() } }
            : {}),
        },
      };
    });
    if (before && before !== change.phase && (change.phase === 'Scaling' || before === 'Scaling'))
      emit(
        obj,
        'Normal',
        change.phase === 'Scaling' ? 'Scaling' : 'Scaled',
        `${desired} instances desired, ${plan.health.readyInstances} ready`,
      );
    const settled = change.phase === 'Ready' && failed.length === 0;
    const after = plan.requeueAfterMs ?? (settled ? pollMs : busyMs);
    // A failover's or switchover's next steps go ahead of bulk work (a flood of new objects in any
    // namespace): the write pause lasts until they are done.
    const urgent = change.phase === 'FailingOver' || change.phase === 'SwitchingOver';
    return {
      requeueAfter: Math.min(
        after,
        backup.requeueAfterMs ?? after,
        upgrade.requeueAfterMs ?? after,
      ),
      ...(urgent ? { priority: Priorities.high } : {}),
    };
  }

  async function carryOut(
    obj: Cluster,
    actions: PlanAction[],
    facts: InstanceFacts[],
    endpoint: (ip: string) => PgEndpoint,
    memory: PlanMemory,
    secrets: Map<string, KubeObject>,
  ): Promise<string[]> {
    const namespace = obj.metadata.namespace!;
    const names = childNames(obj.metadata.name!);
    const failed: string[] = [];
    const ipOf = (pod: string) => facts.find((f) => f.name === pod)?.ip;
    for (const action of actions) {
      try {
        switch (action.type) {
          case 'label':
            await client.mergePatch(Pods, action.pod, namespace, {
              metadata: { labels: { [Labels.role]: action.role } },
            });
            break;
          case 'instruct':
            await client.mergePatch(Pods, action.pod, namespace, {
              metadata: { annotations: { [InstructionAnnotation]: action.instruction } },
            });
            break;
          default: {
            const ip = ipOf(action.pod);
            if (!ip) throw new Error(`${action.pod} has no IP`);
            const target = endpoint(ip);
            if (action.type === 'promote') {
              const outcome = await pg.promote(target);
              if (outcome === 'promoted')
                emit(obj, 'Normal', 'Promoted', `${action.pod} promoted to primary`);
            } else if (action.type === 'repoint') {
              await pg.alterSystem(target, {
                primary_conninfo: standbyConninfo(action.host, action.pod),
              });
            } else if (action.type === 'synchronousStandbyNames') {
              await pg.alterSystem(target, { synchronous_standby_names: action.value || null });
            } else if (action.type === 'bootstrap') {
              const { database, owner } = bootstrapOf({ cluster: obj });
              const password = secretValue(secrets, names.appSecret, SecretKeys.password);
              const changed = await pg.bootstrap(target, {
                database,
                owner,
                ownerPassword: password,
              });
              memory.bootstrapped = action.key;
              if (changed.length)
                emit(obj, 'Normal', 'Bootstrapped', `on ${action.pod}: ${changed.join(', ')}`);
            }
          }
        }
      } catch (error) {
        if (isNotFound(error)) continue;
        failed.push(`${action.type} ${action.pod}: ${(error as Error).message}`);
      }
    }
    return failed;
  }

  /** Removes the annotation that asked for the switchover just dealt with — unless it changed since. */
  async function clearSwitchoverRequest(obj: Cluster, value: string) {
    const path = `/metadata/annotations/${SwitchoverAnnotation.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    await client
      .jsonPatch(PostgresCluster.resourceType, obj.metadata.name!, obj.metadata.namespace, [
        { op: 'test', path, value: obj.metadata.annotations?.[SwitchoverAnnotation] ?? value },
        { op: 'remove', path },
      ])
      .catch((error: unknown) => {
        // Gone, or a new request replaced it (the test failed): that one is read next time.
        if (!isNotFound(error) && !isInvalid(error)) throw error;
      });
  }

  async function growClaims(
    obj: Cluster,
    set: string,
    size: string,
    problems: { reason: string; message: string }[],
    notes: { reason: string; message: string }[],
  ) {
    for (const claim of deps.claims() as (KubeObject & {
      spec?: { resources?: { requests?: { storage?: string } } };
      status?: {
        capacity?: { storage?: string };
        conditions?: { type: string; status: string; message?: string }[];
      };
    })[]) {
      if (claim.metadata.namespace !== obj.metadata.namespace) continue;
      if (claim.metadata.labels?.[Labels.cluster] !== obj.metadata.name) continue;
      // The volumes of the set that serves (an upgrade's old ones are kept as they are).
      if (ordinalOf(`${DataVolumeName}-${set}`, claim.metadata.name ?? '') === undefined) continue;
      const has = claim.spec?.resources?.requests?.storage;
      const uid = claim.metadata.uid ?? `${claim.metadata.namespace}/${claim.metadata.name}`;
      const capacity = claim.status?.capacity?.storage;
      if (has && compareQuantities(has, size) >= 0) {
        expansionRefusals.delete(uid);
        if (capacity && compareQuantities(capacity, has) < 0)
          notes.push({
            reason: PostgresReasons.VolumeExpanding,
            message: `PersistentVolumeClaim ${claim.metadata.name} grows from ${capacity} to ${has}`,
          });
        continue;
      }
      if (!has) continue;
      const refusal = expansionRefusals.get(uid);
      if (
        refusal &&
        refusal.size === size &&
        refusal.resourceVersion === claim.metadata.resourceVersion &&
        Date.now() - refusal.at < EXPANSION_RECHECK_MS
      ) {
        problems.push({ reason: PostgresReasons.VolumeExpansionFailed, message: refusal.message });
        continue;
      }
      try {
        await client.mergePatch(
          PersistentVolumeClaims,
          claim.metadata.name!,
          claim.metadata.namespace,
          { spec: { resources: { requests: { storage: size } } } },
        );
        expansionRefusals.delete(uid);
        emit(
          obj,
          'Normal',
          'VolumeExpanding',
          `PersistentVolumeClaim ${claim.metadata.name} grows from ${has} to ${size}`,
        );
      } catch (error) {
        const message = `PersistentVolumeClaim ${claim.metadata.name} cannot grow from ${has} to ${size}: ${(error as Error).message}`;
        problems.push({ reason: PostgresReasons.VolumeExpansionFailed, message });
        if (isForbidden(error) || isInvalid(error))
          expansionRefusals.set(uid, {
            size,
            resourceVersion: claim.metadata.resourceVersion ?? '',
            message,
            at: Date.now(),
          });
      }
    }
  }

  /**
   * The final backup of a cluster deleted with deletionPolicy Delete and spec.backup (unless
   * skipFinalBackup): what the deletion Event says about the backups, or a wait (the volumes are
   * deleted only once the backup is in the bucket).
   */
  async function finalBackup(
    ctx: ObjectReconcileContext<Cluster>,
    obj: Cluster,
  ): Promise<{ note: string } | { requeueAfter: number }> {
    const where = obj.status?.backup?.destination ?? 'the bucket';
    if (obj.spec.skipFinalBackup)
      return {
        note: `no final backup (spec.skipFinalBackup); the backups taken before stay in ${where}, where nothing expires them any more`,
      };
    const primary = deps
      .pods()
      .find(
        (p) =>
          p.metadata.namespace === obj.metadata.namespace &&
          p.metadata.name === obj.status?.currentPrimary,
      );
    const serving =
      !!primary &&
      !primary.metadata.deletionTimestamp &&
      primary.metadata.labels?.[Labels.role] === 'primary' &&
      primary.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    const final = await backups.finalBackup(
      obj,
      {
        image: obj.status?.image ?? '',
        primaryHost: primary?.status?.podIP,
        primaryServing: serving && !!obj.status?.image,
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
    emit(
      obj,
      'Normal',
      'FinalBackupCompleted',
      `final backup ${b.id}: ${b.sizeBytes} bytes, WAL ${b.startLsn} to ${b.stopLsn} on timeline ${b.timeline}, in ${final.destination}`,
    );
    return {
      note: `the final backup ${b.id} and the earlier ones stay in ${final.destination}, where nothing expires them any more`,
    };
  }

  /** Why the profile's guardrails hold a `Delete` deletion, or undefined. */
  function deletionRefusal(obj: Cluster) {
    const profileName = obj.spec.providerProfileRef?.name ?? options.defaultProfile;
    const profile = profileName ? deps.profile(profileName) : undefined;
    return deletionGuardrailRefusal(
      'PostgresCluster',
      profileName,
      profile?.spec.guardrails?.allowedDeletionPolicies,
      'its volumes and Secrets',
    );
  }

  /** The claims of this cluster's pods, by name. */
  const clusterClaims = (obj: Cluster): string[] =>
    claimNamesOf(deps.claims(), obj, Labels.cluster);

  /** deletionPolicy Retain: volumes, Secrets and backups stay; the Event says where. */
  async function retain(obj: Cluster): Promise<void> {
    const namespace = obj.metadata.namespace!;
    const names = childNames(obj.metadata.name!);
    const claimNames = clusterClaims(obj);
    const secretNames = [names.superuserSecret, names.appSecret];
    await children.detach(
      obj,
      secretNames.map((s) => ({ resourceType: Secrets, name: s })),
    );
    // Cleanup may run more than once: a Secret an earlier run detached is kept all the same.
    const kept: string[] = [];
    for (const s of secretNames) {
      const exists = await client.get(Secrets, s, namespace).then(
        () => true,
        (e: unknown) => {
          if (isNotFound(e)) return false;
          throw e;
        },
      );
      if (exists) kept.push(`Secret ${s}`);
    }
    const all = [...claimNames.map((c) => `PersistentVolumeClaim ${c}`), ...kept];
    const backupsKept = obj.spec.backup
      ? `; the backups stay in ${obj.status?.backup?.destination ?? 'the bucket'}${obj.status?.backup?.lastSuccessful ? ` (${obj.status.backup.count ?? 1}, the newest ${obj.status.backup.lastSuccessful.id})` : ''}, where nothing expires them any more`
      : '';
    emit(
      obj,
      'Normal',
      'Retained',
      all.length
        ? `deletionPolicy Retain: ${all.join(', ')} stay in namespace ${namespace} (no owner); delete them when the data is no longer needed${backupsKept}`
        : `deletionPolicy Retain: nothing to keep${backupsKept}`,
    );
  }

  /** Before a `Delete` deletion: the final backup (spec.backup, unless skipFinalBackup). */
  async function beforeDelete(
    ctx: ObjectReconcileContext<Cluster>,
    obj: Cluster,
  ): Promise<PreDeleteOutcome> {
    if (!obj.spec.backup) return { done: true };
    const settled = resolveBackup(obj, profileOf(obj));
    if (!settled.allowed && !obj.spec.skipFinalBackup)
      throw new TerminalError(
        settled.reason,
        `${settled.message}. The final backup cannot be taken: the volumes stay until this is fixed, or spec.skipFinalBackup is true`,
      );
    const final = await finalBackup(ctx, settled.allowed ? settled.cluster : obj);
    if ('requeueAfter' in final) return { done: false, requeueAfter: final.requeueAfter };
    return { done: true, note: final.note };
  }

  /** deletionPolicy Delete: the volumes are deleted; the children go with the PostgresCluster. */
  async function remove(obj: Cluster, backupNote?: string): Promise<void> {
    const namespace = obj.metadata.namespace!;
    const claimNames = clusterClaims(obj);
    for (const claim of claimNames) {
      await client.delete(PersistentVolumeClaims, claim, namespace).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
    emit(
      obj,
      'Normal',
      'Deleted',
      `deletionPolicy Delete: ${claimNames.length ? `PersistentVolumeClaims ${claimNames.join(', ')} deleted` : 'no volumes'}; the StatefulSet, Services, Secrets and the rest go with the PostgresCluster${backupNote ? `; ${backupNote}` : ''}`,
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
    deletionRefusal,
    preDelete: beforeDelete,
    converge,
    retain: (_ctx, obj) => retain(obj),
    remove: (_ctx, obj, note) => remove(obj, note),
    forget: (obj) => {
      memories.delete(obj.metadata.uid ?? '');
      backups.forget(obj.metadata.uid ?? '');
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

/** A decision taken over a status that has changed since: the reconcile is retried. */
export class StaleDecisionError extends Error {
  override readonly name = 'StaleDecisionError';
}
