import {
  DEFAULT_MAX_LAG_BYTES,
  POSTGRES_PORT,
  PostgresCluster,
  SwitchoverAnnotation,
} from '@steward/postgres-cluster-api';
import { isInvalid, isNotFound, Pods } from '@steward/kube';
import {
  decisionStale as staleness,
  durationMs,
  evictionProtected,
  failoverMarksOf,
  recordDecision,
  type DecisionMarks,
  protectFromEviction,
} from '@steward/workload';
import {
  bootstrapOf,
  childNames,
  conninfoHost,
  fenceLease,
  InstructionAnnotation,
  Labels,
  Roles,
  SecretKeys,
  standbyConninfo,
  Superuser,
} from '../children/index.js';
import { type PgEndpoint, type PgObservation, type WalArchiver } from '../pg/index.js';
import {
  planInstances,
  type InstanceFacts,
  type InstanceView,
  type Plan,
  type PlanAction,
  type PlanInput,
  type PlanMemory,
  type PlanStatus,
} from '../plan/plan.js';
import {
  fenceBoundSeconds,
  fenceInput,
  LeaseMovedError,
  podFences,
  takeLease,
} from '../fence/lease.js';
import { instanceFacts } from '../pods.js';
import { PostgresReasons } from '../status.js';
import { type Cluster, type Context, type PhaseEnv, type Problem } from './env.js';
import { type SyncedChildren } from './children.js';
import { type Topology } from './topology.js';

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
    ...(o.salvage ? { salvage: o.salvage } : {}),
  };
}

/** The failover record fields of status the plan reads and decides. */
const decisionFields = [
  'primary',
  'systemIdentifier',
  'failover',
  'failoverCount',
  'lastFailover',
  'switchover',
  'switchoverCount',
] as const;

/** The plan's input (pure): the cluster's settings, its recorded decisions and what was seen. */
export function planInputOf(
  cluster: Cluster,
  topology: Topology,
  facts: InstanceFacts[],
  memory: PlanMemory,
  holdFailover: boolean,
  now: string,
  observedAt: string,
): PlanInput {
  const recorded: PlanInput['status'] = {};
  for (const field of decisionFields) {
    const value = cluster.status?.[field];
    if (value !== undefined) (recorded as Record<string, unknown>)[field] = value;
  }
  return {
    cluster: topology.set,
    replicas: topology.desired,
    failover: {
      enabled: cluster.spec.failover?.enabled ?? true,
      afterMs: durationMs(cluster.spec.failover?.after ?? '10s'),
      maxLagBytes: BigInt(cluster.spec.failover?.maxLagBytes ?? DEFAULT_MAX_LAG_BYTES),
    },
    holdFailover,
    ...(topology.switchover ? { switchover: topology.switchover } : {}),
    replication: cluster.spec.replication?.mode ?? 'async',
    synchronous: {
      number: cluster.spec.replication?.sync?.number ?? 1,
      durability: cluster.spec.replication?.sync?.durability ?? 'required',
    },
    ...(cluster.status?.primaryLastSeen ? { lastSeenRecord: cluster.status.primaryLastSeen } : {}),
    bootstrap: cluster.spec.bootstrap?.recovery ? 'restore' : 'initdb',
    status: recorded,
    instances: facts,
    memory,
    now,
    observedAt,
  };
}

/**
 * Why the status a decision was taken over is no longer the API server's (another reconcile
 * decided meanwhile: another primary, a failover or switchover further on), or undefined (pure).
 */
export const decisionStale = (
  basis: Cluster['status'],
  latest: Cluster['status'],
  key: string,
): string | undefined => staleness(basis, latest, key, decisionMarksOf);

const switchoverPhases = ['Demoting', 'Promoting', 'Repointing', 'Completed', 'Failed'];

/**
 * The marks of the failover and switchover records (pure), which only grow: the failover count and
 * its record's phase, the switchover count and its record's phase (`DecisionMarks`).
 */
export function decisionMarksOf(status: PlanStatus | Cluster['status']): number[] {
  return [
    ...failoverMarksOf(status),
    status?.switchoverCount ?? 0,
    switchoverPhases.indexOf(status?.switchover?.phase ?? '') + 1,
  ];
}

/** Problems the instances report themselves (pure): settings PostgreSQL refuses. */
export function instanceProblems(facts: InstanceFacts[]): Problem[] {
  return facts
    .filter((f) => f.lastMessage?.startsWith('PostgreSQL refuses the configuration'))
    .map((f) => ({
      reason: PostgresReasons.InvalidParameters,
      message: `${f.name}: ${f.lastMessage} — fix spec.parameters`,
    }));
}

export interface InstancesOutcome {
  plan: Plan;
  facts: InstanceFacts[];
  /** The serving primary's WAL archiver, as observed. */
  archiver?: WalArchiver;
  /** Actions that failed (their messages). */
  failed: string[];
  problems: Problem[];
}

