import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Backoff } from '../src/backoff.js';
import {
  DeletedFinalStateUnknown,
  Informer,
  stripManagedFields,
  type EventHandler,
} from '../src/informer.js';
import { type ListerWatcher } from '../src/lister-watcher.js';
import { type ReflectorEvent } from '../src/reflector.js';
import { gone, ScriptedListerWatcher, type Obj } from './support/scripted-lister-watcher.js';

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

function recorder(): { events: string[]; handler: EventHandler<Obj> } {
  const events: string[] = [];
  return {
    events,
    handler: {
      onAdd: (o, initial) => events.push(`add:${o.metadata.name}${initial ? ':initial' : ''}`),
      onUpdate: (old, o) =>
        events.push(
          `update:${o.metadata.name}:${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`,
        ),
      onDelete: (o) =>
        events.push(
          o instanceof DeletedFinalStateUnknown
            ? `delete-tombstone:${o.key}`
            : `delete:${o.metadata.name}`,
        ),
    },
  };
}

const informers: Informer<Obj>[] = [];
function informer(
  lw: ListerWatcher<Obj> | ListerWatcher<Obj>[],
  options: ConstructorParameters<typeof Informer<Obj>>[1] = {},
) {
  const inf = new Informer<Obj>(lw, { backoff: new Backoff(1, 5, 0), ...options });
  informers.push(inf);
  return inf;
}
afterEach(async () => {
  for (const inf of informers.splice(0)) await inf.stop();
});

