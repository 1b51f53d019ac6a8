/**
 * The children every workload kind renders the same way (pure): Services, the PodDisruptionBudget
 * and the ingress NetworkPolicy. A kind gives its names, labels, selector and port.
 */

/** Where a child goes and the labels it carries (the kind's common labels). */
export interface ChildMeta {
  namespace: string;
  labels: Record<string, string>;
}

/**
 * A child as server-side apply takes it: apiVersion, kind, metadata (name, namespace, labels,
 * annotations) and its fields. No ownerReferences (the applier adds its controller reference) and
 * no status.
 */
export interface ChildObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/** The one TCP port a workload serves, named (the container's port name is the target). */
export interface ServedPort {
  name: string;
  port: number;
}

const servicePorts = (p: ServedPort) => [
  { name: p.name, port: p.port, targetPort: p.name, protocol: 'TCP' },
];

/** A Service `name` with `spec`. */
export function renderService(
  meta: ChildMeta,
  name: string,
  spec: Record<string, unknown>,
): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    spec,
  };
}

/**
 * The headless Service, the StatefulSet's serviceName: a DNS name per pod, published before the pod
 * is ready (members must reach a primary its readiness probe does not pass yet).
 */
export function renderHeadlessService(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
  port: ServedPort,
): ChildObject {
  return renderService(meta, name, {
    clusterIP: 'None',
    publishNotReadyAddresses: true,
    selector,
    ports: servicePorts(port),
  });
}

/** A ClusterIP Service over the pods of `selector` (e.g. those the controller labelled primary). */
export function renderClusterIpService(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
  port: ServedPort,
): ChildObject {
  return renderService(meta, name, { type: 'ClusterIP', selector, ports: servicePorts(port) });
}

/** The names of a workload's Services: per pod, the primary's, the replicas'. */
export interface RoleServiceNames {
  headless: string;
  readWrite: string;
  readOnly: string;
}

/** The role label the controller sets on its pods, and its values. */
export interface RoleLabel {
  label: string;
  primary: string;
  replica: string;
}

/**
 * A workload's Services: the headless one (the StatefulSet's serviceName), `readWrite` over the
 * pod the controller labelled primary, `readOnly` over those it labelled replica.
 */
export function renderRoleServices(
  meta: ChildMeta,
  names: RoleServiceNames,
  selector: Record<string, string>,
  roles: RoleLabel,
  port: ServedPort,
): { headless: ChildObject; readWrite: ChildObject; readOnly: ChildObject } {
  const roleService = (name: string, role: string) =>
    renderClusterIpService(meta, name, { ...selector, [roles.label]: role }, port);
  return {
    headless: renderHeadlessService(meta, names.headless, selector, port),
    readWrite: roleService(names.readWrite, roles.primary),
    readOnly: roleService(names.readOnly, roles.replica),
  };
}

/** A ConfigMap `name` holding `data` (the server's configuration files). */
export function renderConfigMap(
  meta: ChildMeta,
  name: string,
  data: Record<string, string>,
): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    data,
  };
}

/**
 * The PodDisruptionBudget: at most one pod evicted at a time, so a drain never takes the primary
 * and its replicas at once (and a single pod can still be drained).
 */
export function renderPodDisruptionBudget(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
): ChildObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
  };
}

/**
 * A workload's PodDisruptionBudget (`renderPodDisruptionBudget`) and ingress NetworkPolicy
 * (`renderIngressPolicy`) over the pods of `selector`.
 */
export function renderPolicies(
  meta: ChildMeta,
  names: { podDisruptionBudget: string; networkPolicy: string },
  selector: Record<string, string>,
  port: number,
  peers: IngressPeers,
): { podDisruptionBudget: ChildObject; networkPolicy: ChildObject } {
  return {
    podDisruptionBudget: renderPodDisruptionBudget(meta, names.podDisruptionBudget, selector),
    networkPolicy: renderIngressPolicy(meta, names.networkPolicy, selector, port, peers),
  };
}

/** The namespace label the API server sets on every namespace (NamespaceDefaultLabelName). */
const NamespaceNameLabel = 'kubernetes.io/metadata.name';

/** Who the ingress NetworkPolicy admits besides the workload's own pods. */
export interface IngressPeers {
  /** Further pod selectors in the workload's namespace (e.g. its backup Jobs' pods). */
  pods?: Record<string, string>[];
  /** The controller's pods: its namespace by name, its pods by label. */
  controller?: { namespace: string; podLabels: Record<string, string> };
  /** `spec.clients`: pods of `podSelector` (all when absent) in the namespaces of `namespaceSelector` (the workload's own when absent). */
  clients?: { namespaceSelector?: Record<string, string>; podSelector?: Record<string, string> };
}

/**
 * The NetworkPolicy: the workload's pods accept connections on its port only from its own pods,
 * `peers.pods`, the controller's pods and `peers.clients`. Nothing else reaches them
 * (policyTypes Ingress; egress is not restricted).
 */
export function renderIngressPolicy(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
  port: number,
  peers: IngressPeers,
): ChildObject {
  const from: Record<string, unknown>[] = [
    { podSelector: { matchLabels: selector } },
    ...(peers.pods ?? []).map((labels) => ({ podSelector: { matchLabels: labels } })),
  ];
  if (peers.controller)
    from.push({
      namespaceSelector: { matchLabels: { [NamespaceNameLabel]: peers.controller.namespace } },
      podSelector: labelSelector(peers.controller.podLabels),
    });
  if (peers.clients)
    from.push({
      ...(peers.clients.namespaceSelector
        ? { namespaceSelector: labelSelector(peers.clients.namespaceSelector) }
        : {}),
      podSelector: labelSelector(peers.clients.podSelector ?? {}),
    });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    spec: {
      podSelector: { matchLabels: selector },
      policyTypes: ['Ingress'],
      ingress: [{ from, ports: [{ protocol: 'TCP', port }] }],
    },
  };
}

/**
 * A label selector of exactly these labels; `{}` (everything) for none — not `matchLabels: {}`,
 * which the API server stores as `{}` and a comparison with the applied object would see as drift.
 */
export function labelSelector(labels: Record<string, string>): {
  matchLabels?: Record<string, string>;
} {
  return Object.keys(labels).length > 0 ? { matchLabels: { ...labels } } : {};
}