/**
 * The instances phase: every pod of the serving set observed (the primary's LSN read no earlier
 * than `observedAt`), the failover plan run over them, its decision recorded before anything
 * carries it out (`recordDecision`), then its actions carried out — labels, instructions,
 * promotion, re-pointing, synchronous_standby_names, the bootstrap SQL.
 */
export async function instancesPhase(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  topology: Topology,
  synced: SyncedChildren,
  memories: Map<string, PlanMemory>,
  holdFailover: boolean,
  marks: DecisionMarks,
): Promise<InstancesOutcome> {
  const uid = cluster.metadata.uid ?? cluster.metadata.name!;
  // Never act on a status older than this controller's own last decision (a lagging cache).
  marks.check(
    uid,
    decisionMarksOf(cluster.status),
    `${cluster.metadata.namespace}/${cluster.metadata.name}`,
  );
  const endpoint = endpointWith(synced.superuserPassword);
  // Before any instance is observed: the primary's LSN covers every commit acknowledged by then.
  const observedAt = env.now().toISOString();
  const archivers = new Map<string, WalArchiver>();
  const facts = await instanceFacts(topology.pods, topology.set, async (ip) => {
    const observation = await env.pg.observe(endpoint(ip), { signal: ctx.signal });
    if (observation.reachable && observation.archiver) archivers.set(ip, observation.archiver);
    return viewOf(observation);
  });
  const now = env.now().toISOString();
  const earlier = memories.get(uid) ?? {};
  // The fence: the Lease as cached, how long its version has stood, and whether the primary's pod
  // renews it (a pod from before fencing does not: then failover.after decides, as before).
  const leaseName = fenceLease(topology.set);
  const lease = env.lease(cluster.metadata.namespace!, leaseName);
  const primaryPod = topology.pods.find(
    (pod) => pod.metadata.name === (cluster.status?.primary ?? facts[0]?.name),
  );
  const bound = fenceBoundSeconds(cluster);
  // The watch's sight of the version, else this process's memory (a reconcile's sight).
  const seen = env.leaseSeen?.(cluster.metadata.namespace!, leaseName);
  const sighting =
    seen && seen.resourceVersion === (lease?.metadata.resourceVersion ?? '') ? seen : earlier.lease;
  const fence = fenceInput(lease, sighting, bound, now, podFences(primaryPod));
  const plan = planInstances({
    ...planInputOf(
      cluster,
      topology,
      facts,
      { ...earlier, lease: fence.sight },
      holdFailover,
      now,
      observedAt,
    ),
    fence: fence.input,
  });
  if (plan.lease) {
    // The Lease first: a renewal since it was read means the old primary is alive — nothing of
    // this plan is decided or carried out, and the next reconcile sees the renewal.
    try {
      const taken = await takeLease(
        env.client,
        cluster,
        leaseName,
        lease,
        plan.lease,
        bound,
        env.now(),
      );
      plan.memory.lease = {
        resourceVersion: taken.metadata.resourceVersion ?? '',
        since: env.now().toISOString(),
      };
    } catch (error) {
      if (!(error instanceof LeaseMovedError)) throw error;
      memories.set(uid, { ...earlier, lease: fence.sight });
      return {
        plan: { ...plan, actions: [], events: [], requeueAfterMs: 200 },
        facts,
        failed: [],
        problems: [],
      };
    }
  }
  memories.set(uid, plan.memory);
  const decided = plan.status;
  if (decided) {
    await recordInstanceDecision(ctx, cluster, decided);
    marks.remember(uid, decisionMarksOf(decided));
  }
  for (const event of plan.events) env.emit(cluster, event.type, event.reason, event.message);
  if (plan.switchoverHandled && topology.requested)
    await clearSwitchoverRequest(env, cluster, topology.requested);
  const failed = await carryOut(env, cluster, plan.actions, facts, endpoint, plan.memory, synced);
  // The primary — and both ends of a switchover or failover under way — out of a drain's reach.
  const current = decided ?? cluster.status;
  const guarded = evictionProtected({
    instances: topology.desired,
    primary: current?.primary,
    moving: [current?.switchover, current?.failover],
  });
  failed.push(
    ...(await protectFromEviction(env.client, cluster.metadata.namespace!, topology.pods, guarded)),
  );
  const primaryIp = facts.find((f) => f.name === plan.health.primary)?.ip;
  // A changed pg_hba.conf (the kubelet updates the mounted ConfigMap) is loaded by the serving
  // primary at once, not at its next restart: an instance restarted with the new configuration
  // connects as it allows (the replication role, issue 27).
  if (plan.health.primaryServing && primaryIp)
    await env.pg
      .reloadChangedHba(endpoint(primaryIp))
      .catch((error: unknown) =>
        failed.push(`reload ${plan.health.primary}: ${(error as Error).message}`),
      );
  const archiver = primaryIp ? archivers.get(primaryIp) : undefined;
  return {
    plan,
    facts,
    ...(archiver ? { archiver } : {}),
    failed,
    problems: [
      ...failed.map((message) => ({ reason: PostgresReasons.InstanceFailing, message })),
      ...instanceProblems(facts),
    ],
  };
}

