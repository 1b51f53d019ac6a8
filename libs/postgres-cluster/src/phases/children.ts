import { type RestoreStatus } from '@steward/postgres-cluster-api';
import { TerminalError } from '@steward/controller';
import {
  ConfigMaps,
  NetworkPolicies,
  PodDisruptionBudgets,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
} from '@steward/kube';
import { generatePassword, type DesiredChild } from '@steward/workload';
import { sourceDestinationOf, sourcePrefix } from '../backup/layout.js';
import { childNames, renderChildren, SecretKeys, type RenderInput } from '../children/index.js';
import { renderStatefulSet } from '../children/stateful-set.js';
import { type ResolvedPostgres } from '../resolve.js';
import { PostgresReasons } from '../status.js';
import { type Cluster, type Context, type PhaseEnv } from './env.js';
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
}

/**
 * The children a cluster is to have (pure): its two generated Secrets (created once), the
 * ConfigMap, four Services, the PDB, the NetworkPolicy and the StatefulSet of the set that serves —
 * and, during a major upgrade, the other set's StatefulSet (its image and size of its own).
 */
export function desiredChildren(facts: ChildrenFacts): DesiredChild[] {
  const { cluster, resolved, topology, restore } = facts;
  const names = childNames(cluster.metadata.name!);
  const recovery = cluster.spec.bootstrap?.recovery;
  const templateStorage = facts.templateStorage(topology.set);
  const input: RenderInput = {
    cluster,
    image: resolved.image,
    instanceSet: topology.set,
    ...(topology.extra ? { primaryOnlyReads: true } : {}),
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
  const extra = topology.extra;
  if (extra) {
    const storage = facts.templateStorage(extra.set);
    const { restore: _restore, existingTemplateStorage: _storage, ...base } = input;
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
  return want;
}

type SecretObject = KubeObject & { data?: Record<string, string> };
type StatefulSetObject = KubeObject & {
  spec?: {
    volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[];
  };
  status?: { updateRevision?: string };
};

/** The children as they are after the sync: the Secrets' values, the StatefulSet's revision. */
export interface SyncedChildren {
  secret: (name: string, key: string) => string;
  superuserPassword: string;
  children: Map<string, KubeObject>;
}

/** A live StatefulSet of the cluster (from the children's cache). */
export function liveStatefulSet(env: PhaseEnv, cluster: Cluster, set: string) {
  return env.children.get<StatefulSetObject>(cluster, StatefulSets, set);
}

/** The storage a live StatefulSet's claim template asks for. */
export const templateStorageOf = (sts: StatefulSetObject | undefined) =>
  sts?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;

/**
 * Applies the desired children (a converged cluster costs no request); a name taken by an object
 * Steward did not create is `ChildConflict` (terminal: adopted never, for a person to resolve).
 */
export async function syncChildren(
  env: PhaseEnv,
  ctx: Context,
  cluster: Cluster,
  want: DesiredChild[],
): Promise<SyncedChildren> {
  const sync = await env.children.sync(cluster, want, { signal: ctx.signal });
  if (sync.conflicts.length) {
    throw new TerminalError(
      PostgresReasons.ChildConflict,
      `${sync.conflicts.map((c) => c.message).join('; ')}: Steward adopts nothing it did not create; delete or rename it`,
      { recheckAfter: 60_000 },
    );
  }
  const secret = (name: string, key: string): string => {
    const raw = (sync.children.get(`Secret/${name}`) as SecretObject | undefined)?.data?.[key];
    if (raw === undefined) throw new Error(`Secret ${name} has no ${key} yet`);
    return Buffer.from(raw, 'base64').toString('utf8');
  };
  const names = childNames(cluster.metadata.name!);
  return {
    secret,
    superuserPassword: secret(names.superuserSecret, SecretKeys.password),
    children: sync.children,
  };
}
