import Type from 'typebox';

/** The default keys of the credentials Secret (the AWS SDKs' environment names). */
export const S3CredentialKeys = {
  accessKeyId: 'AWS_ACCESS_KEY_ID',
  secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
} as const;

const SECRET_KEY = '^[-._a-zA-Z0-9]+$';

/**
 * Where backups go: an S3 bucket (AWS, or any S3-compatible store) with a key prefix described by
 * `prefixDescription`, and a credentials Secret in the workload's namespace. One schema for a
 * PostgresCluster's spec.backup.destination and a kubernetes profile's destination. A workload's
 * own destination is only taken where its profile allows workload destinations, with an endpoint
 * the profile names (the controller itself connects to the endpoint: it never connects to one no
 * profile names); see the profile's spec.kubernetes.backup.
 */
export const s3Destination = (prefixDescription: string) =>
  Type.Object(
    {
      bucket: Type.String({
        minLength: 3,
        maxLength: 63,
        pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$',
        description: 'The S3 bucket. It must exist: the controller never creates buckets.',
      }),
      prefix: Type.Optional(
        Type.String({
          maxLength: 256,
          pattern: '^[A-Za-z0-9!_.*()-]+(/[A-Za-z0-9!_.*()-]+)*$',
          description: prefixDescription,
        }),
      ),
      endpoint: Type.Optional(
        Type.String({
          maxLength: 256,
          pattern: '^https?://[^\\s/]+(/.*)?$',
          description:
            'The S3 API endpoint of an S3-compatible store, e.g. https://minio.storage:9000 (default: AWS S3 of region). Path-style addressing.',
        }),
      ),
      region: Type.Optional(
        Type.String({
          maxLength: 32,
          pattern: '^[a-z0-9-]+$',
          default: 'us-east-1',
          description: 'The bucket’s region.',
        }),
      ),
      credentialsSecretRef: Type.Object(
        {
          name: Type.String({
            minLength: 1,
            maxLength: 253,
            pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
          }),
          accessKeyIdKey: Type.Optional(
            Type.String({
              maxLength: 253,
              pattern: SECRET_KEY,
              default: S3CredentialKeys.accessKeyId,
            }),
          ),
          secretAccessKeyKey: Type.Optional(
            Type.String({
              maxLength: 253,
              pattern: SECRET_KEY,
              default: S3CredentialKeys.secretAccessKey,
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'A Secret of this name in the workload’s namespace with the access key id and secret access key — for a profile’s destination, one the platform team provisions in each namespace (a key reaching only that namespace’s folder isolates tenants), or the controller’s copy with copyCredentialsToWorkloadNamespaces. The instances (WAL archiving), the backup Jobs and the controller (the catalogue, retention) use it.',
        },
      ),
    },
    { additionalProperties: false },
  );
