import { type Meter } from '@opentelemetry/api';

/** How a call to an external system ended, as labelled in `steward_external_requests_total`. */
export type ExternalRequestResult = 'success' | 'error';

/** `steward_external_requests_total{provider,operation,result}`: calls to clouds and backends. */
export interface ExternalMetrics {
  /**
   * Called once per call to an external API (one per attempt, so retries count), after it ended.
   * `provider` is e.g. `aws`, `gcp`, `kafka`; `operation` the API call, e.g. `CreateDBInstance`.
   */
  request(provider: string, operation: string, result: ExternalRequestResult): void;
}

/** Records {@link ExternalMetrics} on `meter`. */
export function externalMetrics(meter: Meter): ExternalMetrics {
  const requests = meter.createCounter('steward_external_requests_total', {
    description:
      'Number of calls to external systems, partitioned by provider, operation and result.',
  });
  return {
    request(provider, operation, result) {
      requests.add(1, { operation, provider, result });
    },
  };
}

/** {@link ExternalMetrics} that records nothing. */
export const noopExternalMetrics: ExternalMetrics = { request: () => undefined };
