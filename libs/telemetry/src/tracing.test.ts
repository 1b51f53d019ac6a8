import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTelemetry,
  externalCall,
  externalMetrics,
  type Telemetry,
  withChildSpan,
  withReconcileSpan,
} from './index.js';

class ConflictError extends Error {
  override name = 'ConflictError';
}

describe('reconcile and child spans', () => {
  let telemetry: Telemetry;
  let exporter: InMemorySpanExporter;

  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      log: { level: 'silent' },
    });
  });

  afterEach(() => telemetry.shutdown());

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const found = spans().filter((span) => span.name === name);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const widget = { controller: 'widget', kind: 'Widget', namespace: 'shop', name: 'blue' };

  it('records one span per reconcile with the object and a success result', async () => {
    const outcome = await withReconcileSpan(telemetry.tracer, widget, async () => ({}));
    expect(outcome).toEqual({});
    const span = named('reconcile Widget');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toEqual({
      controller: 'widget',
      'k8s.resource.kind': 'Widget',
      'k8s.resource.namespace': 'shop',
      'k8s.resource.name': 'blue',
      'reconcile.result': 'success',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.resource.attributes['service.name']).toBe('widget-controller');
  });

  it.each([
    [{ requeueAfter: 30_000 }, 'requeue_after'],
    [{ requeue: true }, 'requeue'],
    [{ requeue: true, requeueAfter: 5 }, 'requeue_after'],
    [{ requeueAfter: 0 }, 'success'],
    [undefined, 'success'],
  ])('labels a reconcile returning %j as %s', async (outcome, result) => {
    await withReconcileSpan(telemetry.tracer, widget, () => outcome);
    expect(named('reconcile Widget').attributes['reconcile.result']).toBe(result);
  });

  it('omits the namespace of a cluster-scoped object', async () => {
    await withReconcileSpan(
      telemetry.tracer,
      { controller: 'profile', kind: 'ProviderProfile', name: 'aws-prod' },
      async () => undefined,
    );
    const span = named('reconcile ProviderProfile');
    expect(span.attributes['k8s.resource.name']).toBe('aws-prod');
    expect(span.attributes).not.toHaveProperty('k8s.resource.namespace');
  });

  it('nests API and external calls under the reconcile span across awaits', async () => {
    await withReconcileSpan(telemetry.tracer, widget, async () => {
      await sleep(5);
      await withChildSpan(telemetry.tracer, 'GET widgets', { 'k8s.resource.name': 'blue' }, () =>
        sleep(1),
      );
      await sleep(1);
      await withChildSpan(telemetry.tracer, 'rds.CreateDBInstance', { provider: 'aws' }, () =>
        withChildSpan(telemetry.tracer, 'http POST', {}, () => sleep(1)),
      );
      return {};
    });
    const reconcile = named('reconcile Widget');
    const get = named('GET widgets');
    const create = named('rds.CreateDBInstance');
    const post = named('http POST');
    for (const child of [get, create, post]) {
      expect(child.spanContext().traceId).toBe(reconcile.spanContext().traceId);
    }
    expect(get.parentSpanContext?.spanId).toBe(reconcile.spanContext().spanId);
    expect(create.parentSpanContext?.spanId).toBe(reconcile.spanContext().spanId);
    expect(post.parentSpanContext?.spanId).toBe(create.spanContext().spanId);
    expect(get.kind).toBe(SpanKind.CLIENT);
    expect(get.attributes).toEqual({ 'k8s.resource.name': 'blue' });
  });

  it('traces and counts an external call inside a reconcile, and only counts one outside', async () => {
    const counted: string[] = [];
    const metrics = {
      ...externalMetrics(telemetry.meter, telemetry.tracer),
      request: (p: string, o: string, r: string) => void counted.push(`${p} ${o} ${r}`),
    };
    await withReconcileSpan(
      telemetry.tracer,
      { controller: 'widget', kind: 'Widget', name: 'a' },
      () => externalCall(metrics, 'aws', 'CreateDBInstance', () => sleep(1)),
    );
    await expect(
      withReconcileSpan(telemetry.tracer, { controller: 'widget', kind: 'Widget', name: 'b' }, () =>
        externalCall(metrics, 'gcp', 'instances.get', () => Promise.reject(new Error('quota'))),
      ),
    ).rejects.toThrow('quota');
    await externalCall(metrics, 'kafka', 'Metadata', () => sleep(1));
    expect(counted).toEqual([
      'aws CreateDBInstance success',
      'gcp instances.get error',
      'kafka Metadata success',
    ]);
    const spans = exporter.getFinishedSpans();
    const aws = spans.find((s) => s.name === 'aws CreateDBInstance')!;
    expect(aws.attributes).toMatchObject({
      'steward.provider': 'aws',
      'rpc.method': 'CreateDBInstance',
    });
    expect(aws.parentSpanContext?.spanId).toBe(
      spans.find((s) => s.attributes['k8s.resource.name'] === 'a')!.spanContext().spanId,
    );
    expect(spans.find((s) => s.name === 'gcp instances.get')!.status.code).toBe(
      SpanStatusCode.ERROR,
    );
    expect(spans.map((s) => s.name)).not.toContain('kafka Metadata');
  });

  it('keeps concurrent reconciles in separate traces', async () => {
    const reconcile = (name: string, delay: number) =>
      withReconcileSpan(telemetry.tracer, { ...widget, name }, async () => {
        await sleep(delay);
        await withChildSpan(telemetry.tracer, `GET ${name}`, {}, () => sleep(delay));
      });
    await Promise.all([reconcile('a', 10), reconcile('b', 1)]);
    const parents = spans().filter((span) => span.name === 'reconcile Widget');
    for (const name of ['a', 'b']) {
      const parent = parents.find((span) => span.attributes['k8s.resource.name'] === name)!;
      expect(named(`GET ${name}`).parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    }
    expect(parents[0]!.spanContext().traceId).not.toBe(parents[1]!.spanContext().traceId);
  });

  it('starts each reconcile as a trace root, whatever span was active', async () => {
    await withChildSpan(telemetry.tracer, 'manager start', {}, () =>
      withReconcileSpan(telemetry.tracer, widget, async () => undefined),
    );
    const reconcile = named('reconcile Widget');
    expect(reconcile.parentSpanContext).toBeUndefined();
    expect(reconcile.spanContext().traceId).not.toBe(named('manager start').spanContext().traceId);
  });

  it('marks a failed reconcile as an error and rethrows the same error', async () => {
    const conflict = new ConflictError('widgets "blue": the object has been modified');
    const failing = withReconcileSpan(telemetry.tracer, widget, async () => {
      await withChildSpan(telemetry.tracer, 'PUT widgets', {}, async () => {
        throw conflict;
      });
    });
    await expect(failing).rejects.toBe(conflict);

    for (const span of [named('reconcile Widget'), named('PUT widgets')]) {
      expect(span.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: 'widgets "blue": the object has been modified',
      });
      expect(span.attributes['error.type']).toBe('ConflictError');
      const exception = span.events.find((event) => event.name === 'exception');
      expect(exception?.attributes?.['exception.type']).toBe('ConflictError');
      expect(exception?.attributes?.['exception.message']).toBe(conflict.message);
    }
    expect(named('reconcile Widget').attributes['reconcile.result']).toBe('error');
    expect(named('PUT widgets').parentSpanContext?.spanId).toBe(
      named('reconcile Widget').spanContext().spanId,
    );
  });

  it('marks a reconcile that throws synchronously or throws a non-Error', async () => {
    await expect(
      withReconcileSpan(telemetry.tracer, widget, () => {
        throw 'boom';
      }),
    ).rejects.toBe('boom');
    const span = named('reconcile Widget');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(span.attributes['reconcile.result']).toBe('error');
  });

  it('ends every span, also when it fails', async () => {
    await withReconcileSpan(telemetry.tracer, widget, async () => undefined);
    await withReconcileSpan(telemetry.tracer, widget, async () => {
      throw new Error('x');
    }).catch(() => undefined);
    expect(spans()).toHaveLength(2);
    for (const span of spans()) expect(span.ended).toBe(true);
  });
});
