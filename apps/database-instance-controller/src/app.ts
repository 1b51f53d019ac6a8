import { LeaderElectionLostError, type EventSink, type Manager } from '@steward/controller';
import {
  databaseCredentialsCheck,
  databaseInstanceController,
  databaseInstanceUsers,
} from '@steward/database-instance';
import { providerProfileController } from '@steward/provider-profile';
import { externalMetrics, type Telemetry } from '@steward/telemetry';
import { inject, injectable } from 'tsyringe';
import { type Config } from './config.js';
import { Tokens } from './tokens.js';

/** How the process ended: 0 after a graceful stop, 1 after losing the leader lease or failing. */
export type ExitCode = 0 | 1;

/**
 * The database-instance-controller process: the DatabaseInstance controller (and the ProviderProfile
 * controller for aws and gcp profiles) on one manager. `run()` resolves with the exit code once the
 * manager has stopped — after SIGTERM/SIGINT, or when the leader lease is lost (the pod restarts
 * and rejoins the election).
 */
@injectable()
export class DatabaseInstanceControllerApp {
  constructor(
    @inject(Tokens.Config) private readonly config: Config,
    @inject(Tokens.Manager) private readonly manager: Manager,
    @inject(Tokens.Telemetry) private readonly telemetry: Telemetry,
    @inject(Tokens.EventSink) private readonly events: EventSink & { shutdown(): Promise<void> },
  ) {}

  async run(): Promise<ExitCode> {
    const { config, manager } = this;
    databaseInstanceController(manager, {
      ...(config.watchNamespace ? { selection: { namespace: config.watchNamespace } } : {}),
      pollIntervalMs: config.pollIntervalMs,
      busyPollIntervalMs: config.busyPollIntervalMs,
      maxConcurrentReconciles: config.maxConcurrentReconciles,
      events: this.events,
      externalMetrics: externalMetrics(this.telemetry.meter),
    });
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['aws', 'gcp'],
        checkCredentials: databaseCredentialsCheck(manager.client),
        users: [databaseInstanceUsers],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }
    const removeSignalHandlers = manager.stopOnSignals();
    let code: ExitCode = 0;
    try {
      await manager.start();
    } catch (error) {
      code = 1;
      if (error instanceof LeaderElectionLostError) {
        manager.logger.error('leader lease lost; exiting so that the pod restarts');
      } else {
        manager.logger.error({ err: error }, 'manager failed');
      }
    } finally {
      removeSignalHandlers();
      await this.events.shutdown().catch(() => undefined);
      await this.telemetry.shutdown().catch(() => undefined);
    }
    return code;
  }
}
