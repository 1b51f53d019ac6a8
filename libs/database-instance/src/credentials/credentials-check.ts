import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import { v1 } from '@google-cloud/sql';
import { terminalCause } from '@steward/controller';
import { isForbidden, type KubeClient } from '@steward/kube';
import {
  ProviderProfileReasons as R,
  type CredentialsCheck,
  type CredentialsCheckResult,
} from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import {
  awsConfigFromProfile,
  credentialsRef,
  gcpConfigFromProfile,
  readCredentials,
} from '../controller/index.js';
import { type AwsConfig } from '../provider-config.js';
import {
  awsCheckFailure,
  cloudSqlCheckFailure,
  redact,
  secretStrings,
  type CheckFailure,
} from './failures.js';

type ClientOptions = ConstructorParameters<typeof v1.SqlInstancesServiceClient>[0];

export interface AwsCredentialsCheckOptions {
  /**
   * Makes the RDS client for a profile's config (tests wrap it). The check destroys it after its
   * one call. Default: an `RDSClient` with the config's region, endpoint and credentials.
   */
  awsClientFor?(config: AwsConfig): RDSClient;
}

export interface GcpCredentialsCheckOptions {
  /**
   * Extra Cloud SQL client options for a profile (e.g. a local API's auth client in tests), as in
   * `DatabaseInstanceControllerOptions`; the profile's `spec.gcp.endpoint` still decides where the
   * client connects.
   */
  gcpClientOptions?(profile: ProviderProfile): Record<string, unknown> | undefined;
}

export type DatabaseCredentialsCheckOptions = AwsCredentialsCheckOptions &
  GcpCredentialsCheckOptions;

/** The client `readCredentials` needs: the credentials Secret is read on every check. */
type SecretReader = KubeClient;

const secretText = (profile: ProviderProfile): string => {
  const ref = credentialsRef(profile);
  return ref ? `Secret ${ref.namespace}/${ref.name}` : 'its credentials Secret';
};

/**
 * The profile's credentials as the DatabaseInstance controller reads them (same Secret, same keys,
 * same validation), or the failure the platform team must fix. Errors that are not about the
 * profile (the API server unreachable) are rethrown: the profile controller retries them.
 */
async function resolve<C>(
  client: SecretReader,
  profile: ProviderProfile,
  configFrom: (data: Record<string, string>) => C,
): Promise<{ config: C; secrets: string[] } | { failed: CredentialsCheckResult }> {
  try {
    const data = await readCredentials(client, profile);
    const secrets = secretStrings(data);
    try {
      return { config: configFrom(data), secrets };
    } catch (error) {
      const terminal = terminalCause(error);
      if (!terminal) throw error;
      // The config builders never quote secret values; redact anyway, their messages are ours.
      return { failed: failure(terminal.reason, redact(terminal.message, secrets)) };
    }
  } catch (error) {
    const terminal = terminalCause(error);
    if (terminal) return { failed: failure(terminal.reason, terminal.message) };
    if (isForbidden(error)) {
      return {
        failed: failure(
          R.CredentialsNotFound,
          `the controller may not read ${secretText(profile)} named by ProviderProfile ${profile.metadata.name}: grant its service account get on secrets in that namespace`,
        ),
      };
    }
    throw error;
  }
}

/** A failure the platform team must fix (the config builders use the profile's reason names). */
function failure(reason: string, message: string): CredentialsCheckResult {
  return { ok: false, reason, message };
}

/** The result of a failed provider call, with the provider's words redacted. */
function callFailure(
  found: CheckFailure,
  what: string,
  profile: ProviderProfile,
  secrets: readonly string[],
): CredentialsCheckResult {
  const detail = redact(found.detail, secrets).slice(0, 512);
  const where = `ProviderProfile ${profile.metadata.name}`;
  let message: string;
  switch (found.reason) {
    case R.CredentialsInvalid:
      message = `${what} was refused with the credentials in ${secretText(profile)} (${where}): ${detail}; update the Secret, or grant the identity read access (the check lists instances)`;
      break;
    case R.InvalidProviderProfile:
      message = `${what} was refused for ${where}: ${detail}; check the profile's project and region`;
      break;
    case R.ProviderUnreachable:
      message = `${what} did not succeed for ${where}: ${detail}; retrying`;
      break;
    default:
      message = `${what} failed for ${where}: ${detail}; retrying`;
  }
  return { ok: false, reason: found.reason, message, transient: found.transient };
}

