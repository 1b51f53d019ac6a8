import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import { renderClusterIpService, renderRoleServices } from '@steward/workload';
import { childMeta, childNames, clusterName, clusterSelector, Labels, Roles } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

const port = { name: 'postgresql', port: POSTGRES_PORT };

/**
 * The Services of a PostgresCluster:
 * - `<name>-headless`, the StatefulSet's serviceName: a DNS name per pod, ready or not;
 * - `<name>-rw`: the instance the controller labelled primary (never a fenced one) — while a
 *   major upgrade is under way, only the new instance set's (none before the switch: the old
 *   primary's writes are held);
 * - `<name>-ro`: the instances the controller labelled standby (streaming from the primary);
 * - `<name>-r`: any ready instance (reads that may be a little behind) — the primary alone while a
 *   major upgrade runs two instance sets (one of them not, or no longer, this cluster's data).
 */
export function renderServices(input: RenderInput): {
  headless: ChildObject;
  readWrite: ChildObject;
  readOnly: ChildObject;
  any: ChildObject;
} {
  const name = clusterName(input.cluster);
  const meta = childMeta(input.cluster);
  const names = childNames(name);
  const anySelector = input.primaryOnlyReads
    ? { ...clusterSelector(name), [Labels.role]: Roles.primary }
    : clusterSelector(name);
  const roles = renderRoleServices(
    meta,
    names,
    clusterSelector(name),
    { label: Labels.role, primary: Roles.primary, replica: Roles.standby },
    port,
  );
  return {
    ...roles,
    ...(input.readWriteSet
      ? {
          readWrite: renderClusterIpService(
            meta,
            names.readWrite,
            {
              ...clusterSelector(name),
              [Labels.role]: Roles.primary,
              [Labels.instanceSet]: input.readWriteSet,
            },
            port,
          ),
        }
      : {}),
    any: renderClusterIpService(meta, names.any, anySelector, port),
  };
}
