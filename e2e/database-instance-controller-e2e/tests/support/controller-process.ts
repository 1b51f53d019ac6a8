/**
 * The database-instance-controller app as a process: `startControllerProcess` and
 * `controllerBundle` of @steward/testing, for this app.
 */
import {
  controllerBundle as bundleOf,
  startControllerProcess,
  type ControllerProcess,
  type StartControllerProcessOptions,
} from '@steward/testing-charts';

export type { ControllerProcess };

const APP = 'database-instance-controller';

/** The app's bundle (dist/apps/database-instance-controller/main.js); built once per process. */
export function controllerBundle(): string {
  return bundleOf(APP);
}

export type StartControllerOptions = Omit<StartControllerProcessOptions, 'app'>;

/** Starts the bundled controller as a child process, its output in a log file of its own. */
export function startController(options: StartControllerOptions): Promise<ControllerProcess> {
  return startControllerProcess({ ...options, app: APP });
}
