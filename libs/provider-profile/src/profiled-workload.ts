import {
  type Controller,
  type Manager,
  type ObjectReconciler,
  type ObjectWithStatus,
} from '@steward/controller';
import { type KubeClient, type KubeObject, type ResourceType } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { type NamespaceGauge } from '@steward/telemetry';
import {
  wireWorkload,
  WorkloadChildKinds,
  type ClaimObject,
  type WorkloadChildren,
  type WorkloadControllerOptions,
  type WorkloadWiring,
  type WorkloadWiringSpec,
} from '@steward/workload';
import { type NamespaceFacts } from './namespace-access.js';
import { namespaceDirectory } from './namespace-directory.js';
import { type ProfileUser } from './users.js';
import { type ProfileReferrer } from './workload-profiles.js';

/** What every workload kind's reconciler reads from its controller's caches (a kind adds its clients). */
export interface WorkloadReconcilerDeps<P extends KubeObject, O extends WorkloadControllerOptions> {
  client: KubeClient;
  children: WorkloadChildren;
  /** The pods of one object, by its cluster label. */
  pods: (namespace: string, name: string) => P[];
  /** The claims of one object's pods, by its cluster label. */
  claims: (namespace: string, name: string) => ClaimObject[];
  /** Whether a node is cordoned (the wiring's `watchNodes`; else always false). */
  nodeCordoned: (nodeName: string) => boolean;
  profile: (name: string) => ProviderProfile | undefined;
  /** The namespace's name and labels, for the profile's namespace binding. */
  namespace: (name: string) => NamespaceFacts;
  options: O;
}

/** A workload kind's wiring, less what every profiled kind sets the same way. */
export type ProfiledWorkloadSpec<T extends KubeObject> = Omit<
  WorkloadWiringSpec<T>,
  'references' | 'childKinds' | 'fieldManager' | 'maxConcurrentReconciles' | 'fairness'
> & {
  /**
   * The kinds of children it keeps (cached by the cluster label: its RBAC must list and watch
   * each). Default `WorkloadChildKinds`; a kind without Secrets leaves them out, and so needs no
   * Secret rights.
   */
  childKinds?: readonly ResourceType[];
  /** The profile index's name (e.g. `cache.steward.dev/profile`). */
  profileIndex: string;
  /** The field manager when the options name none (the app's name). */
  defaultFieldManager: string;
};

/** `wireProfiledWorkload`'s result: the wiring, the deps every reconciler takes, and the last step. */
export interface ProfiledWorkload<T extends KubeObject, P extends KubeObject, O> {
  wiring: WorkloadWiring<T, P>;
  deps: WorkloadReconcilerDeps<P, O & WorkloadControllerOptions>;
  /** Stops `close` with the manager (a domain's server connections). */
  closeOnStop(name: string, close: () => Promise<void> | void): void;
  /** Watches the namespaces' labels (the profile's binding), adds the kind's gauges, completes. */
  complete<R extends T & ObjectWithStatus>(
    reconciler: ObjectReconciler<R>,
    gauges: readonly NamespaceGauge<R>[],
  ): Controller;
}

/**
 * The wiring every in-cluster kind that runs on a kubernetes ProviderProfile needs (`wireWorkload`
 * with the profile it names indexed and watched, the namespace's labels watched for the profile's
 * namespace binding), and the cache readers its reconciler takes. One place, so that the next
 * workload kind starts from here.
 */
export function wireProfiledWorkload<
  T extends KubeObject & ProfileReferrer,
  P extends KubeObject,
  O extends WorkloadControllerOptions,
>(manager: Manager, options: O, spec: ProfiledWorkloadSpec<T>): ProfiledWorkload<T, P, O> {
  const profiles = manager.informers.informerFor<ProviderProfile>(ProviderProfile.resourceType);
  const namespaces = namespaceDirectory(manager);
  const { profileIndex, defaultFieldManager, childKinds, ...rest } = spec;
  const wiring = wireWorkload<T, P>(manager, {
    ...rest,
    ...(options.selection && !rest.selection ? { selection: options.selection } : {}),
    childKinds: childKinds ?? WorkloadChildKinds,
    fieldManager: options.fieldManager ?? defaultFieldManager,
    references: {
      resourceType: ProviderProfile.resourceType,
      index: profileIndex,
      nameOf: (obj) => obj.spec.providerProfileRef?.name ?? options.defaultProfile,
    },
    maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4,
    ...(options.fairness ? { fairness: options.fairness } : {}),
  });
  const namespaceWatch = namespaces.watchFor(wiring.objects);
  return {
    wiring,
    deps: {
      client: manager.client,
      children: wiring.children,
      pods: wiring.podsOf,
      claims: wiring.claimsOf,
      nodeCordoned: wiring.nodeCordoned,
      profile: (name) => profiles.store.get(name),
      namespace: (name) => namespaces.facts(name),
      options,
    },
    closeOnStop(name, close) {
      manager.add({ name, needsLeaderElection: false, stop: async () => close() });
    },
    complete(reconciler, gauges) {
      return wiring.builder
        .watches(namespaceWatch.resourceType, namespaceWatch.map, {
          predicates: namespaceWatch.predicates,
        })
        .gauges(...gauges)
        .completeObjects(reconciler);
    },
  };
}

/**
 * A workload kind's objects as users of ProviderProfiles (for `status.usedBy` and the in-use
 * finalizer): the profile each names, or the default profile when it names none.
 */
export function workloadProfileUsers<T extends KubeObject & ProfileReferrer>(
  resourceType: ResourceType,
  defaultProfile?: string,
): ProfileUser<T> {
  return {
    resourceType,
    profileNameOf: (obj) => obj.spec.providerProfileRef?.name ?? defaultProfile,
  };
}
