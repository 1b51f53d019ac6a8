import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { join } from 'node:path';

export type DB = DatabaseInstance;
export type Profile = ProviderProfile;
export const Instances = DatabaseInstance.resourceType;
export const Profiles = ProviderProfile.resourceType;
export interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export const CREDENTIALS_NAMESPACE = 'steward-credentials';
export const GCP_PROJECT = 'steward-e2e';

/** A real control plane with the chart's CRDs, moto and the local Cloud SQL API. */
export interface Platform {
  plane: ControlPlane;
  moto: Moto;
  cloudSql: CloudSqlApi;
  admin: KubeClient;
  stop(): Promise<void>;
}

export async function startPlatform(): Promise<Platform> {
  const [plane, moto, cloudSql] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
    // verifies the JWTs the real client signs with the service-account keys it issued, as Google does
    startCloudSqlApi({ operationStepMs: 100, verifyCredentials: true }),
  ]);
  const admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
  return {
    plane,
    moto,
    cloudSql,
    admin,
    stop: async () => {
      await admin.close();
      await Promise.all([plane.stop(), moto.stop(), cloudSql.stop()]);
    },
  };
}

export async function createNamespace(admin: KubeClient, name: string): Promise<void> {
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** The providers a DatabaseInstance can live at. */
export type Provider = 'aws' | 'gcp';

export interface ProfileOptions {
  /**
   * Where the controller sends this provider's calls (`spec.<provider>.endpoint`); default moto /
   * the local Cloud SQL API. E.g. a fault proxy in front of them.
   */
  endpoint?: string;
  /** The credentials Secret in `steward-credentials`; default `<profile name>-creds`. */
  credentialsSecret?: string;
  /** gcp: the key file to store; default a fresh key the local Cloud SQL API issued. */
  serviceAccountKey?: object;
}

/**
 * The platform team's side for one provider: the credentials namespace (if missing), a credentials
 * Secret, and the ProviderProfile `name` (size `small`) pointing at moto or the local Cloud SQL API
 * (or `options.endpoint`).
 */
export async function createProfile(
  platform: Platform,
  provider: Provider,
  name: string,
  options: ProfileOptions = {},
): Promise<void> {
  const { admin, moto, cloudSql } = platform;
  const secret = options.credentialsSecret ?? `${name}-creds`;
  await createNamespace(admin, CREDENTIALS_NAMESPACE).catch(() => undefined);
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret, namespace: CREDENTIALS_NAMESPACE },
    stringData:
      provider === 'aws'
        ? {
            aws_access_key_id: moto.credentials.accessKeyId,
            aws_secret_access_key: moto.credentials.secretAccessKey,
          }
        : {
            'service-account.json': JSON.stringify(
              options.serviceAccountKey ??
                cloudSql.createServiceAccountKey(`steward@${GCP_PROJECT}.iam.gserviceaccount.com`),
            ),
          },
  });
  const credentialsSecretRef = { namespace: CREDENTIALS_NAMESPACE, name: secret };
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec:
      provider === 'aws'
        ? {
            provider: 'aws',
            namespaceSelector: {},
            aws: {
              region: moto.region,
              endpoint: options.endpoint ?? moto.endpoint,
              credentialsSecretRef,
            },
            sizeClasses: { small: 'db.t3.micro' },
          }
        : {
            provider: 'gcp',
            namespaceSelector: {},
            gcp: {
              project: GCP_PROJECT,
              region: 'europe-west1',
              endpoint: options.endpoint ?? cloudSql.baseUrl,
              credentialsSecretRef,
            },
            sizeClasses: { small: 'db-custom-1-3840' },
          },
  } as Profile);
}

/**
 * The platform team's side: a credentials namespace with one Secret per provider and the `aws`
 * and `gcp` ProviderProfiles (size `small`) pointing at moto and the local Cloud SQL API (or at
 * `endpoints`).
 */
export async function createProfiles(
  platform: Platform,
  suffix = '',
  endpoints: Partial<Record<Provider, string>> = {},
): Promise<void> {
  for (const provider of ['aws', 'gcp'] as const) {
    const endpoint = endpoints[provider];
    await createProfile(platform, provider, `${provider}${suffix}`, {
      credentialsSecret: `${provider}-creds${suffix}`,
      ...(endpoint ? { endpoint } : {}),
    });
  }
}

/** A DatabaseInstance of `size: small` with a connection Secret `<name>-conn`. */
export function databaseInstance(
  namespace: string,
  name: string,
  profile: string,
  spec: Partial<DB['spec']> = {},
): DB {
  return {
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace },
    spec: {
      providerProfileRef: { name: profile },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      writeConnectionSecretToRef: { name: `${name}-conn` },
      ...spec,
    },
  } as DB;
}
