// The CacheCluster controller's own gauges (besides the runtime's health metrics): the failover
// gauges every workload kind reports, from the clusters' status at each collection, per namespace.
// Registered on the controller with the builder's `gauges(...)`.
import { type CacheCluster } from '@steward/cache-cluster-api';
import { type NamespaceGauge } from '@steward/telemetry';
import { failoverGauges } from '@steward/workload';

/**
 * `steward_failovers`, `steward_failovers_in_progress`, `steward_failover_possible_loss_bytes`
 * (the newest failovers' bytesPossiblyLost) and `steward_failover_loss_unknown` (dataLossRisk
 * Unknown), with `kind="CacheCluster"`.
 */
export const cacheClusterGauges: readonly NamespaceGauge<CacheCluster>[] = failoverGauges(
  (c: CacheCluster) => c.status,
);
