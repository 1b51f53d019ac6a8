import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  isKafkaUnreachable,
  KafkaError,
  KafkaUnreachableError,
  kafkaCall,
  kafkaErrorKind,
  mapKafkaError,
} from './errors.js';

/** kafkajs' error classes take more arguments than its typings declare. */
const construct = (C: unknown, ...args: unknown[]): Error =>
  new (C as new (...a: unknown[]) => Error)(...args);

/** A protocol error as kafkajs' `createErrorFromCode` makes it. */
const protocol = (type: string, retriable = false) =>
  new kafkajs.KafkaJSProtocolError({
    type,
    code: 0,
    retriable,
    message: `broker says ${type}`,
  } as unknown as Error);
/** What kafkajs' retrier throws around a non-retriable error. */
const nonRetriable = (e: Error) => construct(kafkajs.KafkaJSNonRetriableError, e, { cause: e });
/** What kafkajs' retrier throws once retries are exhausted. */
const retriesExceeded = (e: Error) =>
  new kafkajs.KafkaJSNumberOfRetriesExceeded(e, { retryCount: 2, retryTime: 800 });
/** What CreateTopics throws for per-topic errors. */
const aggregate = (...errors: Error[]) =>
  new kafkajs.KafkaJSAggregateError('Topic creation errors', errors);
const connection = (message: string, code?: string) =>
  new kafkajs.KafkaJSConnectionError(message, {
    broker: '127.0.0.1:1',
    ...(code ? { code } : {}),
  } as never);

describe('kafkaErrorKind', () => {
  it.each<[string, unknown, string]>([
    ['UNKNOWN_TOPIC_OR_PARTITION', protocol('UNKNOWN_TOPIC_OR_PARTITION', true), 'not-found'],
    [
      'UNKNOWN_TOPIC_OR_PARTITION after retries (DeleteTopics)',
      retriesExceeded(protocol('UNKNOWN_TOPIC_OR_PARTITION', true)),
      'not-found',
    ],
    [
      'INVALID_CONFIG in an aggregate (CreateTopics)',
      aggregate(protocol('INVALID_CONFIG')),
      'invalid-config',
    ],
    [
      'INVALID_CONFIG wrapped (AlterConfigs)',
      nonRetriable(protocol('INVALID_CONFIG')),
      'invalid-config',
    ],
    ['POLICY_VIOLATION', nonRetriable(protocol('POLICY_VIOLATION')), 'invalid-config'],
    ['TOPIC_ALREADY_EXISTS', aggregate(protocol('TOPIC_ALREADY_EXISTS')), 'already-exists'],
    [
      'INVALID_REPLICATION_FACTOR',
      aggregate(protocol('INVALID_REPLICATION_FACTOR')),
      'invalid-replication-factor',
    ],
    ['INVALID_TOPIC_EXCEPTION', aggregate(protocol('INVALID_TOPIC_EXCEPTION')), 'invalid-topic'],
    ['INVALID_PARTITIONS', nonRetriable(protocol('INVALID_PARTITIONS')), 'invalid-partitions'],
    [
      'TOPIC_DELETION_DISABLED',
      nonRetriable(protocol('TOPIC_DELETION_DISABLED')),
      'deletion-disabled',
    ],
    [
      'LEADER_NOT_AVAILABLE after retries',
      retriesExceeded(protocol('LEADER_NOT_AVAILABLE', true)),
      'leader-not-available',
    ],
    [
      'TOPIC_AUTHORIZATION_FAILED',
      nonRetriable(protocol('TOPIC_AUTHORIZATION_FAILED')),
      'forbidden',
    ],
    ['CLUSTER_AUTHORIZATION_FAILED', protocol('CLUSTER_AUTHORIZATION_FAILED'), 'forbidden'],
    [
      'a SASL failure wrapped by the retrier',
      nonRetriable(
        construct(
          kafkajs.KafkaJSSASLAuthenticationError,
          'SASL SCRAM SHA512 authentication failed',
        ),
      ),
      'authentication',
    ],
    ['SASL_AUTHENTICATION_FAILED', protocol('SASL_AUTHENTICATION_FAILED'), 'authentication'],
    [
      'an untrusted certificate',
      retriesExceeded(
        connection('Connection error: self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'),
      ),
      'tls',
    ],
    [
      'a key that does not load',
      connection('Failed to connect: error:1E08010C:DECODER routines::unsupported'),
      'tls',
    ],
    [
      'a refused connection',
      connection('Connection error: connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'),
      'unreachable',
    ],
    [
      'retries exhausted on a refused connection',
      retriesExceeded(connection('Connection error', 'ECONNREFUSED')),
      'unreachable',
    ],
    ['a connection timeout', connection('Connection timeout'), 'unreachable'],
    [
      'a request timeout',
      new kafkajs.KafkaJSRequestTimeoutError('Request Metadata(key: 3, version: 6) timed out'),
      'unreachable',
    ],
    ['REQUEST_TIMED_OUT', protocol('REQUEST_TIMED_OUT', true), 'unreachable'],
    [
      'retries exhausted on NOT_CONTROLLER',
      retriesExceeded(protocol('NOT_CONTROLLER', true)),
      'unreachable',
    ],
    ['something else', new Error('boom'), 'other'],
    ['an unknown protocol error', protocol('THROTTLING_QUOTA_EXCEEDED', true), 'other'],
  ])('%s → %s', (_case, error, kind) => {
    expect(kafkaErrorKind(error)).toBe(kind);
  });
});

