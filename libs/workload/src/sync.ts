import { TerminalError } from '@steward/controller';
import {
  ConfigMaps,
  NetworkPolicies,
  PodDisruptionBudgets,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { type ApplyObject, type DesiredChild } from './desired-child.js';
import { generatePassword } from './password.js';
import { type ChildObject } from './render.js';
import { type WorkloadChildren } from './workload-children.js';

/** The reason of a child name taken by an object this parent did not create. */
export const ChildConflictReason = 'ChildConflict';

/**
 * Applies a parent's desired children (a converged parent costs no request) and returns them as
 * they are (`Kind/name` → object). A name taken by an object Steward did not create is
 * `ChildConflict`, terminal: Steward adopts nothing, a person renames or deletes it.
 */
export async function syncOwnChildren(
  children: Pick<WorkloadChildren, 'sync'>,
  parent: KubeObject,
  want: DesiredChild[],
  signal?: AbortSignal,
): Promise<Map<string, KubeObject>> {
  const sync = await children.sync(parent, want, signal ? { signal } : {});
  if (sync.conflicts.length)
    throw new TerminalError(
      ChildConflictReason,
      `${sync.conflicts.map((c) => c.message).join('; ')}: Steward adopts nothing it did not create; delete or rename it`,
      { recheckAfter: 60_000 },
    );
  return sync.children;
}

/** A value of a Secret among the synced children (decoded), or undefined. */
export function childSecretValue(
  synced: Map<string, KubeObject>,
  name: string,
  key: string,
): string | undefined {
  const raw = (
    synced.get(`Secret/${name}`) as (KubeObject & { data?: Record<string, string> }) | undefined
  )?.data?.[key];
  return raw === undefined ? undefined : Buffer.from(raw, 'base64').toString('utf8');
}

/** What a workload kind renders, each in its place in the order of `desiredWorkload`. */
export interface RenderedWorkload {
  /** Generated once (a password never changes): the Secret's name and its rendering. */
  generatedSecrets: { name: string; render: (password: string) => ChildObject }[];
  configMap: ChildObject;
  services: ChildObject[];
  podDisruptionBudget: ChildObject;
  /** The primary's budget (`renderPolicies` with more than one instance). */
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
  statefulSets: ChildObject[];
}

/**
 * A workload's desired children (pure), in the order they are applied: the generated Secrets
 * (created once with a fresh password), the ConfigMap, the Services, the PDB, the NetworkPolicy,
 * and last the StatefulSets — whose pods need the rest.
 */
export function desiredWorkload(rendered: RenderedWorkload): DesiredChild[] {
  const applied = (resourceType: ResourceType, object: ChildObject): DesiredChild => ({
    resourceType,
    object: object as ApplyObject,
  });
  return [
    ...rendered.generatedSecrets.map((secret): DesiredChild => ({
      resourceType: Secrets,
      mode: 'create-once',
      name: secret.name,
      object: () => secret.render(generatePassword()) as ApplyObject,
    })),
    applied(ConfigMaps, rendered.configMap),
    ...rendered.services.map((service) => applied(Services, service)),
    applied(PodDisruptionBudgets, rendered.podDisruptionBudget),
    ...(rendered.primaryDisruptionBudget
      ? [applied(PodDisruptionBudgets, rendered.primaryDisruptionBudget)]
      : []),
    applied(NetworkPolicies, rendered.networkPolicy),
    ...rendered.statefulSets.map((set) => applied(StatefulSets, set)),
  ];
}
