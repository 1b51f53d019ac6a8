import { type RDSClient } from '@aws-sdk/client-rds';
import {
  controllerFor,
  TerminalError,
  type Controller,
  type EventSink,
  type Manager,
  type MapFunc,
  type Reconciler,
} from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import {
  externalChanges,
  managedReconciler,
  type ExternalProvider,
  type Observation,
} from '@steward/external';
import { withFinalizer } from '@steward/finalizers';
import { objectKey, type Selection } from '@steward/informer';
import { NotFoundError, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import { profileChangesForUsers } from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import { type ExternalMetrics } from '@steward/telemetry';
import { rdsExternalProvider } from '../aws/index.js';
import {
  cloudSqlRootUser,
  ensureMasterPassword,
  masterUsername,
  publishEndpoint,
} from '../connection-secret.js';
import { cloudSqlExternalProvider } from '../gcp/index.js';
import { type AwsConfig } from '../provider-config.js';
import { admit } from './admission.js';
import {
  awsConfigFromProfile,
  credentialsRef,
  gcpConfigFromProfile,
  ProfileReasons,
} from './profile-config.js';

type DB = DatabaseInstance;
type Profile = ProviderProfile;
const Kind = DatabaseInstance.resourceType;
const Profiles = ProviderProfile.resourceType;

/** The finalizer the controller keeps on every DatabaseInstance it manages. */
export const DatabaseInstanceFinalizer = 'database.steward.dev/external';
/** Secondary index of the DatabaseInstance cache: `spec.providerProfileRef.name`. */
export const ByProviderProfile = 'database.steward.dev/provider-profile';

export interface DatabaseInstanceControllerOptions {
  /** Which DatabaseInstances to follow (e.g. one namespace in tests). Default: all. */
  selection?: Selection;
  /** Default `database.steward.dev/external`. */
  finalizer?: string;
  /** Re-observe converged instances this often. Default 60 s (the managed reconciler's). */
  pollIntervalMs?: number;
  /** Re-observe while the provider is busy. Default 5 s. */
  busyPollIntervalMs?: number;
  maxConcurrentReconciles?: number;
  /** Normal and Warning Events of the managed reconciler. */
  events?: EventSink;
  /**
   * Extra Cloud SQL client options for a profile (e.g. a local API's auth client in tests). The
   * profile's `spec.gcp.endpoint` still decides where the client connects.
   */
  gcpClientOptions?(profile: Profile): Record<string, unknown> | undefined;
  /** Makes the RDS client for a config (tests wrap it); default: `RDSClient` of the config. */
  awsClientFor?(config: AwsConfig): RDSClient;
  /** `steward_external_requests_total` of every RDS and Cloud SQL call. */
  externalMetrics?: ExternalMetrics;
}

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

/** Reads and decodes the credentials Secret a profile names; `CredentialsNotFound` when missing. */
export async function readCredentials(
  client: KubeClient,
  profile: Profile,
): Promise<Record<string, string>> {
  const ref = credentialsRef(profile);
  if (!ref) {
    throw new TerminalError(
      ProfileReasons.InvalidProviderProfile,
      `ProviderProfile ${profile.metadata.name} has no spec.${profile.spec.provider} block`,
    );
  }
  const secret = await client.get<Secret>(Secrets, ref.name, ref.namespace).catch((e: unknown) => {
    if (e instanceof NotFoundError) {
      throw new TerminalError(
        ProfileReasons.CredentialsNotFound,
        `Secret ${ref.namespace}/${ref.name} named by ProviderProfile ${profile.metadata.name} does not exist`,
      );
    }
    throw e;
  });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString('utf8'),
    ]),
  );
}

/**
 * Wraps a provider so that each observation is handed to `seen` before the managed reconciler
 * acts on it (it does not change what the provider does, nor the observation).
 */
function observed(
  provider: ExternalProvider<DB>,
  seen: (obj: DB, observation: Observation) => Promise<void>,
): ExternalProvider<DB> {
  return {
    name: provider.name,
    deterministicNames: provider.deterministicNames,
    externalName: (obj) => provider.externalName(obj),
    connect: async (obj, signal) => {
      const inner = await provider.connect(obj, signal);
      return {
        observe: async (o, name, s) => {
          const observation = await inner.observe(o, name, s);
          await seen(o, observation);
          return observation;
        },
        create: (o, name, s) => inner.create(o, name, s),
        update: (o, name, obs, s) => inner.update(o, name, obs, s),
        delete: (o, name, obs, s) => inner.delete(o, name, obs, s),
        close: async () => inner.close?.(),
      };
    },
  };
}

