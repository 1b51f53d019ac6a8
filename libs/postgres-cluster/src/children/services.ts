import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import { renderClusterIpService, renderHeadlessService as headless } from '@steward/workload';
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

const port = { name: 'postgresql', port: POSTGRES_PORT };
const metaOf = (input: RenderInput) => ({
  namespace: clusterNamespace(input.cluster),
  labels: commonLabels(input.cluster),
});

/** `<name>-headless`, the StatefulSet's serviceName: a DNS name per pod, ready or not. */
export function renderHeadlessService(input: RenderInput): ChildObject {
  const name = clusterName(input.cluster);
  return headless(metaOf(input), childNames(name).headless, clusterSelector(name), port);
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
  const selector = input.primaryOnlyReads
    ? { ...clusterSelector(name), [Labels.role]: Roles.primary }
    : clusterSelector(name);
  return renderClusterIpService(metaOf(input), childNames(name).any, selector, port);
}

function roleService(input: RenderInput, serviceName: string, role: Role): ChildObject {
  const selector = { ...clusterSelector(clusterName(input.cluster)), [Labels.role]: role };
  return renderClusterIpService(metaOf(input), serviceName, selector, port);
}
