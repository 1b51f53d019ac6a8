import {
  AlreadyExistsError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  type KubeObject,
} from '@steward/kube';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type DropCause, type EventRecordingError } from './errors.js';
import { type RecordedEvent } from './event-recorder.js';
import {
  KubeEventRecorder,
  type EventSink,
  type KubeEventRecorderOptions,
} from './kube-event-recorder.js';

type Call =
  | { verb: 'create'; body: Record<string, unknown> & KubeObject }
  | { verb: 'patch'; name: string; namespace: string | undefined; patch: unknown };

/** A fake API server for Events: remembers what was written; `fail` decides which calls throw. */
function fakeSink(fail: (call: Call, index: number) => unknown = () => undefined) {
  const calls: Call[] = [];
  const sink: EventSink = {
    async create(_rt, obj) {
      const call: Call = { verb: 'create', body: structuredClone(obj) as Call & never };
      calls.push(call);
      const error = fail(call, calls.length - 1);
      if (error) throw error;
      return obj;
    },
    async mergePatch(_rt, name, namespace, patch) {
      const call: Call = { verb: 'patch', name, namespace, patch: structuredClone(patch) };
      calls.push(call);
      const error = fail(call, calls.length - 1);
      if (error) throw error;
      return {} as never;
    },
  };
  return {
    sink,
    calls,
    creates: () => calls.filter((c) => c.verb === 'create').map((c) => c.body),
    patches: () => calls.filter((c) => c.verb === 'patch'),
  };
}

const widget: KubeObject = {
  apiVersion: 'smoke.steward.dev/v1alpha1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'shop', uid: 'uid-1', resourceVersion: '42' },
};

function recorderWith(sink: EventSink, options: Partial<KubeEventRecorderOptions> = {}) {
  const errors: EventRecordingError[] = [];
  const drops: [RecordedEvent, DropCause][] = [];
  const recorder = new KubeEventRecorder(sink, {
    reportingController: 'steward.dev/test-controller',
    reportingInstance: 'test-0',
    onError: (e) => errors.push(e),
    onDrop: (e, cause) => drops.push([e, cause]),
    retryDelayMs: 10,
    ...options,
  });
  return { recorder, errors, drops };
}

const apiError = (Kind: typeof NotFoundError, code: number, reason: string) =>
  new Kind({ code, reason, message: `${reason} (fake)` });

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00.123Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('KubeEventRecorder writes events.k8s.io/v1 Events', () => {
  it('creates an Event with the reference, reporting fields, MicroTime and a generated name', async () => {
    const api = fakeSink();
    const { recorder, errors } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'CreateFailed', 'could not create', 'Create');
    await recorder.flush();
    expect(errors).toEqual([]);
    expect(api.creates()).toEqual([
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: expect.stringMatching(/^w1\.[0-9a-f]{16}$/), namespace: 'shop' },
        eventTime: '2026-01-01T00:00:00.123000Z',
        reportingController: 'steward.dev/test-controller',
        reportingInstance: 'test-0',
        action: 'Create',
        reason: 'CreateFailed',
        regarding: {
          apiVersion: 'smoke.steward.dev/v1alpha1',
          kind: 'Widget',
          namespace: 'shop',
          name: 'w1',
          uid: 'uid-1',
          resourceVersion: '42',
        },
        note: 'could not create',
        type: 'Warning',
      },
    ]);
  });

  it('puts Events about cluster-scoped objects in default, and defaults the action', async () => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink);
    recorder.event({ apiVersion: 'v1', kind: 'Namespace', name: 'shop' }, 'Normal', 'Seen', 'x');
    await recorder.flush();
    expect(api.creates()[0]).toMatchObject({
      metadata: { namespace: 'default' },
      action: 'Reconcile',
      regarding: { apiVersion: 'v1', kind: 'Namespace', name: 'shop' },
    });
  });

  it('truncates the message to 1024 bytes', async () => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink);
    recorder.event(widget, 'Normal', 'Long', 'm'.repeat(4000));
    await recorder.flush();
    expect(api.creates()[0]?.note).toBe('m'.repeat(1024));
  });

  it('refuses a reportingController that is not a qualified name', () => {
    expect(
      () => new KubeEventRecorder(fakeSink().sink, { reportingController: 'not a name!' }),
    ).toThrow(TypeError);
  });
});

