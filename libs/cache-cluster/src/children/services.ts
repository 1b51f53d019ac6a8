import { CACHE_PORT } from '@steward/cache-cluster-api';
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

const ports = [{ name: 'redis', port: CACHE_PORT, targetPort: 'redis', protocol: 'TCP' }];

/**
 * The headless Service `<name>-headless`, the StatefulSet's serviceName: a stable DNS name per pod
 * (`<pod>.<name>-headless`), published before the pod is ready — replicas must reach a primary
 * that the readiness probe does not yet pass, and the controller addresses pods by it.
 */
export function renderHeadlessService(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return service(input, childNames(name).headless, {
    clusterIP: 'None',
    publishNotReadyAddresses: true,
    selector: clusterSelector(name),
    ports,
  });
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
  return service(input, serviceName, {
    type: 'ClusterIP',
    selector: { ...clusterSelector(clusterName(input.cluster)), [Labels.role]: role },
    ports,
  });
}

function service(input: RenderInput, name: string, spec: Record<string, unknown>): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    spec,
  };
}
