import { type IncomingMessage, type ServerResponse } from 'node:http';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { type MetricReader } from '@opentelemetry/sdk-metrics';

/** A `node:http` request handler; mount it wherever the server routes `/metrics`. */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** The content type Prometheus' Go client serves its text exposition format with. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Serves a scrape of `reader` in the Prometheus text format, with metric names exactly as the
 * instruments are named: no `otel_scope_*` labels and no `target_info` family, as a Go
 * controller's `/metrics` has neither (the resource still reaches OTLP). Answers `GET` and `HEAD`;
 * other methods get 405, and a failed collection (e.g. after shutdown) gets 503. Errors reported by
 * individual callbacks do not fail the scrape; they go to `onCollectionErrors`.
 */
export function prometheusMetricsHandler(
  reader: MetricReader,
  onCollectionErrors: (errors: unknown[]) => void = () => undefined,
): MetricsHandler {
  const serializer = new PrometheusSerializer('', false, undefined, true, true);
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    reader.collect().then(
      ({ resourceMetrics, errors }) => {
        if (errors.length > 0) onCollectionErrors(errors);
        const body = serializer.serialize(resourceMetrics);
        response.writeHead(200, {
          'content-type': PROMETHEUS_TEXT_CONTENT_TYPE,
          'content-length': Buffer.byteLength(body),
        });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        response
          .writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
          .end(
            `metrics collection failed: ${error instanceof Error ? error.message : 'unknown'}\n`,
          );
      },
    );
  };
}
