import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import { renderPolicies as render } from '@steward/workload';
import { childMeta, childNames, clusterName, clusterSelector } from './names.js';
import { BackupLabels } from '../backup/layout.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The PodDisruptionBudgets — with more than one instance, `<name>-primary`: the primary (and both
 * ends of a switchover under way, `EvictionProtectedLabel`) is never evicted, a drain waits for the
 * switchover that moves it off the node; `<name>`: at most one other instance evicted at a time;
 * a single instance has `<name>` alone and can still be drained — and the NetworkPolicy `<name>`: the instances accept connections on 5432 only from the cluster's own
 * instances (replication, cloning, rewinding), its backup Jobs' pods, a major upgrade's
 * dump-and-restore Job, the controller's pods (`input.controller`) and `spec.clients` (pods
 * matching podSelector — all when absent — in the namespaces matching namespaceSelector, or in the
 * cluster's namespace). Egress is not restricted.
 */
export function renderPolicies(input: RenderInput): {
  podDisruptionBudget: ChildObject;
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
} {
  const { cluster, controller } = input;
  const name = clusterName(cluster);
  const pods: Record<string, string>[] = [];
  // The backup Jobs' pods (pg_basebackup from the primary).
  if (cluster.spec.backup) pods.push({ [BackupLabels.backupOf]: name });
  // A major upgrade's dump-and-restore Job (reads the old primary, writes the new one).
  if (cluster.spec.upgrade?.approvedVersion || cluster.status?.upgrade)
    pods.push({ [BackupLabels.upgradeOf]: name });
  return render(
    childMeta(cluster),
    childNames(name),
    clusterSelector(name),
    POSTGRES_PORT,
    {
      pods,
      ...(controller ? { controller } : {}),
      ...(cluster.spec.clients ? { clients: cluster.spec.clients } : {}),
    },
    cluster.spec.replicas ?? 1,
  );
}
