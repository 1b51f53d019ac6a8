import { type RDSClient } from '@aws-sdk/client-rds';
import {
  controllerFor,
  TerminalError,
  type Controller,
  type EventRecorder,
  type Manager,
  type MapFunc,
} from '@steward/controller';
import { DatabaseInstance } from '@steward/database-instance-api';
import { externalChanges, managedReconciler, type Admission } from '@steward/external';
import { objectKey, type Selection } from '@steward/informer';
import { NotFoundError, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import {
  namespaceDirectory,
  profileAllowsAdoption,
  profileChangesForUsers,
} from '@steward/provider-profile';
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
  events?: EventRecorder;
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

/** A missing credentials Secret is looked at again this often (its creation wakes nothing here). */
export const CredentialsRecheckMs = 60_000;

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
        { recheckAfter: CredentialsRecheckMs },
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
 * The DatabaseInstance controller: `managedReconciler` with the RDS or Cloud SQL provider the
 * referenced (cluster-scoped) ProviderProfile names. Its admission — the profile from the shared
 * cache, then the platform team's guardrails (`admit`) — runs before anything happens at a
 * provider, on the delete path too; the profile it resolved is the provider's context (validate,
 * connect). Credentials come from the Secret the profile names, read on each connect (missing:
 * `CredentialsNotFound`, looked at again every minute — the fix is a Secret, where no event reaches
 * this controller). The master password is stored in the connection Secret before the first create;
 * host and port are published there (the reconciler's connection-details publisher) before
 * `Ready=True`. A profile's spec change reconciles every instance referencing it (secondary index on
 * `spec.providerProfileRef.name`).
 */
export function databaseInstanceController(
  manager: Manager,
  options: DatabaseInstanceControllerOptions = {},
): Controller {
  const client = manager.client;
  const selection = options.selection ?? {};
  const instances = manager.informers.informerFor<DB>(Kind, selection);
  const profiles = manager.informers.informerFor<Profile>(Profiles);
  const namespaces = namespaceDirectory(manager);
  const namespaceWatch = namespaces.watchFor(instances);
  try {
    instances.store.addIndexers({
      [ByProviderProfile]: (obj) => [obj.spec.providerProfileRef.name],
    });
  } catch {
    // Already indexed: another controller in this manager added the same index.
  }
  const metrics = options.externalMetrics ? { metrics: options.externalMetrics } : {};
  const providers = {
    aws: rdsExternalProvider({
      resolveConfig: async (profile) =>
        awsConfigFromProfile(profile, await readCredentials(client, profile)),
      passwordFor: (obj) => ensureMasterPassword(client, obj),
      masterUsername,
      ...(options.awsClientFor ? { clientFor: options.awsClientFor } : {}),
      ...metrics,
    }),
    gcp: cloudSqlExternalProvider({
      resolveConfig: async (profile) =>
        gcpConfigFromProfile(
          profile,
          await readCredentials(client, profile),
          options.gcpClientOptions?.(profile) ?? {},
        ),
      passwordFor: (obj) => ensureMasterPassword(client, obj, cloudSqlRootUser(obj.spec.engine)),
      ...metrics,
    }),
  };
  const admission = (obj: DB): Admission<DB, Profile> => {
    const profile = profiles.store.get(obj.spec.providerProfileRef.name);
    const namespace = obj.metadata.namespace ?? '';
    const decision = admit(profile, obj, namespaces.facts(namespace));
    if (decision.action !== 'reconcile') return decision;
    return {
      action: 'manage',
      provider: providers[decision.provider],
      context: profile!,
      adoptionAllowed: profileAllowsAdoption(profile!, namespace),
    };
  };
  // An adopted instance has no connection Secret (Steward never knew its password): nothing to add.
  const publishConnectionDetails = async (obj: DB, details: Record<string, string>) => {
    await publishEndpoint(client, obj, {
      host: details['host']!,
      port: Number(details['port']),
    }).catch((e: unknown) => {
      if (!(e instanceof NotFoundError)) throw e;
    });
  };
  const byProfile: MapFunc = (profile) =>
    instances.store.byIndex(ByProviderProfile, profile.metadata.name ?? '').map(objectKey);

  return controllerFor(manager, Kind, { selection, predicates: [externalChanges] })
    .named('databaseinstance')
    .watches(Profiles, byProfile, { predicates: [profileChangesForUsers] })
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .completeObjects(
      managedReconciler<DB, Profile>({
        client,
        resourceType: Kind,
        finalizer: options.finalizer ?? DatabaseInstanceFinalizer,
        admit: admission,
        publishConnectionDetails,
        pollIntervalMs: options.pollIntervalMs,
        busyPollIntervalMs: options.busyPollIntervalMs,
        events: options.events,
      }),
    );
}
