// The only file that touches the tsyringe container: reads the configuration, registers one
// provider per token, resolves the app and exits with its code.
import 'reflect-metadata';
import {
  configOrExit,
  loadProcessConfig,
  processProviders,
  resolveOrExit,
} from '@steward/controller-process';
import { container } from 'tsyringe';
import { APP_NAME, PostgresClusterControllerApp } from './app.js';

const config = configOrExit(APP_NAME, () => loadProcessConfig(process.env));
for (const [token, provider] of processProviders(APP_NAME, config)) {
  container.register(token, provider);
}
const app = resolveOrExit(APP_NAME, () => container.resolve(PostgresClusterControllerApp));
process.exitCode = await app.run();
