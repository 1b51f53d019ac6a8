import { CACHE_PORT } from '@steward/cache-cluster-api';
import { clusterName, clusterNamespace, clusterSelector, commonLabels } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The namespace label the API server sets on every namespace (NamespaceDefaultLabelName). */
const NamespaceNameLabel = 'kubernetes.io/metadata.name';

/**
 * The NetworkPolicy `<name>`: the cluster's pods accept connections on 6379 only from
 * - the cluster's own pods (replication),
 * - the controller's pods (`input.controller`: its namespace by name, its pods by label), and
 * - `spec.clients`: pods matching `podSelector` (every pod when absent) in the namespaces matching
 *   `namespaceSelector`, or in the cluster's own namespace when that is absent.
 * Nothing else reaches them (policyTypes Ingress; egress is not restricted).
 */
export function renderNetworkPolicy(input: RenderInput): ChildObject {
  const { cluster, controller } = input;
  const name = clusterName(cluster);
  const clients = cluster.spec.clients;
  const peers: Record<string, unknown>[] = [
    { podSelector: { matchLabels: clusterSelector(name) } },
  ];
  if (controller) {
    peers.push({
      namespaceSelector: { matchLabels: { [NamespaceNameLabel]: controller.namespace } },
      podSelector: selector(controller.podLabels),
    });
  }
  if (clients) {
    peers.push({
      ...(clients.namespaceSelector
        ? { namespaceSelector: selector(clients.namespaceSelector) }
        : {}),
      podSelector: selector(clients.podSelector ?? {}),
    });
  }
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: childNames(name).networkPolicy,
      namespace: clusterNamespace(cluster),
      labels: commonLabels(cluster),
    },
    spec: {
      podSelector: { matchLabels: clusterSelector(name) },
      policyTypes: ['Ingress'],
      ingress: [{ from: peers, ports: [{ protocol: 'TCP', port: CACHE_PORT }] }],
    },
  };
}

/**
 * A label selector of exactly these labels; `{}` (everything) for none — not `matchLabels: {}`,
 * which the API server stores as `{}` and a comparison with the applied object would see as drift.
 */
function selector(labels: Record<string, string>): { matchLabels?: Record<string, string> } {
  return Object.keys(labels).length > 0 ? { matchLabels: { ...labels } } : {};
}
