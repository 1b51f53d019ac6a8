import { type Manager } from '@steward/controller';
import {
  runUntilStopped,
  Tokens,
  type ExitCode,
  type ProcessConfig,
  type ProcessEvents,
  watchSelection,
} from '@steward/controller-process';
import { kafkaCredentialsCheck, kafkaTopicController, kafkaTopicUsers } from '@steward/kafka-topic';
import { providerProfileController } from '@steward/provider-profile';
import { externalMetrics, type Telemetry } from '@steward/telemetry';
import { inject, injectable } from 'tsyringe';

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = 'kafka-topic-controller';

/**
 * The kafka-topic-controller process: the KafkaTopic controller (and the ProviderProfile
 * controller for kafka profiles) on one manager. `run()` resolves with the exit code once the
 * manager has stopped.
 */
@injectable()
export class KafkaTopicControllerApp {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,
    @inject(Tokens.Telemetry) private readonly telemetry: Telemetry,
    @inject(Tokens.EventRecorder) private readonly events: ProcessEvents,
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
    kafkaTopicController(manager, {
      ...watchSelection(config),
      pollIntervalMs: config.pollIntervalMs,
      busyPollIntervalMs: config.busyPollIntervalMs,
      maxConcurrentReconciles: config.maxConcurrentReconciles,
      events: this.events,
      externalMetrics: externalMetrics(this.telemetry.meter, this.telemetry.tracer),
    });
    if (config.manageProviderProfiles) {
      providerProfileController(manager, {
        providers: ['kafka'],
        checkCredentials: kafkaCredentialsCheck(manager.client),
        // With watched namespaces the chart's Roles allow no cluster-wide list: it counts the users
        // in those namespaces only (manageProviderProfiles is off there by default for that reason).
        users: [{ ...kafkaTopicUsers, ...watchSelection(config) }],
        recheckIntervalMs: config.credentialsRecheckMs,
        events: this.events,
      });
    }
    return runUntilStopped(manager);
  }
}
