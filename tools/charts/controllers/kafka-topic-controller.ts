// What the kafka-topic-controller chart has besides the common dashboard and values schema: the
// Kafka admin API calls (`provider="kafka"`), on its dashboard.
import { type ControllerAdditions } from '../controller-chart.js';
import { externalRequestPanels } from '../dashboard.js';
import { equals } from '../promql.js';

export const additions: ControllerAdditions = {
  providers: ['kafka'],
  dashboard: {
    tags: ['kafka'],
    external: {
      calls: 'Kafka admin API',
      row: 'Kafka',
      panels: externalRequestPanels({
        matchers: [equals('provider', 'kafka')],
        requests: {
          title: 'Kafka admin API calls',
          description:
            'steward_external_requests_total{provider="kafka"}: calls to the Kafka admin API by operation and result (each retry counts).',
          by: ['operation', 'result'],
        },
        errorRatio: {
          title: 'Kafka admin API error ratio',
          description: 'Share of Kafka admin API calls that failed, per operation.',
          by: ['operation'],
        },
      }),
    },
  },
};
