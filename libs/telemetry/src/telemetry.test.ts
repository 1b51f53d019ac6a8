import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { controllerMetrics, createTelemetry, withReconcileSpan } from './index.js';

interface Received {
  path: string;
  contentType: string | undefined;
  body: Buffer;
}

/** The parts of an OTLP/HTTP JSON payload these tests read. */
interface OtlpResource {
  resource: { attributes: { key: string; value: { stringValue?: string } }[] };
  scopeSpans?: { spans?: { name: string }[] }[];
  scopeMetrics?: { metrics?: { name: string }[] }[];
}

function serviceName(resource: OtlpResource): string | undefined {
  return resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value
    .stringValue;
}

/** A real OTLP/HTTP receiver on loopback that records every request and answers 200. */
async function otlpReceiver(): Promise<{ endpoint: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}/`, received, server };
}

describe('createTelemetry', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    vi.unstubAllEnvs();
  });

  it('pushes spans and metrics over OTLP/HTTP when an endpoint is configured', async () => {
    const receiver = await otlpReceiver();
    cleanups.push(() => new Promise((resolve) => receiver.server.close(resolve)));
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      otlpEndpoint: receiver.endpoint,
      registerGlobal: false,
      log: { level: 'silent' },
    });
    await withReconcileSpan(
      telemetry.tracer,
      { controller: 'widget', kind: 'Widget', namespace: 'shop', name: 'blue' },
      async () => ({}),
    );
    controllerMetrics(telemetry.meter).reconcileFinished('widget', 'success', 0.1);

    await telemetry.shutdown();

    const paths = receiver.received.map((request) => request.path).sort();
    expect(paths).toEqual(['/v1/metrics', '/v1/traces']);
    const payload = (path: string) => {
      const request = receiver.received.find((received) => received.path === path)!;
      expect(request.contentType).toBe('application/json');
      return JSON.parse(request.body.toString('utf8')) as Record<string, OtlpResource[]>;
    };
    const [traces] = payload('/v1/traces')['resourceSpans']!;
    expect(serviceName(traces!)).toBe('widget-controller');
    expect(traces!.scopeSpans!.flatMap((scope) => scope.spans!.map((span) => span.name))).toEqual([
      'reconcile Widget',
    ]);
    const [metrics] = payload('/v1/metrics')['resourceMetrics']!;
    expect(serviceName(metrics!)).toBe('widget-controller');
    expect(
      metrics!.scopeMetrics!.flatMap((scope) => scope.metrics!.map((metric) => metric.name)),
    ).toContain('controller_runtime_reconcile_total');
  });

  it('takes the OTLP endpoint from OTEL_EXPORTER_OTLP_ENDPOINT when none is configured', async () => {
    const receiver = await otlpReceiver();
    cleanups.push(() => new Promise((resolve) => receiver.server.close(resolve)));
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.endpoint);
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    telemetry.tracer.startSpan('probe').end();
    await telemetry.shutdown();
    expect(receiver.received.map((request) => request.path)).toContain('/v1/traces');
  });

  it('describes the process in the resource, with OTEL_RESOURCE_ATTRIBUTES overriding', async () => {
    vi.stubEnv('OTEL_RESOURCE_ATTRIBUTES', 'deployment.environment.name=staging,team=data');
    const exporter = new InMemorySpanExporter();
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      serviceVersion: '1.2.3',
      resourceAttributes: { team: 'platform', 'k8s.namespace.name': 'steward-system' },
      registerGlobal: false,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      log: { level: 'silent' },
    });
    cleanups.push(() => telemetry.shutdown());
    telemetry.tracer.startSpan('probe').end();
    const attributes = exporter.getFinishedSpans()[0]!.resource.attributes;
    expect(attributes).toMatchObject({
      'service.name': 'widget-controller',
      'service.version': '1.2.3',
      'service.namespace': 'steward',
      'k8s.namespace.name': 'steward-system',
      'deployment.environment.name': 'staging',
      team: 'data',
      'telemetry.sdk.language': 'nodejs',
    });
    expect(attributes['service.instance.id']).toEqual(expect.any(String));
  });

  it('registers itself as the OTel global and releases the globals at shutdown', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      log: { level: 'silent' },
    });
    trace.getTracer('third-party').startSpan('via global').end();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['via global']);

    await telemetry.shutdown();
    expect(trace.getTracer('third-party').startSpan('after shutdown').isRecording()).toBe(false);

    // The globals are free again for the next instance.
    const next = new InMemorySpanExporter();
    const again = createTelemetry({
      serviceName: 'widget-controller',
      spanProcessors: [new SimpleSpanProcessor(next)],
      log: { level: 'silent' },
    });
    cleanups.push(() => again.shutdown());
    trace.getTracer('third-party').startSpan('second instance').end();
    expect(next.getFinishedSpans().map((span) => span.name)).toEqual(['second instance']);
  });

  it('keeps spans nesting across awaits until the last instance is shut down', async () => {
    const first = createTelemetry({
      serviceName: 'a',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    const second = createTelemetry({
      serviceName: 'b',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    const activeAfterAwait = () =>
      first.tracer.startActiveSpan('outer', async (span) => {
        await new Promise((resolve) => setImmediate(resolve));
        const active = trace.getSpan(context.active());
        span.end();
        return active === span;
      });
    expect(await activeAfterAwait()).toBe(true);
    await first.shutdown();
    expect(await activeAfterAwait()).toBe(true);
    await second.shutdown();
    expect(await activeAfterAwait()).toBe(false);
  });

  it('never rejects shutdown when the OTLP receiver is gone, and logs why', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '500');
    const receiver = await otlpReceiver();
    await new Promise((resolve) => receiver.server.close(resolve));
    const lines: Record<string, unknown>[] = [];
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      otlpEndpoint: receiver.endpoint,
      log: { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    });
    telemetry.tracer.startSpan('lost').end();
    controllerMetrics(telemetry.meter).reconcileFinished('widget', 'success', 0.1);
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'opentelemetry: export failed',
        err: expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }),
      }),
    );
  });

  it('serves a scrape even when a metric callback throws, and logs the error', async () => {
    const lines: Record<string, unknown>[] = [];
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    });
    cleanups.push(() => telemetry.shutdown());
    controllerMetrics(telemetry.meter).controllerStarted('widget', 1);
    telemetry.meter.createObservableGauge('broken').addCallback(() => {
      throw new Error('callback failed');
    });
    const server = createServer(telemetry.metricsHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(
      'controller_runtime_max_concurrent_reconciles{controller="widget"} 1',
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'telemetry: metric collection reported errors',
      }),
    );
  });

  it('shuts down once, however often it is asked', async () => {
    const telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    const first = telemetry.shutdown();
    expect(telemetry.shutdown()).toBe(first);
    await expect(first).resolves.toBeUndefined();
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });
});
