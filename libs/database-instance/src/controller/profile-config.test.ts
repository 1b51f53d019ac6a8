import { TerminalError } from '@steward/controller';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { ExternalAnnotations as A } from '@steward/external';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { admit } from './admission.js';
import {
  awsConfigFromProfile,
  gcpConfigFromProfile,
  gcpEndpointOptions,
  parseAwsCredentialsFile,
} from './profile-config.js';

const awsProfile = (extra: Partial<ProviderProfile['spec']> = {}): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'aws-prod' },
    spec: {
      provider: 'aws',
      namespaces: ['app'],
      aws: {
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:5000',
        credentialsSecretRef: { namespace: 'infra', name: 'aws-creds' },
      },
      sizeClasses: { small: 'db.t3.micro' },
      ...extra,
    },
  }) as ProviderProfile;

const gcpProfile = (key?: string, endpoint?: string): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'gcp-prod' },
    spec: {
      provider: 'gcp',
      namespaces: ['app'],
      gcp: {
        project: 'steward-test',
        region: 'europe-west1',
        ...(endpoint ? { endpoint } : {}),
        credentialsSecretRef: { namespace: 'infra', name: 'gcp-creds', ...(key ? { key } : {}) },
      },
      sizeClasses: { small: 'db-custom-1-3840' },
    },
  }) as ProviderProfile;

const serviceAccount = JSON.stringify({ client_email: 'sa@p.iam', private_key: 'PRIVATE' });

const terminal = (fn: () => unknown): TerminalError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof TerminalError) return error;
    throw error;
  }
  throw new Error('expected a TerminalError');
};

describe('awsConfigFromProfile', () => {
  it('reads the default keys, region, endpoint and size classes', () => {
    expect(
      awsConfigFromProfile(awsProfile(), {
        aws_access_key_id: 'AKIA',
        aws_secret_access_key: 'SECRET',
      }),
    ).toEqual({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:5000',
      credentials: { accessKeyId: 'AKIA', secretAccessKey: 'SECRET' },
      sizeClasses: { small: 'db.t3.micro' },
    });
  });

  it('passes an optional session token', () => {
    const config = awsConfigFromProfile(awsProfile(), {
      aws_access_key_id: 'A',
      aws_secret_access_key: 'S',
      aws_session_token: 'T',
    });
    expect(config.credentials.sessionToken).toBe('T');
  });

  it('reads a shared-credentials file from the key given', () => {
    const profile = awsProfile();
    profile.spec.aws!.credentialsSecretRef.key = 'credentials';
    const file =
      '[other]\naws_access_key_id = X\n[default]\naws_access_key_id = A\naws_secret_access_key=S\n';
    expect(awsConfigFromProfile(profile, { credentials: file }).credentials).toEqual({
      accessKeyId: 'A',
      secretAccessKey: 'S',
    });
  });

  it('reports a missing key as CredentialsNotFound, without any value in the message', () => {
    const error = terminal(() => awsConfigFromProfile(awsProfile(), { aws_access_key_id: 'AKIA' }));
    expect(error.reason).toBe('CredentialsNotFound');
    expect(error.message).toContain('aws_secret_access_key');
    expect(error.message).toContain('infra/aws-creds');
    expect(error.message).not.toContain('AKIA');
  });

  it('refuses a profile of another provider', () => {
    expect(terminal(() => awsConfigFromProfile(gcpProfile(), {})).reason).toBe(
      'InvalidProviderProfile',
    );
  });
});

describe('parseAwsCredentialsFile', () => {
  it('takes lines before any section as default, and a named profile when there is no default', () => {
    expect(parseAwsCredentialsFile('aws_access_key_id=A\n')).toEqual({ aws_access_key_id: 'A' });
    expect(parseAwsCredentialsFile('# c\n[profile ci]\naws_access_key_id = B')).toEqual({
      aws_access_key_id: 'B',
    });
  });
});

describe('gcpEndpointOptions', () => {
  it('turns a URL into apiEndpoint, port and protocol; http uses the REST transport', () => {
    expect(gcpEndpointOptions('http://127.0.0.1:8123')).toEqual({
      apiEndpoint: '127.0.0.1',
      port: 8123,
      protocol: 'http',
      fallback: true,
    });
    expect(gcpEndpointOptions('https://sqladmin.example.com')).toEqual({
      apiEndpoint: 'sqladmin.example.com',
      port: 443,
      protocol: 'https',
    });
  });
});

