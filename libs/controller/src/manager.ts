import { type KubeConfig } from '@kubernetes/client-node';
import { InformerFactory } from '@steward/informer';
import { ApiError, KubeClient, type CallInfo, type KubeClientOptions } from '@steward/kube';
import { trace, type Tracer } from '@opentelemetry/api';
import {
  controllerMetrics,
  createLogger,
  leaderElectionMetrics,
  noopControllerMetrics,
  noopLeaderElectionMetrics,
  namespaceGauges,
  objectHealthMetrics,
  restClientMetrics,
  withChildSpan,
  workqueueMetricsProvider,
  type Logger,
  type Telemetry,
  type NamespaceGauges,
  type ObjectHealthMetrics,
} from '@steward/telemetry';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  Controller,
  type ControllerOptions,
  type EventRecorder,
  type ReconcilerOf,
} from './controller.js';
import { startHealthServer } from './health-server.js';
import { LeaderElector } from './leader-election.js';
import { type Reconciler } from './reconciler.js';
import { type Runnable } from './runnable.js';

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  /** The application's name: field manager of its writes, default Lease name, log field. */
  name: string;
  /** Unique per process; default `<hostname>_<uuid>`. */
  identity?: string;
  /** Lease-based leader election; only the leader runs controllers. Default off. */
  leaderElection?:
    | false
    | {
        namespace: string;
        /** Default `<name>-leader`. */
        leaseName?: string;
        leaseDurationMs?: number;
        renewDeadlineMs?: number;
        retryPeriodMs?: number;
      };
  /** Metrics, traces and logs; without it the manager logs nothing and records no metrics. */
  telemetry?: Telemetry;
  /** Serves `/healthz`, `/readyz` (and `/metrics` with telemetry) on this port; 0 picks one. */
  probePort?: number | false;
  probeHost?: string;
  /** Options of the manager's API client (QPS, burst, request observer…). */
  client?: Omit<KubeClientOptions, 'fieldManager'>;
  /** How long `stop()` lets in-flight reconciles finish before aborting them. Default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /** Receives Warning Events for terminal failures. */
  events?: EventRecorder;
  /**
   * Every this many ms, informers re-deliver every cached object as an update (client-go resync).
   * Default 0 (off): level-based reconcilers with `requeueAfter` rarely need it.
   */
  resyncPeriodMs?: number;
}

/** Thrown by `start()` when this process lost its leader lease: exit and let it be restarted. */
export class LeaderElectionLostError extends Error {
  override readonly name = 'LeaderElectionLostError';
}

/**
 * Owns everything a controller process runs: one API client, the shared informers, the
 * controllers, leader election, and the probe/metrics server. Informers run on every replica (a
 * warm cache for a fast failover); controllers run only while leading. `stop()` — what SIGTERM
 * should call — stops taking new work, lets in-flight reconciles finish (up to
 * `gracefulShutdownTimeoutMs`, then aborts their signal), stops the informers, releases the lease
 * and closes the server.
 */
export class Manager {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly logger: Logger;
  readonly identity: string;
  private readonly controllers: Controller[] = [];
  private readonly runnables: Runnable[] = [];
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;
  private server: Awaited<ReturnType<typeof startHealthServer>> | undefined;
  private leading = false;
  private health: ObjectHealthMetrics | undefined;
  private gauges: NamespaceGauges | undefined;

