import { CACHE_PORT } from '@steward/cache-cluster-api';
import { renderPolicies as render } from '@steward/workload';
import { childMeta, clusterName, clusterSelector } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The PodDisruptionBudget `<name>` — at most one pod of the cluster evicted at a time, so a drain
 * never takes the primary and its replicas at once (and a Standalone pod can still be drained) —
 * and the NetworkPolicy `<name>`: the cluster's pods accept connections on 6379 only from
 * - the cluster's own pods (replication),
 * - the controller's pods (`input.controller`: its namespace by name, its pods by label), and
 * - `spec.clients`: pods matching `podSelector` (every pod when absent) in the namespaces matching
 *   `namespaceSelector`, or in the cluster's own namespace when that is absent.
 * Nothing else reaches them (policyTypes Ingress; egress is not restricted).
 */
export function renderPolicies(input: RenderInput): {
  podDisruptionBudget: ChildObject;
  networkPolicy: ChildObject;
} {
  const { cluster, controller } = input;
  const name = clusterName(cluster);
  return render(childMeta(cluster), childNames(name), clusterSelector(name), CACHE_PORT, {
    ...(controller ? { controller } : {}),
    ...(cluster.spec.clients ? { clients: cluster.spec.clients } : {}),
  });
}
