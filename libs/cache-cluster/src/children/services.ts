import { CACHE_PORT } from '@steward/cache-cluster-api';
import { renderRoleServices } from '@steward/workload';
import { childMeta, clusterName, clusterSelector, Labels, Roles } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The Services of a CacheCluster:
 * - `<name>-headless`, the StatefulSet's serviceName: a stable DNS name per pod
 *   (`<pod>.<name>-headless`), published before the pod is ready — replicas must reach a primary
 *   that the readiness probe does not yet pass, and the controller addresses pods by it;
 * - `<name>-rw`: the pod the controller labelled primary;
 * - `<name>-ro`: the pods the controller labelled replica (none in Standalone).
 */
export function renderServices(input: RenderInput): {
  headless: ChildObject;
  readWrite: ChildObject;
  readOnly: ChildObject;
} {
  const name = clusterName(input.cluster);
  return renderRoleServices(
    childMeta(input.cluster),
    childNames(name),
    clusterSelector(name),
    { label: Labels.role, primary: Roles.primary, replica: Roles.replica },
    { name: 'redis', port: CACHE_PORT },
  );
}
