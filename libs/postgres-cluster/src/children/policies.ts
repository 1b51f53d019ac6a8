import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import {
  childNames,
  clusterName,
  clusterNamespace,
  clusterSelector,
  commonLabels,
} from './names.js';
import { BackupLabels } from '../backup/layout.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The PodDisruptionBudget `<name>`: at most one instance evicted at a time, so a drain never takes
 * the primary and its standbys at once (and a single instance can still be drained).
 */
export function renderPodDisruptionBudget(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: childNames(name).podDisruptionBudget,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    spec: { maxUnavailable: 1, selector: { matchLabels: clusterSelector(name) } },
  };
}

/** The namespace label the API server sets on every namespace (NamespaceDefaultLabelName). */
const NamespaceNameLabel = 'kubernetes.io/metadata.name';

/**
 * The NetworkPolicy `<name>`: the instances accept connections on 5432 only from the cluster's own
 * instances (replication, cloning, rewinding), its backup Jobs' pods, the controller's pods (`input.controller`) and
 * `spec.clients` (pods matching podSelector — all when absent — in the namespaces matching
 * namespaceSelector, or in the cluster's namespace). Egress is not restricted.
 */
export function renderNetworkPolicy(input: RenderInput): ChildObject {
  const { cluster, controller } = input;
  const name = clusterName(cluster);
  const clients = cluster.spec.clients;
  const peers: Record<string, unknown>[] = [
    { podSelector: { matchLabels: clusterSelector(name) } },
  ];
  // The backup Jobs' pods (pg_basebackup from the primary).
  if (cluster.spec.backup)
    peers.push({ podSelector: { matchLabels: { [BackupLabels.backupOf]: name } } });
  // A major upgrade's dump-and-restore Job (reads the old primary, writes the new one).
  if (cluster.spec.upgrade?.approvedVersion || cluster.status?.upgrade)
    peers.push({ podSelector: { matchLabels: { [BackupLabels.upgradeOf]: name } } });
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
      ingress: [{ from: peers, ports: [{ protocol: 'TCP', port: POSTGRES_PORT }] }],
    },
  };
}

/** A selector of exactly these labels; `{}` (everything) for none, not `matchLabels: {}`. */
function selector(labels: Record<string, string>): { matchLabels?: Record<string, string> } {
  return Object.keys(labels).length > 0 ? { matchLabels: { ...labels } } : {};
}
