import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaCheckFailure } from './failures.js';

/** kafkajs' error classes take more arguments than its typings declare. */
const construct = (C: unknown, ...args: unknown[]): Error =>
  new (C as new (...a: unknown[]) => Error)(...args);

describe('kafkaCheckFailure', () => {
  it.each<[string, Error, string, boolean]>([
    [
      'a SASL refusal',
      construct(
        kafkajs.KafkaJSSASLAuthenticationError,
        'SASL SCRAM SHA512 authentication failed, invalid credentials',
      ),
      'CredentialsInvalid',
      false,
    ],
    [
      'an untrusted certificate',
      new kafkajs.KafkaJSConnectionError(
        'Connection error: self-signed certificate in certificate chain',
        { code: 'SELF_SIGNED_CERT_IN_CHAIN' } as never,
      ),
      'CredentialsInvalid',
      false,
    ],
    [
      'a refused connection',
      new kafkajs.KafkaJSNumberOfRetriesExceeded(
        new kafkajs.KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1', {
          code: 'ECONNREFUSED',
        } as never),
        { retryCount: 2, retryTime: 800 },
      ),
      'ProviderUnreachable',
      true,
    ],
    [
      'a timeout',
      new kafkajs.KafkaJSConnectionError('Connection timeout'),
      'ProviderUnreachable',
      true,
    ],
    ['anything else', new Error('odd'), 'CredentialsCheckFailed', true],
  ])('%s → %s', (_case, error, reason, transient) => {
    expect(kafkaCheckFailure(error)).toMatchObject({
      reason,
      transient,
      detail: expect.any(String),
    });
  });
});
