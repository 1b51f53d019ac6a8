import { CACHE_PORT } from '@steward/cache-cluster-api';
import { renderClusterIpService, renderHeadlessService as headless } from '@steward/workload';
import {
  clusterName,
  clusterNamespace,
  clusterSelector,
  commonLabels,
  Labels,
  type Role,
  Roles,
} from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

const port = { name: 'redis', port: CACHE_PORT };
const metaOf = (input: RenderInput) => ({
  namespace: clusterNamespace(input.cluster),
  labels: commonLabels(input.cluster),
});

/**
 * The headless Service `<name>-headless`, the StatefulSet's serviceName: a stable DNS name per pod
 * (`<pod>.<name>-headless`), published before the pod is ready — replicas must reach a primary
 * that the readiness probe does not yet pass, and the controller addresses pods by it.
 */
export function renderHeadlessService(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return headless(metaOf(input), childNames(name).headless, clusterSelector(name), port);
}

/** `<name>-rw`: the pod the controller labelled primary. */
export function renderReadWriteService(input: RenderInput): ChildObject {
  return roleService(input, childNames(clusterName(input.cluster)).readWrite, Roles.primary);
}

/** `<name>-ro`: the pods the controller labelled replica (none in Standalone). */
export function renderReadOnlyService(input: RenderInput): ChildObject {
  return roleService(input, childNames(clusterName(input.cluster)).readOnly, Roles.replica);
}

function roleService(input: RenderInput, serviceName: string, role: Role): ChildObject {
  const selector = { ...clusterSelector(clusterName(input.cluster)), [Labels.role]: role };
  return renderClusterIpService(metaOf(input), serviceName, selector, port);
}
