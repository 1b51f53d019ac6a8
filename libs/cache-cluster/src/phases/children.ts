import { type CacheCluster } from '@steward/cache-cluster-api';
import { desiredWorkload, type DesiredChild } from '@steward/workload';
import { childNames, renderChildren } from '../children/index.js';
import { type ResolvedCache } from '../resolve.js';
import { passwordSecretOf } from './auth.js';

/**
 * The children a CacheCluster is to have (pure): the generated password Secret (created once,
 * unless the user brings one), the ConfigMap, the Services (read-only only when Replicated), the
 * PDBs (`<name>`, and `<name>-primary` when Replicated with more than one pod), the NetworkPolicy and the StatefulSet — whose claim template keeps a live one's storage
 * (`templateStorage`: templates cannot change; volumes grow claim by claim).
 */
export function desiredChildren(
  cluster: CacheCluster,
  resolved: ResolvedCache,
  templateStorage: string | undefined,
  controller?: { namespace: string; podLabels: Record<string, string> },
): DesiredChild[] {
  const names = childNames(cluster.metadata.name!);
  const rendered = renderChildren({
    cluster,
    image: resolved.image,
    ...(resolved.pull ? { pull: resolved.pull } : {}),
    ...(resolved.resources ? { resources: resolved.resources } : {}),
    ...(resolved.maxMemoryBytes !== undefined ? { maxMemoryBytes: resolved.maxMemoryBytes } : {}),
    ...(resolved.storage ? { storage: resolved.storage } : {}),
    ...(templateStorage ? { existingTemplateStorage: templateStorage } : {}),
    passwordSecret: passwordSecretOf(cluster),
    ...(controller ? { controller } : {}),
  });
  const authSecret = rendered.authSecret;
  return desiredWorkload({
    generatedSecrets: authSecret ? [{ name: names.authSecret, render: authSecret }] : [],
    configMap: rendered.configMap,
    services: [
      rendered.headless,
      rendered.readWrite,
      // No replicas to read from in Standalone.
      ...(cluster.spec.mode === 'Replicated' ? [rendered.readOnly] : []),
    ],
    podDisruptionBudget: rendered.podDisruptionBudget,
    ...(rendered.primaryDisruptionBudget
      ? { primaryDisruptionBudget: rendered.primaryDisruptionBudget }
      : {}),
    networkPolicy: rendered.networkPolicy,
    statefulSets: [rendered.statefulSet],
  });
}
