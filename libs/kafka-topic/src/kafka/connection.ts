import { TerminalError } from '@steward/controller';
import { NotFoundError, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type Logger } from '@steward/telemetry';
import kafkajs, { type KafkaConfig, type logCreator, type SASLOptions } from 'kafkajs';
import { KafkaTopicReasons } from '../reasons.js';

/** The keys read from a profile's Secrets (the `kubernetes.io/tls` and basic-auth spellings). */
export const KafkaSecretKeys = {
  /** In `spec.kafka.tls.secretRef`: the CA bundle the brokers' certificates chain to (optional: without it, Node's CAs). */
  ca: 'ca.crt',
  /** In `spec.kafka.tls.secretRef`, both or neither: the client certificate and key for mutual TLS. */
  cert: 'tls.crt',
  key: 'tls.key',
  /** In `spec.kafka.sasl.secretRef`. */
  username: 'username',
  password: 'password',
} as const;

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

/** One Secret a profile names, decoded. */
export interface ReadSecret {
  /** `namespace/name`, for messages. */
  ref: string;
  data: Record<string, string>;
  resourceVersion: string;
}

/** The Secrets of a kafka profile. */
export interface KafkaSecrets {
  tls?: ReadSecret;
  sasl?: ReadSecret;
}

/** The `spec.kafka` block of a kafka profile, or `TerminalError('InvalidProviderProfile')`. */
export function kafkaBlock(
  profile: ProviderProfile,
): NonNullable<ProviderProfile['spec']['kafka']> {
  const kafka = profile.spec.kafka;
  if (profile.spec.provider !== 'kafka' || !kafka) {
    throw new TerminalError(
      KafkaTopicReasons.InvalidProviderProfile,
      `ProviderProfile ${profile.metadata.name} has no spec.kafka block`,
    );
  }
  return kafka;
}

/**
 * Reads the TLS and SASL Secrets a kafka profile names (each one GET). A missing Secret is
 * `TerminalError('CredentialsNotFound')` naming it and the field; a Secret the controller may not
 * read is rethrown as it is (the caller decides). Values are decoded and never logged.
 */
export async function readKafkaSecrets(
  client: KubeClient,
  profile: ProviderProfile,
  signal?: AbortSignal,
): Promise<KafkaSecrets> {
  const kafka = kafkaBlock(profile);
  const read = async (
    ref: { namespace: string; name: string },
    field: string,
  ): Promise<ReadSecret> => {
    const where = `${ref.namespace}/${ref.name}`;
    const secret = await client
      .get<Secret>(Secrets, ref.name, ref.namespace, signal ? { signal } : {})
      .catch((e: unknown) => {
        if (e instanceof NotFoundError) {
          throw new TerminalError(
            KafkaTopicReasons.CredentialsNotFound,
            `Secret ${where} named by ProviderProfile ${profile.metadata.name} (${field}) does not exist`,
          );
        }
        throw e;
      });
    return {
      ref: where,
      resourceVersion: secret.metadata.resourceVersion ?? '',
      data: Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v, 'base64').toString('utf8'),
        ]),
      ),
    };
  };
  const [tls, sasl] = await Promise.all([
    kafka.tls ? read(kafka.tls.secretRef, 'spec.kafka.tls.secretRef') : undefined,
    kafka.sasl ? read(kafka.sasl.secretRef, 'spec.kafka.sasl.secretRef') : undefined,
  ]);
  return { ...(tls ? { tls } : {}), ...(sasl ? { sasl } : {}) };
}

/** How to reach one kafka profile's brokers. Holds credentials: never log it. */
export interface KafkaConnection {
  brokers: string[];
  ssl?: { ca?: string[]; cert?: string; key?: string };
  sasl?: SASLOptions;
  /** `ProviderProfile <name> (<brokers>)`, for messages. */
  where: string;
  tlsSecret?: string;
  saslSecret?: string;
}

function missingKey(profile: ProviderProfile, secret: ReadSecret, key: string): TerminalError {
  return new TerminalError(
    KafkaTopicReasons.CredentialsNotFound,
    `Secret ${secret.ref} named by ProviderProfile ${profile.metadata.name} has no key ${key}`,
  );
}

/**
 * The connection of a kafka profile, from its spec and its Secrets' data (pure). TLS: `ca.crt`
 * (optional), `tls.crt` and `tls.key` (both or neither); SASL: `username` and `password` with the
 * profile's mechanism. A missing key is `TerminalError('CredentialsNotFound')` naming it; SASL
 * without TLS is `TerminalError('PlaintextSasl')` unless the profile sets `allowPlaintextSasl`
 * (a profile stored before admission refused it).
 */
