/** One page of a list response. */
export interface ListPage<T> {
  items: T[];
  metadata: { resourceVersion?: string; continue?: string };
}

export interface ListerWatcherListOptions {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ListerWatcherWatchOptions {
  resourceVersion: string;
  timeoutSeconds: number;
  allowWatchBookmarks: boolean;
  signal: AbortSignal;
}

export interface ListerWatcherEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/**
 * What a reflector needs from the API server, for one resource type and selector. `@steward/kube`'s
 * client provides it; unit tests use an object literal.
 *
 * - `list` is called for the initial list and for every relist; it must be a consistent read.
 * - `watch` streams events after `resourceVersion` until the server closes the stream
 *   (`timeoutSeconds`), the signal aborts it (the iterator then ends or throws an AbortError), or an
 *   error occurs; a 410 Gone — whether an HTTP status or an ERROR event inside a 200 stream — must
 *   be thrown as an error whose `code` is 410.
 */
export interface ListerWatcher<T> {
  list(options: ListerWatcherListOptions): Promise<ListPage<T>>;
  watch(options: ListerWatcherWatchOptions): AsyncIterable<ListerWatcherEvent<T>>;
}

/**
 * True for the API server's "resource version too old" answers (HTTP 410 or reason Expired/Gone),
 * from any `ListerWatcher` (duck-typed on `code`/`reason`; client-go's `IsResourceExpired`).
 * `@steward/kube`'s `isGone` is narrower: its own `GoneError` class.
 */
export function isResourceExpired(error: unknown): boolean {
  const e = error as { code?: unknown; reason?: unknown } | null;
  return e != null && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}
