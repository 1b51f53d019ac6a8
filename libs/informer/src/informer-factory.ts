import { type KubeClient, type KubeObject, type ResourceType } from '@steward/kube';
import { Informer, stripManagedFields, type InformerOptions } from './informer.js';
import { type ListerWatcher } from './lister-watcher.js';

/** Which objects of a kind an informer follows. */
export interface Selection {
  /** Only this namespace; omitted: all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** A `ListerWatcher` over `client` for one kind and selection. */
export function listerWatcherFor<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  selection: Selection = {},
): ListerWatcher<T> {
  return {
    list: (options) => client.list<T>(rt, { ...selection, ...options }),
    watch: (options) => client.watch<T>(rt, { ...selection, ...options }),
  };
}

export interface InformerFactoryOptions {
  /** Drop `metadata.managedFields` before caching. Default true. */
  stripManagedFields?: boolean;
  /** Options for every informer (resync, inactivity timeout, observers…). */
  informerOptions?: Omit<InformerOptions<KubeObject>, 'indexers' | 'transform'>;
}

/**
 * Shares one informer per kind + selection among every controller of a process (controller-runtime's
 * cache). Informers asked for after `start()` start at once. `stop()` stops them all.
 */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private started = false;

  constructor(
    private readonly client: KubeClient,
    private readonly options: InformerFactoryOptions = {},
  ) {}

  /** The shared informer for `rt` and `selection`, created on first use. */
  informerFor<T extends KubeObject>(rt: ResourceType, selection: Selection = {}): Informer<T> {
    const key = [
      rt.group,
      rt.version,
      rt.plural,
      selection.namespace ?? '',
      selection.labelSelector ?? '',
      selection.fieldSelector ?? '',
    ].join('|');
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer<KubeObject>(listerWatcherFor(this.client, rt, selection), {
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
