import { Informer, type ListerWatcher, type ListerWatcherEvent } from '@steward/informer';
import {
  currentRequestPriority,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { createLogger } from '@steward/telemetry';
import { type Fairness, Priorities, rateLimiterFunc } from '@steward/workqueue';
import { afterEach, describe, expect, it } from 'vitest';
import { controllerFor } from './builder.js';
import { Controller, type ControllerOptions } from './controller.js';
import { enqueueForObject, enqueueForOwner } from './handlers.js';
import { type Manager } from './manager.js';
import { type Result } from './reconciler.js';

/**
 * How the controller feeds its queue: which events go in at which priority, and that the queue is
 * fair by default. Unit tier: real informers over an in-memory `ListerWatcher` (our own
 * interface); the same wiring is exercised against a real API server by the integration suites.
 */

const Widgets: ResourceType = {
  group: 'smoke.steward.dev',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
const ConfigMaps: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

let rv = 1;
const widget = (key: string): KubeObject => {
  const [namespace, name] = key.split('/') as [string, string];
  return {
    apiVersion: 'smoke.steward.dev/v1alpha1',
    kind: 'Widget',
    metadata: { namespace, name, resourceVersion: String(rv++) },
  };
};
const childOf = (key: string): KubeObject => {
  const [namespace, name] = key.split('/') as [string, string];
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace,
      name: `${name}-config`,
      resourceVersion: String(rv++),
      ownerReferences: [
        {
          apiVersion: 'smoke.steward.dev/v1alpha1',
          kind: 'Widget',
          name,
          uid: name,
          controller: true,
        },
      ],
    },
  };
};

