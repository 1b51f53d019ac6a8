import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
  type ProcessEvents,
  watchSelection,
  workloadControllerOptions,
} from '@steward/controller-process';
import { cacheClusterController, cacheClusterUsers } from '@steward/cache-cluster';
import { providerProfileController } from '@steward/provider-profile';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = 'cache-cluster-controller';

/**
 * The cache-cluster-controller process: the CacheCluster controller (and, when it manages
 * profiles, the ProviderProfile controller for kubernetes profiles) on one manager. `run()`
 * resolves with the exit code once the manager has stopped. Its own settings (default profile,
 * its pods' labels for the NetworkPolicies it renders) come from `workloadControllerOptions` (`workloadSettings(process.env)`).
 */
@injectable()
export class CacheClusterControllerApp {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
    @inject(Tokens.EventRecorder) private readonly events: ProcessEvents,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    const { settings, options } = workloadControllerOptions(config, this.events, APP_NAME);
    cacheClusterController(manager, options);
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['kubernetes'],
        // With watched namespaces the chart's Roles allow no cluster-wide list: it counts the users
        // in those namespaces only (manageProviderProfiles is off there by default for that reason).
        users: [{ ...cacheClusterUsers(settings.defaultProfile), ...watchSelection(config) }],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }
    return runUntilStopped(manager);
  }
}
