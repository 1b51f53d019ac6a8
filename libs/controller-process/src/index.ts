/**
 * @steward/controller-process — what every controller app's process shares, so that each
 * `apps/<controller>/src/main.ts` only wires its own controllers.
 *
 * - `loadProcessConfig(env)` reads and checks the `STEWARD_*` variables the charts set (watched
 *   namespaces, probe port, leader election and its Lease namespace, log level, concurrency, poll
 *   intervals, whether to run the ProviderProfile controller, kubeconfig, OTLP endpoint) and throws
 *   `ConfigError` naming the variable at fault; `configOrExit` turns that into exit code 2.
 *   `watchSelection(config)` is the controllers' `selection` for the watched namespaces.
 * - `loadKubeConfig`, `processTelemetry`, `processEvents`, `processManager` build the process's
 *   parts from the configuration; `Tokens` are the injection tokens main.ts registers them under
 *   (only main.ts touches the tsyringe container); `processProviders` lists those registrations.
 * - `workloadSettings(env)` reads what controllers of pod workloads add: the default
 *   ProviderProfile and the controller's own pod labels (admitted by the NetworkPolicies they render).
 * - `runUntilStopped(manager)` runs until SIGTERM/SIGINT or failure and resolves with the
 *   exit code (1 after a lost leader lease).
 */
export {
  ConfigError,
  LogLevels,
  loadProcessConfig,
  watchSelection,
  type LogLevel,
  type ProcessConfig,
} from './config.js';
export { runUntilStopped, type ExitCode } from './run.js';
export {
  configOrExit,
  loadKubeConfig,
  processEvents,
  processManager,
  processProviders,
  processTelemetry,
  resolveOrExit,
  Tokens,
  type ProcessEvents,
} from './wiring.js';
export {
  workloadControllerOptions,
  workloadSettings,
  type WorkloadSettings,
} from './workload-settings.js';
