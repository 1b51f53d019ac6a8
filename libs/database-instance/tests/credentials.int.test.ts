import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { type CredentialsCheckResult } from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import { freePort, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  awsCredentialsCheck,
  databaseCredentialsCheck,
  gcpCredentialsCheck,
} from '../src/credentials/index.js';

type Profile = ProviderProfile;
interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const NS = 'steward-credentials';
const PROJECT = 'steward-test';
const EMAIL = `steward@${PROJECT}.iam.gserviceaccount.com`;
/** Moto accepts any credentials: these are long enough to be redacted and searched for. */
const AWS = {
  accessKeyId: 'AKIASTEWARDCHECK0001',
  secretAccessKey: 'steward/Secret+Access+Key/never-logged-1234',
};

let plane: ControlPlane;
let moto: Moto;
let api: CloudSqlApi;
let admin: KubeClient;
let closedPort: number;

/**
 * Answers every AWS Query request the way AWS answers with an error: `status` and an
 * `<ErrorResponse>` with `code`. Records the request bodies.
 */
let awsFault = { status: 403, code: 'InvalidClientTokenId', message: 'refused' };
const awsRequests: string[] = [];
let awsFaultServer: Server;
let awsFaultEndpoint = '';

beforeAll(async () => {
  [plane, moto, api] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/database-instance-controller/crds')] }),
    startMoto(),
    startCloudSqlApi({ verifyCredentials: true }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  awsFaultServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      awsRequests.push(body);
      response.writeHead(awsFault.status, { 'content-type': 'text/xml' });
      response.end(
        `<ErrorResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><Error><Type>Sender</Type><Code>${awsFault.code}</Code><Message>${awsFault.message}</Message></Error><RequestId>1</RequestId></ErrorResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => awsFaultServer.listen(0, '127.0.0.1', resolve));
  const address = awsFaultServer.address();
  awsFaultEndpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  closedPort = await freePort();
});
afterAll(async () => {
  await admin?.close();
  awsFaultServer?.closeAllConnections();
  await new Promise((resolve) => awsFaultServer?.close(resolve));
  await Promise.all([plane?.stop(), moto?.stop(), api?.stop()]);
});

let secretNumber = 0;
/** A new Secret in NS with `stringData`; returns its name. */
async function secret(stringData: Record<string, string>): Promise<string> {
  const name = `creds-${++secretNumber}`;
  await admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    stringData,
  });
  return name;
}

const awsProfile = (secretName: string, endpoint = moto.endpoint, key?: string): Profile =>
  ({
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: `aws-${secretName}`, uid: secretName, generation: 1 },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: {
        region: moto.region,
        endpoint,
        credentialsSecretRef: { namespace: NS, name: secretName, ...(key ? { key } : {}) },
      },
    },
  }) as Profile;

const gcpProfile = (secretName: string, endpoint = api.baseUrl): Profile =>
  ({
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: `gcp-${secretName}`, uid: secretName, generation: 1 },
    spec: {
      provider: 'gcp',
      namespaceSelector: {},
      gcp: {
        project: PROJECT,
        region: 'europe-west1',
        endpoint,
        credentialsSecretRef: { namespace: NS, name: secretName },
      },
    },
  }) as Profile;

const awsKeys = {
  aws_access_key_id: AWS.accessKeyId,
  aws_secret_access_key: AWS.secretAccessKey,
};
const signal = () => new AbortController().signal;
const messageOf = (r: CredentialsCheckResult) => r.message;

describe('awsCredentialsCheck', () => {
  const check = () => awsCredentialsCheck(admin);

  it('verifies working credentials with one DescribeDBInstances at the profile endpoint', async () => {
    const result = await check()(awsProfile(await secret(awsKeys)), signal());
    expect(result.ok).toBe(true);
    expect(messageOf(result)).toContain(`RDS DescribeDBInstances in ${moto.region}`);
    expect(messageOf(result)).not.toContain(AWS.accessKeyId);
  });

  it('reads an AWS shared-credentials file from the key the profile names', async () => {
    const file = `[default]\naws_access_key_id = ${AWS.accessKeyId}\naws_secret_access_key = ${AWS.secretAccessKey}\n`;
    const name = await secret({ credentials: file });
    expect((await check()(awsProfile(name, moto.endpoint, 'credentials'), signal())).ok).toBe(true);
  });

  it('reports a missing Secret as CredentialsNotFound, naming it, not transient', async () => {
    const result = await check()(awsProfile('does-not-exist'), signal());
    expect(result).toEqual({
      ok: false,
      reason: 'CredentialsNotFound',
      message: expect.stringContaining(`${NS}/does-not-exist`) as string,
    });
  });

  it('reports a Secret without the secret key as CredentialsNotFound, naming the key', async () => {
    const name = await secret({ aws_access_key_id: AWS.accessKeyId });
    const result = await check()(awsProfile(name), signal());
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsNotFound' });
    expect(messageOf(result)).toContain('aws_secret_access_key');
    expect(messageOf(result)).not.toContain(AWS.accessKeyId);
  });

  it.each([
    ['InvalidClientTokenId', 403, 'The security token included in the request is invalid.'],
    [
      'SignatureDoesNotMatch',
      403,
      'The request signature we calculated does not match the signature you provided.',
    ],
    ['AccessDenied', 403, `User: arn:aws:iam::123456789012:user/steward is not authorized`],
  ])(
    'maps %s from AWS to CredentialsInvalid, not transient, after one cheap call',
    async (code, status, message) => {
      awsFault = { status, code, message };
      awsRequests.length = 0;
      const result = await check()(awsProfile(await secret(awsKeys), awsFaultEndpoint), signal());
      expect(result).toMatchObject({ ok: false, reason: 'CredentialsInvalid' });
      expect(result.ok ? true : result.transient).toBeFalsy();
      expect(messageOf(result)).toContain(`${code}: ${message}`);
      expect(messageOf(result)).not.toContain(AWS.secretAccessKey);
      expect(awsRequests).toHaveLength(1);
      expect(awsRequests[0]).toContain('Action=DescribeDBInstances');
      expect(awsRequests[0]).toContain('MaxRecords=20');
    },
  );

  it.each([
    ['a 503', 503, 'ServiceUnavailable'],
    ['throttling', 400, 'Throttling'],
  ])('maps %s to a transient ProviderUnreachable', async (_case, status, code) => {
    awsFault = { status, code, message: 'try later' };
    const result = await check()(awsProfile(await secret(awsKeys), awsFaultEndpoint), signal());
    expect(result).toMatchObject({ ok: false, reason: 'ProviderUnreachable', transient: true });
  });

  it('maps a refused connection to a transient ProviderUnreachable', async () => {
    const result = await check()(
      awsProfile(await secret(awsKeys), `http://127.0.0.1:${closedPort}`),
      signal(),
    );
    expect(result).toMatchObject({ ok: false, reason: 'ProviderUnreachable', transient: true });
    expect(messageOf(result)).toContain('ECONNREFUSED');
  });
});

