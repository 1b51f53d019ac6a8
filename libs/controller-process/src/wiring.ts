import { KubeConfig } from '@kubernetes/client-node';
import { Manager, onShutdown, type EventRecorder } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import { KubeClient } from '@steward/kube';
import { createTelemetry, type Telemetry } from '@steward/telemetry';
import { instanceCachingFactory, type FactoryProvider } from 'tsyringe';
import { type ProcessConfig } from './config.js';

/** The injection tokens every controller app registers (one per interface). */
export const Tokens = {
  Config: Symbol('ProcessConfig'),
  KubeConfig: Symbol('KubeConfig'),
  Telemetry: Symbol('Telemetry'),
  EventRecorder: Symbol('EventRecorder'),
  Manager: Symbol('Manager'),
} as const;

/** The Event recorder a process reports through, flushed at shutdown. */
export type ProcessEvents = EventRecorder & { shutdown(): Promise<void> };

/** `KUBECONFIG` when set (local runs), else the pod's service account. */
export function loadKubeConfig(config: ProcessConfig): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else kubeConfig.loadFromCluster();
  return kubeConfig;
}

/** OpenTelemetry for the process: service name = the app, pod name as a resource attribute. */
export function processTelemetry(app: string, config: ProcessConfig): Telemetry {
  return createTelemetry({
    serviceName: app,
    ...(config.podName ? { resourceAttributes: { 'k8s.pod.name': config.podName } } : {}),
    ...(config.otlpEndpoint ? { otlpEndpoint: config.otlpEndpoint } : {}),
    log: { level: config.logLevel },
  });
}

/**
 * The Event recorder, on a client of its own: a burst of Events never takes the reconcilers'
 * request budget (and the recorder exists before the manager that reports through it).
 */
export function processEvents(
  app: string,
  config: ProcessConfig,
  kubeConfig: KubeConfig,
): ProcessEvents {
  return new KubeEventRecorder(new KubeClient(kubeConfig, { fieldManager: app }), {
    reportingController: `steward.dev/${app}`,
    ...(config.podName ? { reportingInstance: config.podName } : {}),
  });
}

/**
 * The manager: probes and /metrics on the configured port, leader election on `<app>-leader`. It
 * owns the flush of telemetry and of the Event recorder (the recorder first, so its last writes
 * are traced).
 */
export function processManager(
  app: string,
  config: ProcessConfig,
  deps: { kubeConfig: KubeConfig; telemetry: Telemetry; events: ProcessEvents },
): Manager {
  const manager = new Manager({
    kubeConfig: deps.kubeConfig,
    name: app,
    ...(config.podName ? { identity: config.podName } : {}),
    telemetry: deps.telemetry,
    probePort: config.probePort,
    probeHost: config.probeHost,
    leaderElection: config.leaderElection
      ? { namespace: config.leaderElectionNamespace, leaseName: `${app}-leader` }
      : false,
    events: deps.events,
  });
  manager.add(onShutdown('telemetry', () => deps.telemetry.shutdown()));
  manager.add(onShutdown('events', () => deps.events.shutdown()));
  return manager;
}

/**
 * For main.ts: the configuration, or exit 2 with a message naming the variable at fault (a
 * CrashLoopBackOff whose log says what to fix).
 */
export function configOrExit(app: string, load: () => ProcessConfig): ProcessConfig {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ConfigError') throw error;
    process.stderr.write(`${app}: ${error.message}\n`);
    process.exit(2);
  }
}

/** For main.ts: resolves the app, or exits 1 saying why it cannot start (e.g. no kubeconfig). */
export function resolveOrExit<T>(app: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    process.stderr.write(`${app}: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

/**
 * The providers of every {@link Tokens} entry for `app`, for main.ts to register on its container
 * (`for (const [token, provider] of processProviders(app, config)) container.register(token, provider)`):
 * each part is built once, on first resolution, from the configuration.
 */
export function processProviders(
  app: string,
  config: ProcessConfig,
): [symbol, FactoryProvider<unknown>][] {
  return [
    [Tokens.Config, { useFactory: () => config }],
    [Tokens.KubeConfig, { useFactory: instanceCachingFactory(() => loadKubeConfig(config)) }],
    [Tokens.Telemetry, { useFactory: instanceCachingFactory(() => processTelemetry(app, config)) }],
    [
      Tokens.EventRecorder,
      {
        useFactory: instanceCachingFactory((c) =>
          processEvents(app, config, c.resolve<KubeConfig>(Tokens.KubeConfig)),
        ),
      },
    ],
    [
      Tokens.Manager,
      {
        useFactory: instanceCachingFactory((c) =>
          processManager(app, config, {
            kubeConfig: c.resolve<KubeConfig>(Tokens.KubeConfig),
            telemetry: c.resolve<Telemetry>(Tokens.Telemetry),
            events: c.resolve<ProcessEvents>(Tokens.EventRecorder),
          }),
        ),
      },
    ],
  ];
}
