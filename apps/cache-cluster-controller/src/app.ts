import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
} from '@steward/controller-process';
import { cacheClusterController } from '@steward/cache-cluster';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = 'cache-cluster-controller';

/**
 * The cache-cluster-controller process: the CacheCluster controller on one manager. `run()` resolves with the exit
 * code once the manager has stopped.
 */
@injectable()
export class CacheClusterControllerApp {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    cacheClusterController(manager, {
      ...(config.watchNamespace ? { selection: { namespace: config.watchNamespace } } : {}),
      maxConcurrentReconciles: config.maxConcurrentReconciles,
    });
    return runUntilStopped(manager);
  }
}
