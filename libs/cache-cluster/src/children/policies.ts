import { CACHE_PORT } from '@steward/cache-cluster-api';
import { renderPolicies as render } from '@steward/workload';
import { childMeta, clusterName, clusterSelector } from './labels.js';
import { childNames } from './names.js';
import { replicasOf, type ChildObject, type RenderInput } from './render-input.js';

/**
 * The PodDisruptionBudgets — Replicated with more than one pod, `<name>-primary`: the primary (and
 * both ends of a switchover or failover under way, labelled `steward.dev/eviction-protected`) is
 * never evicted, a drain waits for the switchover that moves the role off its node; `<name>`: at
 * most one other pod evicted at a time; a single pod has `<name>` alone and can still be drained —
 * and the NetworkPolicy `<name>`: the cluster's pods accept connections on 6379 only from
 * - the cluster's own pods (replication),
 * - the controller's pods (`input.controller`: its namespace by name, its pods by label), and
 * - `spec.clients`: pods matching `podSelector` (every pod when absent) in the namespaces matching
 *   `namespaceSelector`, or in the cluster's own namespace when that is absent.
 * Nothing else reaches them (policyTypes Ingress; egress is not restricted).
 */
export function renderPolicies(input: RenderInput): {
  podDisruptionBudget: ChildObject;
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
} {
  const { cluster, controller } = input;
  const name = clusterName(cluster);
  return render(
    childMeta(cluster),
    childNames(name),
    clusterSelector(name),
    CACHE_PORT,
    {
      ...(controller ? { controller } : {}),
      ...(cluster.spec.clients ? { clients: cluster.spec.clients } : {}),
    },
    replicasOf(cluster),
  );
}
