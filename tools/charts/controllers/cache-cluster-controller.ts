// What the cache-cluster-controller chart has besides the common dashboard and values schema: the
// kubernetes ProviderProfiles its process manages, its dashboard's failover row (from the failover
// gauges the controller computes from the clusters' status: libs/cache-cluster/src/metrics.ts) and
// the alerts on them, and the values only it has (the fast poll of Redis servers while something
// moves, the default profile). ioredis calls are not counted in steward_external_requests_total.
import { type ControllerAdditions } from '../controller-chart.js';
import { failoverAlerts } from '../alerts.js';
import { failoverRow } from '../dashboard.js';

export const additions: ControllerAdditions = {
  providers: ['kubernetes'],
  dashboard: {
    tags: ['cache', 'redis'],
    rows: [failoverRow({ kind: 'CacheCluster', lossUnit: 'bytes of the replication stream' })],
  },
  alerts: failoverAlerts,
  values: {
    properties: {
      busyPollIntervalSeconds: {
        description:
          'STEWARD_BUSY_POLL_INTERVAL_SECONDS: how often a CacheCluster whose servers are moving is looked at.',
        type: 'integer',
        minimum: 1,
        maximum: 3600,
      },
      defaultProviderProfile: {
        description:
          'STEWARD_DEFAULT_PROVIDER_PROFILE: the kubernetes ProviderProfile of CacheClusters that name none; empty: none.',
        type: 'string',
        maxLength: 253,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$',
      },
    },
    required: ['busyPollIntervalSeconds', 'defaultProviderProfile'],
  },
};