describe('gcpConfigFromProfile', () => {
  it('reads service-account.json by default; the profile endpoint wins over extra options', () => {
    const config = gcpConfigFromProfile(
      gcpProfile(undefined, 'http://127.0.0.1:9000'),
      { 'service-account.json': serviceAccount },
      { apiEndpoint: 'elsewhere', port: 1, auth: 'AUTH' },
    );
    expect(config).toEqual({
      project: 'steward-test',
      region: 'europe-west1',
      sizeClasses: { small: 'db-custom-1-3840' },
      clientOptions: {
        projectId: 'steward-test',
        credentials: { client_email: 'sa@p.iam', private_key: 'PRIVATE' },
        auth: 'AUTH',
        apiEndpoint: '127.0.0.1',
        port: 9000,
        protocol: 'http',
        fallback: true,
      },
    });
  });

  it('reads the key given, and reports missing or invalid keys', () => {
    expect(gcpConfigFromProfile(gcpProfile('sa'), { sa: serviceAccount }).project).toBe(
      'steward-test',
    );
    expect(terminal(() => gcpConfigFromProfile(gcpProfile('sa'), {})).reason).toBe(
      'CredentialsNotFound',
    );
    const invalid = terminal(() =>
      gcpConfigFromProfile(gcpProfile(), { 'service-account.json': 'x' }),
    );
    expect(invalid.reason).toBe('CredentialsInvalid');
  });
});

const dbi = (spec: Partial<DatabaseInstance['spec']> = {}, meta: object = {}): DatabaseInstance =>
  ({
    apiVersion: 'database.steward.dev/v1alpha1',
    kind: 'DatabaseInstance',
    metadata: { name: 'db', namespace: 'app', ...meta },
    spec: {
      providerProfileRef: { name: 'aws-prod' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...spec,
    },
  }) as DatabaseInstance;

const created = { annotations: { [A.externalName]: 'x', [A.createSucceeded]: 't' } };
const deleting = { ...created, deletionTimestamp: '2026-01-01T00:00:00Z' };

describe('admit', () => {
  it('stops ProfileNotAllowedInNamespace when the profile does not allow the namespace, also while deleting with Delete', () => {
    const other = awsProfile({ namespaces: ['billing'] });
    expect(admit(other, dbi())).toMatchObject({
      action: 'stop',
      reason: 'ProfileNotAllowedInNamespace',
      message: expect.stringContaining(
        'ProviderProfile aws-prod may not be used from namespace app',
      ),
    });
    expect(admit(other, dbi({ deletionPolicy: 'Delete' }, deleting))).toMatchObject({
      action: 'stop',
      reason: 'ProfileNotAllowedInNamespace',
    });
    // Retain touches no provider: the object may go.
    expect(admit(other, dbi({ deletionPolicy: 'Retain' }, deleting))).toMatchObject({
      action: 'reconcile',
    });
  });
  it('allows a namespace the selector picks by its labels', () => {
    const selecting = awsProfile({
      namespaces: undefined,
      namespaceSelector: { matchLabels: { tenant: 'a' } },
    });
    expect(admit(selecting, dbi(), { name: 'app', labels: { tenant: 'a' } })).toEqual({
      action: 'reconcile',
      provider: 'aws',
    });
    expect(admit(selecting, dbi(), { name: 'app', labels: { tenant: 'b' } })).toMatchObject({
      reason: 'ProfileNotAllowedInNamespace',
    });
  });
  it('dispatches by provider when the guardrails allow', () => {
    expect(admit(awsProfile(), dbi())).toEqual({ action: 'reconcile', provider: 'aws' });
    expect(admit(gcpProfile(), dbi())).toEqual({ action: 'reconcile', provider: 'gcp' });
  });

  it('stops on a missing profile, naming it', () => {
    const a = admit(undefined, dbi());
    expect(a).toMatchObject({ action: 'stop', reason: 'ProviderProfileNotFound' });
    expect(a.action === 'stop' && a.message).toContain('aws-prod');
  });

  it('stops on a guardrail violation, also while deleting with deletionPolicy Delete', () => {
    const profile = awsProfile({ guardrails: { allowedDeletionPolicies: ['Retain'] } });
    expect(admit(profile, dbi({ deletionPolicy: 'Delete' }, created))).toMatchObject({
      action: 'stop',
      reason: 'DeletionPolicyNotAllowed',
    });
    const a = admit(profile, dbi({ deletionPolicy: 'Delete' }, deleting));
    expect(a).toMatchObject({ action: 'stop', reason: 'DeletionPolicyNotAllowed' });
    expect(a.action === 'stop' && a.message).toContain('finalizer stays');
    expect(admit(awsProfile(), dbi({ size: 'huge' }))).toMatchObject({ reason: 'UnknownSize' });
  });

  it('never holds back a deletion that touches no provider', () => {
    const profile = awsProfile({ sizeClasses: {} });
    expect(admit(profile, dbi({ deletionPolicy: 'Retain' }, deleting))).toEqual({
      action: 'reconcile',
      provider: 'aws',
    });
    expect(admit(undefined, dbi({ deletionPolicy: 'Retain' }, deleting))).toEqual({
      action: 'release',
    });
    // Delete, but nothing was ever created
    expect(
      admit(undefined, dbi({ deletionPolicy: 'Delete' }, { deletionTimestamp: 'now' })),
    ).toEqual({ action: 'release' });
    expect(admit(undefined, dbi({ deletionPolicy: 'Delete' }, deleting))).toMatchObject({
      reason: 'ProviderProfileNotFound',
    });
  });
});
