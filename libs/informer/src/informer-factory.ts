import { type KubeClient, type KubeObject, type ResourceType } from '@steward/kube';
import { Informer, stripManagedFields, type InformerOptions } from './informer.js';
import { type ListerWatcher } from './lister-watcher.js';

/** Which objects of a kind an informer follows. */
export interface Selection {
  /** Only this namespace; omitted: all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  /**
   * Only these namespaces: one list-watch each, merged into one cache (what a controller
   * permitted to read its kinds in some namespaces only, by a Role in each, needs: a list or watch
   * across all namespaces would be forbidden). Omitted or empty: `namespace`. Not with
   * `namespace`.
   */
  namespaces?: readonly string[];
  labelSelector?: string;
  fieldSelector?: string;
}

/** Thrown for a selection that names both `namespace` and `namespaces`. */
export class SelectionError extends TypeError {
  override readonly name = 'SelectionError';
}

/**
 * The namespaces `selection` follows, deduplicated and sorted: `[]` for all namespaces (or a
 * cluster-scoped kind). Throws {@link SelectionError} when it names both `namespace` and
 * `namespaces`.
 */
export function selectedNamespaces(selection: Selection): string[] {
  const many = (selection.namespaces ?? []).filter((namespace) => namespace !== '');
  if (many.length > 0 && selection.namespace) {
    throw new SelectionError(
      'steward: a selection names either one namespace or a list of namespaces, not both',
    );
  }
  if (selection.namespace) return [selection.namespace];
  return [...new Set(many)].sort();
}

/**
 * A `ListerWatcher` over `client` for one kind and selection, in one namespace or all of them
 * (a selection with several `namespaces` needs one each: see {@link listerWatchersFor}).
 */
export function listerWatcherFor<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  selection: Selection = {},
): ListerWatcher<T> {
  const { namespaces: _many, ...one } = selection;
  const namespaces = selectedNamespaces(selection);
  if (namespaces.length > 1) {
    throw new SelectionError(
      `steward: one ListerWatcher follows one namespace or all of them, not ${namespaces.join(', ')}`,
    );
  }
  const scoped = { ...one, ...(namespaces.length === 1 ? { namespace: namespaces[0] } : {}) };
  return {
    list: (options) => client.list<T>(rt, { ...scoped, ...options }),
    watch: (options) => client.watch<T>(rt, { ...scoped, ...options }),
  };
}

/** One `ListerWatcher` per namespace of `selection` (one for all namespaces when it names none). */
export function listerWatchersFor<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  selection: Selection = {},
): ListerWatcher<T>[] {
  const namespaces = selectedNamespaces(selection);
  const { namespaces: _many, namespace: _one, ...rest } = selection;
  if (namespaces.length === 0) return [listerWatcherFor<T>(client, rt, rest)];
  return namespaces.map((namespace) => listerWatcherFor<T>(client, rt, { ...rest, namespace }));
}

export interface InformerFactoryOptions {
  /** Drop `metadata.managedFields` before caching. Default true. */
  stripManagedFields?: boolean;
  /** Options for every informer (resync, inactivity timeout, observers…). */
  informerOptions?: Omit<InformerOptions<KubeObject>, 'indexers' | 'transform'>;
}

/**
 * Shares one informer per kind + selection among every controller of a process (controller-runtime's
 * cache). Informers asked for after `start()` start at once. `stop()` stops them all. A selection
 * of several namespaces gets one informer with a list-watch per namespace, merged into its one
 * cache; `{ namespaces: [a] }` and `{ namespace: a }` share one informer.
 */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private started = false;

  constructor(
    private readonly client: KubeClient,
    private readonly options: InformerFactoryOptions = {},
  ) {}

  /**
   * The shared informer for `rt` and `selection`, created on first use. Throws
   * {@link SelectionError} for a selection naming both `namespace` and `namespaces`.
   */
  informerFor<T extends KubeObject>(rt: ResourceType, selection: Selection = {}): Informer<T> {
    const key = [
      rt.group,
      rt.version,
      rt.plural,
      selectedNamespaces(selection).join(','),
      selection.labelSelector ?? '',
      selection.fieldSelector ?? '',
    ].join('|');
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer<KubeObject>(listerWatchersFor(this.client, rt, selection), {
        ...this.options.informerOptions,
        ...((this.options.stripManagedFields ?? true) ? { transform: stripManagedFields } : {}),
      });
      this.informers.set(key, informer);
      if (this.started) informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /** Starts every informer, present and future. */
  start(): void {
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** True when every informer has synced. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
  }

  /** Resolves when every informer created so far has synced. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
