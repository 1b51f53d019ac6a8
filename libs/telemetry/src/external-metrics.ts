import { trace, type Meter, type Tracer } from '@opentelemetry/api';
import { withChildSpan } from './child-span.js';

/** How a call to an external system ended, as labelled in `steward_external_requests_total`. */
export type ExternalRequestResult = 'success' | 'error';

/** `steward_external_requests_total{provider,operation,result}`: calls to clouds and backends. */
export interface ExternalMetrics {
  /**
   * Called once per call to an external API (one per attempt, so retries count), after it ended.
   * `provider` is e.g. `aws`, `gcp`, `kafka`; `operation` the API call, e.g. `CreateDBInstance`.
   */
  request(provider: string, operation: string, result: ExternalRequestResult): void;
  /** The tracer {@link externalCall} traces with; default the global provider's. */
  readonly tracer?: Tracer;
}

/** Records {@link ExternalMetrics} on `meter`; {@link externalCall} traces with `tracer`. */
export function externalMetrics(meter: Meter, tracer?: Tracer): ExternalMetrics {
  const requests = meter.createCounter('steward_external_requests_total', {
    description:
      'Number of calls to external systems, partitioned by provider, operation and result.',
  });
  return {
    request(provider, operation, result) {
      requests.add(1, { operation, provider, result });
    },
    ...(tracer ? { tracer } : {}),
  };
}

/** {@link ExternalMetrics} that records nothing. */
export const noopExternalMetrics: ExternalMetrics = { request: () => undefined };

/**
 * Runs one call to an external system: counted in `metrics` as success or error, and — inside a
 * span (a reconcile's) — traced as a child span `<provider> <operation>` (`aws CreateDBInstance`)
 * with `steward.provider` and `rpc.method`, its error recorded. Rethrows what `call` throws.
 */
export async function externalCall<R>(
  metrics: ExternalMetrics | undefined,
  provider: string,
  operation: string,
  call: () => Promise<R>,
): Promise<R> {
  const counted = async (): Promise<R> => {
    try {
      const result = await call();
      metrics?.request(provider, operation, 'success');
      return result;
    } catch (error) {
      metrics?.request(provider, operation, 'error');
      throw error;
    }
  };
  if (!trace.getActiveSpan()) return counted();
  return withChildSpan(
    metrics?.tracer ?? trace.getTracer('steward'),
    `${provider} ${operation}`,
    { 'steward.provider': provider, 'rpc.method': operation },
    counted,
  );
}
