import { trace, type Tracer } from '@opentelemetry/api';
import { type Informer } from '@steward/informer';
import {
  type KubeClient,
  type KubeObject,
  type ResourceType,
  withRequestPriority,
} from '@steward/kube';
import {
  noopControllerMetrics,
  noopNamespaceGauges,
  noopObjectHealthMetrics,
  noopWorkqueueMetricsProvider,
  withReconcileSpan,
  type ControllerMetrics,
  type Logger,
  type NamespaceGauge,
  type NamespaceGauges,
  type ObjectHealthMetrics,
  type ReconcileResult,
  type WorkqueueMetricsProvider,
} from '@steward/telemetry';
import {
  type AddOptions,
  defaultControllerRateLimiter,
  fairControllerRateLimiter,
  type Fairness,
  newRateLimitingQueue,
  Priorities,
  type RateLimiter,
  type RateLimitingQueue,
} from '@steward/workqueue';
import { mappingHandler, type MapFunc } from './handlers.js';
import { ObjectHealthTracker } from './object-health.js';
import { passesCreate, type Predicate } from './predicates.js';
import {
  requestFromKey,
  type ObjectReconciler,
  type Reconciler,
  type Request,
  type Result,
} from './reconciler.js';
import { StatusWriter, type ObjectWithStatus } from './status-writer.js';
import { clearStalled, recordTerminalFailure } from './terminal-status.js';
import { terminalCause } from './terminal-error.js';

/** What a controller runs per key: a key-level reconciler, or an object reconciler (read once). */
export type ReconcilerOf =
  | { kind: 'key'; reconcile: Reconciler }
  | { kind: 'object'; reconcile: ObjectReconciler<ObjectWithStatus> };