/**
 * Checks an `aws` profile: reads its credentials Secret as the DatabaseInstance controller does,
 * then makes one read-only call, RDS `DescribeDBInstances` with `MaxRecords: 20`, in the profile's
 * region (at its endpoint, when set). Errors map as `awsCheckFailure` says. Never mutates anything;
 * secret values are redacted from every message.
 */
export function awsCredentialsCheck(
  client: SecretReader,
  options: AwsCredentialsCheckOptions = {},
): CredentialsCheck {
  const clientFor =
    options.awsClientFor ??
    ((config: AwsConfig) =>
      new RDSClient({
        region: config.region,
        credentials: { ...config.credentials },
        ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      }));
  return async (profile, signal) => {
    const resolved = await resolve(client, profile, (data) => awsConfigFromProfile(profile, data));
    if ('failed' in resolved) return resolved.failed;
    const { config, secrets } = resolved;
    const what = `RDS DescribeDBInstances in ${config.region}${config.endpoint ? ` at ${config.endpoint}` : ''}`;
    const rds = clientFor(config);
    try {
      await rds.send(new DescribeDBInstancesCommand({ MaxRecords: 20 }), { abortSignal: signal });
      return {
        ok: true,
        message: `${what} succeeded with the credentials in ${secretText(profile)}`,
      };
    } catch (error) {
      signal.throwIfAborted();
      return callFailure(awsCheckFailure(error), what, profile, secrets);
    } finally {
      rds.destroy();
    }
  };
}

/**
 * Checks a `gcp` profile: reads its credentials Secret (service-account JSON) as the
 * DatabaseInstance controller does, then makes one read-only call, Cloud SQL `instances.list` with
 * `maxResults: 1` in the profile's project (at its endpoint, when set). Errors map as
 * `cloudSqlCheckFailure` says. Never mutates anything; secret values are redacted from every
 * message.
 */
export function gcpCredentialsCheck(
  client: SecretReader,
  options: GcpCredentialsCheckOptions = {},
): CredentialsCheck {
  return async (profile, signal) => {
    const resolved = await resolve(client, profile, (data) =>
      gcpConfigFromProfile(profile, data, options.gcpClientOptions?.(profile) ?? {}),
    );
    if ('failed' in resolved) return resolved.failed;
    const { config, secrets } = resolved;
    const endpoint = profile.spec.gcp?.endpoint;
    const what = `Cloud SQL instances.list in project ${config.project}${endpoint ? ` at ${endpoint}` : ''}`;
    signal.throwIfAborted();
    const sql = new v1.SqlInstancesServiceClient(config.clientOptions as ClientOptions);
    try {
      await sql.list({ project: config.project, maxResults: 1 });
      return {
        ok: true,
        message: `${what} succeeded with the credentials in ${secretText(profile)}`,
      };
    } catch (error) {
      signal.throwIfAborted();
      return callFailure(cloudSqlCheckFailure(error), what, profile, secrets);
    } finally {
      await sql.close().catch(() => undefined);
    }
  };
}

/**
 * The `checkCredentials` of the ProviderProfile controller for the providers of DatabaseInstance:
 * `aws` profiles through `awsCredentialsCheck`, `gcp` profiles through `gcpCredentialsCheck`;
 * any other provider is `InvalidProviderProfile` (the controller is configured for aws and gcp
 * only, so it never asks).
 */
export function databaseCredentialsCheck(
  client: SecretReader,
  options: DatabaseCredentialsCheckOptions = {},
): CredentialsCheck {
  const aws = awsCredentialsCheck(client, options);
  const gcp = gcpCredentialsCheck(client, options);
  return async (profile, signal) => {
    switch (profile.spec.provider) {
      case 'aws':
        return aws(profile, signal);
      case 'gcp':
        return gcp(profile, signal);
      default:
        return {
          ok: false,
          reason: R.InvalidProviderProfile,
          message: `ProviderProfile ${profile.metadata.name} is a ${profile.spec.provider} profile: DatabaseInstance credentials checks support aws and gcp`,
        };
    }
  };
}
