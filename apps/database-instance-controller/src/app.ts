import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
  type ProcessEvents,
  watchSelection,
} from '@steward/controller-process';
import {
  databaseCredentialsCheck,
  databaseInstanceController,
  databaseInstanceUsers,
} from '@steward/database-instance';
import { providerProfileController } from '@steward/provider-profile';
import { externalMetrics, type Telemetry } from '@steward/telemetry';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = 'database-instance-controller';

/**
 * The database-instance-controller process: the DatabaseInstance controller (and the ProviderProfile
 * controller for aws and gcp profiles) on one manager. `run()` resolves with the exit code once the
 * manager has stopped.
 */
@injectable()
export class DatabaseInstanceControllerApp {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
    @inject(Tokens.Telemetry) private readonly telemetry: Telemetry,
    @inject(Tokens.EventRecorder) private readonly events: ProcessEvents,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    databaseInstanceController(manager, {
      ...watchSelection(config),
      pollIntervalMs: config.pollIntervalMs,
      busyPollIntervalMs: config.busyPollIntervalMs,
      maxConcurrentReconciles: config.maxConcurrentReconciles,
      events: this.events,
      externalMetrics: externalMetrics(this.telemetry.meter, this.telemetry.tracer),
    });
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['aws', 'gcp'],
        checkCredentials: databaseCredentialsCheck(manager.client),
        // With watched namespaces the chart's Roles allow no cluster-wide list: it counts the users
        // in those namespaces only (manageProviderProfiles is off there by default for that reason).
        users: [{ ...databaseInstanceUsers, ...watchSelection(config) }],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }
    return runUntilStopped(manager);
  }
}