/** Records Events about an object (client-go's EventRecorder; `@steward/events`' KubeEventRecorder is one). */
export interface EventRecorder {
  event(regarding: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** One source of keys: an informer, how its objects map to keys, and which events count. */
export interface WatchSpec {
  informer: Informer<KubeObject>;
  map: MapFunc;
  predicates: readonly Predicate<KubeObject>[];
  /**
   * The queue priority of this source's live changes; default `Priorities.normal` (`owns(...)`:
   * `Priorities.high`). Initial lists and resyncs are low and deletions high whatever it is
   * (`eventPriority`).
   */
  priority?: number;
}

export interface ControllerOptions {
  /** Unique per manager: the `controller` label of metrics, the queue's name, log field. */
  name: string;
  /** The kind this controller reconciles. */
  forType: ResourceType;
  /** The informer of `forType`; reconcilers read objects from its store. */
  forInformer: Informer<KubeObject>;
  watches: readonly WatchSpec[];
  /** Default 1. Keys are never reconciled concurrently whatever this is. */
  maxConcurrentReconciles?: number;
  /**
   * Default: per-key exponential 5 ms → 1000 s, max'd with a 10 qps / burst 100 bucket — one per
   * namespace with the fair queue (`fairControllerRateLimiter`), one for all with FIFO.
   */
  rateLimiter?: RateLimiter;
  /**
   * The queue's order. `'fair'` (default): by priority, then namespaces take turns, so a bulk
   * change in one namespace cannot delay another's reconciles by more than one key per turn.
   * `'fifo'`: client-go's first-in first-out queue, priorities ignored (for comparison).
   */
  fairness?: Fairness;
  /**
   * The kind's own gauges (its domain's: failovers, backups …), computed from the cached objects
   * this controller reconciles and reported per namespace while it runs, like the health metrics.
   */
  gauges?: readonly NamespaceGauge<KubeObject>[];
}

export interface ControllerDeps {
  client: KubeClient;
  logger: Logger;
  tracer?: Tracer;
  metrics?: ControllerMetrics;
  queueMetrics?: WorkqueueMetricsProvider;
  /** Per-object health of `forType`, aggregated per kind and namespace, while the controller runs. */
  health?: ObjectHealthMetrics;
  /** Where `options.gauges` are reported. */
  gauges?: NamespaceGauges;
  events?: EventRecorder;
}

/**
 * A controller: event sources feed a rate-limited work queue of keys; `maxConcurrentReconciles`
 * workers take keys and call the reconciler. The queue guarantees that one key is never reconciled
 * twice at once and that a key changed during its reconcile is reconciled again after it. It is
 * fair by default: the highest priority first, then namespaces take turns. Events set priorities
 * (`eventPriority`: initial list and resyncs low, deletions and owned children's changes high,
 * other changes normal). Results: resolve → forget the key's backoff (and `requeueAfter`
 * schedules it again, at `Result.priority`, by default the priority the key was handed out with
 * but no higher than normal: a poll is not urgent unless the reconciler says so); `TerminalError`
 * → no retry, `Ready=False`/`Stalled=True` with its reason, a Warning Event; any other exception →
 * retry with backoff, at the priority the key was handed out with (urgent work stays urgent).
 * Nothing a reconciler does — throwing synchronously included — can stop the workers; every
 * outcome is counted in controller-runtime's metrics and traced.
 */
export class Controller {
  readonly name: string;
  readonly queue: RateLimitingQueue;
  private active = 0;
  private readonly tracer: Tracer;
  private readonly metrics: ControllerMetrics;
  private readonly unsubscribes: (() => void)[] = [];
  private readonly reconciler: ReconcilerOf;
  private readonly health = new ObjectHealthTracker();

  constructor(
    private readonly options: ControllerOptions,
    private readonly deps: ControllerDeps,
    reconciler: Reconciler | ReconcilerOf,
  ) {
    this.reconciler =
      typeof reconciler === 'function' ? { kind: 'key', reconcile: reconciler } : reconciler;
    this.name = options.name;
    this.tracer = deps.tracer ?? trace.getTracer('steward-controller');
    this.metrics = deps.metrics ?? noopControllerMetrics;
    const fairness = options.fairness ?? 'fair';
    const rateLimiter =
      options.rateLimiter ??
      (fairness === 'fair' ? fairControllerRateLimiter() : defaultControllerRateLimiter());
    this.queue = newRateLimitingQueue(rateLimiter, {
      name: options.name,
      metricsProvider: deps.queueMetrics ?? noopWorkqueueMetricsProvider,
      fairness,
    });
  }

  /** Adds a key by hand (e.g. from a periodic trigger), at `options.priority` (default normal). */
  enqueue(key: string, options?: AddOptions): void {
    this.queue.add(key, options);
  }

  /**
   * Runs the controller: connects its sources, waits for their caches, then runs the workers until
   * `stop` aborts; then takes no new keys and resolves once the reconciles in flight have finished.
   * `abort` (leadership lost, shutdown deadline) is handed to reconciles as their signal.
   */
  async run(stop: AbortSignal, abort: AbortSignal = stop): Promise<void> {
    const log = this.deps.logger.child({ controller: this.name });
    const workers = Math.max(1, this.options.maxConcurrentReconciles ?? 1);
    for (const source of this.options.watches) {
      this.unsubscribes.push(
        source.informer.addEventHandler(
          mappingHandler(
            source.map,
            source.predicates,
            (key, priority) => this.queue.add(key, { priority }),
            source.priority,
          ),
        ),
      );
    }
    this.unsubscribes.push(
      this.options.forInformer.addEventHandler({
        onAdd: (obj) => this.health.seen(obj),
        onUpdate: (_old, obj) => this.health.seen(obj),
      }),
    );
    try {
      await Promise.all(this.options.watches.map((s) => s.informer.waitForSync(stop)));
    } catch {
      this.detach();
      return;
    }
    // Only while it runs (leads): a standby's view would be stale by design. Only the objects this
    // controller reconciles: those its own watch's predicates let in (a process's ProviderProfile
    // controller handles the profiles of its providers, not every profile in the cache).
    const own = this.options.watches.find((w) => w.informer === this.options.forInformer);
    const mine = (obj: KubeObject) => !own || passesCreate(own.predicates, obj);
    const objects = () => this.options.forInformer.store.list().filter(mine);
    this.unsubscribes.push(
      (this.deps.health ?? noopObjectHealthMetrics).observe(this.options.forType.kind, () =>
        this.health.facts(objects()),
      ),
    );
    if (this.options.gauges?.length)
      this.unsubscribes.push(
        (this.deps.gauges ?? noopNamespaceGauges).observe(
          this.options.forType.kind,
          this.options.gauges,
          objects,
          (obj) => obj.metadata.namespace ?? '',
        ),
      );
    this.metrics.controllerStarted(this.name, workers);
    log.info({ workers }, 'starting workers');
    const onStop = (): void => void this.queue.shutDownWithDrain();
    stop.addEventListener('abort', onStop, { once: true });
    if (stop.aborted) onStop();
    await Promise.all(Array.from({ length: workers }, () => this.worker(stop, abort, log)));
    stop.removeEventListener('abort', onStop);
    this.detach();
    log.info('workers stopped');
  }

  private detach(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  private async worker(stop: AbortSignal, abort: AbortSignal, log: Logger): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      if (stop.aborted) {
        // Shutting down: the queue still hands out what was waiting; start nothing new. Whoever
        // runs next lists every object and reconciles it anyway (level-based).
        this.queue.done(next.item);
        continue;
      }
      try {
        // Its API requests wait for the client's tokens at the key's priority: an urgent
        // reconcile's few requests go before a bulk sync's (`withRequestPriority`).
        const priority = this.queue.processingPriority(next.item) ?? Priorities.normal;
        await withRequestPriority(priority, () => this.reconcileKey(next.item, abort, log));
      } catch (error) {
        // reconcileKey handles every reconciler outcome; this is a bug in the runtime itself.
        log.error({ err: error, key: next.item }, 'unexpected failure in the controller runtime');
      } finally {
        this.queue.done(next.item);
      }
    }
  }

  private async reconcileKey(key: string, abort: AbortSignal, log: Logger): Promise<void> {
    const request = requestFromKey(key);
    const { forType, forInformer } = this.options;
    // A retry keeps the priority the key was handed out with; a requeue is capped at normal.
    const priority = this.queue.processingPriority(key) ?? Priorities.normal;
    const requeuePriority = Math.min(priority, Priorities.normal);
    this.metrics.setActiveWorkers(this.name, ++this.active);
    const started = performance.now();
    let result: ReconcileResult = 'success';
    let terminal = false;
    // Read once: an object reconciler gets this copy; the runtime's own status writes start from
    // it too, and from whatever the reconcile wrote since (the shared writer tracks it).
    const cached = forInformer.store.get(key) as ObjectWithStatus | undefined;
    let status = cached ? new StatusWriter(this.deps.client, forType, cached) : undefined;
    // The reconcile's trace, for the log lines written after its span ended (its failure).
    let traced: Record<string, string> = {};
    try {
      if (this.reconciler.kind === 'object' && !status) {
        this.queue.forget(key);
        return;
      }
      const outcome = await withReconcileSpan(
        this.tracer,
        {
          controller: this.name,
          kind: forType.kind,
          name: request.name,
          ...(request.namespace ? { namespace: request.namespace } : {}),
        },
        async () => {
          const span = trace.getActiveSpan()?.spanContext();
          if (span) traced = { trace_id: span.traceId, span_id: span.spanId };
          return (await this.invoke(request, abort, status)) ?? undefined;
        },
      );
      const requeueAfter = (outcome as Result | undefined)?.requeueAfter ?? 0;
      this.queue.forget(key);
      if (requeueAfter > 0) {
        result = 'requeue_after';
        this.queue.addAfter(key, requeueAfter, {
          priority: (outcome as Result).priority ?? requeuePriority,
        });
      }
      status = this.writerAfter(key, status);
      if (status) await clearStalled(status).catch(() => false);
      this.health.succeeded(key);
    } catch (error) {
      result = 'error';
      this.health.failed(key);
      const terminalError = terminalCause(error);
      if (terminalError) {
        const error = terminalError;
        terminal = true;
        this.queue.forget(key);
        log.warn(
          {
            ...traced,
            key,
            reason: error.reason,
            msg2: error.message,
            recheckAfter: error.recheckAfter,
          },
          'reconcile failed terminally; not retrying',
        );
        status = this.writerAfter(key, status);
        if (status) {
          this.deps.events?.event(status.object, 'Warning', error.reason, error.message);
          await recordTerminalFailure(status, error.reason, error.message).catch((e: unknown) =>
            log.error({ err: e, key }, 'could not record the terminal failure on the object'),
          );
        }
        if (error.recheckAfter !== undefined && error.recheckAfter > 0)
          this.queue.addAfter(key, error.recheckAfter, { priority: requeuePriority });
      } else {
        this.queue.addRateLimited(key, { priority });
        log.error(
          { ...traced, err: error, key, requeues: this.queue.numRequeues(key) },
          'reconcile failed; retrying with backoff',
        );
      }
    } finally {
      this.metrics.setActiveWorkers(this.name, --this.active);
      this.metrics.reconcileFinished(this.name, result, (performance.now() - started) / 1000, {
        terminal,
      });
    }
  }

  private invoke(
    request: Request,
    signal: AbortSignal,
    status: StatusWriter | undefined,
  ): Promise<Result | void> {
    const ctx = { signal, controller: this.name };
    if (this.reconciler.kind === 'key') return this.reconciler.reconcile(ctx, request);
    return this.reconciler.reconcile({ ...ctx, request, status: status! }, status!.object);
  }

  /**
   * The writer for the runtime's own status write after a reconcile: an object reconciler's shared
   * writer (it knows the reconcile's writes); for a key-level reconciler, which may have read and
   * written on its own, a writer over the cache's copy as it is now.
   */
  private writerAfter(key: string, status: StatusWriter | undefined): StatusWriter | undefined {
    if (this.reconciler.kind === 'object') return status;
    const obj = this.options.forInformer.store.get(key) as ObjectWithStatus | undefined;
    return obj ? new StatusWriter(this.deps.client, this.options.forType, obj) : undefined;
  }
}
