import { findCondition } from '@steward/conditions';
import { KubeEventRecorder } from '@steward/events';
import {
  ConfigMaps,
  Events,
  KubeClient,
  Namespaces,
  NotFoundError,
  type KubeObject,
} from '@steward/kube';
import { eventually, startControlPlane, type ControlPlane } from '@steward/testing';
import { createTelemetry, type Telemetry } from '@steward/telemetry';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager } from '../src/index.js';
import { Gizmos, sampleController, type Gizmo } from './support/sample-controller.js';

const namespace = 'gizmos';

describe('a controller on a real API server', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  let manager: Manager;
  let telemetry: Telemetry;
  const spans = new InMemorySpanExporter();
  const reconciles: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const writes: string[] = [];
  let started: Promise<void>;
  let recorder: KubeEventRecorder;

  beforeAll(async () => {
    plane = await startControlPlane({
      crds: [join(import.meta.dirname, 'fixtures/crds')],
      controllerManager: true,
    });
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    telemetry = createTelemetry({
      serviceName: 'gizmo-test',
      spanProcessors: [new SimpleSpanProcessor(spans)],
      log: { level: 'silent' },
    });
    recorder = new KubeEventRecorder(admin, {
      reportingController: 'steward.dev/gizmo-controller',
    });
    manager = new Manager({
      kubeConfig: plane.kubeConfig,
      name: 'gizmo-controller',
      telemetry,
      probePort: 0,
      events: recorder,
      resyncPeriodMs: 1_000,
      client: {
        onRequest: (info) => {
          if (!['get', 'list', 'watch'].includes(info.verb))
            writes.push(`${info.verb} ${info.path}`);
        },
      },
    });
    sampleController(manager, {
      maxConcurrentReconciles: 2,
      slowMs: 400,
      onReconcile: async (request) => {
        reconciles.push(request.key);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await sleep(1);
        inFlight--;
      },
    });
    started = manager.start();
    await eventually(() => manager.informers.hasSynced(), { description: 'informers synced' });
  });

  afterAll(async () => {
    await manager?.stop();
    await started?.catch(() => undefined);
    await recorder?.shutdown();
    await telemetry?.shutdown();
    await plane?.stop();
  });

  const create = (name: string, spec: Gizmo['spec']) =>
    admin.create<Gizmo>(Gizmos, {
      apiVersion: `${Gizmos.group}/${Gizmos.version}`,
      kind: 'Gizmo',
      metadata: { name, namespace },
      spec,
    });
  const read = (name: string) => admin.get<Gizmo>(Gizmos, name, namespace);
  const count = (key: string) => reconciles.filter((k) => k === key).length;

  it('reconciles a new object: owned child applied, Ready=True with observedGeneration', async () => {
    await create('first', { message: 'hello' });
    const ready = await eventually(
      async () => {
        const g = await read('first');
        return findCondition(g.status?.conditions, 'Ready')?.status === 'True' ? g : undefined;
      },
      { description: 'first to be Ready' },
    );
    expect(ready.status?.observedGeneration).toBe(1);
    const child = await admin.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      'first-gizmo',
      namespace,
    );
    expect(child.data).toEqual({ message: 'hello' });
    expect(child.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Gizmo',
      name: 'first',
      controller: true,
    });
  });

  it('maps a change to an owned child back to its owner and repairs drift', async () => {
    await create('drift', { message: 'kept' });
    await eventually(
      async () =>
        (
          await admin.get<KubeObject & { data?: Record<string, string> }>(
            ConfigMaps,
            'drift-gizmo',
            namespace,
          )
        ).data?.message === 'kept',
    );
    await admin.mergePatch(ConfigMaps, 'drift-gizmo', namespace, { data: { message: 'tampered' } });
    await eventually(
      async () =>
        (
          await admin.get<KubeObject & { data?: Record<string, string> }>(
            ConfigMaps,
            'drift-gizmo',
            namespace,
          )
        ).data?.message === 'kept',
      { description: 'the child to be repaired' },
    );
  });

  it('costs zero API writes once converged, across several resyncs and label-only changes', async () => {
    await create('quiet', { message: 'steady' });
    await eventually(
      async () =>
        findCondition((await read('quiet')).status?.conditions, 'Ready')?.status === 'True',
    );
    await sleep(1_500); // let the echo of its own writes settle
    const before = writes.length;
    const quietBefore = count(`${namespace}/quiet`);
    // a label change does not bump generation: filtered out by the generation-changed predicate
    await admin.mergePatch(Gizmos, 'quiet', namespace, {
      metadata: { labels: { touched: 'yes' } },
    });
    await sleep(3_500); // resync every 1 s: at least three resyncs of every cached object
    expect(writes.slice(before)).toEqual([]);
    // resyncs of the owned ConfigMaps did reach the reconciler, and it found nothing to write
    expect(count(`${namespace}/quiet`)).toBeGreaterThan(quietBefore);
  });

  it('reconciles again on a spec change (generation bump) and records the new generation', async () => {
    const g = await read('first');
    await admin.update<Gizmo>(Gizmos, { ...g, spec: { message: 'changed' } });
    await eventually(async () => (await read('first')).status?.observedGeneration === 2, {
      description: 'generation 2 observed',
    });
    const child = await admin.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      'first-gizmo',
      namespace,
    );
    expect(child.data).toEqual({ message: 'changed' });
  });

  it('retries a failing reconcile with backoff, and a thrown exception never stops the workers', async () => {
    await create('failing', { behaviour: 'fail' });
    await create('throwing', { behaviour: 'throw-sync' });
    await eventually(
      () => count(`${namespace}/failing`) >= 4 && count(`${namespace}/throwing`) >= 4,
      {
        description: 'several retries',
      },
    );
    await create('after-failures', { message: 'still working' });
    await eventually(
      async () =>
        findCondition((await read('after-failures')).status?.conditions, 'Ready')?.status ===
        'True',
    );
    expect(findCondition((await read('failing')).status?.conditions, 'Stalled')).toBeUndefined();
  });

  it('does not retry a TerminalError and records it as Ready=False, Stalled=True with its reason', async () => {
    await create('terminal', { behaviour: 'terminal' });
    const stalled = await eventually(
      async () => {
        const g = await read('terminal');
        return findCondition(g.status?.conditions, 'Stalled')?.status === 'True' ? g : undefined;
      },
      { description: 'Stalled=True' },
    );
    expect(findCondition(stalled.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InvalidBehaviour',
      observedGeneration: 1,
    });
    await recorder.flush();
    const events = await admin.list<
      KubeObject & { reason?: string; type?: string; regarding?: { name?: string } }
    >(Events, { namespace });
    expect(
      events.items.find((e) => e.regarding?.name === 'terminal' && e.reason === 'InvalidBehaviour'),
    ).toMatchObject({ type: 'Warning' });
    const attempts = count(`${namespace}/terminal`);
    await sleep(2_000);
    expect(count(`${namespace}/terminal`)).toBe(attempts);

    // fixing the spec clears Stalled and makes it Ready
    const current = await read('terminal');
    await admin.update<Gizmo>(Gizmos, {
      ...current,
      spec: { behaviour: 'normal', message: 'fixed' },
    });
    await eventually(
      async () => {
        const g = await read('terminal');
        return (
          !findCondition(g.status?.conditions, 'Stalled') &&
          findCondition(g.status?.conditions, 'Ready')?.status === 'True'
        );
      },
      { description: 'recovered after the fix' },
    );
  });

  it('honours requeueAfter', async () => {
    await create('periodic', { behaviour: 'requeue', message: 'tick' });
    await eventually(() => count(`${namespace}/periodic`) >= 4, {
      description: 'periodic reconciles',
      timeoutMs: 20_000,
    });
  });

  it('never runs more reconciles at once than maxConcurrentReconciles', async () => {
    for (let i = 0; i < 6; i++) await create(`slow-${i}`, { behaviour: 'slow' });
    await eventually(() => [0, 1, 2, 3, 4, 5].every((i) => count(`${namespace}/slow-${i}`) >= 1), {
      description: 'all slow ones',
    });
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(maxInFlight).toBe(2);
  });

  it('garbage-collects the child when its owner is deleted', async () => {
    await admin.delete(Gizmos, 'first', namespace);
    await eventually(
      async () =>
        admin.get(ConfigMaps, 'first-gizmo', namespace).then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'child gone', timeoutMs: 120_000 },
    );
  });

  it('exposes controller-runtime metrics and one span per reconcile', async () => {
    // Resyncs keep reconciles running while /metrics is read: bracket the scrape with the count of
    // reconcile starts before and after it.
    const startsBefore = reconciles.length;
    const res = await fetch(`http://127.0.0.1:${manager.probePort}/metrics`);
    const text = await res.text();
    const startsAfter = reconciles.length;
    const value = (line: string) =>
      Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(
      value('controller_runtime_reconcile_total{controller="gizmo",result="success"}'),
    ).toBeGreaterThan(5);
    expect(
      value('controller_runtime_reconcile_total{controller="gizmo",result="requeue_after"}'),
    ).toBeGreaterThanOrEqual(4);
    expect(
      value('controller_runtime_reconcile_errors_total{controller="gizmo"}'),
    ).toBeGreaterThanOrEqual(8);
    expect(value('controller_runtime_terminal_reconcile_errors_total{controller="gizmo"}')).toBe(1);
    expect(text).toMatch(/^workqueue_adds_total\{controller="gizmo",name="gizmo"\} \d+/m);
    expect(text).toMatch(/^workqueue_retries_total\{controller="gizmo",name="gizmo"\} \d+/m);
    expect(text).toMatch(
      /^rest_client_requests_total\{code="201",host="127\.0\.0\.1:\d+",method="PATCH"\} \d+/m,
    );
    expect(text).toMatch(
      /^controller_runtime_reconcile_time_seconds_count\{controller="gizmo"\} \d+/m,
    );
    const total = ['success', 'error', 'requeue_after', 'requeue'].reduce(
      (sum, r) =>
        sum + value(`controller_runtime_reconcile_total{controller="gizmo",result="${r}"}`),
      0,
    );
    // reconciles[] counts starts, metrics count ends: every ended reconcile had started by the end
    // of the scrape, and of those started before it at most two (maxConcurrentReconciles) were
    // still in flight.
    expect(total).toBeLessThanOrEqual(startsAfter);
    expect(total).toBeGreaterThanOrEqual(startsBefore - 2);

    const spansBefore = reconciles.length;
    const reconcileSpans = spans.getFinishedSpans().filter((s) => s.name === 'reconcile Gizmo');
    const spansAfter = reconciles.length;
    expect(reconcileSpans.length).toBeLessThanOrEqual(spansAfter);
    expect(reconcileSpans.length).toBeGreaterThanOrEqual(spansBefore - 2);
    const terminal = reconcileSpans.find(
      (s) =>
        s.attributes['k8s.resource.name'] === 'terminal' &&
        s.attributes['reconcile.result'] === 'error',
    );
    expect(terminal?.attributes).toMatchObject({
      'k8s.resource.kind': 'Gizmo',
      'k8s.resource.namespace': namespace,
      controller: 'gizmo',
    });
  });

  it('reports ready on /readyz and alive on /healthz', async () => {
    expect((await fetch(`http://127.0.0.1:${manager.probePort}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${manager.probePort}/healthz`)).status).toBe(200);
  });
});