describe('Informer', () => {
  it('lists every page, marks the first list as initial, then follows the watch from its resourceVersion', async () => {
    const lw = new ScriptedListerWatcher();
    for (const n of ['a', 'b', 'c']) lw.put(n);
    const inf = informer(lw);
    const { events, handler } = recorder();
    inf.addEventHandler(handler);
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    expect(lw.lists.map((l) => l.continue)).toEqual([undefined, '2']);
    expect(events).toEqual(['add:a:initial', 'add:b:initial', 'add:c:initial']);

    await until(() => lw.watching, 'watch');
    expect(lw.watches[0]).toMatchObject({ resourceVersion: '3', allowWatchBookmarks: true });
    expect(lw.watches[0]!.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(lw.watches[0]!.timeoutSeconds).toBeLessThanOrEqual(600);

    lw.put('d');
    lw.put('a', 'changed');
    lw.remove('b');
    await until(() => events.length === 6, 'three watch events');
    expect(events.slice(3)).toEqual(['add:d', 'update:a:1->5', 'delete:b']);
    expect(inf.store.keys().sort()).toEqual(['ns/a', 'ns/c', 'ns/d']);
  });

  it('re-watches from the last resourceVersion, bookmarks included, when the server closes the stream', async () => {
    const lw = new ScriptedListerWatcher();
    lw.put('a');
    const inf = informer(lw);
    inf.start();
    await until(() => lw.watching, 'watch');
    lw.putSilently('unrelated');
    lw.bookmark();
    await until(() => inf.resourceVersion === '2', 'bookmark applied');
    await sleep(1_100); // a stream that ends at once counts as a failure; this one lived long enough
    lw.endWatch();
    await until(() => lw.watches.length === 2, 're-watch');
    expect(lw.watches[1]!.resourceVersion).toBe('2');
    expect(lw.lists).toHaveLength(1);
  });

  it('relists after 410 Gone and emits exactly the missed changes — no lost, no phantom events', async () => {
    const lw = new ScriptedListerWatcher();
    for (const n of ['keep', 'change', 'vanish']) lw.put(n);
    const inf = informer(lw);
    const { events, handler } = recorder();
    inf.addEventHandler(handler);
    inf.start();
    await until(() => lw.watching, 'watch');
    events.length = 0;

    lw.putSilently('change', 'v2');
    lw.removeSilently('vanish');
    lw.putSilently('new');
    lw.endWatch(gone);

    await until(() => events.length === 3, 'relist events');
    expect(events.sort()).toEqual(
      ['add:new', 'delete-tombstone:ns/vanish', 'update:change:2->4'].sort(),
    );
    expect(lw.lists).toHaveLength(4); // two pages for the initial list, two for the relist
    expect(inf.store.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
  });

  it('backs off and retries after list and watch failures, and recovers the server state', async () => {
    const lw = new ScriptedListerWatcher();
    lw.put('a');
    lw.listFailures.push(new Error('connection refused'), new Error('connection refused'));
    lw.watchFailures.push(new Error('connection reset'));
    const seen: ReflectorEvent[] = [];
    const inf = informer(lw, { onEvent: (e) => seen.push(e) });
    inf.start();
    await inf.waitForSync();
    await until(() => lw.watching, 'watch after failures');
    expect(
      seen.filter((e) => e.type === 'error').map((e) => (e as { phase: string }).phase),
    ).toEqual(['list', 'list', 'watch']);
    lw.put('b');
    await until(() => inf.store.size === 2, 'event after recovery');
  });

  it('restarts a watch that stays silent longer than the inactivity timeout', async () => {
    const lw = new ScriptedListerWatcher();
    lw.put('a');
    const seen: ReflectorEvent[] = [];
    const inf = informer(lw, { inactivityTimeoutMs: 50, onEvent: (e) => seen.push(e) });
    inf.start();
    await until(() => lw.watches.length >= 2, 'a second watch after inactivity');
    expect(seen).toContainEqual({ type: 'watch-ended', reason: 'inactivity' });
    expect(lw.lists).toHaveLength(1);
    expect(lw.watches[1]!.resourceVersion).toBe('1');
  });

  it('keeps running when a handler throws or rejects, and counts the failures', async () => {
    const lw = new ScriptedListerWatcher();
    lw.put('a');
    const errors: unknown[] = [];
    const inf = informer(lw, { onHandlerError: (e) => errors.push(e) });
    const { events, handler } = recorder();
    inf.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    inf.addEventHandler({
      onAdd: () => Promise.reject(new Error('async boom')) as unknown as void,
    });
    inf.addEventHandler(handler);
    inf.start();
    await until(() => lw.watching, 'watch');
    lw.put('b');
    await until(
      () => events.length === 2 && errors.length === 4,
      `all deliveries (${events} / ${errors.length})`,
    );
    expect(inf.handlerErrors).toBe(4);
  });

  it('delivers cached objects to a handler added after sync, and resyncs as update(obj, obj)', async () => {
    const lw = new ScriptedListerWatcher();
    lw.put('a');
    const inf = informer(lw, { resyncPeriodMs: 20 });
    inf.start();
    await inf.waitForSync();
    const { events, handler } = recorder();
    inf.addEventHandler(handler);
    expect(events).toEqual(['add:a:initial']);
    await until(() => events.length >= 3, 'two resyncs');
    expect(events.slice(1, 3)).toEqual(['update:a:1->1', 'update:a:1->1']);
  });

  it('applies the transform before caching', () => {
    const withFields = { metadata: { name: 'a', managedFields: [{ manager: 'x' }] } };
    expect(stripManagedFields(withFields)).toEqual({ metadata: { name: 'a' } });
    const without: { metadata: { name: string; managedFields?: unknown } } = {
      metadata: { name: 'a' },
    };
    expect(stripManagedFields(without)).toBe(without);
  });
});

describe('Informer over one ListerWatcher per namespace', () => {
  it('merges them into one cache and syncs once every one has listed', async () => {
    const a = new ScriptedListerWatcher('team-a');
    const b = new ScriptedListerWatcher('team-b');
    a.put('x');
    b.put('x');
    b.put('y');
    // team-b's first list waits until the test lets it through.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowB: ListerWatcher<Obj> = {
      list: async (options) => {
        await gate;
        return b.list(options);
      },
      watch: (options) => b.watch(options),
    };
    const inf = informer([a, slowB]);
    const { events, handler } = recorder();
    inf.addEventHandler(handler);
    inf.start();
    await until(() => a.watching, 'team-a watched');
    expect(inf.hasSynced()).toBe(false);
    expect(inf.store.keys()).toEqual(['team-a/x']);
    release();
    await inf.waitForSync();
    expect(inf.store.keys().sort()).toEqual(['team-a/x', 'team-b/x', 'team-b/y']);
    expect(events).toEqual(['add:x:initial', 'add:x:initial', 'add:y:initial']);
    await until(() => b.watching, 'team-b watched');
    expect(inf.resourceVersion).toBe('1,2');
    a.put('z');
    b.remove('x');
    await until(() => events.length === 5, 'one event from each namespace');
    expect(events.slice(3).sort()).toEqual(['add:z', 'delete:x']);
    expect(inf.store.keys().sort()).toEqual(['team-a/x', 'team-a/z', 'team-b/y']);
  });

  it('relists one namespace after 410 Gone without touching the other namespaces’ objects', async () => {
    const a = new ScriptedListerWatcher('team-a');
    const b = new ScriptedListerWatcher('team-b');
    a.put('kept');
    b.put('gone-later');
    b.put('stays');
    const inf = informer([a, b]);
    const { events, handler } = recorder();
    inf.addEventHandler(handler);
    inf.start();
    await inf.waitForSync();
    await until(() => a.watching && b.watching, 'both watched');
    // A gap in team-b's watch, then 410 Gone: its relist finds the gap, and only in team-b.
    b.removeSilently('gone-later');
    b.putSilently('new');
    b.endWatch(gone);
    await until(() => b.lists.length === 2 && events.length === 5, 'team-b relisted');
    expect(events.slice(3).sort()).toEqual(['add:new', 'delete-tombstone:team-b/gone-later']);
    expect(inf.store.keys().sort()).toEqual(['team-a/kept', 'team-b/new', 'team-b/stays']);
    expect(a.lists).toHaveLength(1);
  });

  it('needs at least one ListerWatcher', () => {
    expect(() => new Informer<Obj>([])).toThrow(TypeError);
  });
});
