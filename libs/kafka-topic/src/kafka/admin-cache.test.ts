import { NotFoundError, type KubeClient, type KubeObject } from '@steward/kube';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type Admin, type Kafka, type KafkaConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaAdminCache } from './admin-cache.js';

/** A fake kafkajs: counts clients, connects and disconnects; `fail` makes connects fail. */
function fakeKafka() {
  const state = {
    configs: [] as KafkaConfig[],
    connects: 0,
    disconnects: 0,
    fail: undefined as Error | undefined,
    gate: undefined as Promise<void> | undefined,
  };
  const kafkaFor = (config: KafkaConfig): Kafka => {
    state.configs.push(config);
    return {
      admin: () =>
        ({
          connect: async () => {
            state.connects++;
            await state.gate;
            if (state.fail) throw state.fail;
          },
          disconnect: async () => void state.disconnects++,
          fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
            topics: topics.map((name) => ({ name, partitions: [] })),
          }),
        }) as unknown as Admin,
    } as Kafka;
  };
  return { state, kafkaFor };
}

/** A KubeClient that serves Secrets from a map (`namespace/name` → Secret). */
function fakeClient(secrets: Map<string, KubeObject & { data?: Record<string, string> }>) {
  let gets = 0;
  const client = {
    get: async (_rt: unknown, name: string, namespace: string) => {
      gets++;
      const secret = secrets.get(`${namespace}/${name}`);
      if (!secret) throw new NotFoundError({ message: 'not found' } as never);
      return secret;
    },
  } as unknown as KubeClient;
  return { client, gets: () => gets };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (rv: string, password = 'pw-123456') => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'admin', namespace: 'kafka', resourceVersion: rv },
  data: { username: b64('steward'), password: b64(password) },
});
const profile = (servers = ['k:9092'], uid = 'uid-1'): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'events', uid },
    spec: {
      provider: 'kafka',
      namespaceSelector: {},
      kafka: {
        bootstrapServers: servers,
        sasl: { mechanism: 'plain', secretRef: { namespace: 'kafka', name: 'admin' } },
        // A unit test's broker: no TLS here (PlaintextSasl is connection.test.ts's).
        allowPlaintextSasl: true,
      },
    },
  }) as ProviderProfile;

function setup() {
  const secrets = new Map([['kafka/admin', secret('1')]]);
  const kube = fakeClient(secrets);
  const kafka = fakeKafka();
  const clock = { now: 0 };
  const cache = new KafkaAdminCache({
    client: kube.client,
    kafkaFor: kafka.kafkaFor,
    secretsMaxAgeMs: 30_000,
    now: () => clock.now,
  });
  return { secrets, kube, kafka, cache, clock };
}

