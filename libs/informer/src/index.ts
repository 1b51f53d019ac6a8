/**
 * @steward/informer — list-watch reflector and shared cache, with client-go's semantics.
 *
 * Contract:
 * - `Informer` lists (paginated) then watches from the list's resourceVersion with
 *   `allowWatchBookmarks` and a `timeoutSeconds` drawn from 300–600 s. When the server closes the
 *   stream it watches again from the last resourceVersion seen (bookmarks included), without a
 *   relist. A 410 Gone — HTTP status or ERROR event inside a 200 stream — triggers a relist whose
 *   differences against the cache become events: adds, updates for changed resourceVersions,
 *   `DeletedFinalStateUnknown` tombstones for objects that vanished, nothing for unchanged ones.
 * - Any other failure backs off 800 ms → 30 s with jitter and retries; the informer never stops
 *   on its own (unlike @kubernetes/client-node's, which stops on any non-410 error).
 * - A watch silent for longer than `inactivityTimeoutMs` (default 5 min) is presumed stalled and
 *   restarted.
 * - Handlers run after the cache is updated, in registration order; their exceptions and
 *   rejections are caught and counted, never propagated. `update(old, new)` carries both states.
 * - `hasSynced()` is true once the first list is cached. Resync (`resyncPeriodMs`) re-delivers
 *   every cached object as `update(obj, obj)`.
 * - Cached objects are shared: treat them as immutable.
 * - A `Selection` of several `namespaces` is one informer with a list-watch per namespace, merged
 *   into one cache (a relist in one namespace touches only that namespace's objects); it is what
 *   a process permitted to read its kinds in some namespaces only (a Role in each) watches with.
 */
export { Backoff } from './backoff.js';
export {
  DeletedFinalStateUnknown,
  Informer,
  stripManagedFields,
  type EventHandler,
  type InformerOptions,
} from './informer.js';
export {
  isResourceExpired,
  type ListerWatcher,
  type ListerWatcherListOptions,
  type ListPage,
  type ListerWatcherEvent,
  type ListerWatcherWatchOptions,
} from './lister-watcher.js';
export {
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type ReflectorSink,
} from './reflector.js';
export {
  byNamespace,
  byOwnerUid,
  objectKey,
  splitKey,
  Store,
  type IndexFunc,
  type Keyed,
  type ObjectKey,
} from './store.js';
export {
  InformerFactory,
  listerWatcherFor,
  listerWatchersFor,
  selectedNamespaces,
  SelectionError,
  type InformerFactoryOptions,
  type Selection,
} from './informer-factory.js';
