import { terminalCause } from '@steward/controller';
import { isForbidden, type KubeClient } from '@steward/kube';
import {
  ProviderProfileReasons as R,
  type CredentialsCheck,
  type CredentialsCheckResult,
} from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import kafkajs, { type Kafka, type KafkaConfig } from 'kafkajs';
import {
  kafkaClientConfig,
  kafkaConnectionFromProfile,
  readKafkaSecrets,
  type KafkaClientOptions,
} from '../kafka/connection.js';
import { kafkaCheckFailure } from './failures.js';

export interface KafkaCredentialsCheckOptions {
  /** Timeouts and retries of the check's client (default: 3 s to connect, 2 retries). */
  clientOptions?: KafkaClientOptions;
  /** Makes the kafkajs client (tests wrap it). Default `new Kafka(config)`. */
  kafkaFor?(config: KafkaConfig): Kafka;
}

const secretsOf = (profile: ProviderProfile): string => {
  const refs = [profile.spec.kafka?.tls?.secretRef, profile.spec.kafka?.sasl?.secretRef]
    .filter((r): r is { namespace: string; name: string } => Boolean(r))
    .map((r) => `${r.namespace}/${r.name}`);
  return refs.length ? `Secret ${refs.join(' and Secret ')}` : 'its Secrets';
};

/**
 * The `checkCredentials` of the ProviderProfile controller for `kafka` profiles: reads the TLS and
 * SASL Secrets as the KafkaTopic controller does (same keys, same validation), connects a fresh
 * admin client (TLS handshake, SASL authentication) and makes one read-only call,
 * DescribeCluster; then disconnects. A SASL or TLS refusal is `CredentialsInvalid`; no broker
 * answering is a transient `ProviderUnreachable` (see `kafkaCheckFailure`). Never mutates
 * anything; no Secret value reaches a message. Any other provider is `InvalidProviderProfile`.
 */
export function kafkaCredentialsCheck(
  client: KubeClient,
  options: KafkaCredentialsCheckOptions = {},
): CredentialsCheck {
  const kafkaFor = options.kafkaFor ?? ((config: KafkaConfig) => new kafkajs.Kafka(config));
  return async (profile, signal): Promise<CredentialsCheckResult> => {
    const name = profile.metadata.name;
    if (profile.spec.provider !== 'kafka' || !profile.spec.kafka) {
      return {
        ok: false,
        reason: R.InvalidProviderProfile,
        message: `ProviderProfile ${name} is a ${profile.spec.provider} profile: KafkaTopic credentials checks support kafka profiles`,
      };
    }
    let config: KafkaConfig;
    let where: string;
    try {
      const connection = kafkaConnectionFromProfile(
        profile,
        await readKafkaSecrets(client, profile, signal),
      );
      where = connection.where;
      config = kafkaClientConfig(connection, options.clientOptions);
    } catch (error) {
      const terminal = terminalCause(error);
      if (terminal) return { ok: false, reason: terminal.reason, message: terminal.message };
      if (isForbidden(error)) {
        return {
          ok: false,
          reason: R.CredentialsNotFound,
          message: `the controller may not read ${secretsOf(profile)} named by ProviderProfile ${name}: grant its service account get on secrets in that namespace`,
        };
      }
      throw error;
    }
    signal.throwIfAborted();
    const admin = kafkaFor(config).admin({
      retry: { retries: options.clientOptions?.retries ?? 2 },
    });
    const onAbort = (): void => void admin.disconnect().catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      return {
        ok: true,
        message: `DescribeCluster at ${where} succeeded${profile.spec.kafka.sasl || profile.spec.kafka.tls ? ` with the credentials in ${secretsOf(profile)}` : ''}: cluster ${cluster.clusterId}, ${cluster.brokers.length} broker${cluster.brokers.length === 1 ? '' : 's'}`,
      };
    } catch (error) {
      signal.throwIfAborted();
      const failure = kafkaCheckFailure(error);
      const message =
        failure.reason === R.CredentialsInvalid
          ? `the Kafka brokers of ${where} refused the connection with the credentials in ${secretsOf(profile)}: ${failure.detail}; fix the Secret (ca.crt, tls.crt/tls.key, username/password) or spec.kafka.sasl.mechanism`
          : `DescribeCluster at ${where} did not succeed: ${failure.detail}; retrying`;
      return { ok: false, reason: failure.reason, message, transient: failure.transient };
    } finally {
      signal.removeEventListener('abort', onAbort);
      await admin.disconnect().catch(() => undefined);
    }
  };
}
