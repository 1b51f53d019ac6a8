import { watchSelection, type ProcessConfig } from './config.js';
import { type ProcessEvents } from './wiring.js';

/**
 * The settings of a controller that runs workloads on pods (CacheCluster, PostgresCluster), beyond
 * the process configuration every app shares.
 */
export interface WorkloadSettings {
  /** STEWARD_DEFAULT_PROVIDER_PROFILE: the kubernetes ProviderProfile of objects that name none. */
  defaultProfile: string | undefined;
  /**
   * POD_NAMESPACE + STEWARD_CONTROLLER_POD_LABELS (`k=v,k=v`, the chart sets its selector labels):
   * the controller's pods, which every workload's NetworkPolicy admits.
   */
  controllerIdentity: { namespace: string; podLabels: Record<string, string> } | undefined;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL =
  /^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?=([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Reads and checks the settings; a malformed one stops the process naming the variable. */
export function workloadSettings(env: NodeJS.ProcessEnv): WorkloadSettings {
  const profile = env['STEWARD_DEFAULT_PROVIDER_PROFILE']?.trim() || undefined;
  if (profile && !DNS_SUBDOMAIN.test(profile))
    throw new Error(
      `STEWARD_DEFAULT_PROVIDER_PROFILE must name a ProviderProfile, got "${profile}"`,
    );
  const labelsText = env['STEWARD_CONTROLLER_POD_LABELS']?.trim() || undefined;
  const namespace = env['POD_NAMESPACE']?.trim() || undefined;
  let controllerIdentity: WorkloadSettings['controllerIdentity'];
  if (labelsText && namespace) {
    const podLabels: Record<string, string> = {};
    for (const pair of labelsText.split(',')) {
      if (!LABEL.test(pair.trim()))
        throw new Error(
          `STEWARD_CONTROLLER_POD_LABELS must be k=v pairs separated by commas, got "${labelsText}"`,
        );
      const [key, value] = pair.trim().split('=') as [string, string];
      podLabels[key] = value;
    }
    controllerIdentity = { namespace, podLabels };
  }
  return { defaultProfile: profile, controllerIdentity };
}

/**
 * The options every workload controller (CacheCluster, PostgresCluster) takes from its process:
 * the watched namespaces, field manager, concurrency, polls and Event recorder from the process
 * configuration, and the default profile and controller identity from `workloadSettings(env)`
 * (returned too, for the ProviderProfile controller's users).
 */
export function workloadControllerOptions(
  config: ProcessConfig,
  events: ProcessEvents,
  fieldManager: string,
  env: NodeJS.ProcessEnv = process.env,
) {
  const settings = workloadSettings(env);
  return {
    settings,
    options: {
      ...watchSelection(config),
      fieldManager,
      maxConcurrentReconciles: config.maxConcurrentReconciles,
      pollIntervalMs: config.pollIntervalMs,
      busyPollIntervalMs: config.busyPollIntervalMs,
      events,
      ...(settings.defaultProfile ? { defaultProfile: settings.defaultProfile } : {}),
      ...(settings.controllerIdentity ? { controllerIdentity: settings.controllerIdentity } : {}),
    },
  };
}