describe('KafkaAdminCache', () => {
  it('connects once per profile and lends the same client to every reconcile', async () => {
    const { kafka, cache } = setup();
    const a = await cache.acquire(profile());
    a.release();
    const b = await cache.acquire(profile());
    expect(b.admin).toBe(a.admin);
    b.release();
    expect(kafka.state.connects).toBe(1);
    expect(kafka.state.disconnects).toBe(0);
    expect(cache.size).toBe(1);
    expect(kafka.state.configs[0]).toMatchObject({
      brokers: ['k:9092'],
      sasl: { mechanism: 'plain', username: 'steward', password: 'pw-123456' },
    });
  });

  it('shares one connect between concurrent reconciles', async () => {
    const { kafka, cache } = setup();
    let open!: () => void;
    kafka.state.gate = new Promise((resolve) => (open = resolve));
    const both = Promise.all([cache.acquire(profile()), cache.acquire(profile())]);
    await new Promise((r) => setTimeout(r, 10));
    open();
    const [a, b] = await both;
    expect(a.admin).toBe(b.admin);
    expect(kafka.state.connects).toBe(1);
  });

  it('reads the Secrets again only once the client is secretsMaxAgeMs old', async () => {
    const { kube, clock, cache } = setup();
    (await cache.acquire(profile())).release();
    clock.now = 29_999;
    (await cache.acquire(profile())).release();
    expect(kube.gets()).toBe(1);
    clock.now = 30_000;
    (await cache.acquire(profile())).release();
    expect(kube.gets()).toBe(2);
  });

  it('connects afresh when the Secret changes (a rotated password), disconnecting the old client once released', async () => {
    const { secrets, kafka, cache, clock } = setup();
    const first = await cache.acquire(profile());
    secrets.set('kafka/admin', secret('2', 'rotated-pw-1'));
    clock.now = 30_000;
    const second = await cache.acquire(profile());
    expect(second.admin).not.toBe(first.admin);
    expect(kafka.state.disconnects).toBe(0); // the first is still lent out
    first.release();
    expect(kafka.state.disconnects).toBe(1);
    expect(kafka.state.configs[1]).toMatchObject({ sasl: { password: 'rotated-pw-1' } });
    second.release();
  });

  it('connects afresh when the profile’s brokers change, or the profile is recreated', async () => {
    const { kafka, cache } = setup();
    (await cache.acquire(profile())).release();
    (await cache.acquire(profile(['k2:9092']))).release();
    (await cache.acquire(profile(['k2:9092'], 'uid-2'))).release();
    expect(kafka.state.connects).toBe(3);
    expect(kafka.state.disconnects).toBe(2);
  });

  it('drops a client whose connect failed, so the next reconcile connects again', async () => {
    const { kafka, cache } = setup();
    kafka.state.fail = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
      name: 'KafkaJSConnectionError',
      code: 'ECONNREFUSED',
    });
    await expect(cache.acquire(profile())).rejects.toThrow(
      'the Kafka brokers of ProviderProfile events (k:9092) are unreachable: Connect failed',
    );
    expect(cache.size).toBe(0);
    kafka.state.fail = undefined;
    (await cache.acquire(profile())).release();
    expect(kafka.state.connects).toBe(2);
  });

  it('drops a client a reconcile found unusable', async () => {
    const { kafka, cache } = setup();
    const lease = await cache.acquire(profile());
    lease.context.onUnusable?.();
    expect(cache.size).toBe(0);
    lease.release();
    expect(kafka.state.disconnects).toBe(1);
    lease.release(); // idempotent
    expect(kafka.state.disconnects).toBe(1);
  });

  it('reports a missing Secret as CredentialsNotFound without connecting', async () => {
    const { secrets, kafka, cache } = setup();
    secrets.clear();
    await expect(cache.acquire(profile())).rejects.toMatchObject({
      reason: 'CredentialsNotFound',
      message:
        'Secret kafka/admin named by ProviderProfile events (spec.kafka.sasl.secretRef) does not exist',
    });
    expect(kafka.state.connects).toBe(0);
  });

  it('batches the topic calls of every borrower of a client, and counts requests once and calls per topic', async () => {
    const { cache } = setup();
    const [a, b] = await Promise.all([cache.acquire(profile()), cache.acquire(profile())]);
    expect(a.topics).toBe(b.topics);
    await Promise.all([a.topics.metadata('x'), b.topics.metadata('y'), b.topics.metadata('z')]);
    a.release();
    b.release();
    expect(cache.counts()).toEqual({
      requests: { Connect: 1, Metadata: 1 },
      calls: { Metadata: 3 },
    });
  });

  it('sends every topic call alone with batching off', async () => {
    const secrets = new Map([['kafka/admin', secret('1')]]);
    const cache = new KafkaAdminCache({
      client: fakeClient(secrets).client,
      kafkaFor: fakeKafka().kafkaFor,
      batching: false,
    });
    const lease = await cache.acquire(profile());
    await Promise.all([lease.topics.metadata('x'), lease.topics.metadata('y')]);
    lease.release();
    expect(cache.counts().requests).toEqual({ Connect: 1, Metadata: 2 });
  });

  it('disconnects everything on close, and can be used again', async () => {
    const { kafka, cache } = setup();
    (await cache.acquire(profile())).release();
    await cache.close();
    expect(kafka.state.disconnects).toBe(1);
    expect(cache.size).toBe(0);
    (await cache.acquire(profile())).release();
    expect(kafka.state.connects).toBe(2);
  });
});
