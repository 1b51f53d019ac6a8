import { type Meter } from '@opentelemetry/api';

/** client-go's `rest_client_requests_total{code,method,host}`, as controller-runtime exports it. */
export interface RestClientMetrics {
  /**
   * Called once per HTTP request to the Kubernetes API, after the response status is known. `code`
   * is the HTTP status; pass `'<error>'` when no response arrived, as client-go does. `method` is
   * the HTTP method in upper case; `host` is the API server's `host:port`.
   */
  request(method: string, code: number | string, host: string): void;
}

/** Records {@link RestClientMetrics} on `meter`. */
export function restClientMetrics(meter: Meter): RestClientMetrics {
  const requests = meter.createCounter('rest_client_requests_total', {
    description: 'Number of HTTP requests, partitioned by status code, method, and host.',
  });
  return {
    request(method, code, host) {
      requests.add(1, { code: String(code), host, method: method.toUpperCase() });
    },
  };
}

/** {@link RestClientMetrics} that records nothing. */
export const noopRestClientMetrics: RestClientMetrics = { request: () => undefined };
