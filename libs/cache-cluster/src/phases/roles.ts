import { CACHE_PORT, type CacheCluster } from '@steward/cache-cluster-api';
import { type ObjectReconcileContext } from '@steward/controller';
import { isNotFound, Pods, type KubeClient } from '@steward/kube';
import {
  decisionStale,
  durationMs,
  evictionProtected,
  failoverMarksOf,
  recordDecision,
  type DecisionMarks,
  protectFromEviction,
} from '@steward/workload';
import { DataVolumeName, Labels } from '../children/index.js';
import { fenceOf } from '../fencing.js';
import { podFacts, type Pod } from '../pods.js';
import { type RedisAdmin, type RedisEndpoint } from '../redis/index.js';
import {
  FENCE_ADDRESS,
  planRoles,
  SALVAGE_TIMEOUT_MS,
  type PrimaryMemory,
  type RoleAction,
  type RolePlan,
  type RolePlanInput,
  type SwitchoverAsk,
} from '../roles/plan.js';
import { desiredReplicas } from './replicas.js';

type Cluster = CacheCluster;

/** What the roles phase acts with. */
export interface RolesEnv {
  client: Pick<KubeClient, 'mergePatch'>;
  redis: RedisAdmin;
  now: () => Date;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** The role plan's input (pure): the cluster's settings, its recorded decisions, what was seen. */
export function rolesInputOf(
  cluster: Cluster,
  pods: RolePlanInput['pods'],
  memory: PrimaryMemory,
  now: string,
  observedAt: string,
  switchover?: SwitchoverAsk,
): RolePlanInput {
  const s = cluster.status;
  const fence = fenceOf(cluster);
  return {
    mode: cluster.spec.mode ?? 'Standalone',
    replicas: desiredReplicas(cluster),
    ...(fence
      ? { fence: { minReplicas: fence.minReplicas, boundSeconds: fence.boundSeconds } }
      : {}),
    failover: {
      enabled: cluster.spec.mode === 'Replicated' && (cluster.spec.failover?.enabled ?? true),
      afterMs: durationMs(cluster.spec.failover?.after ?? '10s'),
    },
    port: CACHE_PORT,
    status: {
      ...(s?.primary ? { primary: s.primary } : {}),
      ...(s?.primaryRunId ? { primaryRunId: s.primaryRunId } : {}),
      ...(s?.failover ? { failover: s.failover } : {}),
      ...(s?.failoverCount !== undefined ? { failoverCount: s.failoverCount } : {}),
      ...(s?.lastFailover ? { lastFailover: s.lastFailover } : {}),
      ...(s?.switchover ? { switchover: s.switchover } : {}),
      ...(s?.switchoverCount !== undefined ? { switchoverCount: s.switchoverCount } : {}),
    },
    ...(switchover ? { switchover } : {}),
    pods,
    memory,
    now,
    observedAt,
  };
}

const switchoverPhases = ['Demoting', 'Completed', 'Failed'];

/**
 * The marks of the failover and switchover records (pure), which only grow: the failover count
 * and its record's phase, the switchover count and its record's phase (`DecisionMarks`).
 */
export function roleMarksOf(status: Cluster['status'] | RolePlan['status']): number[] {
  return [
    ...failoverMarksOf(status),
    status?.switchoverCount ?? 0,
    switchoverPhases.indexOf(status?.switchover?.phase ?? '') + 1,
  ];
}

export interface RolesOutcome {
  plan: RolePlan;
  /** Actions that failed (their messages). */
  failed: string[];
}

/**
 * The roles phase: every pod's server observed (INFO sent no earlier than `observedAt`, so the
 * primary's offset covers every write acknowledged by then), the role plan run (with the
 * switchover a rolling update asks for, if any), its decision recorded before anything carries
 * it out (`recordDecision`), then its actions carried out.
 */
export async function rolesPhase(
  env: RolesEnv,
  ctx: ObjectReconcileContext<Cluster>,
  cluster: Cluster,
  pods: Pod[],
  password: string,
  memories: Map<string, PrimaryMemory>,
  marks: DecisionMarks,
  switchover?: SwitchoverAsk,
): Promise<RolesOutcome> {
  const name = cluster.metadata.name!;
  const uid = cluster.metadata.uid ?? name;
  // Never act on a status older than this controller's own last decision (a lagging cache).
  marks.check(uid, roleMarksOf(cluster.status), `${cluster.metadata.namespace}/${name}`);
  const endpoint = (ip: string): RedisEndpoint => ({ host: ip, port: CACHE_PORT, password });
  const observedAt = env.now().toISOString();
  const facts = await podFacts(pods, name, (ip) =>
    env.redis.observe(endpoint(ip), { signal: ctx.signal }),
  );
  const plan = planRoles(
    rolesInputOf(
      cluster,
      facts,
      memories.get(uid) ?? {},
      env.now().toISOString(),
      observedAt,
      switchover,
    ),
  );
  memories.set(uid, plan.memory);
  const decided = plan.status;
  if (decided) {
    const basis = cluster.status;
    await recordDecision(ctx.status, {
      stale: (latest) =>
        decisionStale(basis, latest.status, `${cluster.metadata.namespace}/${name}`, roleMarksOf),
      fields: () => ({
        primary: decided.primary,
        primaryRunId: decided.primaryRunId,
        failover: decided.failover,
        failoverCount: decided.failoverCount,
        lastFailover: decided.lastFailover,
        switchover: decided.switchover,
        switchoverCount: decided.switchoverCount,
      }),
    });
    marks.remember(uid, roleMarksOf(decided));
  }
  for (const event of plan.events) env.emit(cluster, event.type, event.reason, event.message);
  const done = await carryOut(env, cluster, plan.actions, facts, endpoint);
  const { failed } = done;
  // A detached replica is cut off from the lost primary from when its REPLICAOF was answered.
  if (done.detached.length && plan.memory.links) {
    const links = { ...plan.memory.links };
    for (const { pod, at } of done.detached) links[pod] = at.toISOString();
    memories.set(uid, { ...plan.memory, links });
  }
  for (const salvage of done.salvaged) await recordSalvage(ctx, cluster, salvage);
  // The primary — and both ends of a switchover or failover under way — out of a drain's reach.
  failed.push(
    ...(await protectFromEviction(
      env.client,
      cluster.metadata.namespace!,
      pods,
      protectedPods(cluster, decided),
    )),
  );
  return { plan, failed };
}

/**
 * The pods a drain must not evict (pure, `evictionProtected`): Replicated with more than one pod
 * desired, the primary — as just decided, else as recorded — and both ends of a switchover or
 * failover under way; none otherwise (the one budget over every pod lets a lone pod go).
 */
export function protectedPods(
  cluster: Cluster,
  decided?: Pick<NonNullable<Cluster['status']>, 'primary' | 'switchover' | 'failover'>,
): Set<string> {
  const now = decided ?? cluster.status;
  return evictionProtected({
    instances: desiredReplicas(cluster),
    primary: now?.primary,
    moving: [now?.switchover, now?.failover],
  });
}

/** A salvage carried out (or failed) with a returning old primary's REPLICAOF. */
interface SalvageDone {
  pod: string;
  failoverStartedAt: string;
  salvage: NonNullable<NonNullable<NonNullable<Cluster['status']>['failover']>['salvage']>;
}

/**
 * Where a salvage file is kept: on the pod's volume claim with persistence, else in its emptyDir
 * (kept while the pod exists: a deleted pod takes it along).
 */
export function salvageLocation(cluster: Cluster, pod: string, file: string): string {
  return cluster.spec.persistence?.enabled
    ? `persistentvolumeclaim/${DataVolumeName}-${pod}:/data/${file}`
    : `pod/${pod} emptyDir ${DataVolumeName}:/data/${file} (no persistence: kept until the pod is deleted)`;
}

/** The salvage written into status.failover, unless a newer failover was recorded meanwhile. */
async function recordSalvage(
  ctx: ObjectReconcileContext<Cluster>,
  cluster: Cluster,
  done: SalvageDone,
): Promise<void> {
  const key = `${cluster.metadata.namespace}/${cluster.metadata.name}`;
  await recordDecision(ctx.status, {
    stale: (latest) =>
      latest.status?.failover?.startedAt === done.failoverStartedAt
        ? undefined
        : `${key}: a newer failover was recorded before the salvage of ${done.pod}`,
    fields: (latest) => ({ failover: { ...latest.status!.failover!, salvage: done.salvage } }),
  });
}

async function carryOut(
  env: RolesEnv,
  cluster: Cluster,
  actions: RoleAction[],
  facts: { name: string; ip?: string }[],
  endpoint: (ip: string) => RedisEndpoint,
): Promise<{ failed: string[]; detached: { pod: string; at: Date }[]; salvaged: SalvageDone[] }> {
  const failed: string[] = [];
  const detached: { pod: string; at: Date }[] = [];
  const salvaged: SalvageDone[] = [];
  for (const action of actions) {
    try {
      if (action.type === 'label') {
        await env.client.mergePatch(Pods, action.pod, cluster.metadata.namespace, {
          metadata: { labels: { [Labels.role]: action.role } },
        });
        continue;
      }
      const ip = facts.find((f) => f.name === action.pod)?.ip;
      if (!ip) throw new Error(`${action.pod} has no IP`);
      if (action.type === 'promote') await env.redis.promote(endpoint(ip));
      else if (action.type === 'detach') {
        await env.redis.replicaOf(endpoint(ip), FENCE_ADDRESS);
        detached.push({ pod: action.pod, at: env.now() });
      } else if (action.type === 'replicaOf' && action.salvage) {
        const { file, from, failoverStartedAt } = action.salvage;
        const location = salvageLocation(cluster, action.pod, file);
        try {
          const saved = await env.redis.salvageThenFollow(
            endpoint(ip),
            file,
            { host: action.host, port: action.port },
            SALVAGE_TIMEOUT_MS,
            fenceOf(cluster) ?? { minReplicas: 0, maxLagSeconds: 10 },
          );
          salvaged.push({
            pod: action.pod,
            failoverStartedAt,
            salvage: {
              phase: 'Saved',
              from: String(from),
              to: String(saved.offset),
              bytes: Math.max(0, saved.offset - from),
              location,
              savedAt: saved.savedAt.toISOString(),
              message: `${action.pod} came back at offset ${saved.offset}, ${Math.max(0, saved.offset - from)} bytes of replication stream beyond the ${from} the new primary was promoted at: its whole dataset was saved as an RDB (${location}) with writes stopped, before it was made a replica of ${action.primary} (a full resync)`,
            },
          });
        } catch (error) {
          // Not reached, or no answer in time: asked again at the next look (writes stay stopped).
          const kind = (error as { kind?: string }).kind;
          if (kind === 'timeout' || kind === 'unreachable' || kind === 'closed') throw error;
          salvaged.push({
            pod: action.pod,
            failoverStartedAt,
            salvage: {
              phase: 'Failed',
              from: String(from),
              message: `${(error as Error).message}; ${action.pod} refuses writes and is kept out of the cluster (not made a replica, which would discard its data) until a person decides: copy what it holds, then delete status.failover.salvage`,
            },
          });
          throw error;
        }
      } else if (action.type === 'failover')
        await env.redis.failover(
          endpoint(ip),
          { host: action.host, port: action.port },
          action.timeoutMs,
        );
      else await env.redis.replicaOf(endpoint(ip), { host: action.host, port: action.port });
    } catch (error) {
      if (isNotFound(error)) continue;
      failed.push(`${action.type} ${action.pod}: ${(error as Error).message}`);
    }
  }
  return { failed, detached, salvaged };
}
