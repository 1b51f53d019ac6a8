import { DatabaseInstance, type DatabaseInstanceSpec } from '../src/index.js';
import { InvalidError, KubeClient, Namespaces } from '@steward/kube';
import { ProviderProfile, type ProviderProfileSpec } from '@steward/provider-profile-api';
import { repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The generated CRDs exactly as the chart ships them (tools/scripts/generate-crds.ts). */
const chartCrds = join(repoRoot(), 'charts', 'database-instance-controller', 'crds');
const namespace = 'dbi';

let plane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane({ crds: [chartCrds] });
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'database-instance-api-test' });
  await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

const secretRef = { namespace: 'steward-system', name: 'cloud-credentials' };
const awsSpec = {
  provider: 'aws',
  aws: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:5000', credentialsSecretRef: secretRef },
  sizeClasses: { small: 'db.t3.micro', large: 'db.m6g.large' },
};
const gcpSpec = {
  provider: 'gcp',
  gcp: {
    project: 'steward-test',
    region: 'europe-west1',
    credentialsSecretRef: { ...secretRef, key: 'sa.json' },
  },
  sizeClasses: { small: 'db-f1-micro' },
};
const kafkaSpec = {
  provider: 'kafka',
  kafka: {
    bootstrapServers: ['kafka-0.kafka:9093'],
    tls: { secretRef: { namespace: 'kafka', name: 'ca' } },
    sasl: { mechanism: 'scram-sha-512', secretRef: { namespace: 'kafka', name: 'admin' } },
  },
};
const dbiSpec = {
  providerProfileRef: { name: 'aws' },
  engine: 'postgres',
  version: '16.4',
  size: 'small',
  storageGiB: 20,
};

const profile = (name: string, spec: Record<string, unknown>): ProviderProfile =>
  ({
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec,
  }) as ProviderProfile;
const instance = (name: string, spec: Record<string, unknown>): DatabaseInstance =>
  ({
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace },
    spec,
  }) as DatabaseInstance;

async function rejection(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof InvalidError) return error.message;
    throw error;
  }
  throw new Error('expected the API server to reject the request');
}

