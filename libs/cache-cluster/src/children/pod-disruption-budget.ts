import { renderPodDisruptionBudget as render } from '@steward/workload';
import { childMeta, clusterName, clusterSelector } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The PodDisruptionBudget `<name>`: at most one pod of the cluster evicted at a time, so a drain
 * never takes the primary and its replicas at once (and a Standalone pod can still be drained).
 */
export function renderPodDisruptionBudget(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return render(
    childMeta(input.cluster),
    childNames(name).podDisruptionBudget,
    clusterSelector(name),
  );
}
