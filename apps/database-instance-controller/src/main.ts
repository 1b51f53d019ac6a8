// The only file that touches the tsyringe container: reads the configuration, registers one
// provider per token, resolves the app and exits with its code.
import 'reflect-metadata';
import {
  configOrExit,
  loadKubeConfig,
  loadProcessConfig,
  processEvents,
  processManager,
  processTelemetry,
  resolveOrExit,
  Tokens,
} from '@steward/controller-process';
import { container, instanceCachingFactory } from 'tsyringe';
import { APP_NAME, DatabaseInstanceControllerApp } from './app.js';

const config = configOrExit(APP_NAME, () => loadProcessConfig(process.env));

container.register(Tokens.Config, { useValue: config });
container.register(Tokens.KubeConfig, {
  useFactory: instanceCachingFactory(() => loadKubeConfig(config)),
});
container.register(Tokens.Telemetry, {
  useFactory: instanceCachingFactory(() => processTelemetry(APP_NAME, config)),
});
container.register(Tokens.EventSink, {
  useFactory: instanceCachingFactory((c) =>
    processEvents(APP_NAME, config, c.resolve(Tokens.KubeConfig)),
  ),
});
container.register(Tokens.Manager, {
  useFactory: instanceCachingFactory((c) =>
    processManager(APP_NAME, config, {
      kubeConfig: c.resolve(Tokens.KubeConfig),
      telemetry: c.resolve(Tokens.Telemetry),
      events: c.resolve(Tokens.EventSink),
    }),
  ),
});

const app = resolveOrExit(APP_NAME, () => container.resolve(DatabaseInstanceControllerApp));
process.exitCode = await app.run();
