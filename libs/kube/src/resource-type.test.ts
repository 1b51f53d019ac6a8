import { describe, expect, it } from 'vitest';
import {
  ConfigMaps,
  CoreEvents,
  CustomResourceDefinitions,
  Events,
  Leases,
  Namespaces,
  PersistentVolumeClaims,
  PodDisruptionBudgets,
  Pods,
  RoleBindings,
  Roles,
  Secrets,
  ServiceAccounts,
  Services,
  StatefulSets,
} from './built-in-types.js';
import { apiPath, apiVersionOf, type ResourceType } from './resource-type.js';

const Gadgets: ResourceType = {
  group: 'kube.steward.dev',
  version: 'v1alpha1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

describe('apiPath', () => {
  it.each([
    [ConfigMaps, {}, '/api/v1/configmaps'],
    [ConfigMaps, { namespace: 'db' }, '/api/v1/namespaces/db/configmaps'],
    [ConfigMaps, { namespace: 'db', name: 'cfg' }, '/api/v1/namespaces/db/configmaps/cfg'],
    [Namespaces, { name: 'db' }, '/api/v1/namespaces/db'],
    [Namespaces, { name: 'db', subresource: 'finalize' }, '/api/v1/namespaces/db/finalize'],
    [Namespaces, { namespace: 'ignored', name: 'db' }, '/api/v1/namespaces/db'],
    [StatefulSets, { namespace: 'db', name: 'pg' }, '/apis/apps/v1/namespaces/db/statefulsets/pg'],
    [
      StatefulSets,
      { namespace: 'db', name: 'pg', subresource: 'scale' },
      '/apis/apps/v1/namespaces/db/statefulsets/pg/scale',
    ],
    [
      Gadgets,
      { namespace: 'db', name: 'g', subresource: 'status' },
      '/apis/kube.steward.dev/v1alpha1/namespaces/db/gadgets/g/status',
    ],
    [Gadgets, {}, '/apis/kube.steward.dev/v1alpha1/gadgets'],
    [
      CustomResourceDefinitions,
      { name: 'gadgets.kube.steward.dev' },
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.kube.steward.dev',
    ],
    [ConfigMaps, { namespace: 'a b', name: 'x/y' }, '/api/v1/namespaces/a%20b/configmaps/x%2Fy'],
  ])('%s %o → %s', (rt, options, path) => {
    expect(apiPath(rt, options)).toBe(path);
  });

  it('refuses a subresource without a name, and empty names or namespaces', () => {
    expect(() => apiPath(Gadgets, { namespace: 'db', subresource: 'status' })).toThrow(TypeError);
    expect(() => apiPath(Gadgets, { namespace: 'db', name: '' })).toThrow(TypeError);
    expect(() => apiPath(Gadgets, { namespace: '' })).toThrow(TypeError);
  });
});

describe('apiVersionOf', () => {
  it('is the bare version for the core group and group/version otherwise', () => {
    expect(apiVersionOf(ConfigMaps)).toBe('v1');
    expect(apiVersionOf(Leases)).toBe('coordination.k8s.io/v1');
    expect(apiVersionOf(Gadgets)).toBe('kube.steward.dev/v1alpha1');
  });
});

describe('built-in resource types', () => {
  it.each([
    [ConfigMaps, 'v1', 'ConfigMap', '/api/v1/namespaces/n/configmaps'],
    [Secrets, 'v1', 'Secret', '/api/v1/namespaces/n/secrets'],
    [Services, 'v1', 'Service', '/api/v1/namespaces/n/services'],
    [Pods, 'v1', 'Pod', '/api/v1/namespaces/n/pods'],
    [
      PersistentVolumeClaims,
      'v1',
      'PersistentVolumeClaim',
      '/api/v1/namespaces/n/persistentvolumeclaims',
    ],
    [ServiceAccounts, 'v1', 'ServiceAccount', '/api/v1/namespaces/n/serviceaccounts'],
    [CoreEvents, 'v1', 'Event', '/api/v1/namespaces/n/events'],
    [Events, 'events.k8s.io/v1', 'Event', '/apis/events.k8s.io/v1/namespaces/n/events'],
    [Leases, 'coordination.k8s.io/v1', 'Lease', '/apis/coordination.k8s.io/v1/namespaces/n/leases'],
    [StatefulSets, 'apps/v1', 'StatefulSet', '/apis/apps/v1/namespaces/n/statefulsets'],
    [
      PodDisruptionBudgets,
      'policy/v1',
      'PodDisruptionBudget',
      '/apis/policy/v1/namespaces/n/poddisruptionbudgets',
    ],
    [
      Roles,
      'rbac.authorization.k8s.io/v1',
      'Role',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/n/roles',
    ],
    [
      RoleBindings,
      'rbac.authorization.k8s.io/v1',
      'RoleBinding',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/n/rolebindings',
    ],
    [Namespaces, 'v1', 'Namespace', '/api/v1/namespaces'],
    [
      CustomResourceDefinitions,
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    ],
  ])('%o is %s %s at %s', (rt, apiVersion, kind, path) => {
    expect(apiVersionOf(rt)).toBe(apiVersion);
    expect(rt.kind).toBe(kind);
    expect(apiPath(rt, { namespace: 'n' })).toBe(path);
    expect(Object.isFrozen(rt)).toBe(true);
  });
});
