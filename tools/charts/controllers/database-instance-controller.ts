// What the database-instance-controller chart has besides the common dashboard and values schema:
// the cloud providers it calls (AWS RDS, GCP Cloud SQL), on its dashboard.
import { type ControllerAdditions } from '../controller-chart.js';
import { externalRequestPanels } from '../dashboard.js';

export const additions: ControllerAdditions = {
  providers: ['aws', 'gcp'],
  dashboard: {
    tags: ['database'],
    external: {
      calls: 'cloud provider',
      row: 'cloud providers',
      panels: externalRequestPanels({
        requests: {
          title: 'Provider API calls',
          description:
            'steward_external_requests_total: calls to AWS RDS and GCP Cloud SQL by provider, operation and result (each retry counts).',
          by: ['provider', 'operation', 'result'],
        },
        errorRatio: {
          title: 'Provider API error ratio',
          description: 'Share of provider calls that failed, per provider.',
          by: ['provider'],
        },
      }),
    },
  },
};
