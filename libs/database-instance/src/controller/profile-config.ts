import { TerminalError } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type AwsConfig, type GcpConfig } from '../provider-config.js';

/** Reasons the controller reports about a profile's configuration and credentials. */
export const ProfileReasons = {
  ProviderProfileNotFound: 'ProviderProfileNotFound',
  InvalidProviderProfile: 'InvalidProviderProfile',
  CredentialsNotFound: 'CredentialsNotFound',
  CredentialsInvalid: 'CredentialsInvalid',
} as const;

/**
 * The keys read from the credentials Secret when `credentialsSecretRef.key` is omitted. With `key`:
 * AWS reads an AWS shared-credentials file (`[default]` profile, else the first) from that key;
 * GCP reads the service-account JSON from that key.
 */
export const DefaultCredentialKeys = {
  aws: {
    accessKeyId: 'aws_access_key_id',
    secretAccessKey: 'aws_secret_access_key',
    sessionToken: 'aws_session_token',
  },
  gcp: 'service-account.json',
} as const;

/** The credentials Secret a profile names, or undefined for a profile without aws/gcp block. */
export function credentialsRef(
  profile: ProviderProfile,
): { namespace: string; name: string; key?: string } | undefined {
  const block =
    profile.spec.provider === 'aws'
      ? profile.spec.aws
      : profile.spec.provider === 'gcp'
        ? profile.spec.gcp
        : undefined;
  return block?.credentialsSecretRef;
}

const refText = (profile: ProviderProfile): string => {
  const ref = credentialsRef(profile);
  return ref ? `Secret ${ref.namespace}/${ref.name}` : 'its credentials Secret';
};

function missingKey(profile: ProviderProfile, key: string): TerminalError {
  return new TerminalError(
    ProfileReasons.CredentialsNotFound,
    `${refText(profile)} named by ProviderProfile ${profile.metadata.name} has no key ${key}`,
  );
}

/**
 * Parses an AWS shared-credentials file (INI): the `[default]` section, else the first; lines
 * before any section count as default. Values are returned as written (trimmed).
 */
export function parseAwsCredentialsFile(text: string): Record<string, string> {
  const sections = new Map<string, Record<string, string>>();
  let current = 'default';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (section) {
      current = section[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const values = sections.get(current) ?? {};
    values[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    sections.set(current, values);
  }
  return sections.get('default') ?? sections.values().next().value ?? {};
}

/**
 * The AWS configuration of an aws profile and its credentials Secret's data (decoded). Pure;
 * throws `TerminalError` (`InvalidProviderProfile`, `CredentialsNotFound`) for what the platform
 * team must fix. Never puts a credential in a message.
 */
export function awsConfigFromProfile(
  profile: ProviderProfile,
  secretData: Readonly<Record<string, string>>,
): AwsConfig {
  const aws = profile.spec.aws;
  if (profile.spec.provider !== 'aws' || !aws) {
    throw new TerminalError(
      ProfileReasons.InvalidProviderProfile,
      `ProviderProfile ${profile.metadata.name} has no spec.aws block`,
    );
  }
  const keyed = aws.credentialsSecretRef.key;
  let values: Readonly<Record<string, string>> = secretData;
  if (keyed) {
    const file = secretData[keyed];
    if (!file) throw missingKey(profile, keyed);
    values = parseAwsCredentialsFile(file);
  }
  const K = DefaultCredentialKeys.aws;
  const accessKeyId = values[K.accessKeyId];
  const secretAccessKey = values[K.secretAccessKey];
  const sessionToken = values[K.sessionToken];
  if (!accessKeyId)
    throw missingKey(profile, keyed ? `${keyed} (${K.accessKeyId})` : K.accessKeyId);
  if (!secretAccessKey)
    throw missingKey(profile, keyed ? `${keyed} (${K.secretAccessKey})` : K.secretAccessKey);
  return {
    region: aws.region,
    ...(aws.endpoint ? { endpoint: aws.endpoint } : {}),
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    sizeClasses: { ...profile.spec.sizeClasses },
  };
}

/**
 * `http://127.0.0.1:8080` → the Cloud SQL client's `apiEndpoint`/`port`/`protocol`; plain HTTP
 * also selects the REST transport (`fallback: true`), as gRPC needs TLS.
 */
export function gcpEndpointOptions(endpoint: string): Record<string, unknown> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TerminalError(
      ProfileReasons.InvalidProviderProfile,
      `spec.gcp.endpoint ${endpoint} is not a URL`,
    );
  }
  const protocol = url.protocol.replace(/:$/, '');
  const port = url.port ? Number(url.port) : protocol === 'http' ? 80 : 443;
  return {
    apiEndpoint: url.hostname,
    port,
    protocol,
    ...(protocol === 'http' ? { fallback: true } : {}),
  };
}

/**
 * The GCP configuration of a gcp profile and its credentials Secret's data (decoded): the
 * service-account JSON becomes the client's `credentials`, the profile's endpoint its
 * `apiEndpoint`/`port`/`protocol`. `extraClientOptions` (e.g. a test's auth client) are merged in
 * between: the profile's endpoint wins. Pure; throws `TerminalError` for what the platform team
 * must fix.
 */
export function gcpConfigFromProfile(
  profile: ProviderProfile,
  secretData: Readonly<Record<string, string>>,
  extraClientOptions: Readonly<Record<string, unknown>> = {},
): GcpConfig {
  const gcp = profile.spec.gcp;
  if (profile.spec.provider !== 'gcp' || !gcp) {
    throw new TerminalError(
      ProfileReasons.InvalidProviderProfile,
      `ProviderProfile ${profile.metadata.name} has no spec.gcp block`,
    );
  }
  const key = gcp.credentialsSecretRef.key ?? DefaultCredentialKeys.gcp;
  const json = secretData[key];
  if (!json) throw missingKey(profile, key);
  let credentials: { client_email?: unknown; private_key?: unknown };
  try {
    credentials = JSON.parse(json) as typeof credentials;
  } catch {
    credentials = {};
  }
  if (typeof credentials.client_email !== 'string' || typeof credentials.private_key !== 'string') {
    throw new TerminalError(
      ProfileReasons.CredentialsInvalid,
      `key ${key} of ${refText(profile)} named by ProviderProfile ${profile.metadata.name} is not a service-account JSON key (client_email, private_key)`,
    );
  }
  return {
    project: gcp.project,
    region: gcp.region,
    clientOptions: {
      projectId: gcp.project,
      credentials: { client_email: credentials.client_email, private_key: credentials.private_key },
      ...extraClientOptions,
      ...(gcp.endpoint ? gcpEndpointOptions(gcp.endpoint) : {}),
    },
    sizeClasses: { ...profile.spec.sizeClasses },
  };
}
