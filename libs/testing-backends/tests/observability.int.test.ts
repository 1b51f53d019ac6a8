/**
 * The observability pipeline of the test tier, for real: OTLP over HTTP into the OpenTelemetry
 * Collector (tools/otel-collector), metrics out through its Prometheus exporter into Prometheus
 * (Debian's package), traces into the collector's file. Nothing here is a fake.
 */
import { eventually } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOtelCollector,
  startPrometheus,
  type OtelCollector,
  type Prometheus,
} from '../src/index.js';

let collector: OtelCollector;
let prometheus: Prometheus;

beforeAll(async () => {
  collector = await startOtelCollector();
  prometheus = await startPrometheus({
    jobs: [{ name: 'otel-collector', targets: [collector.prometheusTarget], honorLabels: true }],
  });
}, 600_000);

afterAll(async () => {
  await prometheus?.stop();
  await collector?.stop();
});

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const nowNanos = () => `${BigInt(Date.now()) * 1_000_000n}`;

async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${collector.otlpEndpoint}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(200);
}

describe('the OpenTelemetry Collector and Prometheus', () => {
  it('carries an OTLP counter into a Prometheus series with its labels and value', async () => {
    const started = nowNanos();
    await post('/v1/metrics', {
      resourceMetrics: [
        {
          resource: {
            attributes: [str('service.name', 'probe'), str('service.instance.id', 'probe-1')],
          },
          scopeMetrics: [
            {
              scope: { name: 'observability.int.test' },
              metrics: [
                {
                  name: 'steward_probe_requests',
                  sum: {
                    aggregationTemporality: 2,
                    isMonotonic: true,
                    dataPoints: [
                      {
                        asInt: '3',
                        startTimeUnixNano: started,
                        timeUnixNano: nowNanos(),
                        attributes: [str('code', '429')],
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const series = await eventually(
      async () => {
        const result = await prometheus.query('steward_probe_requests_total{code="429"}');
        return result.length > 0 ? result : undefined;
      },
      { description: 'the counter in Prometheus', timeoutMs: 30_000 },
    );
    expect(series).toHaveLength(1);
    expect(series[0]!.metric).toMatchObject({ job: 'probe', instance: 'probe-1', code: '429' });
    expect(series[0]!.value[1]).toBe('3');
    const targets = await prometheus.targets();
    expect(targets).toEqual([
      expect.objectContaining({ job: 'otel-collector', health: 'up', lastError: '' }),
    ]);
  });

  it('writes an OTLP span into its traces file, parent and attributes kept', async () => {
    const traceId = '5b8efff798038103d269b633813fc60c';
    const span = (spanId: string, parentSpanId: string, name: string) => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      kind: 1,
      startTimeUnixNano: nowNanos(),
      endTimeUnixNano: nowNanos(),
      attributes: [str('k8s.resource.name', 'orders')],
      status: { code: 1 },
    });
    await post('/v1/traces', {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'probe')] },
          scopeSpans: [
            {
              scope: { name: 'observability.int.test' },
              spans: [
                span('eee19b7ec3c1b174', '', 'reconcile'),
                span('eee19b7ec3c1b175', 'eee19b7ec3c1b174', 'GET'),
              ],
            },
          ],
        },
      ],
    });
    const spans = await eventually(
      async () => {
        const all = (await collector.spans()).filter((s) => s.traceId === traceId);
        return all.length === 2 ? all : undefined;
      },
      { description: 'both spans in the traces file', timeoutMs: 30_000 },
    );
    const root = spans.find((s) => s.name === 'reconcile')!;
    const child = spans.find((s) => s.name === 'GET')!;
    expect(child.parentSpanId).toBe(root.spanId);
    expect(root.attributes['k8s.resource.name']).toBe('orders');
    expect(root.resource['service.name']).toBe('probe');
  });

  it('refuses a query Prometheus cannot parse, with its own error', async () => {
    await expect(prometheus.query('sum(rate(x[')).rejects.toThrow(/Prometheus refused.*parse/);
  });
});
