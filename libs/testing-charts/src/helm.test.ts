import { describe, expect, it } from 'vitest';
import { chartRbac, manifestOf, resourcePath, type Manifest } from './helm.js';

const labels = { 'app.kubernetes.io/name': 'demo' };

function role(
  kind: 'ClusterRole' | 'Role',
  name: string,
  rules: unknown[],
  namespace?: string,
): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, labels, ...(namespace ? { namespace } : {}) },
    rules,
  };
}

function binding(
  kind: 'ClusterRoleBinding' | 'RoleBinding',
  roleKind: 'ClusterRole' | 'Role',
  name: string,
  namespace?: string,
  subject = { kind: 'ServiceAccount', name: 'demo', namespace: 'steward-system' },
): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name },
    subjects: [subject],
  };
}

const rendered: Manifest[] = [
  role('ClusterRole', 'cluster', [
    { apiGroups: ['demo.steward.dev'], resources: ['widgets'], verbs: ['get', 'list'] },
    { apiGroups: ['demo.steward.dev'], resources: ['*/status'], verbs: ['patch'] },
  ]),
  binding('ClusterRoleBinding', 'ClusterRole', 'cluster'),
  role(
    'Role',
    'leases',
    [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['demo-leader'],
        verbs: ['get', 'update'],
      },
    ],
    'steward-system',
  ),
  binding('RoleBinding', 'Role', 'leases', 'steward-system'),
  // A RoleBinding to a ClusterRole grants its rules in the binding's namespace only.
  role('ClusterRole', 'secrets-reader', [
    { apiGroups: [''], resources: ['secrets'], verbs: ['*'] },
  ]),
  binding('RoleBinding', 'ClusterRole', 'secrets-reader', 'team-a'),
];

describe('chartRbac', () => {
  const rbac = chartRbac(rendered);

  it('names the one ServiceAccount the bindings grant to', () => {
    expect(rbac.subject).toEqual({ namespace: 'steward-system', name: 'demo' });
  });

  it('collects each bound role’s rules with where they apply', () => {
    expect(rbac.rules.map((r) => [r.roleKind, r.roleName, r.namespace])).toEqual([
      ['ClusterRole', 'cluster', undefined],
      ['ClusterRole', 'cluster', undefined],
      ['Role', 'leases', 'steward-system'],
      ['ClusterRole', 'secrets-reader', 'team-a'],
    ]);
  });

  it.each([
    { verb: 'list', group: 'demo.steward.dev', resource: 'widgets', allowed: true },
    { verb: 'list', group: 'demo.steward.dev', resource: 'widgets', namespace: 'x', allowed: true },
    { verb: 'watch', group: 'demo.steward.dev', resource: 'widgets', allowed: false },
    { verb: 'get', group: 'other.dev', resource: 'widgets', allowed: false },
    { verb: 'patch', group: 'demo.steward.dev', resource: 'widgets/status', allowed: true },
    { verb: 'patch', group: 'demo.steward.dev', resource: 'widgets', allowed: false },
    {
      verb: 'get',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'steward-system',
      name: 'demo-leader',
      allowed: true,
    },
    {
      verb: 'get',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'steward-system',
      name: 'other',
      allowed: false,
    },
    {
      verb: 'get',
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'default',
      name: 'demo-leader',
      allowed: false,
    },
    { verb: 'delete', group: '', resource: 'secrets', namespace: 'team-a', allowed: true },
    { verb: 'delete', group: '', resource: 'secrets', namespace: 'team-b', allowed: false },
    { verb: 'get', group: '', resource: 'secrets', allowed: false },
  ])(
    'answers $verb $group/$resource in $namespace ($name) with $allowed',
    ({ allowed, ...request }) => {
      expect(rbac.allows(request)).toBe(allowed);
    },
  );

  it('refuses bindings to several ServiceAccounts', () => {
    const other = { kind: 'ServiceAccount', name: 'other', namespace: 'steward-system' };
    expect(() =>
      chartRbac([...rendered, binding('ClusterRoleBinding', 'ClusterRole', 'cluster', '', other)]),
    ).toThrow('expected bindings to one ServiceAccount');
  });

  it('refuses a binding to a role that was not rendered', () => {
    expect(() =>
      chartRbac([...rendered, binding('RoleBinding', 'Role', 'missing', 'steward-system')]),
    ).toThrow('RoleBinding missing references Role missing, which was not rendered');
  });
});

describe('manifestOf', () => {
  it('answers the one object of a kind (and name)', () => {
    expect(manifestOf(rendered, 'Role').metadata.name).toBe('leases');
    expect(manifestOf(rendered, 'ClusterRole', 'cluster').metadata.name).toBe('cluster');
  });

  it('throws when there is none or more than one', () => {
    expect(() => manifestOf(rendered, 'Deployment')).toThrow('expected one Deployment, rendered 0');
    expect(() => manifestOf(rendered, 'ClusterRole')).toThrow(
      'expected one ClusterRole, rendered 2',
    );
  });
});

describe('resourcePath', () => {
  const widgets = {
    group: 'demo.steward.dev',
    version: 'v1',
    kind: 'Widget',
    plural: 'widgets',
    namespaced: true,
  };
  const namespaces = { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces' };

  it.each([
    [widgets, undefined, undefined, '/apis/demo.steward.dev/v1/widgets'],
    [widgets, 'team-a', undefined, '/apis/demo.steward.dev/v1/namespaces/team-a/widgets'],
    [widgets, 'team-a', 'w1', '/apis/demo.steward.dev/v1/namespaces/team-a/widgets/w1'],
    [{ ...namespaces, namespaced: false }, 'ignored', 'team-a', '/api/v1/namespaces/team-a'],
  ])('builds the path of %o in %s named %s: %s', (resource, namespace, name, path) => {
    expect(resourcePath(resource, namespace, name)).toBe(path);
  });
});
