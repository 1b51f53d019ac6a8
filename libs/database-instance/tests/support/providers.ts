import { Namespaces, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import { type Moto } from '@steward/testing-backends';
import { type CloudSqlApi } from '@steward/testing-cloudsql';

interface Secret extends KubeObject {
  stringData?: Record<string, string>;
}

/**
 * The platform namespace `namespace` with the credentials Secrets profiles name: `aws-creds`
 * (moto's static keys) and `gcp-creds` (a service-account JSON the local Cloud SQL API accepts).
 */
export async function createCredentials(
  admin: KubeClient,
  moto: Moto,
  namespace: string,
): Promise<void> {
  await admin.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aws-creds', namespace },
    stringData: {
      aws_access_key_id: moto.credentials.accessKeyId,
      aws_secret_access_key: moto.credentials.secretAccessKey,
    },
  });
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'gcp-creds', namespace },
    stringData: {
      'service-account.json': JSON.stringify({
        type: 'service_account',
        client_email: 'steward@steward-test.iam.gserviceaccount.com',
        private_key: 'not-a-real-key',
      }),
    },
  });
}

/**
 * The local Cloud SQL API's auth client options for `gcpClientOptions`; where to connect still
 * comes from the profile's spec.gcp.endpoint.
 */
export function localCloudSqlAuth(api: CloudSqlApi): () => Record<string, unknown> {
  return () => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { apiEndpoint, port, protocol, ...rest } = api.clientOptions();
    return rest as Record<string, unknown>;
  };
}
