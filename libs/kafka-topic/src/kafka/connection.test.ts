import { isTerminalError } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaClientConfig, kafkaConnectionFromProfile, type KafkaSecrets } from './connection.js';

const profile = (kafka: Record<string, unknown>, provider = 'kafka'): ProviderProfile =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'events' },
    spec: { provider, [provider]: kafka },
  }) as unknown as ProviderProfile;

const tlsSecret = (data: Record<string, string>) => ({
  ref: 'kafka/tls',
  resourceVersion: '1',
  data,
});
const saslSecret = (data: Record<string, string>) => ({
  ref: 'kafka/admin',
  resourceVersion: '1',
  data,
});
const servers = ['k-0:9093', 'k-1:9093'];

function failure(p: ProviderProfile, secrets: KafkaSecrets): { reason: string; message: string } {
  try {
    kafkaConnectionFromProfile(p, secrets);
  } catch (error) {
    if (isTerminalError(error)) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected a TerminalError');
}

describe('kafkaConnectionFromProfile', () => {
  it('connects in plain text to the bootstrap servers without TLS or SASL', () => {
    expect(kafkaConnectionFromProfile(profile({ bootstrapServers: servers }), {})).toEqual({
      brokers: servers,
      where: 'ProviderProfile events (k-0:9093, k-1:9093)',
    });
  });

  it('uses the CA and the client certificate of the TLS Secret, and SASL with the profile’s mechanism', () => {
    const connection = kafkaConnectionFromProfile(
      profile({
        bootstrapServers: servers,
        tls: { secretRef: { namespace: 'kafka', name: 'tls' } },
        sasl: { mechanism: 'scram-sha-512', secretRef: { namespace: 'kafka', name: 'admin' } },
      }),
      {
        tls: tlsSecret({ 'ca.crt': 'CA', 'tls.crt': 'CERT', 'tls.key': 'KEY' }),
        sasl: saslSecret({ username: 'steward', password: 's3cret-pa55' }),
      },
    );
    expect(connection).toMatchObject({
      ssl: { ca: ['CA'], cert: 'CERT', key: 'KEY' },
      sasl: { mechanism: 'scram-sha-512', username: 'steward', password: 's3cret-pa55' },
      tlsSecret: 'kafka/tls',
      saslSecret: 'kafka/admin',
    });
  });

  it('trusts Node’s CAs when the TLS Secret has no ca.crt', () => {
    const connection = kafkaConnectionFromProfile(
      profile({
        bootstrapServers: servers,
        tls: { secretRef: { namespace: 'kafka', name: 'tls' } },
      }),
      { tls: tlsSecret({}) },
    );
    expect(connection.ssl).toEqual({});
  });

  it.each<[string, Record<string, unknown>, KafkaSecrets, string]>([
    [
      'a client certificate without its key',
      { tls: { secretRef: { namespace: 'kafka', name: 'tls' } } },
      { tls: tlsSecret({ 'tls.crt': 'CERT' }) },
      'Secret kafka/tls named by ProviderProfile events has no key tls.key (tls.crt is set)',
    ],
    [
      'no SASL username',
      {
        sasl: { mechanism: 'plain', secretRef: { namespace: 'kafka', name: 'admin' } },
        allowPlaintextSasl: true,
      },
      { sasl: saslSecret({ password: 'x' }) },
      'Secret kafka/admin named by ProviderProfile events has no key username',
    ],
    [
      'no SASL password',
      {
        sasl: { mechanism: 'plain', secretRef: { namespace: 'kafka', name: 'admin' } },
        allowPlaintextSasl: true,
      },
      { sasl: saslSecret({ username: 'x' }) },
      'Secret kafka/admin named by ProviderProfile events has no key password',
    ],
  ])('reports %s as CredentialsNotFound', (_case, block, secrets, message) => {
    expect(failure(profile({ bootstrapServers: servers, ...block }), secrets)).toEqual({
      reason: 'CredentialsNotFound',
      message,
    });
  });

  it('refuses SASL without TLS (the password in clear) as PlaintextSasl, unless the profile allows it', () => {
    const sasl = { mechanism: 'scram-sha-512', secretRef: { namespace: 'kafka', name: 'admin' } };
    const secrets = { sasl: saslSecret({ username: 'steward', password: 's3cret-pa55' }) };
    const refused = failure(profile({ bootstrapServers: servers, sasl }), secrets);
    expect(refused).toEqual({
      reason: 'PlaintextSasl',
      message:
        'ProviderProfile events authenticates with SASL scram-sha-512 without TLS: the password would cross the network in clear. Add spec.kafka.tls (a Secret with ca.crt), or set spec.kafka.allowPlaintextSasl: true to accept that',
    });
    expect(refused.message).not.toContain('s3cret');
    expect(
      failure(profile({ bootstrapServers: servers, sasl, allowPlaintextSasl: false }), secrets)
        .reason,
    ).toBe('PlaintextSasl');
  });

  it('connects with SASL over plaintext when the profile sets allowPlaintextSasl: true', () => {
    const connection = kafkaConnectionFromProfile(
      profile({
        bootstrapServers: servers,
        sasl: { mechanism: 'plain', secretRef: { namespace: 'kafka', name: 'admin' } },
        allowPlaintextSasl: true,
      }),
      { sasl: saslSecret({ username: 'steward', password: 'p' }) },
    );
    expect(connection.sasl).toEqual({ mechanism: 'plain', username: 'steward', password: 'p' });
    expect(connection.ssl).toBeUndefined();
  });

  it('refuses a profile that is not a kafka profile', () => {
    expect(failure(profile({ region: 'x' }, 'aws'), {}).reason).toBe('InvalidProviderProfile');
  });
});

describe('kafkaClientConfig', () => {
  it('keeps kafkajs’ retries small and its logs nowhere by default', () => {
    const config = kafkaClientConfig({ brokers: servers, where: 'x' });
    expect(config).toMatchObject({
      brokers: servers,
      retry: { retries: 2 },
      logLevel: kafkajs.logLevel.NOTHING,
      connectionTimeout: 3000,
      requestTimeout: 10000,
    });
  });

  it('routes kafkajs’ warnings and errors to the logger at debug level', () => {
    const lines: unknown[][] = [];
    const logger = { debug: (...args: unknown[]) => void lines.push(args) };
    const config = kafkaClientConfig(
      { brokers: servers, where: 'x' },
      { logger: logger as never, retries: 0 },
    );
    expect(config.logLevel).toBe(kafkajs.logLevel.WARN);
    config.logCreator!(kafkajs.logLevel.WARN)({
      namespace: 'Connection',
      level: kafkajs.logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: 't', message: 'Connection error', broker: 'k-0:9093' },
    });
    expect(lines).toEqual([
      [
        { kafkajs: { level: 'error', namespace: 'Connection', broker: 'k-0:9093' } },
        'Connection error',
      ],
    ]);
    expect(config.retry).toMatchObject({ retries: 0 });
  });
});
