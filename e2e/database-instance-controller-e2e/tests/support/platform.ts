import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  repoRoot,
  startCloudSqlApi,
  startControlPlane,
  startMoto,
  type CloudSqlApi,
  type ControlPlane,
  type Moto,
} from '@steward/testing';
import { join } from 'node:path';
import { serviceAccountKey } from './controller-process.js';

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
    startCloudSqlApi({ operationStepMs: 100 }),
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

/**
 * The platform team's side: a credentials namespace with one Secret per provider and the `aws`
 * and `gcp` ProviderProfiles (size `small`) pointing at moto and the local Cloud SQL API.
 */
export async function createProfiles(platform: Platform, suffix = ''): Promise<void> {
  const { admin, moto, cloudSql } = platform;
  await createNamespace(admin, CREDENTIALS_NAMESPACE).catch(() => undefined);
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `aws-creds${suffix}`, namespace: CREDENTIALS_NAMESPACE },
    stringData: {
      aws_access_key_id: moto.credentials.accessKeyId,
      aws_secret_access_key: moto.credentials.secretAccessKey,
    },
  });
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `gcp-creds${suffix}`, namespace: CREDENTIALS_NAMESPACE },
    stringData: { 'service-account.json': serviceAccountKey(GCP_PROJECT) },
  });
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: `aws${suffix}` },
    spec: {
      provider: 'aws',
      aws: {
        region: moto.region,
        endpoint: moto.endpoint,
        credentialsSecretRef: { namespace: CREDENTIALS_NAMESPACE, name: `aws-creds${suffix}` },
      },
      sizeClasses: { small: 'db.t3.micro' },
    },
  } as Profile);
  await admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: `gcp${suffix}` },
    spec: {
      provider: 'gcp',
      gcp: {
        project: GCP_PROJECT,
        region: 'europe-west1',
        endpoint: cloudSql.baseUrl,
        credentialsSecretRef: { namespace: CREDENTIALS_NAMESPACE, name: `gcp-creds${suffix}` },
      },
      sizeClasses: { small: 'db-custom-1-3840' },
    },
  } as Profile);
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