describe('gcpCredentialsCheck (the real client signs with the key; the local API verifies it)', () => {
  const check = () => gcpCredentialsCheck(admin);
  const keyFile = (options?: { projects?: string[] }) =>
    JSON.stringify(api.createServiceAccountKey(EMAIL, options));

  it('verifies a service-account key with one instances.list of the profile project', async () => {
    const key = keyFile();
    const before = api.requests().length;
    const result = await check()(
      gcpProfile(await secret({ 'service-account.json': key })),
      signal(),
    );
    expect(result).toMatchObject({ ok: true });
    expect(messageOf(result)).toContain(`instances.list in project ${PROJECT}`);
    const calls = api.requests().slice(before);
    expect(calls.map((c) => `${c.method} ${c.status}`)).toEqual(['instances.list 200']);
    expect(calls[0]?.query['maxResults']).toBe('1');
  });

  it('maps a key the API does not know (401 UNAUTHENTICATED) to CredentialsInvalid', async () => {
    const stranger = JSON.stringify({
      type: 'service_account',
      client_email: EMAIL,
      private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
    });
    const result = await check()(
      gcpProfile(await secret({ 'service-account.json': stranger })),
      signal(),
    );
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsInvalid' });
    expect(result.ok ? true : result.transient).toBeFalsy();
    expect(messageOf(result)).toContain('invalid authentication credentials');
    expect(api.requests().at(-1)?.status).toBe(401);
  });

  it('maps a deleted key to CredentialsInvalid', async () => {
    const key = api.createServiceAccountKey(EMAIL);
    const name = await secret({ 'service-account.json': JSON.stringify(key) });
    expect((await check()(gcpProfile(name), signal())).ok).toBe(true);
    api.deleteServiceAccountKey(key.private_key_id);
    expect(await check()(gcpProfile(name), signal())).toMatchObject({
      ok: false,
      reason: 'CredentialsInvalid',
    });
  });

  it('maps an account without access to the project (403 PERMISSION_DENIED) to CredentialsInvalid', async () => {
    const key = keyFile({ projects: ['another-project'] });
    const result = await check()(
      gcpProfile(await secret({ 'service-account.json': key })),
      signal(),
    );
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsInvalid' });
    expect(api.requests().at(-1)?.status).toBe(403);
  });

  it.each([
    [
      'a private key that is not a key',
      JSON.stringify({ client_email: EMAIL, private_key: 'not-a-real-key' }),
    ],
    ['a key file that is not JSON', 'client_email=steward'],
  ])('maps %s to CredentialsInvalid without calling the API', async (_case, content) => {
    const before = api.requests().length;
    const result = await check()(
      gcpProfile(await secret({ 'service-account.json': content })),
      signal(),
    );
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsInvalid' });
    expect(messageOf(result)).not.toContain('not-a-real-key');
    expect(api.requests().length).toBe(before);
  });

  it('maps a 503 from the API to a transient ProviderUnreachable', async () => {
    const name = await secret({ 'service-account.json': keyFile() });
    api.failNext('instances.list', { code: 503 });
    expect(await check()(gcpProfile(name), signal())).toMatchObject({
      ok: false,
      reason: 'ProviderUnreachable',
      transient: true,
    });
  });

  it('maps a refused connection to a transient ProviderUnreachable', async () => {
    const name = await secret({ 'service-account.json': keyFile() });
    expect(
      await check()(gcpProfile(name, `http://127.0.0.1:${closedPort}`), signal()),
    ).toMatchObject({ ok: false, reason: 'ProviderUnreachable', transient: true });
  });

  it('never puts the private key in a message', async () => {
    const key = api.createServiceAccountKey(EMAIL);
    api.deleteServiceAccountKey(key.private_key_id);
    const result = await check()(
      gcpProfile(await secret({ 'service-account.json': JSON.stringify(key) })),
      signal(),
    );
    const body = key.private_key.split('\n')[1]!;
    expect(messageOf(result)).not.toContain(body);
  });
});

describe('databaseCredentialsCheck', () => {
  it('checks aws and gcp profiles with their provider and refuses other providers', async () => {
    const check = databaseCredentialsCheck(admin);
    const aws = await secret(awsKeys);
    const gcp = await secret({
      'service-account.json': JSON.stringify(api.createServiceAccountKey(EMAIL)),
    });
    expect((await check(awsProfile(aws), signal())).ok).toBe(true);
    expect((await check(gcpProfile(gcp), signal())).ok).toBe(true);
    const kafka = {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: 'events' },
      spec: {
        provider: 'kafka',
        namespaceSelector: {},
        kafka: { bootstrapServers: ['127.0.0.1:9092'] },
      },
    } as Profile;
    expect(await check(kafka, signal())).toMatchObject({
      ok: false,
      reason: 'InvalidProviderProfile',
    });
  });
});
