import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { providerProfileController } from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import {
  eventually,
  freePort,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { startKafka, type Kafka } from '@steward/testing-backends';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kafkaCredentialsCheck, kafkaTopicController, kafkaTopicUsers } from '../src/index.js';

type Topic = KafkaTopic;
type Profile = ProviderProfile;
const Kind = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;
interface Secret extends KubeObject {
  stringData?: Record<string, string>;
}

const CREDS_NS = 'kafka-credentials';
const NS = 'apps';
const user = {
  mechanism: 'scram-sha-512',
  username: 'steward',
  password: 'steward-s3cret',
} as const;

let plane: ControlPlane;
let kafka: Kafka;
let admin: KubeClient;
const running: Manager[] = [];

const secret = (name: string, stringData: Record<string, string>) =>
  admin.create<Secret>(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: CREDS_NS },
    stringData,
  } as Secret);
const profile = (name: string, kafkaBlock: Record<string, unknown>) =>
  admin.create<Profile>(Profiles, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'kafka',
      namespaceSelector: {},
      kafka: { topicNamePolicy: 'Any', ...kafkaBlock },
    },
  } as Profile);
const ref = (name: string) => ({ namespace: CREDS_NS, name });

beforeAll(async () => {
  [plane, kafka] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts/kafka-topic-controller/crds')] }),
    startKafka({ sasl: user, tls: true }),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  for (const name of [CREDS_NS, NS]) {
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await secret('sasl', { username: user.username, password: user.password });
  await secret('sasl-wrong', { username: user.username, password: 'not-the-password' });
  await secret('sasl-incomplete', { username: user.username });
  await secret('ca', { 'ca.crt': kafka.caPem! });
  await secret('no-ca', {});
  // SASL over TLS (SASL_SSL), as a profile must unless it allows plaintext SASL.
  await profile('sasl', {
    bootstrapServers: kafka.saslTlsBootstrapServers,
    tls: { secretRef: ref('ca') },
    sasl: { mechanism: user.mechanism, secretRef: ref('sasl') },
  });
  await profile('sasl-plaintext-allowed', {
    bootstrapServers: kafka.saslBootstrapServers,
    sasl: { mechanism: user.mechanism, secretRef: ref('sasl') },
    allowPlaintextSasl: true,
  });
  await profile('tls', {
    bootstrapServers: kafka.tlsBootstrapServers,
    tls: { secretRef: ref('ca') },
  });
  await profile('sasl-wrong', {
    bootstrapServers: kafka.saslBootstrapServers,
    sasl: { mechanism: user.mechanism, secretRef: ref('sasl-wrong') },
    allowPlaintextSasl: true,
  });
  await profile('sasl-wrong-mechanism', {
    bootstrapServers: kafka.saslBootstrapServers,
    sasl: { mechanism: 'plain', secretRef: ref('sasl') },
    allowPlaintextSasl: true,
  });
  await profile('sasl-incomplete', {
    bootstrapServers: kafka.saslBootstrapServers,
    sasl: { mechanism: user.mechanism, secretRef: ref('sasl-incomplete') },
    allowPlaintextSasl: true,
  });
  await profile('tls-untrusted', {
    bootstrapServers: kafka.tlsBootstrapServers,
    tls: { secretRef: ref('no-ca') },
  });
  await profile('tls-missing-secret', {
    bootstrapServers: kafka.tlsBootstrapServers,
    tls: { secretRef: ref('absent') },
  });
  await profile('nowhere', { bootstrapServers: [`127.0.0.1:${await freePort()}`] });
});
afterEach(async () => {
  for (const manager of running.splice(0)) await manager.stop();
});
afterAll(async () => {
  await admin?.close();
  await Promise.all([plane?.stop(), kafka?.[Symbol.asyncDispose]()]);
});

describe('kafkaCredentialsCheck against a broker with SASL (SCRAM-SHA-512) and TLS listeners', () => {
  const check = () => kafkaCredentialsCheck(admin, { clientOptions: { retries: 1 } });
  const run = async (name: string) =>
    check()(await admin.get<Profile>(Profiles, name), new AbortController().signal);

  it.each(['sasl', 'sasl-plaintext-allowed', 'tls'])(
    'verifies the %s profile with one DescribeCluster',
    async (name) => {
      const result = await run(name);
      expect(result).toMatchObject({ ok: true });
      expect(result.ok && result.message).toContain(`cluster ${kafka.clusterId}, 1 broker`);
    },
  );

  it.each<[string, string, boolean | undefined, string]>([
    [
      'sasl-wrong',
      'CredentialsInvalid',
      false,
      'refused the connection with the credentials in Secret kafka-credentials/sasl-wrong',
    ],
    ['sasl-wrong-mechanism', 'CredentialsInvalid', false, 'UNSUPPORTED_SASL_MECHANISM'],
    ['tls-untrusted', 'CredentialsInvalid', false, 'unable to verify the first certificate'],
    [
      'sasl-incomplete',
      'CredentialsNotFound',
      undefined,
      'Secret kafka-credentials/sasl-incomplete named by ProviderProfile sasl-incomplete has no key password',
    ],
    [
      'tls-missing-secret',
      'CredentialsNotFound',
      undefined,
      'Secret kafka-credentials/absent named by ProviderProfile tls-missing-secret (spec.kafka.tls.secretRef) does not exist',
    ],
    ['nowhere', 'ProviderUnreachable', true, 'ECONNREFUSED'],
  ])('reports %s as %s', async (name, reason, transient, message) => {
    const result = await run(name);
    expect(result).toMatchObject({ ok: false, reason });
    if (result.ok) return;
    expect(result.transient).toBe(transient);
    expect(result.message).toContain(message);
    expect(result.message).not.toContain(user.password);
  });
});

describe('kafkaTopicController over SASL and TLS, with the ProviderProfile controller', () => {
  function run(): void {
    const manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'kafka-topic-controller' });
    kafkaTopicController(manager, {
      selection: { namespace: NS },
      pollIntervalMs: 500,
      busyPollIntervalMs: 200,
      kafkaClientOptions: { retries: 1 },
    });
    providerProfileController(manager, {
      providers: ['kafka'],
      checkCredentials: kafkaCredentialsCheck(manager.client, { clientOptions: { retries: 1 } }),
      users: [kafkaTopicUsers],
      recheckIntervalMs: 1_000,
    });
    manager.start().catch(() => undefined);
    running.push(manager);
  }
  const create = (name: string, profileName: string) =>
    admin.create<Topic>(Kind, {
      apiVersion: KafkaTopic.apiVersion,
      kind: 'KafkaTopic',
      metadata: { name, namespace: NS },
      spec: { providerProfileRef: { name: profileName }, partitions: 2 },
    } as Topic);
  const condition = async (name: string, type = 'Ready') =>
    findCondition((await admin.get<Topic>(Kind, name, NS)).status?.conditions, type);
  const reason = (name: string, expected: string) =>
    eventually(async () => (await condition(name))?.reason === expected, {
      description: `${name} Ready reason ${expected}`,
      timeoutMs: 60_000,
    });
  const topicExists = async (name: string) => {
    const a = await kafka.admin();
    return (await a.listTopics()).includes(name);
  };

  it('creates topics through SASL and TLS profiles, and counts them as profile users', async () => {
    run();
    await create('over-sasl', 'sasl');
    await create('over-tls', 'tls');
    await reason('over-sasl', 'Available');
    await reason('over-tls', 'Available');
    expect(await topicExists('over-sasl')).toBe(true);
    expect(await topicExists('over-tls')).toBe(true);
    await eventually(
      async () => {
        const p = await admin.get<Profile>(Profiles, 'sasl');
        return (
          p.status?.usedBy === 1 &&
          findCondition(p.status.conditions, 'Ready')?.reason === 'CredentialsVerified'
        );
      },
      { description: 'the sasl profile verified and used by 1' },
    );
  });

  it('stops a topic whose profile’s credentials are refused with CredentialsInvalid, and resumes once the Secret is fixed', async () => {
    run();
    await create('locked-out', 'sasl-wrong');
    await reason('locked-out', 'CredentialsInvalid');
    const ready = await condition('locked-out');
    expect(ready?.message).toContain(
      'refused the SASL credentials in Secret kafka-credentials/sasl-wrong',
    );
    expect(ready?.message).not.toContain('not-the-password');
    expect((await condition('locked-out', 'Stalled'))?.status).toBe('True');
    expect(await topicExists('locked-out')).toBe(false);
    await eventually(
      async () =>
        findCondition(
          (await admin.get<Profile>(Profiles, 'sasl-wrong')).status?.conditions,
          'Ready',
        )?.reason === 'CredentialsInvalid',
      { description: 'the profile reports CredentialsInvalid too' },
    );

    // The platform team fixes the password: the profile's next check turns Ready, which
    // reconciles the topics that reference it; the cached client of the old Secret is replaced.
    await admin.mergePatch(Secrets, 'sasl-wrong', CREDS_NS, {
      stringData: { password: user.password },
    });
    await reason('locked-out', 'Available');
    expect(await topicExists('locked-out')).toBe(true);
  });

  it('waits with ProviderProfileNotFound and WrongProvider before any call', async () => {
    run();
    await create('orphan', 'no-such-profile');
    await reason('orphan', 'ProviderProfileNotFound');
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: 'cloud' },
      spec: {
        provider: 'aws',
        namespaceSelector: {},
        aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: CREDS_NS, name: 'aws' } },
      },
    } as Profile);
    await create('misdirected', 'cloud');
    await reason('misdirected', 'WrongProvider');
    expect((await condition('misdirected'))?.message).toBe(
      'ProviderProfile cloud is for aws; a KafkaTopic needs a kafka profile',
    );
  });
});
