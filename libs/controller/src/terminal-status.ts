import { findCondition, removeCondition, setConditions, type Condition } from '@steward/conditions';
import {
  ConflictError,
  NotFoundError,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';

/** Condition type stating that the controller stopped retrying until the user changes something. */
export const StalledCondition = 'Stalled';

interface WithConditions extends KubeObject {
  status?: { conditions?: Condition[] };
}

/**
 * Records a terminal failure on the object: `Ready=False` and `Stalled=True`, both with the
 * error's reason and message and the object's generation. So from status alone, a user tells a
 * failure they must fix (`Stalled=True`) from one the controller is retrying (`Ready=False`
 * without `Stalled`). Writes the status subresource only when a condition changed, guarded by the
 * resourceVersion it computed from; on a conflict (the cache was behind, e.g. after the
 * reconciler's own write) it reads the object once more and computes again, so the record is not
 * lost — a terminal failure is not retried, and nothing else would write it. Returns whether it wrote.
 */
export async function recordTerminalFailure(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
  reason: string,
  message: string,
): Promise<boolean> {
  return updateConditions(client, rt, obj, (current) => {
    const generation = current.metadata.generation;
    const stamp = generation !== undefined ? { observedGeneration: generation } : {};
    return setConditions(current.status?.conditions, [
      { type: 'Ready', status: 'False', reason, message, ...stamp },
      { type: StalledCondition, status: 'True', reason, message, ...stamp },
    ]);
  });
}

/** Removes a `Stalled` condition left by an earlier terminal failure, once a reconcile succeeds. */
export async function clearStalled(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
): Promise<boolean> {
  if (!findCondition((obj as WithConditions).status?.conditions, StalledCondition)) return false;
  return updateConditions(client, rt, obj, (current) =>
    removeCondition(current.status?.conditions, StalledCondition),
  );
}

async function updateConditions(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
  compute: (current: WithConditions) => { conditions: Condition[]; changed: boolean },
): Promise<boolean> {
  let current = obj as WithConditions;
  for (let attempt = 0; attempt < 2; attempt++) {
    const { conditions, changed } = compute(current);
    if (!changed) return false;
    try {
      await client.mergePatch(
        rt,
        current.metadata.name!,
        current.metadata.namespace,
        { metadata: { resourceVersion: current.metadata.resourceVersion }, status: { conditions } },
        { subresource: 'status' },
      );
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      if (!(error instanceof ConflictError) || attempt > 0) throw error;
      try {
        current = await client.get<WithConditions>(
          rt,
          current.metadata.name!,
          current.metadata.namespace,
        );
      } catch (readError) {
        if (readError instanceof NotFoundError) return false;
        throw readError;
      }
    }
  }
  return false;
}