/** The superuser's endpoint of an instance. */
export const endpointWith =
  (password: string) =>
  (ip: string): PgEndpoint => ({ host: ip, port: POSTGRES_PORT, user: Superuser, password });

/** Durable before it is carried out: a restart resumes it (`recordDecision`). */
async function recordInstanceDecision(ctx: Context, cluster: Cluster, decided: PlanStatus) {
  const basis = cluster.status;
  const running = cluster.status?.version ?? cluster.spec.version;
  await recordDecision(ctx.status, {
    stale: (latest) =>
      decisionStale(basis, latest.status, `${cluster.metadata.namespace}/${cluster.metadata.name}`),
    fields: (latest) => ({
      primary: decided.primary,
      systemIdentifier: decided.systemIdentifier,
      failover: decided.failover,
      failoverCount: decided.failoverCount,
      lastFailover: decided.lastFailover,
      switchover: decided.switchover,
      switchoverCount: decided.switchoverCount,
      version: latest.status?.version ?? running,
    }),
  });
}

async function carryOut(
  env: PhaseEnv,
  cluster: Cluster,
  actions: PlanAction[],
  facts: InstanceFacts[],
  endpoint: (ip: string) => PgEndpoint,
  memory: PlanMemory,
  synced: SyncedChildren,
): Promise<string[]> {
  const namespace = cluster.metadata.namespace!;
  const failed: string[] = [];
  for (const action of actions) {
    try {
      if (action.type === 'label' || action.type === 'instruct') {
        await env.client.mergePatch(Pods, action.pod, namespace, {
          metadata:
            action.type === 'label'
              ? { labels: { [Labels.role]: action.role } }
              : { annotations: { [InstructionAnnotation]: action.instruction } },
        });
        continue;
      }
      const ip = facts.find((f) => f.name === action.pod)?.ip;
      if (!ip) throw new Error(`${action.pod} has no IP`);
      await onServer(env, cluster, action, endpoint(ip), memory, synced);
    } catch (error) {
      if (isNotFound(error)) continue;
      failed.push(`${action.type} ${action.pod}: ${(error as Error).message}`);
    }
  }
  return failed;
}

/** An action carried out on the instance's server itself. */
async function onServer(
  env: PhaseEnv,
  cluster: Cluster,
  action: Exclude<PlanAction, { type: 'label' } | { type: 'instruct' }>,
  target: PgEndpoint,
  memory: PlanMemory,
  synced: SyncedChildren,
): Promise<void> {
  switch (action.type) {
    case 'promote': {
      const promoted = await env.pg.promote(target);
      if (promoted === 'promoted')
        env.emit(cluster, 'Normal', 'Promoted', `${action.pod} promoted to primary`);
      // Out of recovery: into the read-write Service now, not at the next look (which waits for
      // an unreachable old primary's observation to time out first).
      await env.client.mergePatch(Pods, action.pod, cluster.metadata.namespace!, {
        metadata: { labels: { [Labels.role]: Roles.primary } },
      });
      return;
    }
    case 'repoint':
      await env.pg.alterSystem(target, {
        primary_conninfo: standbyConninfo(action.host, action.pod),
      });
      return;
    case 'synchronousStandbyNames':
      await env.pg.alterSystem(target, { synchronous_standby_names: action.value || null });
      return;
    case 'synchronousCommit': {
      const held = await env.pg.holdSynchronousCommit(target, bootstrapOf({ cluster }).owner);
      memory.synchronousCommitHeld = { pod: action.pod, at: action.at };
      if (held.reset.length)
        env.emit(
          cluster,
          'Warning',
          'SynchronousCommitRestored',
          `on ${action.pod}, defaults weaker than the synchronous replication promises were reset (a session may still SET synchronous_commit for itself): ${held.reset.join('; ')}`,
        );
      return;
    }
    case 'bootstrap': {
      const { database, owner } = bootstrapOf({ cluster });
      const names = childNames(cluster.metadata.name!);
      const changed = await env.pg.bootstrap(target, {
        database,
        owner,
        ownerPassword: synced.secret(names.appSecret, SecretKeys.password),
        replicationPassword: synced.secret(names.replicationSecret, SecretKeys.password),
      });
      memory.bootstrapped = action.key;
      if (changed.length)
        env.emit(cluster, 'Normal', 'Bootstrapped', `on ${action.pod}: ${changed.join(', ')}`);
    }
  }
}

/** Removes the annotation that asked for the switchover just dealt with — unless it changed since. */
async function clearSwitchoverRequest(env: PhaseEnv, cluster: Cluster, value: string) {
  const path = `/metadata/annotations/${SwitchoverAnnotation.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  await env.client
    .jsonPatch(PostgresCluster.resourceType, cluster.metadata.name!, cluster.metadata.namespace, [
      { op: 'test', path, value: cluster.metadata.annotations?.[SwitchoverAnnotation] ?? value },
      { op: 'remove', path },
    ])
    .catch((error: unknown) => {
      // Gone, or a new request replaced it (the test failed): that one is read next time.
      if (!isNotFound(error) && !isInvalid(error)) throw error;
    });
}