describe('KubeEventRecorder aggregates repeats into a series', () => {
  it('folds repeats recorded before the create is sent into the create', async () => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink);
    for (let i = 0; i < 50; i++) recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(api.calls).toHaveLength(1);
    expect(api.creates()[0]?.series).toEqual({
      count: 50,
      lastObservedTime: '2026-01-01T00:00:00.123000Z',
    });
  });

  it('writes later repeats as at most one series patch per update interval', async () => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink, { seriesUpdateIntervalMs: 10_000 });
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    const name = api.creates()[0]?.metadata.name;
    for (let i = 0; i < 100; i++) {
      await vi.advanceTimersByTimeAsync(250);
      recorder.event(widget, 'Warning', 'Failed', 'boom');
    }
    await recorder.flush();
    expect(api.creates()).toHaveLength(1);
    const patches = api.patches();
    expect(patches.length).toBeGreaterThanOrEqual(2);
    expect(patches.length).toBeLessThanOrEqual(4);
    expect(patches.every((p) => p.verb === 'patch' && p.name === name)).toBe(true);
    expect(patches.at(-1)).toMatchObject({
      namespace: 'shop',
      patch: { series: { count: 101, lastObservedTime: '2026-01-01T00:00:25.123000Z' } },
    });
  });

  it.each([
    ['type', (r: KubeEventRecorder) => r.event(widget, 'Normal', 'Failed', 'boom')],
    ['reason', (r: KubeEventRecorder) => r.event(widget, 'Warning', 'Other', 'boom')],
    ['message', (r: KubeEventRecorder) => r.event(widget, 'Warning', 'Failed', 'bang')],
    ['action', (r: KubeEventRecorder) => r.event(widget, 'Warning', 'Failed', 'boom', 'Delete')],
    [
      'object',
      (r: KubeEventRecorder) =>
        r.event(
          { ...widget, metadata: { ...widget.metadata, uid: 'uid-2' } },
          'Warning',
          'Failed',
          'boom',
        ),
    ],
  ])('keeps a different %s in a different Event', async (_field, other) => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    other(recorder);
    await recorder.flush();
    expect(api.creates()).toHaveLength(2);
    expect(api.patches()).toHaveLength(0);
  });

  it('starts a new Event when a repeat comes after the series window', async () => {
    const api = fakeSink();
    const { recorder } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    vi.setSystemTime(Date.now() + 6 * 60_000 + 1);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    const [first, second] = api.creates();
    expect(api.creates()).toHaveLength(2);
    expect(second?.metadata.name).not.toBe(first?.metadata.name);
    expect(second?.series).toBeUndefined();
  });

  it('creates the Event again, with the count so far, when its series patch finds it gone', async () => {
    const api = fakeSink((call) =>
      call.verb === 'patch' ? apiError(NotFoundError, 404, 'NotFound') : undefined,
    );
    const { recorder, errors } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    const [first, again] = api.creates();
    expect(errors).toEqual([]);
    expect(api.creates()).toHaveLength(2);
    expect(again?.metadata.name).not.toBe(first?.metadata.name);
    expect(again?.eventTime).toBe(first?.eventTime);
    expect(again?.series).toMatchObject({ count: 3 });
  });
});

