import { withValidations } from '@steward/crd';
import Type from 'typebox';
import { endpointUrl } from './endpoint-url.js';

/** The default keys of the credentials Secret (the AWS SDKs' environment names). */
export const S3CredentialKeys = {
  accessKeyId: 'AWS_ACCESS_KEY_ID',
  secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
} as const;

const SECRET_KEY = '^[-._a-zA-Z0-9]+$';

/**
 * An S3 bucket name as S3 takes it: 3–63 lowercase letters, digits, dots and hyphens, beginning
 * and ending with a letter or digit, no two dots in a row, not an IP address.
 */
export const s3Bucket = (description: string) =>
  withValidations(Type.String({ minLength: 3, maxLength: 63, description }), [
    {
      rule: "self.matches('^[a-z0-9][a-z0-9.-]*[a-z0-9]$')",
      message:
        'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit, such as team-backups',
    },
    {
      rule: "!self.contains('..')",
      message: 'an S3 bucket name may not have two dots in a row',
    },
    {
      rule: "!self.matches('^[0-9]+[.][0-9]+[.][0-9]+[.][0-9]+$')",
      message: 'an S3 bucket name may not be an IP address such as 192.168.5.4',
    },
  ]);

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
      bucket: s3Bucket('The S3 bucket. It must exist: the controller never creates buckets.'),
      prefix: Type.Optional(
        Type.String({
          maxLength: 256,
          pattern: '^[A-Za-z0-9!_.*()-]+(/[A-Za-z0-9!_.*()-]+)*$',
          description: prefixDescription,
        }),
      ),
      endpoint: Type.Optional(
        endpointUrl(
          'The S3 API endpoint of an S3-compatible store, e.g. https://minio.storage:9000 (default: AWS S3 of region): http(s)://host[:port][/path], no user, password or query. Path-style addressing.',
        ),
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
