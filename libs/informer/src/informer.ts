import { type ListerWatcher, type ListerWatcherEvent } from './lister-watcher.js';
import { Reflector, type ReflectorEvent, type ReflectorOptions } from './reflector.js';
import { objectKey, Store, type IndexFunc, type Keyed, type ObjectKey } from './store.js';

/**
 * Handed to `onDelete` when the informer learned of a deletion from a relist rather than from a
 * DELETED event: `obj` is the last state it knew, possibly stale.
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: ObjectKey,
    readonly obj: T,
  ) {}
}

/**
 * Notifications from an informer, delivered in order after the cache has been updated. Handlers
 * must be quick and must not throw (enqueue a key and return); an exception or a rejected promise is
 * caught, counted and reported through `onHandlerError`, never propagated.
 */
export interface EventHandler<T> {
  /** A new object; `isInInitialList` for those delivered by the first list. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** A changed object — or, on resync, the same object twice (`old === obj`). */
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

export interface InformerOptions<T> extends ReflectorOptions {
  /** Secondary indexes of the cache. */
  indexers?: Record<string, IndexFunc<T>>;
  /** Applied to every object before it is cached (e.g. `stripManagedFields`). */
  transform?: (obj: T) => T;
  /** Every this many ms, `onUpdate(obj, obj)` for every cached object. 0 (default) disables. */
  resyncPeriodMs?: number;
  onHandlerError?: (error: unknown) => void;
}

/**
 * A shared informer: one reflector filling one cache, any number of handlers. `hasSynced()` turns
 * true once the first list is in the cache and stays true. Relists compute differences against the
 * cache, so a relist after 410 Gone produces exactly the events that were missed — adds, updates
 * for objects whose resourceVersion changed, and deletes (as `DeletedFinalStateUnknown`) for objects
 * that vanished — and nothing for objects that did not change.
 *
 * Given several `ListerWatcher`s whose objects never overlap (one per namespace of a kind, as
 * controller-runtime's multi-namespace cache has), it runs one reflector on each and merges them
 * into the one cache: a relist of one is compared with the objects that one delivered only, so a
 * 410 Gone in one namespace never deletes another's objects; `hasSynced()` turns true once every
 * one has listed. They share `options` (a `backoff` given there too).
 */
export class Informer<T extends Keyed> {
  readonly store = new Store<T>();
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly reflectors: Reflector<T>[];
  /** The keys each reflector delivered and that are still cached, by reflector. */
  private readonly delivered: Set<ObjectKey>[];
  /** Reflectors whose first list has not arrived yet. */
  private readonly unlisted: Set<number>;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private handlerErrorCount = 0;

  /** Throws a `TypeError` for an empty list of `ListerWatcher`s. */
  constructor(
    lw: ListerWatcher<T> | readonly ListerWatcher<T>[],
    private readonly options: InformerOptions<T> = {},
  ) {
    const sources: readonly ListerWatcher<T>[] = Array.isArray(lw) ? lw : [lw as ListerWatcher<T>];
    if (sources.length === 0) throw new TypeError('steward: an informer needs a ListerWatcher');
    if (options.indexers) this.store.addIndexers(options.indexers);
    this.delivered = sources.map(() => new Set<ObjectKey>());
    this.unlisted = new Set(sources.keys());
    this.reflectors = sources.map(
      (source, i) =>
        new Reflector<T>(
          source,
          {
            replace: (items, rv) => this.replace(i, items, rv),
            apply: (event) => this.apply(i, event),
          },
          options,
        ),
    );
  }

  /**
   * Adds a handler. Objects already cached are delivered to it at once as adds, so a handler added
   * late sees the same world as one added before start. Returns a function that removes it.
   */
  addEventHandler(handler: EventHandler<T>): () => void {
    this.handlers.add(handler);
    if (this.synced) {
      for (const obj of this.store.list()) this.call(() => handler.onAdd?.(obj, true));
    }
    return () => this.handlers.delete(handler);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once synced; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /**
   * The resourceVersion the cache reflects; with several `ListerWatcher`s, each one's in their
   * order, joined by commas (resourceVersions of different lists are not comparable).
   */
  get resourceVersion(): string {
    return this.reflectors.map((r) => r.resourceVersion).join(',');
  }

  get handlerErrors(): number {
    return this.handlerErrorCount;
  }

  /** Starts the reflectors. Idempotent. */
  start(): void {
    if (this.controller) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    this.running = Promise.all(this.reflectors.map((r) => r.run(signal))).then(() => undefined);
    const period = this.options.resyncPeriodMs ?? 0;
    if (period > 0) {
      this.resyncTimer = setInterval(() => this.resync(), period);
      this.resyncTimer.unref?.();
    }
  }

  /** Stops the reflectors and resync; resolves when their watches have ended. */
  async stop(): Promise<void> {
    clearInterval(this.resyncTimer);
    this.controller?.abort();
    await this.running;
  }

  /** A (re)list of reflector `source`: compared with what that reflector delivered before. */
  private replace(source: number, items: T[], _resourceVersion: string): void {
    const initial = !this.synced;
    const delivered = this.delivered[source]!;
    const seen = new Set<ObjectKey>();
    for (const raw of items) {
      const obj = this.transform(raw);
      const key = objectKey(obj);
      seen.add(key);
      delivered.add(key);
      const old = this.store.get(key);
      if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) continue;
      this.store.upsert(obj);
      if (old) this.notify((h) => h.onUpdate?.(old, obj));
      else this.notify((h) => h.onAdd?.(obj, initial));
    }
    for (const key of [...delivered]) {
      if (seen.has(key)) continue;
      delivered.delete(key);
      const last = this.store.remove(key);
      if (!last) continue;
      const tombstone = new DeletedFinalStateUnknown(key, last);
      this.notify((h) => h.onDelete?.(tombstone));
    }
    this.unlisted.delete(source);
    if (initial && this.unlisted.size === 0) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const w of waiters) w();
    }
  }

  private apply(source: number, event: ListerWatcherEvent<T>): void {
    const obj = this.transform(event.object);
    const key = objectKey(obj);
    if (event.type === 'DELETED') {
      this.delivered[source]!.delete(key);
      const old = this.store.remove(key);
      if (old) this.notify((h) => h.onDelete?.(obj));
      return;
    }
    this.delivered[source]!.add(key);
    const old = this.store.upsert(obj);
    if (old) this.notify((h) => h.onUpdate?.(old, obj));
    else this.notify((h) => h.onAdd?.(obj, false));
  }

  private resync(): void {
    for (const obj of this.store.list()) this.notify((h) => h.onUpdate?.(obj, obj));
  }

  private transform(obj: T): T {
    return this.options.transform ? this.options.transform(obj) : obj;
  }

  private notify(deliver: (handler: EventHandler<T>) => void): void {
    for (const handler of this.handlers) this.call(() => deliver(handler));
  }

  private call(fn: () => unknown): void {
    try {
      const result = fn();
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).catch((error: unknown) => this.handlerFailed(error));
      }
    } catch (error) {
      this.handlerFailed(error);
    }
  }

  private handlerFailed(error: unknown): void {
    this.handlerErrorCount++;
    try {
      this.options.onHandlerError?.(error);
    } catch {
      // nothing more to do
    }
  }
}

export type { ReflectorEvent };

/** A `transform` that drops `metadata.managedFields`, which controllers rarely read and which can
 * be most of an object's size. */
export function stripManagedFields<T extends { metadata?: { managedFields?: unknown } }>(
  obj: T,
): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata } as T;
}
