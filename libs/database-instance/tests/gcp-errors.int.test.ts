import { v1 } from '@google-cloud/sql';
import { TerminalError } from '@steward/controller';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCloudSql, CloudSqlCallError, GrpcCode } from '../src/gcp/errors.js';

/**
 * The error shapes of the real client as the controller runs it — with service-account
 * credentials, whose REST transport throws gaxios errors rather than gax's — against the local
 * Cloud SQL API verifying them: mapped to the same codes as gax's own errors.
 */
describe('Cloud SQL errors with service-account credentials', () => {
  let api: CloudSqlApi;
  let client: v1.SqlInstancesServiceClient;
  const project = 'steward-errors';

  beforeAll(async () => {
    api = await startCloudSqlApi({ verifyCredentials: true });
    const key = api.createServiceAccountKey(`steward@${project}.iam.gserviceaccount.com`);
    client = new v1.SqlInstancesServiceClient({
      projectId: project,
      credentials: { client_email: key.client_email, private_key: key.private_key },
      apiEndpoint: '127.0.0.1',
      port: api.endpoint.port,
      protocol: 'http',
      fallback: true,
    } as ConstructorParameters<typeof v1.SqlInstancesServiceClient>[0]);
  });
  afterAll(async () => {
    await client?.close();
    await api?.stop();
  });

  const body = {
    name: 'dup-1',
    databaseVersion: 'POSTGRES_16',
    region: 'europe-west1',
    settings: { tier: 'db-custom-1-3840' },
  };
  const failure = (method: string, call: () => Promise<unknown>) =>
    callCloudSql(method, call).then(
      () => undefined,
      (e: unknown) => e,
    );

  it('a second insert of one name is ALREADY_EXISTS (6), with the server’s message', async () => {
    await callCloudSql('instances.insert', () => client.insert({ project, body } as never));
    const error = await failure('instances.insert', () =>
      client.insert({ project, body } as never),
    );
    expect(error).toBeInstanceOf(CloudSqlCallError);
    expect(error).toMatchObject({ code: GrpcCode.AlreadyExists });
    expect((error as Error).message).toMatch(
      /^Cloud SQL instances\.insert failed \(code 6\): The Cloud SQL instance already exists\./,
    );
  });

  it('a missing instance is NOT_FOUND (5)', async () => {
    const error = await failure('instances.get', () => client.get({ project, instance: 'nope' }));
    expect(error).toMatchObject({ code: GrpcCode.NotFound });
  });

  it('a refused request is a terminal InvalidParameter', async () => {
    const error = await failure('instances.insert', () =>
      client.insert({
        project,
        body: { ...body, name: 'bad-1', databaseVersion: 'POSTGRES_99' },
      } as never),
    );
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: 'InvalidParameter' });
  });

  it('a key the API does not know is a terminal Forbidden', async () => {
    const key = api.createServiceAccountKey(`other@${project}.iam.gserviceaccount.com`);
    api.deleteServiceAccountKey(key.private_key_id);
    const stranger = new v1.SqlInstancesServiceClient({
      projectId: project,
      credentials: { client_email: key.client_email, private_key: key.private_key },
      apiEndpoint: '127.0.0.1',
      port: api.endpoint.port,
      protocol: 'http',
      fallback: true,
    } as ConstructorParameters<typeof v1.SqlInstancesServiceClient>[0]);
    try {
      const error = await failure('instances.list', () => stranger.list({ project }));
      expect(error).toMatchObject({ reason: 'Forbidden' });
    } finally {
      await stranger.close();
    }
  });
});