describe('KubeEventRecorder filters spam per object', () => {
  it('creates 25 distinct Events for one object, then drops the rest', async () => {
    const api = fakeSink();
    const { recorder, drops } = recorderWith(api.sink);
    for (let i = 0; i < 30; i++) recorder.event(widget, 'Warning', 'Failed', `attempt ${i}`);
    recorder.event(
      { ...widget, metadata: { ...widget.metadata, uid: 'other' } },
      'Normal',
      'A',
      'b',
    );
    await recorder.flush();
    expect(api.creates()).toHaveLength(26);
    expect(drops.map(([e, cause]) => `${cause}: ${e.message}`)).toEqual(
      [25, 26, 27, 28, 29].map((i) => `SpamFiltered: attempt ${i}`),
    );
  });

  it('charges no token for repeats folded into a series', async () => {
    const api = fakeSink();
    const { recorder, drops } = recorderWith(api.sink, { spamFilter: { burst: 1 } });
    for (let i = 0; i < 10; i++) recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(drops).toEqual([]);
    expect(api.creates()[0]?.series).toMatchObject({ count: 10 });
  });
});

describe('KubeEventRecorder never fails its caller', () => {
  it('reports a permanent failure to onError once, and tries afresh on the next repeat', async () => {
    const api = fakeSink((call, index) =>
      index === 0 ? apiError(ForbiddenError, 403, 'Forbidden') : undefined,
    );
    const { recorder, errors } = recorderWith(api.sink);
    expect(() => recorder.event(widget, 'Warning', 'Failed', 'boom')).not.toThrow();
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      name: 'EventRecordingError',
      operation: 'create',
      eventNamespace: 'shop',
      event: { reason: 'Failed', message: 'boom' },
    });
    expect(errors[0]?.cause).toBeInstanceOf(ForbiddenError);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(api.creates()).toHaveLength(2);
    expect(api.creates()[1]?.series).toBeUndefined();
  });

  it('retries a transient failure and counts a retried create that already landed as done', async () => {
    let attempts = 0;
    const api = fakeSink((call) => {
      if (call.verb !== 'create') return undefined;
      attempts++;
      if (attempts === 1) return new ConnectionError({ method: 'POST', path: '/x' }, { cause: 1 });
      if (attempts === 2) return apiError(AlreadyExistsError, 409, 'AlreadyExists');
      return undefined;
    });
    const { recorder, errors } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(api.creates()).toHaveLength(2);
    expect(api.patches()).toHaveLength(1);
  });

  it('gives up on a transient failure after maxRetries', async () => {
    const api = fakeSink(() => new ConnectionError({ method: 'POST', path: '/x' }, { cause: 1 }));
    const { recorder, errors } = recorderWith(api.sink, { maxRetries: 2 });
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(api.calls).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.cause).toBeInstanceOf(ConnectionError);
  });

  it('survives a sink that throws synchronously and hooks that throw', async () => {
    const sink: EventSink = {
      create: () => {
        throw new Error('sync');
      },
      mergePatch: () => {
        throw new Error('sync');
      },
    };
    const recorder = new KubeEventRecorder(sink, {
      reportingController: 'test',
      onError: () => {
        throw new Error('hook');
      },
    });
    expect(() => recorder.event(widget, 'Warning', 'Failed', 'boom')).not.toThrow();
    await expect(recorder.flush()).resolves.toBeUndefined();
  });

  it('drops what does not fit in the queue instead of waiting', async () => {
    const api = fakeSink();
    const { recorder, drops } = recorderWith(api.sink, { maxQueueLength: 3 });
    for (let i = 0; i < 5; i++) recorder.event(widget, 'Normal', `Reason${i}`, 'x');
    await recorder.flush();
    expect(api.creates().length).toBeLessThanOrEqual(4);
    expect(drops.map(([, cause]) => cause)).toContain('QueueFull');
  });

  it('writes pending counts on shutdown and drops later Events', async () => {
    const api = fakeSink();
    const { recorder, drops } = recorderWith(api.sink);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.shutdown();
    expect(api.patches()).toHaveLength(1);
    recorder.event(widget, 'Warning', 'Failed', 'boom');
    await recorder.flush();
    expect(api.calls).toHaveLength(2);
    expect(drops.map(([, cause]) => cause)).toEqual(['ShutDown']);
  });
});
