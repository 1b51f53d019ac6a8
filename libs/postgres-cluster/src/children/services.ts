import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import {
  childNames,
  clusterName,
  clusterNamespace,
  clusterSelector,
  commonLabels,
  Labels,
  type Role,
  Roles,
} from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

const ports = [
  { name: 'postgresql', port: POSTGRES_PORT, targetPort: 'postgresql', protocol: 'TCP' },
];

/** `<name>-headless`, the StatefulSet's serviceName: a DNS name per pod, ready or not. */
export function renderHeadlessService(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return service(input, childNames(name).headless, {
    clusterIP: 'None',
    publishNotReadyAddresses: true,
    selector: clusterSelector(name),
    ports,
  });
}

/** `<name>-rw`: the instance the controller labelled primary (never a fenced one). */
export function renderReadWriteService(input: RenderInput): ChildObject {
  return roleService(input, childNames(clusterName(input.cluster)).readWrite, Roles.primary);
}

/** `<name>-ro`: the instances the controller labelled standby (streaming from the primary). */
export function renderReadOnlyService(input: RenderInput): ChildObject {
  return roleService(input, childNames(clusterName(input.cluster)).readOnly, Roles.standby);
}

/**
 * `<name>-r`: any ready instance (reads that may be a little behind) — the primary alone while a
 * major upgrade runs two instance sets (one of them not, or no longer, this cluster's data).
 */
export function renderAnyService(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return service(input, childNames(name).any, {
    type: 'ClusterIP',
    selector: input.primaryOnlyReads
      ? { ...clusterSelector(name), [Labels.role]: Roles.primary }
      : clusterSelector(name),
    ports,
  });
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
