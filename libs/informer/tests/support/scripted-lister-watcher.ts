import {
  type ListerWatcher,
  type ListerWatcherListOptions,
  type ListerWatcherEvent,
  type ListerWatcherWatchOptions,
} from '../../src/lister-watcher.js';

export interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion: string };
  data?: string;
}

/** Our own ListerWatcher interface as a scripted in-memory double, for unit tests of the loop. */
export class ScriptedListerWatcher implements ListerWatcher<Obj> {
  /** The namespace of every object it serves (one ListerWatcher per namespace, as in production). */
  constructor(readonly namespace = 'ns') {}

  state = new Map<string, Obj>();
  rv = 0;
  lists: ListerWatcherListOptions[] = [];
  watches: ListerWatcherWatchOptions[] = [];
  /** The next watch calls throw these, in order. */
  watchFailures: unknown[] = [];
  listFailures: unknown[] = [];
  pageSize = 2;
  private live: { push(e: ListerWatcherEvent<Obj>): void; end(error?: unknown): void } | undefined;

  put(name: string, data = ''): Obj {
    const obj = {
      metadata: { name, namespace: this.namespace, resourceVersion: String(++this.rv) },
      data,
    };
    const existed = this.state.has(name);
    this.state.set(name, obj);
    this.live?.push({ type: existed ? 'MODIFIED' : 'ADDED', object: obj });
    return obj;
  }

  remove(name: string): void {
    const obj = this.state.get(name);
    if (!obj) return;
    this.state.delete(name);
    const final = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.live?.push({ type: 'DELETED', object: final });
  }

  /** Changes the state without telling the current watch (a gap the informer must recover). */
  putSilently(name: string, data = ''): void {
    this.state.set(name, {
      metadata: { name, namespace: this.namespace, resourceVersion: String(++this.rv) },
      data,
    });
  }

  removeSilently(name: string): void {
    this.state.delete(name);
    this.rv++;
  }

  bookmark(): void {
    this.live?.push({
      type: 'BOOKMARK',
      object: { metadata: { name: '', resourceVersion: String(this.rv) } },
    });
  }

  endWatch(error?: unknown): void {
    this.live?.end(error);
  }

  get watching(): boolean {
    return this.live !== undefined;
  }

  async list(options: ListerWatcherListOptions) {
    this.lists.push(options);
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    const all = [...this.state.values()].sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    const start = options.continue ? Number(options.continue) : 0;
    const items = all.slice(start, start + this.pageSize);
    const next = start + this.pageSize < all.length ? String(start + this.pageSize) : undefined;
    return {
      items,
      metadata: { resourceVersion: String(this.rv), ...(next ? { continue: next } : {}) },
    };
  }

  watch(options: ListerWatcherWatchOptions): AsyncIterable<ListerWatcherEvent<Obj>> {
    this.watches.push(options);
    const failure = this.watchFailures.shift();
    const queue: ListerWatcherEvent<Obj>[] = [];
    let ended: { error?: unknown } | undefined;
    let wake: (() => void) | undefined;
    const setLive = (h: typeof handle | undefined): void => {
      this.live = h;
    };
    const isLive = (h: typeof handle): boolean => this.live === h;
    const handle = {
      push(e: ListerWatcherEvent<Obj>) {
        queue.push(e);
        wake?.();
      },
      end(error?: unknown) {
        ended = { error };
        wake?.();
      },
    };
    return {
      async *[Symbol.asyncIterator]() {
        if (failure) throw failure;
        setLive(handle);
        const onAbort = () => handle.end(options.signal.reason);
        options.signal.addEventListener('abort', onAbort, { once: true });
        try {
          for (;;) {
            while (queue.length > 0) yield queue.shift()!;
            if (ended) {
              if (ended.error) throw ended.error;
              return;
            }
            await new Promise<void>((r) => (wake = r));
          }
        } finally {
          options.signal.removeEventListener('abort', onAbort);
          if (isLive(handle)) setLive(undefined);
        }
      },
    };
  }
}

export const gone = Object.assign(new Error('too old resource version'), { code: 410 });
