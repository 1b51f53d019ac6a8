import { labelsChanged, type Manager, type MapFunc } from '@steward/controller';
import { byNamespace, objectKey, type Informer } from '@steward/informer';
import { Namespaces, type KubeObject, type ResourceType } from '@steward/kube';
import { type NamespaceFacts } from './namespace-access.js';

/** The index a kind's cache gets so a namespace's change finds the objects in it. */
export const ByNamespaceIndex = 'steward.dev/namespace';

/**
 * The namespaces a controller checks its objects' profiles against (`profileAllowsNamespace`):
 * one shared, cluster-wide informer of Namespaces (labels are what `spec.namespaceSelector`
 * reads), and the watch that wakes a kind's objects when their namespace's labels change.
 *
 * RBAC: `namespaces` get/list/watch (cluster-scoped).
 */
export interface NamespaceDirectory {
  /** The name and, once cached, the labels of `name`. Pure lookup in the cache. */
  facts(name: string): NamespaceFacts;
  /**
   * For `builder.watches(Namespaces, map, { predicates })`: every object of `objects` in a
   * namespace whose labels changed (the controller then also waits for the namespace cache).
   */
  watchFor<T extends KubeObject>(
    objects: Informer<T>,
  ): { resourceType: ResourceType; map: MapFunc; predicates: [typeof labelsChanged] };
}

export function namespaceDirectory(manager: Manager): NamespaceDirectory {
  const namespaces = manager.informers.informerFor<KubeObject>(Namespaces);
  return {
    facts(name) {
      const ns = namespaces.store.get(name);
      return ns ? { name, labels: ns.metadata.labels ?? {} } : { name };
    },
    watchFor(objects) {
      try {
        objects.store.addIndexers({ [ByNamespaceIndex]: byNamespace });
      } catch {
        // Already added by another caller on this shared informer.
      }
      return {
        resourceType: Namespaces,
        map: (ns) => objects.store.byIndex(ByNamespaceIndex, ns.metadata.name ?? '').map(objectKey),
        predicates: [labelsChanged],
      };
    },
  };
}
