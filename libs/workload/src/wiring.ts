import {
  controllerFor,
  type ControllerBuilder,
  type EventRecorder,
  type Fairness,
  type Manager,
  type MapFunc,
  type Predicate,
} from '@steward/controller';
import { objectKey, type Informer, type Selection } from '@steward/informer';
import {
  ConfigMaps,
  NetworkPolicies,
  Nodes,
  PersistentVolumeClaims,
  PodDisruptionBudgets,
  Pods,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { indexByLabel } from './by-label.js';
import { nodeCordonChanged, nodeCordoned, type WorkloadNode } from './drain.js';
import { type WorkloadPod } from './pod-facts.js';
import { type ClaimObject } from './volumes.js';
import { WorkloadChildren } from './workload-children.js';

/** The children every workload kind keeps: its StatefulSet, Services, ConfigMaps, Secrets, PDB, NetworkPolicy. */
export const WorkloadChildKinds: readonly ResourceType[] = [
  StatefulSets,
  Services,
  ConfigMaps,
  Secrets,
  PodDisruptionBudgets,
  NetworkPolicies,
];

/** The pod index by `spec.nodeName` (`watchNodes`). */
const PodsByNode = 'steward.dev/pods-by-node';

/** The options every workload kind's controller takes (a kind adds its own clients). */
export interface WorkloadControllerOptions {
  /** Which objects to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** Objects reconciled at once. Default 4 (each waits on its servers, not on CPU). */
  maxConcurrentReconciles?: number;
  /** The work queue's order: `fair` (the default: namespaces take turns) or client-go's `fifo`. */
  fairness?: Fairness;
  /** The field manager of its server-side applies (the app's name). */
  fieldManager?: string;
  /** The kubernetes ProviderProfile of objects that name none. */
  defaultProfile?: string;
  /** Who else the NetworkPolicy admits: the controller's own pods. */
  controllerIdentity?: { namespace: string; podLabels: Record<string, string> };
  /** How often a converged object's servers are looked at. Default 5 s. */
  pollIntervalMs?: number;
  /** How often while something is moving. Default 1 s. */
  busyPollIntervalMs?: number;
  events?: EventRecorder;
  /** The reconciles' clock (tests pass their own). */
  now?: () => Date;
}

/** A watch of another kind whose objects map to keys of the workload kind. */
export interface WorkloadWatch {
  resourceType: ResourceType;
  map: MapFunc;
  predicates?: Predicate[];
  selection?: Selection;
}

export interface WorkloadWiringSpec<T extends KubeObject> {
  /** The workload kind (e.g. CacheCluster). */
  resourceType: ResourceType;
  /** The controller's name (metrics, logs). */
  name: string;
  /** Which objects to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** The label every child and pod carries, whose value is the object's name. */
  clusterLabel: string;
  /** The kinds of the children `WorkloadChildren` keeps converged (and the controller owns). */
  childKinds: readonly ResourceType[];
  /** Other kinds the object controls (e.g. Jobs), watched as owned but not synced as children. */
  alsoOwns?: ResourceType[];
  /** The field manager of the children's server-side applies. */
  fieldManager: string;
  /** Which updates of the object wake it. */
  predicates: Predicate[];
  /**
   * A cluster-scoped object each object names (its profile): indexed, so that a change of one wakes
   * exactly the objects that name it.
   */
  references?: {
    resourceType: ResourceType;
    index: string;
    nameOf: (obj: T) => string | undefined;
  };
  /** Further watches (the namespace's labels, on-demand requests, …). */
  watches?: WorkloadWatch[];
  /**
   * Follow the nodes the pods run on (cluster-wide, read-only: get/list/watch nodes): an object
   * is woken when a node of one of its pods is cordoned or uncordoned, and `nodeCordoned` answers
   * from the cache — for a kind that moves its primary off a node being drained.
   */
  watchNodes?: boolean;
  maxConcurrentReconciles?: number;
  fairness?: Fairness;
}

/** What a workload kind's reconciler is built from. */
export interface WorkloadWiring<T extends KubeObject, P extends KubeObject> {
  objects: Informer<T>;
  children: WorkloadChildren;
  /** The pods of one object (by its cluster label), from the cache's index. */
  podsOf: (namespace: string, name: string) => P[];
  /** The claims of one object's pods (by its cluster label), from the cache's index. */
  claimsOf: (namespace: string, name: string) => ClaimObject[];
  /** The selection of the children, pods and claims (the object's, and the cluster label). */
  childSelection: Selection;
  /** Whether a node is cordoned, from the cache (always false without `watchNodes`). */
  nodeCordoned: (nodeName: string) => boolean;
  /** The controller's builder with every watch and option set; the caller adds gauges and completes it. */
  builder: ControllerBuilder;
}

/**
 * The informers, indexes, children toolkit and watches every workload kind needs: the kind
 * itself, its pods and claims (indexed by the cluster label), the objects it references (indexed by
 * name), its children owned. One place, so that the next workload kind starts from here.
 */
export function wireWorkload<T extends KubeObject, P extends KubeObject = KubeObject>(
  manager: Manager,
  spec: WorkloadWiringSpec<T>,
): WorkloadWiring<T, P> {
  const selection = spec.selection ?? {};
  const childSelection: Selection = { ...selection, labelSelector: spec.clusterLabel };
  const objects = manager.informers.informerFor<T>(spec.resourceType, selection);
  const pods = manager.informers.informerFor<P>(Pods, childSelection);
  const claims = manager.informers.informerFor<ClaimObject>(PersistentVolumeClaims, childSelection);
  const podsOf = indexByLabel(pods.store, spec.clusterLabel);
  const claimsOf = indexByLabel(claims.store, spec.clusterLabel);
  const children = new WorkloadChildren({
    client: manager.client,
    informers: manager.informers,
    fieldManager: spec.fieldManager,
    kinds: [...spec.childKinds],
    selection: childSelection,
  });
  const byClusterLabel: MapFunc = (obj) => {
    const name = obj.metadata.labels?.[spec.clusterLabel];
    return name && obj.metadata.namespace ? [`${obj.metadata.namespace}/${name}`] : [];
  };
  let builder = controllerFor(manager, spec.resourceType, {
    selection,
    predicates: spec.predicates,
  }).named(spec.name);
  const references = spec.references;
  if (references) {
    try {
      objects.store.addIndexers({
        [references.index]: (obj) => {
          const name = references.nameOf(obj);
          return name ? [name] : [];
        },
      });
    } catch {
      // indexed already by another controller of this manager
    }
    builder = builder.watches(references.resourceType, (ref) =>
      objects.store.byIndex(references.index, ref.metadata.name ?? '').map(objectKey),
    );
  }
  for (const watch of spec.watches ?? [])
    builder = builder.watches(watch.resourceType, watch.map, {
      ...(watch.predicates ? { predicates: watch.predicates } : {}),
      ...(watch.selection ? { selection: watch.selection } : {}),
    });
  let cordoned: (nodeName: string) => boolean = () => false;
  if (spec.watchNodes) {
    const nodes = manager.informers.informerFor<WorkloadNode>(Nodes, {});
    cordoned = (nodeName) => nodeCordoned(nodes.store.get(nodeName));
    try {
      pods.store.addIndexers({
        [PodsByNode]: (pod) => {
          const node = (pod as WorkloadPod).spec?.nodeName;
          return node ? [node] : [];
        },
      });
    } catch {
      // indexed already by another controller of this manager
    }
    builder = builder.watches(
      Nodes,
      (node) =>
        pods.store
          .byIndex(PodsByNode, node.metadata.name ?? '')
          .flatMap((pod) => byClusterLabel(pod)),
      { predicates: [nodeCordonChanged] },
    );
  }
  builder = builder
    .watches(Pods, byClusterLabel, { selection: childSelection })
    .watches(PersistentVolumeClaims, byClusterLabel, { selection: childSelection });
  for (const kind of [...spec.childKinds, ...(spec.alsoOwns ?? [])])
    builder = builder.owns(kind, { selection: childSelection });
  builder = builder.withOptions({
    maxConcurrentReconciles: spec.maxConcurrentReconciles ?? 4,
    ...(spec.fairness ? { fairness: spec.fairness } : {}),
  });
  return {
    objects,
    children,
    podsOf,
    claimsOf,
    childSelection,
    nodeCordoned: cordoned,
    builder,
  };
}

/** Parses `10s`, `500ms`, `2m` (the API's duration pattern). */
export function durationMs(text: string): number {
  const match = /^([0-9]+)(ms|s|m)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n : match[2] === 's' ? n * 1000 : n * 60_000;
}

/** The clock, the poll cadence and the Event emitter of a workload kind's reconciler. */
export interface WorkloadRuntime<T extends KubeObject> {
  now: () => Date;
  poll: { pollMs: number; busyMs: number };
  emit: (obj: T, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** `WorkloadRuntime` from the controller's options (their defaults: a 5 s poll, 1 s while busy). */
export function workloadRuntime<T extends KubeObject>(
  options: WorkloadControllerOptions,
): WorkloadRuntime<T> {
  return {
    now: options.now ?? (() => new Date()),
    poll: {
      pollMs: options.pollIntervalMs ?? 5000,
      busyMs: options.busyPollIntervalMs ?? 1000,
    },
    emit: (obj, type, reason, message) => options.events?.event(obj, type, reason, message),
  };
}
