import { isNotFound, Pods, type KubeClient } from '@steward/kube';
import { EvictionProtectedLabel, evictionProtectionChanges } from './render.js';

/**
 * Sets and removes `EvictionProtectedLabel` on a workload's pods so that exactly `guarded` carry it
 * (`evictionProtected` says which), one merge patch per pod that changes; a pod gone meanwhile is
 * skipped. Returns the failures, named, for the kind's problems — it never throws.
 */
export async function protectFromEviction(
  client: Pick<KubeClient, 'mergePatch'>,
  namespace: string,
  pods: readonly {
    metadata: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  }[],
  guarded: ReadonlySet<string>,
): Promise<string[]> {
  const failed: string[] = [];
  for (const change of evictionProtectionChanges(pods, guarded)) {
    await client
      .mergePatch(Pods, change.pod, namespace, {
        metadata: { labels: { [EvictionProtectedLabel]: change.protect ? 'true' : null } },
      })
      .catch((error: unknown) => {
        if (!isNotFound(error))
          failed.push(`label ${change.pod} ${EvictionProtectedLabel}: ${(error as Error).message}`);
      });
  }
  return failed;
}