/** An in-memory ListerWatcher: lists `items`, then streams what `emit` sends until aborted. */
function source(items: KubeObject[]) {
  const events: ListerWatcherEvent<KubeObject>[] = [];
  let wake: (() => void) | undefined;
  const lw: ListerWatcher<KubeObject> = {
    list: async () => ({ items, metadata: { resourceVersion: '1' } }),
    async *watch({ signal }) {
      while (!signal.aborted) {
        const event = events.shift();
        if (event) {
          yield event;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    },
  };
  return {
    informer: new Informer<KubeObject>(lw),
    emit(event: ListerWatcherEvent<KubeObject>) {
      events.push(event);
      wake?.();
    },
  };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A controller over Widgets that owns ConfigMaps, started with its informers. */
function start(
  reconcile: (key: string, controller: Controller) => Promise<Result | void>,
  options: { widgets: KubeObject[]; fairness?: Fairness },
) {
  const widgets = source(options.widgets);
  const configMaps = source([]);
  const controller: Controller = new Controller(
    {
      name: 'widget',
      forType: Widgets,
      forInformer: widgets.informer,
      watches: [
        { informer: widgets.informer, map: enqueueForObject, predicates: [] },
        {
          informer: configMaps.informer,
          map: enqueueForOwner(Widgets),
          predicates: [],
          priority: Priorities.high,
        },
      ],
      rateLimiter: rateLimiterFunc(() => 0),
      ...(options.fairness ? { fairness: options.fairness } : {}),
    },
    // No reconcile here writes status, so the client is never called.
    { client: {} as KubeClient, logger: createLogger({ level: 'silent' }) },
    (_ctx, request) => reconcile(request.key, controller),
  );
  const stop = new AbortController();
  widgets.informer.start();
  configMaps.informer.start();
  const running = controller.run(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
    await Promise.all([widgets.informer.stop(), configMaps.informer.stop()]);
  });
  return { controller, widgets, configMaps };
}

describe('controller queue priorities', () => {
  it.each([
    {
      fairness: undefined,
      // The owned child's change jumps the initial list; then the namespaces take turns.
      first: ['bulk/w0', 'bulk/w29', 'other/w', 'bulk/w1', 'bulk/w2'],
    },
    {
      fairness: 'fifo' as const,
      // client-go's FIFO: the initial list in order, the change folded into its waiting key.
      first: ['bulk/w0', 'bulk/w1', 'bulk/w2', 'bulk/w3', 'bulk/w4'],
    },
  ])(
    'fairness $fairness: an owned child’s change during the initial list’s backlog',
    async ({ fairness, first }) => {
      const keys = [...Array.from({ length: 30 }, (_, i) => `bulk/w${i}`), 'other/w'];
      const order: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { configMaps } = start(
        async (key) => {
          order.push(key);
          if (order.length === 1) await gate;
        },
        { widgets: keys.map(widget), ...(fairness ? { fairness } : {}) },
      );
      await until(() => order.length === 1);
      // While the first key of the backlog is reconciled, a child of bulk/w29 changes.
      configMaps.emit({ type: 'ADDED', object: childOf('bulk/w29') });
      await until(() => configMaps.informer.store.list().length === 1);
      release();
      await until(() => order.length === keys.length);
      expect(order.slice(0, 5)).toEqual(first);
      expect(new Set(order).size).toBe(keys.length); // each reconciled once
    },
  );

  it('a retry keeps the priority a key ran at; a requeue takes Result.priority, else ≤ normal; the reconcile’s API requests carry it', async () => {
    const seen: (number | undefined)[] = [];
    const requests: number[] = [];
    const steps: (() => Result | void)[] = [
      () => {
        throw new Error('transient');
      },
      () => ({ requeueAfter: 1, priority: Priorities.high }),
      () => ({ requeueAfter: 1 }),
      () => undefined,
    ];
    start(
      async (key, controller) => {
        seen.push(controller.queue.processingPriority(key));
        await new Promise((resolve) => setTimeout(resolve, 1));
        // What the client's rate limiter orders its waiting requests by (withRequestPriority).
        requests.push(currentRequestPriority());
        return steps[seen.length - 1]!();
      },
      { widgets: [widget('a/x')] },
    );
    await until(() => requests.length === steps.length);
    const { low, normal, high } = Priorities;
    // initial list → low; its retry → low; requeue asked high → high; then capped at normal.
    expect(seen).toEqual([low, low, high, normal]);
    expect(requests).toEqual(seen);
    expect(currentRequestPriority()).toBe(0); // nothing leaks out of the reconciles
  });

  it('enqueue by hand takes a priority', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { controller } = start(
      async (key) => {
        order.push(key);
        if (order.length === 1) await gate;
      },
      { widgets: ['a/1', 'a/2', 'a/3'].map(widget) },
    );
    await until(() => order.length === 1);
    controller.enqueue('a/3', { priority: Priorities.high });
    release();
    await until(() => order.length === 3);
    expect(order).toEqual(['a/1', 'a/3', 'a/2']);
  });
});

describe('builder', () => {
  /** A manager that only records the options of the controller the builder creates. */
  function recordingManager() {
    const created: ControllerOptions[] = [];
    const manager = {
      informers: { informerFor: () => source([]).informer },
      createController: (options: ControllerOptions) => {
        created.push(options);
        return {} as Controller;
      },
    } as unknown as Manager;
    return { manager, created };
  }

  it('owns(C) is a high-priority source; watches and the kind itself are normal', () => {
    const { manager, created } = recordingManager();
    controllerFor(manager, Widgets)
      .owns(ConfigMaps)
      .watches(ConfigMaps, enqueueForObject)
      .watches(ConfigMaps, enqueueForObject, { priority: Priorities.low })
      .complete(async () => undefined);
    expect(created[0]!.watches.map((w) => w.priority)).toEqual([
      Priorities.normal,
      Priorities.high,
      Priorities.normal,
      Priorities.low,
    ]);
    expect(created[0]!.fairness).toBeUndefined(); // the controller's default: fair
  });

  it('withOptions({ fairness }) chooses the queue', () => {
    const { manager, created } = recordingManager();
    controllerFor(manager, Widgets)
      .withOptions({ fairness: 'fifo' })
      .complete(async () => undefined);
    expect(created[0]!.fairness).toBe('fifo');
  });
});