export function kafkaConnectionFromProfile(
  profile: ProviderProfile,
  secrets: KafkaSecrets,
): KafkaConnection {
  const kafka = kafkaBlock(profile);
  if (kafka.sasl && !kafka.tls && kafka.allowPlaintextSasl !== true)
    throw new TerminalError(
      KafkaTopicReasons.PlaintextSasl,
      `ProviderProfile ${profile.metadata.name} authenticates with SASL ${kafka.sasl.mechanism} without TLS: the password would cross the network in clear. Add spec.kafka.tls (a Secret with ca.crt), or set spec.kafka.allowPlaintextSasl: true to accept that`,
    );
  const K = KafkaSecretKeys;
  const connection: KafkaConnection = {
    brokers: [...kafka.bootstrapServers],
    where: `ProviderProfile ${profile.metadata.name} (${kafka.bootstrapServers.join(', ')})`,
  };
  if (kafka.tls) {
    const secret = secrets.tls;
    if (!secret) throw new Error('steward: the TLS Secret of a kafka profile was not read');
    const ca = secret.data[K.ca];
    const cert = secret.data[K.cert];
    const key = secret.data[K.key];
    if (cert && !key) throw missingKey(profile, secret, `${K.key} (${K.cert} is set)`);
    if (key && !cert) throw missingKey(profile, secret, `${K.cert} (${K.key} is set)`);
    connection.ssl = { ...(ca ? { ca: [ca] } : {}), ...(cert && key ? { cert, key } : {}) };
    connection.tlsSecret = secret.ref;
  }
  if (kafka.sasl) {
    const secret = secrets.sasl;
    if (!secret) throw new Error('steward: the SASL Secret of a kafka profile was not read');
    const username = secret.data[K.username];
    const password = secret.data[K.password];
    if (!username) throw missingKey(profile, secret, K.username);
    if (!password) throw missingKey(profile, secret, K.password);
    connection.sasl = { mechanism: kafka.sasl.mechanism, username, password } as SASLOptions;
    connection.saslSecret = secret.ref;
  }
  return connection;
}

/** How kafkajs clients are made: timeouts, retries, logs. */
export interface KafkaClientOptions {
  /** Default `steward-kafka-topic-controller`. */
  clientId?: string;
  /** Default 3000 ms. */
  connectionTimeout?: number;
  /** Default 10000 ms. */
  requestTimeout?: number;
  /**
   * kafkajs' own retries of a failed request (default 2, 200 ms doubling to 2 s): the controller's
   * backoff does the rest, so an unreachable broker fails a reconcile within seconds.
   */
  retries?: number;
  /**
   * Where kafkajs' warnings and errors go, at debug level (every failure that matters reaches the
   * object's conditions and the controller's own log). Default: nowhere.
   */
  logger?: Logger;
}

/** The kafkajs configuration for a connection. */
export function kafkaClientConfig(
  connection: KafkaConnection,
  options: KafkaClientOptions = {},
): KafkaConfig {
  const logger = options.logger;
  const { logLevel } = kafkajs;
  return {
    clientId: options.clientId ?? 'steward-kafka-topic-controller',
    brokers: connection.brokers,
    ...(connection.ssl ? { ssl: connection.ssl } : {}),
    ...(connection.sasl ? { sasl: connection.sasl } : {}),
    connectionTimeout: options.connectionTimeout ?? 3_000,
    requestTimeout: options.requestTimeout ?? 10_000,
    retry: {
      retries: options.retries ?? 2,
      initialRetryTime: 200,
      maxRetryTime: 2_000,
    },
    logLevel: logger ? logLevel.WARN : logLevel.NOTHING,
    logCreator: logger ? kafkajsLogCreator(logger) : () => () => undefined,
  };
}

/** kafkajs log entries → `logger.debug`, with kafkajs' level and namespace as fields. */
function kafkajsLogCreator(logger: Logger): logCreator {
  const names: Record<number, string> = { 1: 'error', 2: 'warn', 4: 'info', 5: 'debug' };
  return () =>
    ({ namespace, level, log }) => {
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { message, timestamp, ...fields } = log;
      logger.debug({ kafkajs: { level: names[level] ?? level, namespace, ...fields } }, message);
    };
}
