import { TerminalError } from '@steward/controller';
import { type KubeObject } from '@steward/kube';
import { type DesiredChild } from './desired-child.js';
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