describe('ProviderProfile and DatabaseInstance CRDs from the chart, in a real API server', () => {
  it('accepts one profile per provider and applies the guardrail defaults', async () => {
    const aws = await client.create<ProviderProfile>(
      ProviderProfile.resourceType,
      profile('aws', awsSpec),
    );
    expect(aws.metadata.namespace).toBeUndefined();
    expect(aws.spec.guardrails).toEqual({
      allowedDeletionPolicies: ['Retain', 'Delete'],
      requireFinalSnapshot: false,
    });
    await client.create(ProviderProfile.resourceType, profile('gcp', gcpSpec));
    const kafka = await client.create<ProviderProfile>(
      ProviderProfile.resourceType,
      profile('kafka', {
        ...kafkaSpec,
        guardrails: { allowedDeletionPolicies: ['Retain'], requireFinalSnapshot: true },
      }),
    );
    expect(kafka.spec.guardrails?.allowedDeletionPolicies).toEqual(['Retain']);
    // SASL over TLS; and SASL in clear only when the profile says it accepts that.
    expect(kafka.spec.kafka?.allowPlaintextSasl).toBe(false);
    const plaintext = await client.create<ProviderProfile>(
      ProviderProfile.resourceType,
      profile('kafka-plaintext-sasl', {
        provider: 'kafka',
        kafka: {
          bootstrapServers: ['kafka-0.kafka:9092'],
          sasl: kafkaSpec.kafka.sasl,
          allowPlaintextSasl: true,
        },
      }),
    );
    expect(plaintext.spec.kafka?.allowPlaintextSasl).toBe(true);
  });

  it('accepts a minimal DatabaseInstance and applies the safe defaults', async () => {
    const created = await client.create<DatabaseInstance>(
      DatabaseInstance.resourceType,
      instance('orders', dbiSpec),
    );
    expect(created.spec).toMatchObject({
      deletionPolicy: 'Retain',
      finalSnapshot: true,
      adopt: false,
      highAvailability: false,
      backup: { retentionDays: 7 },
      // Secure by default: opting out takes an explicit field.
      security: {
        storageEncrypted: true,
        publiclyAccessible: false,
        deletionProtection: true,
        requireTLS: true,
      },
    } satisfies Partial<DatabaseInstanceSpec>);
  });

  it('accepts provider overrides instead of a size, and explicit opt-ins', async () => {
    const created = await client.create<DatabaseInstance>(
      DatabaseInstance.resourceType,
      instance('analytics', {
        providerProfileRef: { name: 'gcp' },
        engine: 'mysql',
        version: '8.0',
        providerOverrides: { gcp: { tier: 'db-custom-2-7680', dataDiskType: 'PD_SSD' } },
        storageGiB: 100,
        highAvailability: true,
        backup: { retentionDays: 0 },
        deletionPolicy: 'Delete',
        finalSnapshot: false,
        adopt: true,
        writeConnectionSecretToRef: { name: 'analytics-db' },
      }),
    );
    expect(created.spec).toMatchObject({
      deletionPolicy: 'Delete',
      adopt: true,
      backup: { retentionDays: 0 },
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'storage below 10 GiB',
      { ...dbiSpec, storageGiB: 5 },
      'should be greater than or equal to 10',
    ],
    [
      'storage above 64 TiB',
      { ...dbiSpec, storageGiB: 70000 },
      'should be less than or equal to 65536',
    ],
    ['an unknown engine', { ...dbiSpec, engine: 'oracle' }, 'Unsupported value: "oracle"'],
    [
      'an unknown deletionPolicy',
      { ...dbiSpec, deletionPolicy: 'Orphan' },
      'Unsupported value: "Orphan"',
    ],
    [
      'retentionDays 36',
      { ...dbiSpec, backup: { retentionDays: 36 } },
      'should be less than or equal to 35',
    ],
    [
      'a version that is not a number',
      { ...dbiSpec, version: 'latest' },
      'spec.version: Invalid value: "latest"',
    ],
    [
      'neither size nor an instance class',
      { ...dbiSpec, size: undefined, providerOverrides: { aws: { storageType: 'gp3' } } },
      'spec.size or an instance class (spec.providerOverrides.aws.instanceClass or spec.providerOverrides.gcp.tier) is required',
    ],
    [
      'overrides for both providers',
      {
        ...dbiSpec,
        providerOverrides: { aws: { instanceClass: 'db.t3.micro' }, gcp: { tier: 'db-f1-micro' } },
      },
      'spec.providerOverrides takes exactly one block: aws or gcp',
    ],
    [
      'a missing providerProfileRef',
      { ...dbiSpec, providerProfileRef: undefined },
      'spec.providerProfileRef: Required value',
    ],
  ])('rejects a DatabaseInstance with %s', async (_case, spec, expected) => {
    expect(
      await rejection(client.create(DatabaseInstance.resourceType, instance('bad', spec))),
    ).toContain(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'an aws profile with a gcp block',
      { ...awsSpec, gcp: gcpSpec.gcp },
      'spec.gcp is only allowed when spec.provider is gcp',
    ],
    [
      'an aws profile without its aws block',
      { provider: 'aws' },
      'spec.aws is required when spec.provider is aws',
    ],
    [
      'a gcp profile with a kafka block',
      { ...gcpSpec, kafka: kafkaSpec.kafka },
      'spec.kafka is only allowed when spec.provider is kafka',
    ],
    [
      'a kafka profile without bootstrapServers',
      { provider: 'kafka', kafka: {} },
      'spec.kafka.bootstrapServers: Required value',
    ],
    [
      'a kafka profile with no bootstrap server',
      { provider: 'kafka', kafka: { bootstrapServers: [] } },
      'should have at least 1 items',
    ],
    [
      'an unknown SASL mechanism',
      {
        provider: 'kafka',
        kafka: { ...kafkaSpec.kafka, sasl: { ...kafkaSpec.kafka.sasl, mechanism: 'gssapi' } },
      },
      'Unsupported value: "gssapi"',
    ],
    [
      'SASL without TLS (the password in clear), not allowed',
      {
        provider: 'kafka',
        kafka: { bootstrapServers: kafkaSpec.kafka.bootstrapServers, sasl: kafkaSpec.kafka.sasl },
      },
      'spec.kafka.sasl without spec.kafka.tls sends the password in clear: set spec.kafka.tls (a Secret with ca.crt), or spec.kafka.allowPlaintextSasl: true to accept that',
    ],
    [
      'SASL without TLS with allowPlaintextSasl: false',
      {
        provider: 'kafka',
        kafka: {
          bootstrapServers: kafkaSpec.kafka.bootstrapServers,
          sasl: kafkaSpec.kafka.sasl,
          allowPlaintextSasl: false,
        },
      },
      'spec.kafka.allowPlaintextSasl: true to accept that',
    ],
    ['an unknown provider', { provider: 'azure' }, 'Unsupported value: "azure"'],
    [
      'requireSecureDefaults on a kubernetes profile',
      {
        provider: 'kubernetes',
        kubernetes: {
          sizeClasses: { small: { cpu: '100m', memory: '128Mi' } },
          images: [{ engine: 'postgres', version: '17', image: 'postgres:17' }],
        },
        guardrails: { requireSecureDefaults: true },
      },
      'spec.guardrails.requireSecureDefaults is for aws and gcp profiles',
    ],
    [
      'a size class name that is not a DNS label',
      { ...awsSpec, sizeClasses: { Small: 'db.t3.micro' } },
      'spec.sizeClasses keys must be lowercase DNS labels such as small or large-ha',
    ],
    [
      'an allowed size that is not a size class',
      { ...awsSpec, guardrails: { allowedSizes: ['small', 'huge'] } },
      'spec.guardrails.allowedSizes may only name keys of spec.sizeClasses',
    ],
    [
      'an unknown deletion policy in the guardrails',
      { ...awsSpec, guardrails: { allowedDeletionPolicies: ['Orphan'] } },
      'Unsupported value: "Orphan"',
    ],
  ])('rejects %s', async (_case, spec, expected) => {
    expect(
      await rejection(client.create(ProviderProfile.resourceType, profile('bad', spec))),
    ).toContain(expected);
  });

  it.each<[string, (spec: DatabaseInstanceSpec) => DatabaseInstanceSpec, string]>([
    [
      'shrinking storageGiB',
      (s) => ({ ...s, storageGiB: 10 }),
      'spec.storageGiB may only grow: RDS and Cloud SQL cannot shrink storage',
    ],
    ['changing the engine', (s) => ({ ...s, engine: 'mysql' }), 'spec.engine is immutable'],
    [
      'changing providerProfileRef',
      (s) => ({ ...s, providerProfileRef: { name: 'gcp' } }),
      'spec.providerProfileRef is immutable: an instance cannot move between providers',
    ],
  ])('rejects an update %s', async (_case, change, expected) => {
    const current = await client.get<DatabaseInstance>(
      DatabaseInstance.resourceType,
      'orders',
      namespace,
    );
    expect(
      await rejection(
        client.update(DatabaseInstance.resourceType, { ...current, spec: change(current.spec) }),
      ),
    ).toContain(expected);
  });

  it('refuses a name whose connection Secret would break the 253-character limit, unless the Secret is named', async () => {
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(62)}`; // 245
    expect(
      await rejection(client.create(DatabaseInstance.resourceType, instance(long, dbiSpec))),
    ).toContain(
      'metadata.name is longer than 242 characters: its connection Secret <name>-connection would exceed',
    );
    const named = await client.create<DatabaseInstance>(
      DatabaseInstance.resourceType,
      instance(long, { ...dbiSpec, writeConnectionSecretToRef: { name: 'orders-db' } }),
    );
    expect(named.metadata.name).toBe(long);
    const fits = 'e'.repeat(242);
    await client.create(DatabaseInstance.resourceType, instance(fits, dbiSpec));
  });

  it('accepts growing storage and other mutable changes', async () => {
    const current = await client.get<DatabaseInstance>(
      DatabaseInstance.resourceType,
      'orders',
      namespace,
    );
    const updated = await client.update<DatabaseInstance>(DatabaseInstance.resourceType, {
      ...current,
      spec: {
        ...current.spec,
        storageGiB: 50,
        size: 'large',
        highAvailability: true,
        deletionPolicy: 'Delete',
      },
    });
    expect(updated.spec).toMatchObject({ storageGiB: 50, size: 'large', highAvailability: true });
  });

  it('rejects changing a profile’s provider', async () => {
    const current = await client.get<ProviderProfile>(ProviderProfile.resourceType, 'aws');
    const spec: ProviderProfileSpec = {
      ...current.spec,
      provider: 'gcp',
      aws: undefined,
      gcp: gcpSpec.gcp,
    };
    expect(
      await rejection(client.update(ProviderProfile.resourceType, { ...current, spec })),
    ).toContain('spec.provider is immutable: create a new ProviderProfile instead');
  });

  it('takes the status the controllers write through the status subresource', async () => {
    const current = await client.get<DatabaseInstance>(
      DatabaseInstance.resourceType,
      'orders',
      namespace,
    );
    const updated = await client.updateStatus<DatabaseInstance>(DatabaseInstance.resourceType, {
      ...current,
      status: {
        observedGeneration: current.metadata.generation,
        externalName: 'dbi-orders-1a2b3c',
        providerState: 'available',
        endpoint: { host: 'orders.example.internal', port: 5432 },
        atProvider: {
          status: 'available',
          instanceClass: 'db.t3.micro',
          engineVersion: '16.4',
          storageGiB: 50,
        },
        conditions: [
          {
            type: 'Synced',
            status: 'True',
            reason: 'ReconcileSuccess',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    expect(updated.status).toMatchObject({ providerState: 'available', endpoint: { port: 5432 } });
    expect(
      await rejection(
        client.updateStatus(DatabaseInstance.resourceType, {
          ...updated,
          status: { ...updated.status, providerState: 'exploded' },
        }),
      ),
    ).toContain('Unsupported value: "exploded"');

    const profileNow = await client.get<ProviderProfile>(ProviderProfile.resourceType, 'aws');
    const withUsage = await client.updateStatus<ProviderProfile>(ProviderProfile.resourceType, {
      ...profileNow,
      status: { usedBy: 1, observedGeneration: profileNow.metadata.generation },
    });
    expect(withUsage.status?.usedBy).toBe(1);
  });
});
