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
 * cached resourceVersion; a conflict means the object changed and will be reconciled again anyway.
 * Returns whether it wrote.
 */
export async function recordTerminalFailure(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
  reason: string,
  message: string,
): Promise<boolean> {
  const current = obj as WithConditions;
  const generation = current.metadata.generation;
  const updates = [
    {
      type: 'Ready',
      status: 'False' as const,
      reason,
      message,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    },
    {
      type: StalledCondition,
      status: 'True' as const,
      reason,
      message,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    },
  ];
  const { conditions, changed } = setConditions(current.status?.conditions, updates);
  if (!changed) return false;
  return writeConditions(client, rt, current, conditions);
}

/** Removes a `Stalled` condition left by an earlier terminal failure, once a reconcile succeeds. */
export async function clearStalled(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
): Promise<boolean> {
  const current = obj as WithConditions;
  if (!findCondition(current.status?.conditions, StalledCondition)) return false;
  const { conditions } = removeCondition(current.status?.conditions, StalledCondition);
  return writeConditions(client, rt, current, conditions);
}

async function writeConditions(
  client: KubeClient,
  rt: ResourceType,
  obj: WithConditions,
  conditions: Condition[],
): Promise<boolean> {
  try {
    await client.mergePatch(
      rt,
      obj.metadata.name!,
      obj.metadata.namespace,
      { metadata: { resourceVersion: obj.metadata.resourceVersion }, status: { conditions } },
      { subresource: 'status' },
    );
    return true;
  } catch (error) {
    if (error instanceof ConflictError || error instanceof NotFoundError) return false;
    throw error;
  }
}