function endpointOf(
  observation: Observation | undefined,
): { host: string; port: number } | undefined {
  if (!observation?.ready) return undefined;
  const endpoint = observation.status?.['endpoint'] as
    { host?: unknown; port?: unknown } | undefined;
  return typeof endpoint?.host === 'string' && typeof endpoint.port === 'number'
    ? { host: endpoint.host, port: endpoint.port }
    : undefined;
}

/**
 * The DatabaseInstance controller: for each object, the referenced (cluster-scoped)
 * ProviderProfile from the shared cache, then the platform team's guardrails — both before
 * anything happens at a provider, on the delete path too — then `managedReconciler` with the RDS or
 * Cloud SQL provider the profile names. Credentials come from the Secret the profile names, read
 * on each connect. The master password is stored in the connection Secret before the first
 * create; host and port are added once the instance is Ready. A profile's spec change reconciles
 * every instance referencing it (secondary index on `spec.providerProfileRef.name`).
 */
export function databaseInstanceController(
  manager: Manager,
  options: DatabaseInstanceControllerOptions = {},
): Controller {
  const client = manager.client;
  const selection = options.selection ?? {};
  const instances = manager.informers.informerFor<DB>(Kind, selection);
  const profiles = manager.informers.informerFor<Profile>(Profiles);
  try {
    instances.store.addIndexers({
      [ByProviderProfile]: (obj) => [obj.spec.providerProfileRef.name],
    });
  } catch {
    // Already indexed: another controller in this manager added the same index.
  }
  const finalizer = options.finalizer ?? DatabaseInstanceFinalizer;

  const profileOf = (obj: DB): Profile | undefined =>
    profiles.store.get(obj.spec.providerProfileRef.name);
  const requireProfile = (obj: DB): Profile => {
    const profile = profileOf(obj);
    if (!profile) {
      throw new TerminalError(
        ProfileReasons.ProviderProfileNotFound,
        `ProviderProfile ${obj.spec.providerProfileRef.name} not found`,
      );
    }
    return profile;
  };

  /**
   * Once the instance is usable, host and port go into the connection Secret — before the managed
   * reconciler writes `Ready=True`, so whoever sees Ready finds a complete Secret. Writes only
   * when they changed; an adopted instance has no connection Secret (Steward never knew its
   * password).
   */
  const seen = async (obj: DB, observation: Observation): Promise<void> => {
    const endpoint = endpointOf(observation);
    if (!endpoint || obj.metadata.deletionTimestamp) return;
    await publishEndpoint(client, obj, endpoint).catch((e: unknown) => {
      if (!(e instanceof NotFoundError)) throw e;
    });
  };

  const aws = rdsExternalProvider({
    resolveConfig: async (obj) => {
      const profile = requireProfile(obj);
      return awsConfigFromProfile(profile, await readCredentials(client, profile));
    },
    passwordFor: (obj) => ensureMasterPassword(client, obj),
    masterUsername,
    ...(options.awsClientFor ? { clientFor: options.awsClientFor } : {}),
    ...(options.externalMetrics ? { metrics: options.externalMetrics } : {}),
  });
  const gcp = cloudSqlExternalProvider({
    resolveConfig: async (obj) => {
      const profile = requireProfile(obj);
      return gcpConfigFromProfile(
        profile,
        await readCredentials(client, profile),
        options.gcpClientOptions?.(profile) ?? {},
      );
    },
    passwordFor: (obj) => ensureMasterPassword(client, obj, cloudSqlRootUser(obj.spec.engine)),
    ...(options.externalMetrics ? { metrics: options.externalMetrics } : {}),
  });

  const managed = (provider: ExternalProvider<DB>): Reconciler =>
    managedReconciler<DB>({
      client,
      resourceType: Kind,
      informer: instances,
      provider: observed(provider, seen),
      finalizer,
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.busyPollIntervalMs !== undefined
        ? { busyPollIntervalMs: options.busyPollIntervalMs }
        : {}),
      ...(options.events ? { events: options.events } : {}),
    });
  const reconcilers = { aws: managed(aws), gcp: managed(gcp) };

  const reconciler: Reconciler = async (ctx, request) => {
    const obj = instances.store.get(request.key);
    if (!obj) return;
    const admission = admit(profileOf(obj), obj);
    if (admission.action === 'stop') throw new TerminalError(admission.reason, admission.message);
    if (admission.action === 'release') {
      await withFinalizer(client, Kind, obj, finalizer, {
        apply: async () => undefined,
        cleanup: async () => undefined,
      });
      return;
    }
    return reconcilers[admission.provider](ctx, request);
  };

  const byProfile: MapFunc = (profile) =>
    instances.store.byIndex(ByProviderProfile, profile.metadata.name ?? '').map(objectKey);

  return controllerFor(manager, Kind, { selection, predicates: [externalChanges] })
    .named('databaseinstance')
    .watches(Profiles, byProfile, { predicates: [profileChangesForUsers] })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .complete(reconciler);
}