  constructor(private readonly options: ManagerOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.logger = (options.telemetry?.logger ?? createLogger({ level: 'silent' })).child({
      manager: options.name,
    });
    const rest = options.telemetry ? restClientMetrics(options.telemetry.meter) : undefined;
    const host = new URL(options.kubeConfig.getCurrentCluster()?.server ?? 'https://unknown').host;
    const userOnRequest = options.client?.onRequest;
    const tracer = options.telemetry?.tracer;
    this.client = new KubeClient(options.kubeConfig, {
      ...(tracer ? { traceCall: apiCallSpan(tracer, host) } : {}),
      ...options.client,
      fieldManager: options.name,
      onRequest: (info) => {
        rest?.request(info.method, info.code, host);
        userOnRequest?.(info);
      },
    });
    this.informers = new InformerFactory(this.client, {
      informerOptions: {
        ...(options.resyncPeriodMs ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
        onEvent: (event) => {
          if (event.type === 'error')
            this.logger.warn(
              { phase: event.phase, err: event.error, retryInMs: event.retryInMs },
              'informer list/watch failed; retrying',
            );
        },
      },
    });
  }

  /** Used by the builder; adds a controller that runs when the manager leads. */
  createController(options: ControllerOptions, reconciler: Reconciler | ReconcilerOf): Controller {
    if (this.running) throw new Error('steward: add controllers before starting the manager');
    const telemetry = this.options.telemetry;
    const controller = new Controller(
      options,
      {
        client: this.client,
        logger: this.logger,
        ...(telemetry
          ? {
              tracer: telemetry.tracer,
              metrics: controllerMetrics(telemetry.meter),
              queueMetrics: workqueueMetricsProvider(telemetry.meter, options.name),
              health: (this.health ??= objectHealthMetrics(telemetry.meter)),
              gauges: (this.gauges ??= namespaceGauges(telemetry.meter)),
            }
          : { metrics: noopControllerMetrics }),
        ...(this.options.events ? { events: this.options.events } : {}),
      },
      reconciler,
    );
    this.controllers.push(controller);
    return controller;
  }

  /**
   * Adds something whose lifetime the manager owns (see `Runnable`): leader-only ones start with
   * each term before the controllers and stop after them; the others run from `start()` to the end
   * of shutdown. Stopped in the reverse order of adding. Returns the runnable.
   */
  add<R extends Runnable>(runnable: R): R {
    if (this.running) throw new Error('steward: add runnables before starting the manager');
    this.runnables.push(runnable);
    return runnable;
  }

  /** The probe server's port, once started. */
  get probePort(): number | undefined {
    return this.server?.port;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Runs until `stop()`; resolves after a clean shutdown, rejects with `LeaderElectionLostError`
   * when leadership was lost (the controllers have stopped by then).
   */
  start(): Promise<void> {
    this.running ??= this.run();
    return this.running;
  }

  /**
   * Makes SIGTERM and SIGINT call `stop()` (what a Deployment's pod termination needs). Returns a
   * function that removes the handlers.
   */
  stopOnSignals(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): () => void {
    const handler = (signal: NodeJS.Signals): void => {
      this.logger.info({ signal }, 'signal received; shutting down gracefully');
      void this.stop();
    };
    for (const s of signals) process.on(s, handler);
    return () => {
      for (const s of signals) process.removeListener(s, handler);
    };
  }

  /** Graceful shutdown; resolves when `start()` has settled. Idempotent. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<void> {
    const stop = this.stopController.signal;
    const telemetry = this.options.telemetry;
    if (this.options.probePort !== false && this.options.probePort !== undefined) {
      this.server = await startHealthServer({
        port: this.options.probePort,
        ...(this.options.probeHost ? { host: this.options.probeHost } : {}),
        readiness: { informers: () => this.informers.hasSynced() },
        routes: telemetry ? { '/metrics': telemetry.metricsHandler } : {},
      });
      this.logger.info({ port: this.server.port }, 'probe server listening');
    }
    let always: Runnable[] = [];
    let lost = false;
    try {
      always = await this.startRunnables(
        this.runnables.filter((r) => r.needsLeaderElection === false),
        stop,
      );
      this.informers.start();
      const election = this.options.leaderElection;
      if (election) {
        const metrics = telemetry
          ? leaderElectionMetrics(telemetry.meter)
          : noopLeaderElectionMetrics;
        const leaseName = election.leaseName ?? `${this.options.name}-leader`;
        const elector = new LeaderElector(this.client, {
          name: leaseName,
          namespace: election.namespace,
          identity: this.identity,
          ...(election.leaseDurationMs ? { leaseDurationMs: election.leaseDurationMs } : {}),
          ...(election.renewDeadlineMs ? { renewDeadlineMs: election.renewDeadlineMs } : {}),
          ...(election.retryPeriodMs ? { retryPeriodMs: election.retryPeriodMs } : {}),
          onNewLeader: (identity) =>
            this.logger.info(
              { leader: identity, self: identity === this.identity },
              'new leader observed',
            ),
          onAttemptError: (error) =>
            this.logger.warn({ err: error }, 'leader election attempt failed'),
        });
        const end = await elector.run(stop, async (leaderSignal) => {
          this.leading = true;
          metrics.setMaster(leaseName, true);
          this.logger.info('became leader; starting controllers');
          const term = await this.startRunnables(this.leaderRunnables(), leaderSignal);
          try {
            await this.runControllers(leaderSignal, () => !stop.aborted);
          } finally {
            await this.stopRunnables(term);
            this.leading = false;
            metrics.setMaster(leaseName, false);
          }
        });
        lost = end === 'lost';
      } else {
        this.leading = true;
        const term = await this.startRunnables(this.leaderRunnables(), stop);
        try {
          await this.runControllers(stop, () => false);
        } finally {
          await this.stopRunnables(term);
          this.leading = false;
        }
      }
    } finally {
      await this.informers.stop();
      await this.server?.close();
      this.server = undefined;
      await this.stopRunnables(always);
    }
    if (lost) {
      this.logger.error('leader election lost; controllers stopped');
      throw new LeaderElectionLostError('steward: leader election lost');
    }
    this.logger.info('stopped cleanly');
  }

  private leaderRunnables(): Runnable[] {
    return this.runnables.filter((r) => r.needsLeaderElection !== false);
  }

  /** Starts `runnables` in order; on a failure stops those started, in reverse, and rethrows. */
  private async startRunnables(runnables: Runnable[], signal: AbortSignal): Promise<Runnable[]> {
    const started: Runnable[] = [];
    for (const runnable of runnables) {
      try {
        await runnable.start?.(signal);
      } catch (error) {
        this.logger.error({ err: error, runnable: runnable.name }, 'runnable failed to start');
        await this.stopRunnables(started);
        throw error;
      }
      started.push(runnable);
    }
    return started;
  }

  /** Stops `started` in reverse order; a failure is logged and does not stop the others. */
  private async stopRunnables(started: Runnable[]): Promise<void> {
    for (const runnable of [...started].reverse()) {
      try {
        await runnable.stop?.();
      } catch (error) {
        this.logger.warn({ err: error, runnable: runnable.name }, 'runnable failed to stop');
      }
    }
  }

  /**
   * Runs every controller until `stop` aborts. In-flight reconciles get an abort signal at once when
   * `isLoss()` says leadership was lost, otherwise after the graceful shutdown timeout.
   */
  private async runControllers(stop: AbortSignal, isLoss: () => boolean): Promise<void> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onStop = (): void => {
      if (isLoss()) abort.abort(new LeaderElectionLostError('steward: leader election lost'));
      else {
        timer = setTimeout(
          () => abort.abort(new Error('steward: graceful shutdown timed out')),
          this.options.gracefulShutdownTimeoutMs ?? 30_000,
        );
        timer.unref?.();
      }
    };
    stop.addEventListener('abort', onStop, { once: true });
    try {
      await Promise.all(this.controllers.map((c) => c.run(stop, abort.signal)));
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
  }
}

/**
 * A child span per Kubernetes API call made inside a span (a reconcile's): `<METHOD> <resource>`
 * (`PATCH postgresclusters/status`) with the method, path, verb, server and — when the server
 * answered with an error — its status code. Calls outside any span (the informers' lists and
 * watches) are not traced: they would each start a trace of their own.
 */
export function apiCallSpan(
  tracer: Tracer,
  host: string,
): <R>(info: CallInfo, send: () => Promise<R>) => Promise<R> {
  return (info, send) => {
    if (!trace.getActiveSpan()) return send();
    return withChildSpan(
      tracer,
      `${info.method} ${info.resource}`,
      {
        'http.request.method': info.method,
        'url.path': info.path,
        'k8s.verb': info.verb,
        'k8s.api.resource': info.resource,
        'server.address': host,
      },
      async (span) => {
        try {
          return await send();
        } catch (error) {
          if (error instanceof ApiError) span.setAttribute('http.response.status_code', error.code);
          throw error;
        }
      },
    );
  };
}
