import { type KubeObject, type ResourceType } from '@steward/kube';
import { type Selection } from '@steward/informer';
import { type NamespaceGauge } from '@steward/telemetry';
import { type Fairness, Priorities, type RateLimiter } from '@steward/workqueue';
import { type Controller, type WatchSpec } from './controller.js';
import { enqueueForObject, enqueueForOwner, type MapFunc } from './handlers.js';
import { type Manager } from './manager.js';
import { type Predicate } from './predicates.js';
import { type ObjectReconciler, type Reconciler } from './reconciler.js';
import { type ObjectWithStatus } from './status-writer.js';
import { type ReconcilerOf } from './controller.js';

interface Source {
  rt: ResourceType;
  selection: Selection;
  map: MapFunc;
  predicates: Predicate<KubeObject>[];
  priority: number;
}

/** Options of one source of keys. */
export interface SourceOptions {
  selection?: Selection;
  predicates?: Predicate<KubeObject>[];
  /**
   * The queue priority of its live changes (default `Priorities.normal`; `owns`:
   * `Priorities.high`). Initial lists and resyncs are low, deletions high, whatever it is.
   */
  priority?: number;
}

/**
 * Builds a controller for one kind (controller-runtime's builder). Sugar over `Controller`:
 * - `controllerFor(mgr, T)` ≡ watch T's informer, mapping each object to its own key;
 * - `.owns(C)` ≡ `.watches(C, enqueueForOwner(T), { priority: Priorities.high })` — keys of C's
 *   controller owner of kind T, ahead of bulk work when a child changes;
 * - `.watches(X, map)` — any kind, any mapping;
 * - `.withEventFilter(p)` — predicates for every source; per-source predicates add to them;
 * - `.gauges(g…)` — the kind's own gauges, over the objects it reconciles, per namespace.
 * - `.withOptions({ maxConcurrentReconciles, rateLimiter, fairness })` — `fairness: 'fifo'` for
 *   client-go's FIFO queue instead of the fair one (`ControllerOptions.fairness`).
 * `.complete(reconciler)` creates the controller and adds it to the manager.
 */
export class ControllerBuilder {
  private controllerName: string;
  private readonly sources: Source[] = [];
  private readonly globalPredicates: Predicate<KubeObject>[] = [];
  private maxConcurrentReconciles = 1;
  private rateLimiter: RateLimiter | undefined;
  private fairness: Fairness | undefined;
  private readonly kindGauges: NamespaceGauge<KubeObject>[] = [];

  constructor(
    private readonly manager: Manager,
    private readonly forType: ResourceType,
    forOptions: { selection?: Selection; predicates?: Predicate<KubeObject>[] } = {},
  ) {
    this.controllerName = forType.kind.toLowerCase();
    this.sources.push({
      rt: forType,
      selection: forOptions.selection ?? {},
      map: enqueueForObject,
      predicates: forOptions.predicates ?? [],
      priority: Priorities.normal,
    });
  }

  /** The controller's name (default: the kind, lowercased). */
  named(name: string): this {
    this.controllerName = name;
    return this;
  }

  /** Reconcile the owner, at high priority, when an object of `child` it controls changes. */
  owns(child: ResourceType, options: SourceOptions = {}): this {
    return this.watches(child, enqueueForOwner(this.forType), {
      priority: Priorities.high,
      ...options,
    });
  }

  /** Reconcile the keys `map` yields when an object of `rt` changes. */
  watches(rt: ResourceType, map: MapFunc, options: SourceOptions = {}): this {
    this.sources.push({
      rt,
      selection: options.selection ?? {},
      map,
      predicates: options.predicates ?? [],
      priority: options.priority ?? Priorities.normal,
    });
    return this;
  }

  withEventFilter(...predicates: Predicate<KubeObject>[]): this {
    this.globalPredicates.push(...predicates);
    return this;
  }

  withOptions(options: {
    maxConcurrentReconciles?: number;
    rateLimiter?: RateLimiter;
    fairness?: Fairness;
  }): this {
    if (options.maxConcurrentReconciles !== undefined)
      this.maxConcurrentReconciles = options.maxConcurrentReconciles;
    if (options.rateLimiter) this.rateLimiter = options.rateLimiter;
    if (options.fairness) this.fairness = options.fairness;
    return this;
  }

  /**
   * Gauges of the kind's own (its domain's), computed from the objects this controller
   * reconciles at each collection and reported per kind and namespace while it leads — never per
   * object. `T` is the kind's object type.
   */
  gauges<T extends KubeObject>(...gauges: NamespaceGauge<T>[]): this {
    this.kindGauges.push(...(gauges as unknown as NamespaceGauge<KubeObject>[]));
    return this;
  }

  /** Creates the controller with a key-level reconciler (it reads what it needs itself). */
  complete(reconciler: Reconciler): Controller {
    return this.build({ kind: 'key', reconcile: reconciler });
  }

  /**
   * Creates the controller with an object reconciler: the runtime reads each key's object from
   * the cache once and hands it down (`ObjectReconciler`), with the object's status writer.
   */
  completeObjects<T extends ObjectWithStatus>(reconciler: ObjectReconciler<T>): Controller {
    return this.build({
      kind: 'object',
      reconcile: reconciler as unknown as ObjectReconciler<ObjectWithStatus>,
    });
  }

  private build(reconciler: ReconcilerOf): Controller {
    const watches: WatchSpec[] = this.sources.map((s) => ({
      informer: this.manager.informers.informerFor(s.rt, s.selection),
      map: s.map,
      predicates: [...this.globalPredicates, ...s.predicates],
      priority: s.priority,
    }));
    const controller = this.manager.createController(
      {
        name: this.controllerName,
        forType: this.forType,
        forInformer: watches[0]!.informer,
        watches,
        maxConcurrentReconciles: this.maxConcurrentReconciles,
        ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
        ...(this.fairness ? { fairness: this.fairness } : {}),
        ...(this.kindGauges.length ? { gauges: this.kindGauges } : {}),
      },
      reconciler,
    );
    return controller;
  }
}

/** Starts building a controller for `forType` on `manager`. */
export function controllerFor(
  manager: Manager,
  forType: ResourceType,
  options: { selection?: Selection; predicates?: Predicate<KubeObject>[] } = {},
): ControllerBuilder {
  return new ControllerBuilder(manager, forType, options);
}
