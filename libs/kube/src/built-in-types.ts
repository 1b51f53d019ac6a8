import { type ResourceType } from './resource-type.js';

function builtIn(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
): ResourceType {
  return Object.freeze({ group, version, kind, plural, namespaced });
}

/** Descriptors of the built-in kinds Steward's controllers read or write. */
export const ConfigMaps = builtIn('', 'v1', 'ConfigMap', 'configmaps', true);
export const Secrets = builtIn('', 'v1', 'Secret', 'secrets', true);
export const Services = builtIn('', 'v1', 'Service', 'services', true);
export const Namespaces = builtIn('', 'v1', 'Namespace', 'namespaces', false);
export const Pods = builtIn('', 'v1', 'Pod', 'pods', true);
export const Nodes = builtIn('', 'v1', 'Node', 'nodes', false);
export const PersistentVolumeClaims = builtIn(
  '',
  'v1',
  'PersistentVolumeClaim',
  'persistentvolumeclaims',
  true,
);
export const ServiceAccounts = builtIn('', 'v1', 'ServiceAccount', 'serviceaccounts', true);
/** The core `v1` Event (what `kubectl describe` shows); see `Events` for events.k8s.io/v1. */
export const CoreEvents = builtIn('', 'v1', 'Event', 'events', true);
/** `events.k8s.io/v1` Event, the API new event recorders write. */
export const Events = builtIn('events.k8s.io', 'v1', 'Event', 'events', true);
export const Leases = builtIn('coordination.k8s.io', 'v1', 'Lease', 'leases', true);
export const StatefulSets = builtIn('apps', 'v1', 'StatefulSet', 'statefulsets', true);
export const PodDisruptionBudgets = builtIn(
  'policy',
  'v1',
  'PodDisruptionBudget',
  'poddisruptionbudgets',
  true,
);
export const NetworkPolicies = builtIn(
  'networking.k8s.io',
  'v1',
  'NetworkPolicy',
  'networkpolicies',
  true,
);
export const Jobs = builtIn('batch', 'v1', 'Job', 'jobs', true);
export const CustomResourceDefinitions = builtIn(
  'apiextensions.k8s.io',
  'v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
export const Roles = builtIn('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true);
export const RoleBindings = builtIn(
  'rbac.authorization.k8s.io',
  'v1',
  'RoleBinding',
  'rolebindings',
  true,
);
