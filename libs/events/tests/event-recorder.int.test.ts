import {
  ConfigMaps,
  Events,
  ForbiddenError,
  KubeClient,
  Namespaces,
  type KubeObject,
  type RequestInfo,
} from '@steward/kube';
import { startControlPlane, type ControlPlane } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KubeEventRecorder,
  type EventRecordingError,
  type KubeEventRecorderOptions,
} from '../src/index.js';

const namespace = 'events-test';
const microTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface EventObject extends KubeObject {
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note?: string;
  type: string;
  regarding: Record<string, string>;
  series?: { count: number; lastObservedTime: string };
}

describe('KubeEventRecorder against a real API server', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  const clients: KubeClient[] = [];

  /** A recorder on its own client, counting the Event writes it sends. */
  function recorder(options: Partial<KubeEventRecorderOptions> = {}, client?: KubeClient) {
    const writes: RequestInfo[] = [];
    const errors: EventRecordingError[] = [];
    const events =
      client ??
      new KubeClient(plane.kubeConfig, {
        fieldManager: 'events-test',
        onRequest: (info) => {
          if (info.verb !== 'get' && info.verb !== 'list') writes.push(info);
        },
      });
    clients.push(events);
    const rec = new KubeEventRecorder(events, {
      reportingController: 'steward.dev/events-test',
      reportingInstance: 'events-test-0',
      onError: (e) => errors.push(e),
      ...options,
    });
    return { rec, writes, errors };
  }

  async function configMap(name: string): Promise<KubeObject> {
    return admin.create(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace },
    });
  }

  async function eventsAbout(object: KubeObject, ns = namespace): Promise<EventObject[]> {
    const { items } = await admin.list<EventObject>(Events, { namespace: ns });
    return items.filter((e) => e.regarding.uid === object.metadata.uid);
  }

  beforeAll(async () => {
    plane = await startControlPlane();
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test' });
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  });

  afterAll(async () => {
    await Promise.all([admin, ...clients].map((c) => c?.close()));
    await plane?.stop();
  });

  it('writes an Event the API returns with the reference, reporting fields and MicroTime', async () => {
    const cm = await configMap('described');
    const { rec, errors } = recorder();
    rec.event(cm, 'Normal', 'Provisioned', 'all replicas are ready', 'Provision');
    await rec.shutdown();
    expect(errors).toEqual([]);

    const [event, ...others] = await eventsAbout(cm);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace },
      reportingController: 'steward.dev/events-test',
      reportingInstance: 'events-test-0',
      action: 'Provision',
      reason: 'Provisioned',
      note: 'all replicas are ready',
      type: 'Normal',
      regarding: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace,
        name: 'described',
        uid: cm.metadata.uid,
        resourceVersion: cm.metadata.resourceVersion,
      },
    });
    expect(event?.metadata.name).toMatch(/^described\.[0-9a-f]{16}$/);
    expect(event?.eventTime).toMatch(microTime);
    expect(event?.series).toBeUndefined();
  });

  it('folds 50 identical warnings into one Event whose series counts them, in a few writes', async () => {
    const cm = await configMap('failing');
    const { rec, writes, errors } = recorder({ seriesUpdateIntervalMs: 1000 });
    for (let attempt = 0; attempt < 50; attempt++) {
      rec.event(cm, 'Warning', 'ReconcileFailed', 'backend unreachable');
      // A retried reconcile: the recorder sees the repeats spread out, some while it is writing.
      await new Promise((resolve) => setTimeout(resolve, attempt % 10 === 0 ? 50 : 1));
    }
    await rec.shutdown();
    expect(errors).toEqual([]);

    const events = await eventsAbout(cm);
    expect(events).toHaveLength(1);
    expect(events[0]?.series?.count).toBe(50);
    expect(events[0]?.series?.lastObservedTime).toMatch(microTime);
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(writes.length).toBeLessThanOrEqual(5);
    expect(writes.every((w) => w.path.includes('/events') && w.code < 300)).toBe(true);
  });

  it('writes different reasons about one object as different Events', async () => {
    const cm = await configMap('two-reasons');
    const { rec, writes } = recorder();
    rec.event(cm, 'Warning', 'BackupFailed', 'bucket missing');
    rec.event(cm, 'Normal', 'ScaledUp', 'replicas 1 → 3');
    rec.event(cm, 'Warning', 'BackupFailed', 'bucket missing');
    await rec.shutdown();

    const events = await eventsAbout(cm);
    expect(events.map((e) => `${e.type} ${e.reason} ${e.series?.count ?? 1}`).sort()).toEqual([
      'Normal ScaledUp 1',
      'Warning BackupFailed 2',
    ]);
    expect(writes).toHaveLength(2);
  });

  it('files Events about cluster-scoped objects in the default namespace', async () => {
    const ns = await admin.get(Namespaces, namespace);
    const { rec, errors } = recorder();
    rec.event(ns, 'Normal', 'Adopted', 'namespace is managed');
    await rec.shutdown();
    expect(errors).toEqual([]);
    const events = await eventsAbout(ns, 'default');
    expect(events).toHaveLength(1);
    expect(events[0]?.regarding).toMatchObject({ kind: 'Namespace', name: namespace });
  });

  it('reports a forbidden write to onError and leaves the caller unaffected', async () => {
    const cm = await configMap('unreported');
    const nobody = new KubeClient(await plane.kubeConfigFor({ name: 'nobody' }), {
      fieldManager: 'nobody',
    });
    const { rec, errors } = recorder({}, nobody);
    expect(() => rec.event(cm, 'Warning', 'Failed', 'nobody may write this')).not.toThrow();
    await expect(rec.shutdown()).resolves.toBeUndefined();

    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'EventRecordingError', operation: 'create' });
    expect(errors[0]?.cause).toBeInstanceOf(ForbiddenError);
    expect(await eventsAbout(cm)).toEqual([]);
  });
});
