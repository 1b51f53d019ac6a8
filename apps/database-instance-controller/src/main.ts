// The only file that touches the tsyringe container: reads the configuration, registers one
// provider per token, resolves the app and exits with its code.
import 'reflect-metadata';
import { KubeConfig } from '@kubernetes/client-node';
import { Manager } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import { KubeClient } from '@steward/kube';
import { createTelemetry } from '@steward/telemetry';
import { container, instanceCachingFactory } from 'tsyringe';
import { DatabaseInstanceControllerApp } from './app.js';
import { APP_NAME, ConfigError, loadConfig, type Config } from './config.js';
import { Tokens } from './tokens.js';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${APP_NAME}: ${error.message}\n`);
  process.exit(2);
}

container.register(Tokens.Config, { useValue: config });
container.register(Tokens.KubeConfig, {
  useFactory: instanceCachingFactory(() => {
    const kubeConfig = new KubeConfig();
    if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
    else kubeConfig.loadFromCluster();
    return kubeConfig;
  }),
});
container.register(Tokens.Telemetry, {
  useFactory: instanceCachingFactory(() =>
    createTelemetry({
      serviceName: APP_NAME,
      ...(config.podName ? { resourceAttributes: { 'k8s.pod.name': config.podName } } : {}),
      ...(config.otlpEndpoint ? { otlpEndpoint: config.otlpEndpoint } : {}),
      log: { level: config.logLevel },
    }),
  ),
});
container.register(Tokens.Manager, {
  useFactory: instanceCachingFactory(
    (c) =>
      new Manager({
        kubeConfig: c.resolve(Tokens.KubeConfig),
        name: APP_NAME,
        ...(config.podName ? { identity: config.podName } : {}),
        telemetry: c.resolve(Tokens.Telemetry),
        probePort: config.probePort,
        probeHost: config.probeHost,
        leaderElection: config.leaderElection
          ? { namespace: config.leaderElectionNamespace, leaseName: `${APP_NAME}-leader` }
          : false,
        events: c.resolve(Tokens.EventSink),
      }),
  ),
});
container.register(Tokens.EventSink, {
  useFactory: instanceCachingFactory(
    (c) =>
      // Events go through a client of their own: a burst of Events never takes the reconcilers'
      // request budget (and the recorder exists before the manager that reports through it).
      new KubeEventRecorder(
        new KubeClient(c.resolve(Tokens.KubeConfig), { fieldManager: APP_NAME }),
        {
          reportingController: `steward.dev/${APP_NAME}`,
          ...(config.podName ? { reportingInstance: config.podName } : {}),
        },
      ),
  ),
});

let app: DatabaseInstanceControllerApp;
try {
  app = container.resolve(DatabaseInstanceControllerApp);
} catch (error) {
  // e.g. an unreadable kubeconfig, or no service account token outside a cluster
  process.stderr.write(`${APP_NAME}: cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
process.exitCode = await app.run();
