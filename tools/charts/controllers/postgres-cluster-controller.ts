// What the postgres-cluster-controller chart has besides the common dashboard and values schema: the
// kubernetes ProviderProfiles its process manages, and the values only it has (the fast poll of
// PostgreSQL instances while something moves, the default profile). Its controller exports no
// PostgreSQL-specific metrics yet (failovers are in status and Events, not counted), so its
// dashboard has the common rows only.
import { type ControllerAdditions } from '../controller-chart.js';

export const additions: ControllerAdditions = {
  providers: ['kubernetes'],
  dashboard: { tags: ['postgres', 'postgresql'] },
  values: {
    properties: {
      busyPollIntervalSeconds: {
        description:
          'STEWARD_BUSY_POLL_INTERVAL_SECONDS: how often a PostgresCluster whose instances are moving is looked at.',
        type: 'integer',
        minimum: 1,
        maximum: 3600,
      },
      defaultProviderProfile: {
        description:
          'STEWARD_DEFAULT_PROVIDER_PROFILE: the kubernetes ProviderProfile of PostgresClusters that name none; empty: none.',
        type: 'string',
        maxLength: 253,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$',
      },
    },
    required: ['busyPollIntervalSeconds', 'defaultProviderProfile'],
  },
};
