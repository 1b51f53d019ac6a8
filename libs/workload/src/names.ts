import { type KubeObject } from '@steward/kube';

/**
 * The names and labels every workload kind's children derive from the object (pure). A kind adds
 * its own children's names (Secrets, further Services) to these.
 */

/** The uid and gid Steward's server images run as (tools/node-tier/images/versions.env SERVER_UID/GID). */
export const ServerUid = 999;
export const ServerGid = 999;

/** The names of the children every workload kind has, from `metadata.name`. */
export function workloadChildNames(name: string) {
  return {
    statefulSet: name,
    headless: `${name}-headless`,
    readWrite: `${name}-rw`,
    readOnly: `${name}-ro`,
    configMap: `${name}-config`,
    podDisruptionBudget: name,
    networkPolicy: name,
  };
}

/**
 * The labels on every child of a workload and on its pods (the role label aside): the
 * app.kubernetes.io set — `app` the server (e.g. postgresql), `component` its part (e.g.
 * database) — and `clusterLabel`, whose value is the object's name and which every selector uses.
 */
export function workloadLabels(
  app: string,
  component: string,
  clusterLabel: string,
  name: string,
): Record<string, string> {
  return {
    'app.kubernetes.io/name': app,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': 'steward',
    [clusterLabel]: name,
  };
}

/**
 * `metadata.name` of a stored workload object, which every rendered child needs: a `TypeError`
 * naming `lib` when it is missing (the caller passed what it made, not what the API server stored).
 */
export function storedName(obj: KubeObject, kind: string, lib: string): string {
  const name = obj.metadata.name;
  if (!name) throw new TypeError(`${lib}: a ${kind} without metadata.name`);
  return name;
}

/** `metadata.namespace` of a stored workload object (a namespaced kind: always set), as `storedName`. */
export function storedNamespace(obj: KubeObject, kind: string, lib: string): string {
  const namespace = obj.metadata.namespace;
  if (!namespace) throw new TypeError(`${lib}: a ${kind} without metadata.namespace`);
  return namespace;
}
