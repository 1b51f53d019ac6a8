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
 * The label the controller puts on the pods a drain must not evict (`"true"`): the primary, and
 * while a switchover moves it, both ends — the old primary leaves the read-write Service when the
 * switchover starts, but stays protected until the new one serves and it follows it.
 */
export const EvictionProtectedLabel = 'steward.dev/eviction-protected';

/**
 * The PodDisruptionBudget: at most one pod evicted at a time, so a drain never takes the primary
 * and its replicas at once (and a single pod can still be drained). With `instances` above 1,
 * over the pods without `EvictionProtectedLabel` (a pod in two budgets cannot be evicted at all):
 * `minAvailable: instances − 2` — all but one of the replicas. Not `maxUnavailable: 1`: for that
 * the disruption controller counts the StatefulSet's replicas, protected ones included, and would
 * never allow an eviction. A pod that is not Ready may always be evicted (it serves nothing; a
 * drain is not held by it).
 */
export function renderPodDisruptionBudget(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
  instances = 1,
): ChildObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    spec:
      instances > 1
        ? {
            minAvailable: instances - 2,
            selector: {
              matchLabels: selector,
              matchExpressions: [{ key: EvictionProtectedLabel, operator: 'DoesNotExist' }],
            },
            unhealthyPodEvictionPolicy: 'AlwaysAllow',
          }
        : { maxUnavailable: 1, selector: { matchLabels: selector } },
  };
}

/**
 * The primary's PodDisruptionBudget: no pod labelled `EvictionProtectedLabel` may be evicted,
 * Ready or not — a drain waits until the controller has switched the primary over to a replica on
 * another node (the label moves with the role). `maxUnavailable: 0` never allows one, however many
 * pods carry the label (both ends of a switchover).
 */
export function renderPrimaryDisruptionBudget(
  meta: ChildMeta,
  name: string,
  selector: Record<string, string>,
): ChildObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: meta.namespace, labels: meta.labels },
    spec: {
      maxUnavailable: 0,
      selector: { matchLabels: { ...selector, [EvictionProtectedLabel]: 'true' } },
    },
  };
}

/**
 * A workload's PodDisruptionBudgets and ingress NetworkPolicy (`renderIngressPolicy`) over the
 * pods of `selector`. With `instances` above 1 (a primary with replicas to switch to), two
 * budgets: the primary's (`renderPrimaryDisruptionBudget`, `<name>-primary`) and the others'
 * (`renderPodDisruptionBudget` without the protected pods); otherwise one over every pod.
 */
export function renderPolicies(
  meta: ChildMeta,
  names: { podDisruptionBudget: string; networkPolicy: string },
  selector: Record<string, string>,
  port: number,
  peers: IngressPeers,
  instances = 1,
): {
  podDisruptionBudget: ChildObject;
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
} {
  const protects = instances > 1;
  const pdb = names.podDisruptionBudget;
  return {
    podDisruptionBudget: renderPodDisruptionBudget(meta, pdb, selector, instances),
    ...(protects
      ? { primaryDisruptionBudget: renderPrimaryDisruptionBudget(meta, `${pdb}-primary`, selector) }
      : {}),
    networkPolicy: renderIngressPolicy(meta, names.networkPolicy, selector, port, peers),
  };
}

/**
 * The pods a drain must not evict (pure): none with a single instance (its one budget lets it
 * go); else the primary, and both ends of a switchover or failover under way (a record whose
 * phase is neither Completed nor Failed).
 */
export function evictionProtected(facts: {
  instances: number;
  primary: string | undefined;
  moving: readonly ({ phase: string; from: string; to: string } | undefined)[];
}): Set<string> {
  const names = new Set<string>();
  if (facts.instances <= 1) return names;
  if (facts.primary) names.add(facts.primary);
  for (const record of facts.moving)
    if (record && record.phase !== 'Completed' && record.phase !== 'Failed') {
      names.add(record.from);
      names.add(record.to);
    }
  return names;
}

/**
 * The pods whose `EvictionProtectedLabel` is to change (pure): `protect` names those to carry it
 * (the primary, and both ends of a switchover under way); every other pod loses it. Pods being
 * deleted are left alone.
 */
export function evictionProtectionChanges(
  pods: readonly {
    metadata: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  }[],
  protect: ReadonlySet<string>,
): { pod: string; protect: boolean }[] {
  return pods
    .filter((p) => !p.metadata.deletionTimestamp && p.metadata.name)
    .map((p) => ({
      pod: p.metadata.name!,
      protect: protect.has(p.metadata.name!),
      has: p.metadata.labels?.[EvictionProtectedLabel] === 'true',
    }))
    .filter((c) => c.protect !== c.has)
    .map(({ pod, protect }) => ({ pod, protect }));
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
