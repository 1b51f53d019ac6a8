import { setTimeout as sleep } from 'node:timers/promises';
import { Backoff } from './backoff.js';
import {
  isResourceExpired,
  type ListerWatcher,
  type ListerWatcherEvent,
} from './lister-watcher.js';

/** Where a reflector delivers what it learns. Called in order, never concurrently. */
export interface ReflectorSink<T> {
  /** The complete current state after a (re)list; `resourceVersion` is the list's. */
  replace(items: T[], resourceVersion: string): void;
  /** One watch event (not BOOKMARK). */
  apply(event: ListerWatcherEvent<T>): void;
}

/** What the reflector reports about itself, for logs and tests. */
export type ReflectorEvent =
  | { type: 'listed'; count: number; resourceVersion: string }
  | { type: 'watch-started'; resourceVersion: string; timeoutSeconds: number }
  | { type: 'watch-ended'; reason: 'server-closed' | 'inactivity' }
  | { type: 'gone'; resourceVersion: string }
  | { type: 'error'; phase: 'list' | 'watch'; error: unknown; retryInMs: number };

export interface ReflectorOptions {
  /** Page size of list requests. Default 500. */
  pageSize?: number;
  /** Watch `timeoutSeconds` is drawn uniformly from this range. Default [300, 600]. */
  watchTimeoutSeconds?: [number, number];
  /**
   * A watch that has delivered nothing — no event, no bookmark — for this long is presumed stalled
   * and restarted from the last resource version. Default 5 minutes; the API server sends a bookmark
   * about once a minute on a healthy watch.
   */
  inactivityTimeoutMs?: number;
  backoff?: Backoff;
  onEvent?: (event: ReflectorEvent) => void;
}

class WatchInactive extends Error {}

/**
 * The list-then-watch loop of client-go's Reflector: list (paginated), then watch from the list's
 * resourceVersion with bookmarks and a randomised timeout; when the server closes the stream, watch
 * again from the last resourceVersion seen; on 410 Gone (a compacted resourceVersion) list again;
 * on any other failure, back off (800 ms → 30 s, jittered) and retry, from the last resourceVersion
 * if there is one. Never gives up until `run`'s signal aborts.
 */
export class Reflector<T extends { metadata?: { resourceVersion?: string } }> {
  private lastResourceVersion = '';

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly sink: ReflectorSink<T>,
    private readonly options: ReflectorOptions = {},
  ) {}

  /** The resourceVersion of the last list, event or bookmark delivered. */
  get resourceVersion(): string {
    return this.lastResourceVersion;
  }

  /** Runs until `signal` aborts; resolves then. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = this.options.backoff ?? new Backoff();
    let needList = true;
    while (!signal.aborted) {
      let phase: 'list' | 'watch' = needList ? 'list' : 'watch';
      try {
        if (needList) {
          await this.list(signal);
          needList = false;
          backoff.reset();
        }
        phase = 'watch';
        const delivered = await this.watch(signal);
        if (delivered) backoff.reset();
      } catch (error) {
        if (signal.aborted) break;
        if (isResourceExpired(error)) {
          this.emit({ type: 'gone', resourceVersion: this.lastResourceVersion });
          needList = true;
          continue;
        }
        if (error instanceof WatchInactive) {
          this.emit({ type: 'watch-ended', reason: 'inactivity' });
          continue;
        }
        const retryInMs = backoff.next();
        this.emit({ type: 'error', phase, error, retryInMs });
        await sleep(retryInMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    do {
      signal.throwIfAborted();
      const page = await this.lw.list({
        limit: this.options.pageSize ?? 500,
        continue: continueToken,
      });
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    this.sink.replace(items, resourceVersion);
    this.lastResourceVersion = resourceVersion;
    this.emit({ type: 'listed', count: items.length, resourceVersion });
  }

  /** One watch; resolves when the server closes it, returning whether anything arrived. */
  private async watch(outer: AbortSignal): Promise<boolean> {
    const [min, max] = this.options.watchTimeoutSeconds ?? [300, 600];
    const timeoutSeconds = Math.floor(min + Math.random() * (max - min + 1));
    const inactivityMs = this.options.inactivityTimeoutMs ?? 5 * 60_000;
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer.reason);
    outer.addEventListener('abort', onOuterAbort, { once: true });
    if (outer.aborted) onOuterAbort(); // aborted before we listened: the listener never fires
    let inactive = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        inactive = true;
        controller.abort(new WatchInactive('watch inactive'));
      }, inactivityMs);
      timer.unref?.();
    };
    let delivered = false;
    const startedAt = Date.now();
    this.emit({ type: 'watch-started', resourceVersion: this.lastResourceVersion, timeoutSeconds });
    try {
      arm();
      const stream = this.lw.watch({
        resourceVersion: this.lastResourceVersion,
        timeoutSeconds,
        allowWatchBookmarks: true,
        signal: controller.signal,
      });
      for await (const event of stream) {
        arm();
        delivered = true;
        const rv = event.object?.metadata?.resourceVersion;
        if (event.type !== 'BOOKMARK') this.sink.apply(event);
        if (rv) this.lastResourceVersion = rv;
      }
      if (inactive) throw new WatchInactive('watch inactive');
      if (outer.aborted) return delivered;
      if (!delivered && Date.now() - startedAt < 1000) {
        // A stream the server closes at once, again and again, must not become a hot loop.
        throw new Error('steward: the watch ended immediately without any event');
      }
      this.emit({ type: 'watch-ended', reason: 'server-closed' });
      return delivered;
    } catch (error) {
      if (inactive) throw new WatchInactive('watch inactive', { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuterAbort);
      controller.abort();
    }
  }

  private emit(event: ReflectorEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // an observer's failure must not stop the reflector
    }
  }
}