describe('mapKafkaError', () => {
  const context = {
    where: 'ProviderProfile events (127.0.0.1:9092)',
    saslSecret: 'kafka/admin',
    tlsSecret: 'kafka/ca',
  };

  it('makes an unreachable broker a retried error that says so', () => {
    const error = mapKafkaError(
      'Metadata',
      context,
      connection('Connection error: connect ECONNREFUSED', 'ECONNREFUSED'),
    );
    expect(error).toBeInstanceOf(KafkaUnreachableError);
    expect(isKafkaUnreachable(new Error('outer', { cause: error }))).toBe(true);
    expect(isKafkaUnreachable(new Error('other'))).toBe(false);
    expect(error.message).toBe(
      'the Kafka brokers of ProviderProfile events (127.0.0.1:9092) are unreachable: Metadata failed: Connection error: connect ECONNREFUSED',
    );
  });

  it('makes refused credentials CredentialsInvalid, naming the Secret', () => {
    const error = mapKafkaError(
      'Connect',
      context,
      construct(kafkajs.KafkaJSSASLAuthenticationError, 'SASL PLAIN authentication failed'),
    );
    expect(error).toMatchObject({ name: 'TerminalError', reason: 'CredentialsInvalid' });
    expect(error.message).toContain('refused the SASL credentials in Secret kafka/admin');
  });

  it('makes a missing ACL Forbidden', () => {
    expect(
      mapKafkaError('CreateTopics', context, aggregate(protocol('TOPIC_AUTHORIZATION_FAILED'))),
    ).toMatchObject({
      reason: 'Forbidden',
    });
  });

  it('hands the caller the kinds it decides on', () => {
    const error = mapKafkaError('CreateTopics', context, aggregate(protocol('INVALID_CONFIG')));
    expect(error).toBeInstanceOf(KafkaError);
    expect((error as KafkaError).kind).toBe('invalid-config');
    expect(error.message).toContain('(INVALID_CONFIG)');
  });
});

describe('kafkaCall', () => {
  it('counts each call by operation and result, and drops the connection when it is of no use', async () => {
    const counted: string[] = [];
    let dropped = 0;
    const context = {
      where: 'here',
      metrics: {
        request: (p: string, o: string, r: string) => void counted.push(`${p}/${o}/${r}`),
      },
      onUnusable: () => void dropped++,
    };
    await kafkaCall('Metadata', context, async () => 1);
    await expect(
      kafkaCall('Metadata', context, async () => Promise.reject(connection('x', 'ECONNREFUSED'))),
    ).rejects.toThrow('unreachable');
    await expect(
      kafkaCall('AlterConfigs', context, async () => Promise.reject(protocol('INVALID_CONFIG'))),
    ).rejects.toBeInstanceOf(KafkaError);
    expect(counted).toEqual([
      'kafka/Metadata/success',
      'kafka/Metadata/error',
      'kafka/AlterConfigs/error',
    ]);
    expect(dropped).toBe(1);
  });
});
