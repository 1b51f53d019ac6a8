import { type RestoreStatus } from '@steward/postgres-cluster-api';
import { RoleBindings, Roles, ServiceAccounts, StatefulSets, type KubeObject } from '@steward/kube';
import {
  childSecretValue,
  desiredWorkload,
  syncOwnChildren,
  type ApplyObject,
  type DesiredChild,
  type ImagePull,
  type StatefulSetWithClaims,
} from '@steward/workload';
import { sourceDestinationOf, sourcePrefix } from '../backup/layout.js';
import { childNames, renderChildren, SecretKeys, type RenderInput } from '../children/index.js';
import { renderInstanceAccount } from '../children/instance-account.js';
import { renderStatefulSet, ReplicationPasswordEnv } from '../children/stateful-set.js';
import { instanceEnvNames, type Pod } from '../pods.js';
import { type ResolvedPostgres } from '../resolve.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';
import { isActive } from '../upgrade/upgrade.js';
import { type Topology } from './topology.js';

export interface ChildrenFacts {
  cluster: Cluster;
  resolved: ResolvedPostgres;
  topology: Topology;
  /** The backup a restore starts from (status.restore), once chosen. */
  restore?: RestoreStatus;
  /** The storage of a live StatefulSet's claim template (templates cannot change). */
  templateStorage: (set: string) => string | undefined;
  controller?: { namespace: string; podLabels: Record<string, string> };
  /**
   * How a major's image is pulled (its resolution's `pull`): the other instance set of a major
   * upgrade takes its own version's, so that neither set's template changes at the switch.
   * Absent, or undefined for a version: as the serving set.
   */
  pullOf?: (version: string) => ImagePull | undefined;
}

/**
 * The pod runs a template made before the replication role (its instance container has no
 * replication password): its instance streams, clones and rewinds as the superuser.
 */
export function predatesReplicationRole(pod: Pod): boolean {
  const env = instanceEnvNames(pod);
  return env !== undefined && !env.includes(ReplicationPasswordEnv);
}

/**
 * The children a cluster is to have (pure): its two generated Secrets (created once), the
 * ConfigMap, four Services, the PDB, the NetworkPolicy and the StatefulSet of the set that serves —
 * and, during a major upgrade, the other set's StatefulSet (its image, size and — with `pullOf` —
 * pull settings of its own).
 */
export function desiredChildren(facts: ChildrenFacts): DesiredChild[] {
  const { cluster, resolved, topology, restore } = facts;
  const names = childNames(cluster.metadata.name!);
  const recovery = cluster.spec.bootstrap?.recovery;
  const templateStorage = facts.templateStorage(topology.set);
  const input: RenderInput = {
    cluster,
    image: resolved.image,
    ...(resolved.pull ? { pull: resolved.pull } : {}),
    instanceSet: topology.set,
    ...(topology.extra ? { primaryOnlyReads: true } : {}),
    ...(isActive(cluster.status?.upgrade) ? { readWriteSet: cluster.status!.upgrade!.toSet } : {}),
    ...(topology.allPods.some(predatesReplicationRole) ? { superuserReplication: true } : {}),
    replicas: topology.statefulSetReplicas,
    ...(resolved.resources ? { resources: resolved.resources } : {}),
    storage: resolved.storage,
    ...(templateStorage ? { existingTemplateStorage: templateStorage } : {}),
    ...(facts.controller ? { controller: facts.controller } : {}),
    ...(recovery && restore
      ? {
          restore: {
            destination: sourceDestinationOf(cluster),
            systemPrefix: `${sourcePrefix(cluster)!}/${restore.systemIdentifier}`,
            backupId: restore.backupId,
            ...(restore.targetTime ? { targetTime: restore.targetTime } : {}),
          },
        }
      : {}),
  };
  const rendered = renderChildren(input);
  const extra = topology.extra;
  const extraStorage = extra ? facts.templateStorage(extra.set) : undefined;
  const extraPull = extra ? facts.pullOf?.(extra.version) : undefined;
  const { restore: _restore, existingTemplateStorage: _storage, ...base } = input;
  const account = renderInstanceAccount(input, extra ? [extra.set] : []);
  const workload = desiredWorkload({
    generatedSecrets: [
      { name: names.superuserSecret, render: rendered.superuserSecret },
      { name: names.appSecret, render: rendered.appSecret },
      { name: names.replicationSecret, render: rendered.replicationSecret },
    ],
    configMap: rendered.configMap,
    services: [rendered.headless, rendered.readWrite, rendered.readOnly, rendered.any],
    podDisruptionBudget: rendered.podDisruptionBudget,
    ...(rendered.primaryDisruptionBudget
      ? { primaryDisruptionBudget: rendered.primaryDisruptionBudget }
      : {}),
    networkPolicy: rendered.networkPolicy,
    statefulSets: [
      rendered.statefulSet,
      // During a major upgrade, the other instance set (its image and size of its own).
      ...(extra
        ? [
            renderStatefulSet({
              ...base,
              instanceSet: extra.set,
              image: extra.image,
              ...(extraPull ? { pull: extraPull } : {}),
              replicas: extra.replicas,
              ...(extraStorage ? { existingTemplateStorage: extraStorage } : {}),
            }),
          ]
        : []),
    ],
  });
  // The instances' account (the fence's Lease, and nothing else) before the pods that run as it.
  const first = workload.findIndex((c) => c.resourceType === StatefulSets);
  workload.splice(
    first,
    0,
    { resourceType: ServiceAccounts, object: account.serviceAccount as ApplyObject },
    { resourceType: Roles, object: account.role as ApplyObject },
    { resourceType: RoleBindings, object: account.roleBinding as ApplyObject },
  );
  return workload;
}

/** The children as they are after the sync: the Secrets' values, the StatefulSet's revision. */
export interface SyncedChildren {
  secret: (name: string, key: string) => string;
  superuserPassword: string;
  children: Map<string, KubeObject>;
}

/** A live StatefulSet of the cluster (from the children's cache). */
export function liveStatefulSet(env: PhaseEnv, cluster: Cluster, set: string) {
  return env.children.get<StatefulSetWithClaims>(cluster, StatefulSets, set);
}

/** Applies the desired children (`syncOwnChildren`) and reads the generated Secrets. */
export async function syncChildren(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  want: DesiredChild[],
): Promise<SyncedChildren> {
  const children = await syncOwnChildren(env.children, cluster, want, ctx.signal);
  const secret = (name: string, key: string): string => {
    const value = childSecretValue(children, name, key);
    if (value === undefined) throw new Error(`Secret ${name} has no ${key} yet`);
    return value;
  };
  const names = childNames(cluster.metadata.name!);
  return {
    secret,
    superuserPassword: secret(names.superuserSecret, SecretKeys.password),
    children,
  };
}
