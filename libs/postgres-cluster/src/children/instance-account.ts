import { childNames, clusterName, clusterNamespace, commonLabels, fenceLease } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The env variable that gives an instance agent its Lease (its presence: the pod fences itself). */
export const LeaseEnv = 'STEWARD_LEASE';

/** Where the instance agent finds its token and the API server's CA (a projected volume). */
export const FenceTokenDirectory = '/var/run/secrets/steward';

/** How long a projected token lives: the kubelet rotates it at 80 % (short-lived, audience-bound). */
export const FenceTokenSeconds = 3600;

/**
 * `<name>-instance`: the instances' own ServiceAccount, its Role and RoleBinding. The Role allows
 * `get` and `patch` of the cluster's fence Leases (by resourceName: the serving set's
 * `fenceLease(set)`, and during a major upgrade the other set's, `otherSets`) and nothing else:
 * the token in every instance's pod can renew its cluster's fence and do nothing else — not read
 * a Secret, not list a pod, not touch another cluster's Lease (docs/design/fencing.md).
 */
export function renderInstanceAccount(
  input: RenderInput,
  otherSets: string[] = [],
): {
  serviceAccount: ChildObject;
  role: ChildObject;
  roleBinding: ChildObject;
} {
  const name = clusterName(input.cluster);
  const names = childNames(name);
  const sets = [input.instanceSet ?? names.statefulSet, ...otherSets];
  const metadata = {
    name: names.instanceAccount,
    namespace: clusterNamespace(input.cluster),
    labels: commonLabels(input.cluster),
  };
  return {
    serviceAccount: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata,
      // The pods mount a projected token of their own (audience-bound, rotated), not the legacy one.
      automountServiceAccountToken: false,
    },
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata,
      rules: [
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [...new Set(sets.map(fenceLease))].sort(),
          verbs: ['get', 'patch'],
        },
      ],
    },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.instanceAccount },
      subjects: [
        { kind: 'ServiceAccount', name: names.instanceAccount, namespace: metadata.namespace },
      ],
    },
  };
}
