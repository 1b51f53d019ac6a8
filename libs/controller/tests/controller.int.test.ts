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
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Manager } from '../src/index.js';
import {
  Gizmos,
  sampleController,
  type Gizmo,
  type SampleControllerHooks,
  type SampleOutcome,
} from './support/sample-controller.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** One reconcile of one key, as the sample controller's hooks saw it (times: `performance.now()`). */
interface ReconcileRecord {
  key: string;
  startedAt: number;
  endedAt?: number;
  outcome?: SampleOutcome;
}

interface HarnessOptions extends Pick<
  SampleControllerHooks,
  'maxConcurrentReconciles' | 'slowMs' | 'requeueAfterMs'
> {
  /** Informer resync of the manager; default off, so no reconcile comes from a resync. */
  resyncPeriodMs?: number;
  /** Gizmos created before the manager starts: its first list enqueues them all at once. */
  seed?: [name: string, spec: Gizmo['spec']][];
}

/**
 * Every case runs its own manager on a namespace of its own — its own queue, telemetry, counters
 * and objects — so that it passes alone and in any order; they share only the control plane.
 */
describe('a controller on a real API server', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    plane = await startControlPlane({
      crds: [join(import.meta.dirname, 'fixtures/crds')],
      controllerManager: true,
    });
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  afterAll(async () => {
    await admin?.close();
    await plane?.stop();
  });

  /** Starts a manager running the sample controller on namespace `namespace` (created here). */
  async function harness(namespace: string, options: HarnessOptions = {}) {
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    const create = (name: string, spec: Gizmo['spec']) =>
      admin.create<Gizmo>(Gizmos, {
        apiVersion: `${Gizmos.group}/${Gizmos.version}`,
        kind: 'Gizmo',
        metadata: { name, namespace },
        spec,
      });
    for (const [name, spec] of options.seed ?? []) await create(name, spec);

    const spans = new InMemorySpanExporter();
    const telemetry: Telemetry = createTelemetry({
      serviceName: 'gizmo-test',
      registerGlobal: false,
      spanProcessors: [new SimpleSpanProcessor(spans)],
      log: { level: 'silent' },
    });
    const recorder = new KubeEventRecorder(admin, {
      reportingController: 'steward.dev/gizmo-controller',
    });
    const writes: string[] = [];
    const manager = new Manager({
      kubeConfig: plane.kubeConfig,
      name: 'gizmo-controller',
      telemetry,
      probePort: 0,
      events: recorder,
      ...(options.resyncPeriodMs ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
      client: {
        onRequest: (info) => {
          if (!['get', 'list', 'watch'].includes(info.verb))
            writes.push(`${info.verb} ${info.path}`);
        },
      },
    });

    const records: ReconcileRecord[] = [];
    const open = new Map<string, ReconcileRecord>();
    let inFlight = 0;
    let maxInFlight = 0;
    sampleController(manager, {
      namespace,
      maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2,
      ...(options.slowMs !== undefined ? { slowMs: options.slowMs } : {}),
      ...(options.requeueAfterMs !== undefined ? { requeueAfterMs: options.requeueAfterMs } : {}),
      onReconcile: (request) => {
        const record: ReconcileRecord = { key: request.key, startedAt: performance.now() };
        records.push(record);
        open.set(request.key, record);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
      },
      onReconciled: (request, outcome) => {
        const record = open.get(request.key);
        open.delete(request.key);
        if (record) Object.assign(record, { endedAt: performance.now(), outcome });
        inFlight--;
      },
    });
    const gizmoCache = manager.informers.informerFor<Gizmo>(Gizmos, { namespace });
    const configMapCache = manager.informers.informerFor<ConfigMap>(ConfigMaps, { namespace });

    const started = manager.start();
    started.catch(() => undefined);
    let managerStopped: Promise<void> | undefined;
    const stopManager = (): Promise<void> => (managerStopped ??= manager.stop());
    cleanups.push(async () => {
      await stopManager();
      await recorder.shutdown();
      await telemetry.shutdown();
    });
    await eventually(() => manager.informers.hasSynced(), { description: 'informers synced' });

    const read = (name: string) => admin.get<Gizmo>(Gizmos, name, namespace);
    const readChild = (name: string) =>
      admin.get<ConfigMap>(ConfigMaps, `${name}-gizmo`, namespace);
    const key = (name: string) => `${namespace}/${name}`;
    /** The reconciles of one Gizmo, in the order they started. */
    const of = (name: string) => records.filter((r) => r.key === key(name));
    const ended = (name: string) => of(name).filter((r) => r.endedAt !== undefined);
    const condition = async (name: string, type: string) =>
      findCondition((await read(name)).status?.conditions, type);

    /** Resolves with the Gizmo once it is Ready=True at its current generation. */
    const ready = (name: string) =>
      eventually(
        async () => {
          const g = await read(name);
          const c = findCondition(g.status?.conditions, 'Ready');
          return c?.status === 'True' && c.observedGeneration === g.metadata.generation
            ? g
            : undefined;
        },
        { description: `${name} to be Ready` },
      );

    /** Whether the manager's caches hold what the API server holds now, for a Gizmo and its child. */
    const cachesHold = async (name: string): Promise<boolean> => {
      const [gizmo, child] = await Promise.all([read(name), readChild(name)]);
      return (
        gizmoCache.store.get(key(name))?.metadata.resourceVersion ===
          gizmo.metadata.resourceVersion &&
        configMapCache.store.get(key(`${name}-gizmo`))?.metadata.resourceVersion ===
          child.metadata.resourceVersion
      );
    };

    /**
     * Resolves with `performance.now()` once a Gizmo is Ready, every echo of the controller's own
     * writes has reached its caches (so no event about it is still on its way), and nothing is in
     * flight with its reconcile count unchanged between two polls.
     */
    const settled = async (name: string): Promise<number> => {
      await ready(name);
      let last = -1;
      return eventually(
        async () => {
          const count = of(name).length;
          const quiet = count === last && inFlight === 0 && (await cachesHold(name));
          last = count;
          return quiet ? performance.now() : undefined;
        },
        { description: `${name} to settle` },
      );
    };

    return {
      namespace,
      manager,
      telemetry,
      spans,
      recorder,
      writes,
      records,
      gizmoCache,
      create,
      read,
      readChild,
      of,
      ended,
      condition,
      ready,
      cachesHold,
      settled,
      stopManager,
      maxInFlight: () => maxInFlight,
    };
  }

  it('reconciles a new object: owned child applied, Ready=True with observedGeneration', async () => {
    const h = await harness('new-object');
    await h.create('first', { message: 'hello' });
    const ready = await h.ready('first');
    expect(ready.status?.observedGeneration).toBe(1);
    expect(findCondition(ready.status?.conditions, 'Ready')?.observedGeneration).toBe(1);
    const child = await h.readChild('first');
    expect(child.data).toEqual({ message: 'hello' });
    expect(child.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'Gizmo',
        name: 'first',
        uid: ready.metadata.uid,
        controller: true,
      }),
    ]);
  });

  it('maps a change to an owned child back to its owner and repairs drift', async () => {
    // Resync is off and the Gizmo is settled: only the child's own update event can bring a
    // reconcile of its owner.
    const h = await harness('drift');
    await h.create('drift', { message: 'kept' });
    await h.settled('drift');
    const before = h.of('drift').length;
    await admin.mergePatch(ConfigMaps, 'drift-gizmo', h.namespace, {
      data: { message: 'tampered' },
    });
    await eventually(async () => (await h.readChild('drift')).data?.message === 'kept', {
      description: 'the child to be repaired',
    });
    expect(h.of('drift').length).toBeGreaterThan(before);
  });

  it('costs zero API writes once converged, across several resyncs and label-only changes', async () => {
    const h = await harness('quiet', { resyncPeriodMs: 500 });
    const noneInFlight = () => h.of('quiet').every((r) => r.endedAt !== undefined);
    await h.create('quiet', { message: 'steady' });
    await h.ready('quiet');
    // Baseline once the echoes of its own writes are in the caches, and a reconcile that started
    // after that — which sees the converged object — has ended with nothing in flight.
    const echoed = await eventually(
      async () => (await h.cachesHold('quiet')) && performance.now(),
      {
        description: 'the caches to hold the converged objects',
      },
    );
    await eventually(() => h.ended('quiet').some((r) => r.startedAt > echoed) && noneInFlight(), {
      description: 'a reconcile of the converged object',
    });
    const before = h.writes.length;

    // A label change does not bump generation: filtered out by the generation-changed predicate.
    const labelled = await admin.mergePatch<Gizmo>(Gizmos, 'quiet', h.namespace, {
      metadata: { labels: { touched: 'yes' } },
    });
    expect(labelled.metadata.generation).toBe(1);
    const cached = await eventually(
      () =>
        h.gizmoCache.store.get(`${h.namespace}/quiet`)?.metadata.resourceVersion ===
          labelled.metadata.resourceVersion && performance.now(),
      { description: 'the label change in the cache' },
    );
    // Nothing changes any more: what reconciles now is the resync of the owned ConfigMap.
    await eventually(
      () => h.ended('quiet').filter((r) => r.startedAt > cached).length >= 3 && noneInFlight(),
      { description: 'three reconciles from resyncs' },
    );
    expect(h.writes.slice(before)).toEqual([]);
  });

  it('reconciles again on a spec change (generation bump) and records the new generation', async () => {
    const h = await harness('spec-change');
    await h.create('changing', { message: 'hello' });
    const g = await h.ready('changing');
    await admin.update<Gizmo>(Gizmos, { ...g, spec: { message: 'changed' } });
    const changed = await eventually(
      async () => {
        const current = await h.read('changing');
        return current.status?.observedGeneration === 2 ? current : undefined;
      },
      { description: 'generation 2 observed' },
    );
    expect(findCondition(changed.status?.conditions, 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: 2,
    });
    expect((await h.readChild('changing')).data).toEqual({ message: 'changed' });
  });

  it('retries a failing reconcile with backoff, and a thrown exception never stops the workers', async () => {
    const h = await harness('failures');
    await h.create('failing', { behaviour: 'fail' });
    await h.create('throwing', { behaviour: 'throw-sync' });
    await eventually(() => h.ended('failing').length >= 6 && h.ended('throwing').length >= 6, {
      description: 'several retries of each',
    });
    expect(new Set(h.ended('throwing').map((r) => r.outcome))).toEqual(new Set(['error']));

    // Nothing else reconciles these keys (no writes, resync off): each retry starts at least the
    // per-key backoff, 5 ms doubling per failure, after the previous attempt started. (The queue
    // releases a delayed key no earlier than its due time on performance.now()'s scale.)
    const starts = h.of('failing').map((r) => r.startedAt);
    for (let retry = 1; retry <= 5; retry++) {
      expect(starts[retry]! - starts[retry - 1]!).toBeGreaterThanOrEqual(5 * 2 ** (retry - 1));
    }

    await h.create('after-failures', { message: 'still working' });
    await h.ready('after-failures');
    expect(await h.condition('failing', 'Stalled')).toBeUndefined();
    expect(await h.condition('throwing', 'Stalled')).toBeUndefined();
  });

  it('does not retry a TerminalError and records it as Ready=False, Stalled=True with its reason', async () => {
    const h = await harness('terminal');
    await h.create('terminal', { behaviour: 'terminal' });
    // Failing at the same time, the control shows how often a retried key would have run.
    await h.create('control', { behaviour: 'fail' });
    const stalled = await eventually(
      async () => {
        const g = await h.read('terminal');
        return findCondition(g.status?.conditions, 'Stalled')?.status === 'True' ? g : undefined;
      },
      { description: 'Stalled=True' },
    );
    expect(findCondition(stalled.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InvalidBehaviour',
      observedGeneration: 1,
    });
    await h.recorder.flush();
    const events = await admin.list<
      KubeObject & { reason?: string; type?: string; regarding?: { name?: string } }
    >(Events, { namespace: h.namespace });
    expect(
      events.items.find((e) => e.regarding?.name === 'terminal' && e.reason === 'InvalidBehaviour'),
    ).toMatchObject({ type: 'Warning' });
    // Eight failures of the control take its backoff through 5 + 10 + … + 640 ms.
    await eventually(() => h.ended('control').length >= 8, {
      description: 'the control to be retried eight times',
    });
    expect(h.of('terminal').map((r) => r.outcome)).toEqual(['terminal']);

    // fixing the spec clears Stalled and makes it Ready
    const current = await h.read('terminal');
    await admin.update<Gizmo>(Gizmos, {
      ...current,
      spec: { behaviour: 'normal', message: 'fixed' },
    });
    const fixed = await h.ready('terminal');
    expect(findCondition(fixed.status?.conditions, 'Stalled')).toBeUndefined();
    expect(fixed.status?.observedGeneration).toBe(2);
  });

  it('honours requeueAfter: reconciles again after the delay, not before, with no resync', async () => {
    const requeueAfterMs = 300;
    const h = await harness('requeue', { requeueAfterMs });
    await h.create('periodic', { behaviour: 'requeue', message: 'tick' });
    await h.ready('periodic');
    // From here no event about the Gizmo or its child is on its way and resync is off: whatever
    // reconciles it is requeueAfter.
    const echoed = await eventually(
      async () => (await h.cachesHold('periodic')) && performance.now(),
      { description: 'the caches to hold the converged objects' },
    );
    await eventually(() => h.of('periodic').filter((r) => r.startedAt > echoed).length >= 8, {
      description: 'reconciles after the last event',
      timeoutMs: 30_000,
    });
    // A key can have at most one wait pending and be queued once when the last event arrives; each
    // such leftover can shorten the next two gaps. After the first four, every reconcile is the
    // previous one's requeueAfter, so it starts at least that long after the previous start.
    const starts = h
      .of('periodic')
      .filter((r) => r.startedAt > echoed)
      .map((r) => r.startedAt)
      .slice(4);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(requeueAfterMs);
  });

  it('never runs more reconciles at once than maxConcurrentReconciles', async () => {
    const slow = Array.from({ length: 6 }, (_, i) => `slow-${i}`);
    // Created before the manager starts: all six keys are queued at once.
    const h = await harness('concurrency', {
      maxConcurrentReconciles: 2,
      slowMs: 400,
      seed: slow.map((name) => [name, { behaviour: 'slow' }]),
    });
    await eventually(() => slow.every((name) => h.ended(name).length >= 1), {
      description: 'every slow Gizmo reconciled',
    });
    // In flight counts whole reconciles, from the first line of the reconciler to its end.
    expect(h.maxInFlight()).toBe(2);
  });

  it('garbage-collects the child when its owner is deleted', async () => {
    const h = await harness('gc');
    await h.create('owner', { message: 'owned' });
    await eventually(() => h.readChild('owner'), { description: 'the child' });
    await admin.delete(Gizmos, 'owner', h.namespace);
    await eventually(
      async () =>
        h.readChild('owner').then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'child gone', timeoutMs: 120_000 },
    );
  });

  it('exposes controller-runtime metrics and one span per reconcile', async () => {
    const h = await harness('metrics');
    await h.create('ok', { message: 'fine' });
    await h.create('failing', { behaviour: 'fail' });
    await h.create('terminal', { behaviour: 'terminal' });
    await h.create('periodic', { behaviour: 'requeue' });
    await h.ready('ok');
    await eventually(async () => (await h.condition('terminal', 'Stalled'))?.status === 'True');
    await eventually(() => h.ended('failing').length >= 3 && h.ended('periodic').length >= 3, {
      description: 'retries and requeues',
    });

    const live = await (await fetch(`http://127.0.0.1:${h.manager.probePort}/metrics`)).text();
    for (const family of [
      /^controller_runtime_reconcile_total\{controller="gizmo",result="success"\} \d+/m,
      /^controller_runtime_reconcile_errors_total\{controller="gizmo"\} \d+/m,
      /^controller_runtime_reconcile_time_seconds_count\{controller="gizmo"\} \d+/m,
      /^workqueue_adds_total\{controller="gizmo",name="gizmo"\} \d+/m,
      /^workqueue_retries_total\{controller="gizmo",name="gizmo"\} \d+/m,
      /^rest_client_requests_total\{code="201",host="127\.0\.0\.1:\d+",method="PATCH"\} \d+/m,
    ]) {
      expect(live).toMatch(family);
    }

    // Stopped, the manager has finished every reconcile it started: the counters are final and
    // must equal what the reconciler itself saw.
    await h.stopManager();
    const text = await scrape(h.telemetry);
    const value = (line: string) =>
      Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const outcomes = h.records.map((r) => r.outcome);
    expect(outcomes).not.toContain(undefined);
    const counted = (...which: SampleOutcome[]) =>
      outcomes.filter((o) => which.includes(o!)).length;
    expect(counted('terminal')).toBe(1);
    expect(counted('requeue_after')).toBeGreaterThanOrEqual(3);
    const metric = (name: string, result?: string) =>
      value(`controller_runtime_${name}{controller="gizmo"${result ? `,result="${result}"` : ''}}`);
    expect({
      success: metric('reconcile_total', 'success'),
      requeueAfter: metric('reconcile_total', 'requeue_after'),
      error: metric('reconcile_total', 'error'),
      errors: metric('reconcile_errors_total'),
      terminal: metric('terminal_reconcile_errors_total'),
      timed: metric('reconcile_time_seconds_count'),
    }).toEqual({
      success: counted('success'),
      requeueAfter: counted('requeue_after'),
      error: counted('error', 'terminal'),
      errors: counted('error', 'terminal'),
      terminal: 1,
      timed: outcomes.length,
    });

    const finished = h.spans.getFinishedSpans();
    const reconcileSpans = finished.filter((s) => s.name === 'reconcile Gizmo');
    expect(reconcileSpans).toHaveLength(outcomes.length);
    // the API calls of a reconcile are its child spans: the ConfigMap applied, the status patched
    const ok = reconcileSpans.find(
      (s) =>
        s.attributes['k8s.resource.name'] === 'ok' &&
        finished.some((c) => c.parentSpanContext?.spanId === s.spanContext().spanId),
    )!;
    const children = finished.filter(
      (c) => c.parentSpanContext?.spanId === ok.spanContext().spanId,
    );
    expect(children.map((c) => c.name).sort()).toEqual(['PATCH configmaps', 'PATCH gizmos/status']);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(ok.spanContext().traceId);
      expect(child.attributes).toMatchObject({
        'http.request.method': 'PATCH',
        'k8s.verb': expect.stringMatching(/^(apply|patch)$/),
      });
    }
    // the informers' lists and watches, outside any reconcile, start no traces
    expect(finished.filter((s) => !s.parentSpanContext && s.name !== 'reconcile Gizmo')).toEqual(
      [],
    );
    const terminal = reconcileSpans.filter((s) => s.attributes['k8s.resource.name'] === 'terminal');
    expect(terminal.map((s) => s.attributes)).toEqual([
      expect.objectContaining({
        'k8s.resource.kind': 'Gizmo',
        'k8s.resource.namespace': h.namespace,
        controller: 'gizmo',
        'reconcile.result': 'error',
      }),
    ]);
  });

  it("reports its objects' health per kind and namespace: Ready, failing streaks, unobserved generations, Terminating", async () => {
    const h = await harness('health');
    await h.create('ok', { message: 'fine' });
    await h.create('failing', { behaviour: 'fail' });
    await h.create('stuck', { message: 'held by a finalizer' });
    await h.ready('ok');
    await h.ready('stuck');
    await admin.mergePatch(Gizmos, 'stuck', h.namespace, {
      metadata: { finalizers: ['example.com/held'] },
    });
    await admin.delete(Gizmos, 'stuck', h.namespace);
    await eventually(() => h.ended('failing').length >= 4, { description: 'four failures' });
    const value = (text: string, series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const labels = `kind="Gizmo",namespace="${h.namespace}"`;
    const live = await eventually(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${h.manager.probePort}/metrics`)).text();
        return value(text, `steward_objects_terminating{${labels}}`) === 1 ? text : undefined;
      },
      { description: 'the Terminating Gizmo counted' },
    );
    try {
      expect(value(live, `steward_objects{${labels},ready="true"}`)).toBe(2);
      // never reconciled successfully: no Ready condition at all
      expect(value(live, `steward_objects{${labels},ready="unknown"}`)).toBe(1);
      expect(value(live, `steward_objects{${labels},ready="false"}`)).toBe(0);
      expect(value(live, `steward_objects_failing{${labels}}`)).toBe(1);
      expect(
        value(live, `steward_objects_max_consecutive_failures{${labels}}`),
      ).toBeGreaterThanOrEqual(4);
      // "failing" never had its generation observed
      expect(
        value(live, `steward_objects_generation_unobserved{${labels}}`),
      ).toBeGreaterThanOrEqual(1);
      expect(
        value(live, `steward_objects_longest_generation_unobserved_seconds{${labels}}`),
      ).toBeGreaterThan(0);
      expect(
        value(live, `steward_objects_longest_terminating_seconds{${labels}}`),
      ).toBeGreaterThanOrEqual(0);
      expect(value(live, `steward_objects_longest_not_ready_seconds{${labels}}`)).toBeGreaterThan(
        0,
      );
      expect(
        value(live, `steward_objects_longest_since_success_seconds{${labels}}`),
      ).toBeGreaterThan(0);
      // one namespace: 11 series, whatever the number of objects
      expect(
        live.split('\n').filter((l) => l.startsWith('steward_objects') && l.includes(labels)),
      ).toHaveLength(11);
      // the kind's own gauge (the builder's gauges(...)), from the same cache: "fine" and "held
      // by a finalizer" ("failing" has no message)
      expect(value(live, `steward_gizmo_message_characters{${labels}}`)).toBe(4 + 19);
    } finally {
      await admin.mergePatch(Gizmos, 'stuck', h.namespace, { metadata: { finalizers: null } });
    }
    // the stuck one gone, the namespace says so
    await eventually(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${h.manager.probePort}/metrics`)).text();
        return value(text, `steward_objects_terminating{${labels}}`) === 0 &&
          value(text, `steward_objects_longest_terminating_seconds{${labels}}`) === 0 &&
          value(text, `steward_gizmo_message_characters{${labels}}`) === 4
          ? true
          : undefined;
      },
      { description: 'the Terminating count back to 0' },
    );
  });

  it('reports ready on /readyz and alive on /healthz', async () => {
    const h = await harness('probes');
    expect((await fetch(`http://127.0.0.1:${h.manager.probePort}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${h.manager.probePort}/healthz`)).status).toBe(200);
  });
});

/** One scrape of `telemetry`'s Prometheus handler, served on a port of its own. */
async function scrape(telemetry: Telemetry): Promise<string> {
  const server = createServer(telemetry.metricsHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
