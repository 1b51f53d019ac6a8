import { TerminalError } from '@steward/controller';
import { externalCall, type ExternalMetrics } from '@steward/telemetry';
import { KafkaTopicReasons } from '../reasons.js';

/** What a kafkajs error means to Steward, decided by the protocol error types and error names in it. */
export type KafkaErrorKind =
  /** UNKNOWN_TOPIC_OR_PARTITION: the topic does not exist. */
  | 'not-found'
  /** TOPIC_ALREADY_EXISTS. */
  | 'already-exists'
  /** LEADER_NOT_AVAILABLE: the topic exists, some partition has no leader (yet). */
  | 'leader-not-available'
  /** INVALID_CONFIG, POLICY_VIOLATION: the brokers refused a config (or a create policy refused the topic). */
  | 'invalid-config'
  /** INVALID_TOPIC_EXCEPTION: an illegal name, or one that collides with an existing topic's (`.` vs `_`). */
  | 'invalid-topic'
  /** INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT. */
  | 'invalid-replication-factor'
  /** INVALID_PARTITIONS. */
  | 'invalid-partitions'
  /** TOPIC_DELETION_DISABLED: the cluster has `delete.topic.enable=false`. */
  | 'deletion-disabled'
  /** SASL authentication failed: wrong username/password or mechanism. */
  | 'authentication'
  /** TLS failed: an untrusted or invalid certificate, a key that does not load. */
  | 'tls'
  /** TOPIC/CLUSTER_AUTHORIZATION_FAILED: the principal lacks an ACL. */
  | 'forbidden'
  /** No broker answered: refused or dropped connections, timeouts, retries exhausted on them. */
  | 'unreachable'
  /** Anything else: retried with backoff. */
  | 'other';

const byType: Record<string, KafkaErrorKind> = {
  UNKNOWN_TOPIC_OR_PARTITION: 'not-found',
  UNKNOWN_TOPIC_ID: 'not-found',
  TOPIC_ALREADY_EXISTS: 'already-exists',
  LEADER_NOT_AVAILABLE: 'leader-not-available',
  INVALID_CONFIG: 'invalid-config',
  POLICY_VIOLATION: 'invalid-config',
  INVALID_TOPIC_EXCEPTION: 'invalid-topic',
  INVALID_REPLICATION_FACTOR: 'invalid-replication-factor',
  INVALID_REPLICA_ASSIGNMENT: 'invalid-replication-factor',
  INVALID_PARTITIONS: 'invalid-partitions',
  TOPIC_DELETION_DISABLED: 'deletion-disabled',
  SASL_AUTHENTICATION_FAILED: 'authentication',
  ILLEGAL_SASL_STATE: 'authentication',
  UNSUPPORTED_SASL_MECHANISM: 'authentication',
  TOPIC_AUTHORIZATION_FAILED: 'forbidden',
  CLUSTER_AUTHORIZATION_FAILED: 'forbidden',
  REQUEST_TIMED_OUT: 'unreachable',
  NETWORK_EXCEPTION: 'unreachable',
  BROKER_NOT_AVAILABLE: 'unreachable',
};

/** kafkajs error names of a broker that was not reached or did not answer. */
const unreachableNames = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSNumberOfRetriesExceeded',
]);

/** Node's codes for certificate and TLS failures. */
const tlsCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);
/** kafkajs drops the code of a TLS context that cannot be built ("Failed to connect: …"); its words remain. */
const tlsWords = /\b(?:PEM|DECODER routines|certificate|ssl|tls|x509)\b/i;

interface ErrorLike {
  name?: unknown;
  type?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Every error in `error`'s cause chain and aggregate lists, outermost first. */
function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown): void => {
    if (!e || typeof e !== 'object' || seen.has(e)) return;
    seen.add(e);
    const like = e as ErrorLike;
    out.push(like);
    if (Array.isArray(like.errors)) for (const inner of like.errors) visit(inner);
    visit(like.cause);
  };
  visit(error);
  return out;
}

/** The first Kafka protocol error type (`INVALID_CONFIG`, …) in `error`, if any. */
export function kafkaErrorType(error: unknown): string | undefined {
  for (const e of chain(error)) if (typeof e.type === 'string') return e.type;
  return undefined;
}

/**
 * Classifies a kafkajs error. kafkajs wraps errors (`KafkaJSNonRetriableError`,
 * `KafkaJSNumberOfRetriesExceeded`, `KafkaJSAggregateError` of per-topic errors) without copying
 * their protocol type, so the whole cause chain is searched: a protocol type wins, then SASL and
 * TLS failures, then the signs of an unreachable broker.
 */
export function kafkaErrorKind(error: unknown): KafkaErrorKind {
  const errors = chain(error);
  for (const e of errors) {
    const kind = typeof e.type === 'string' ? byType[e.type] : undefined;
    if (kind) return kind;
  }
  for (const e of errors) {
    if (e.name === 'KafkaJSSASLAuthenticationError') return 'authentication';
  }
  for (const e of errors) {
    if (typeof e.code === 'string' && (tlsCodes.has(e.code) || /^ERR_(SSL|OSSL)_/.test(e.code)))
      return 'tls';
    if (
      e.name === 'KafkaJSConnectionError' &&
      typeof e.message === 'string' &&
      e.message.startsWith('Failed to connect') &&
      tlsWords.test(e.message)
    )
      return 'tls';
  }
  for (const e of errors) {
    if (typeof e.name === 'string' && unreachableNames.has(e.name)) return 'unreachable';
  }
  return 'other';
}

/** The words of an error for a condition message: its message, and the protocol type when there is one. */
export function kafkaErrorDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const type = kafkaErrorType(error);
  return (type && !message.includes(type) ? `${message} (${type})` : message).slice(0, 512);
}

/** No broker answered a call (retried with backoff); the message says so and names the call. */
export class KafkaUnreachableError extends Error {
  override readonly name = 'KafkaUnreachableError';
}

/** Whether `error` (or one in its cause chain) is a `KafkaUnreachableError`. */
export function isKafkaUnreachable(error: unknown): boolean {
  return chain(error).some((e) => e instanceof KafkaUnreachableError);
}

/** A Kafka call failed in a way the caller decides on (it knows the topic and the spec). */
export class KafkaError extends Error {
  override readonly name = 'KafkaError';
  constructor(
    readonly kind: KafkaErrorKind,
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Who is being talked to, for messages: e.g. `ProviderProfile events (127.0.0.1:9092)`. */
export interface KafkaCallContext {
  where: string;
  /** Counts the call in `steward_external_requests_total{provider="kafka",operation}`. */
  metrics?: ExternalMetrics;
  /** The Secret holding the SASL credentials, and the one holding TLS material, for messages. */
  saslSecret?: string;
  tlsSecret?: string;
  /**
   * Called when a failure means the connection is of no further use (brokers unreachable,
   * credentials or TLS refused): the admin cache drops the client.
   */
  onUnusable?(): void;
}

/**
 * Runs one admin call (`operation` is the Kafka API's name: `Metadata`, `CreateTopics`, …), counts
 * it, and maps a failure by `kafkaErrorKind`:
 * - `unreachable` → a `KafkaUnreachableError` whose message says so (retried);
 * - `authentication`, `tls` → `TerminalError('CredentialsInvalid')` naming the Secret;
 * - `forbidden` → `TerminalError('Forbidden')`;
 * - `other` → an `Error` naming the call and the protocol error (retried);
 * - the rest → a `KafkaError` with its kind, for the caller to decide.
 * The original error goes along as the cause (kafkajs messages carry no credentials).
 */
export async function kafkaCall<R>(
  operation: string,
  context: KafkaCallContext,
  call: () => Promise<R>,
): Promise<R> {
  try {
    return await kafkaRequest(operation, context, call);
  } catch (error) {
    throw mapKafkaError(operation, context, error);
  }
}

/**
 * The first half of `kafkaCall`: runs one admin request, counts it once (however many topics it
 * carries), and drops the connection on a failure that makes it useless — but rethrows the kafkajs
 * error as it is, for a batch to share out per topic before each caller maps its own part.
 */
export async function kafkaRequest<R>(
  operation: string,
  context: KafkaCallContext,
  call: () => Promise<R>,
): Promise<R> {
  try {
    return await externalCall(context.metrics, 'kafka', operation, call);
  } catch (error) {
    const kind = kafkaErrorKind(error);
    if (kind === 'unreachable' || kind === 'authentication' || kind === 'tls')
      context.onUnusable?.();
    throw error;
  }
}

/** The mapping of `kafkaCall`, on its own. */
export function mapKafkaError(operation: string, context: KafkaCallContext, error: unknown): Error {
  const kind = kafkaErrorKind(error);
  const detail = kafkaErrorDetail(error);
  switch (kind) {
    case 'unreachable':
      return new KafkaUnreachableError(
        `the Kafka brokers of ${context.where} are unreachable: ${operation} failed: ${detail}`,
        { cause: error },
      );
    case 'authentication':
      return new TerminalError(
        KafkaTopicReasons.CredentialsInvalid,
        `the Kafka brokers of ${context.where} refused the SASL credentials${context.saslSecret ? ` in Secret ${context.saslSecret}` : ''}: ${detail}; fix the Secret or the profile's spec.kafka.sasl.mechanism`,
        { cause: error },
      );
    case 'tls':
      return new TerminalError(
        KafkaTopicReasons.CredentialsInvalid,
        `TLS with the Kafka brokers of ${context.where} failed: ${detail}; check ca.crt (and tls.crt/tls.key)${context.tlsSecret ? ` in Secret ${context.tlsSecret}` : ''}`,
        { cause: error },
      );
    case 'forbidden':
      return new TerminalError(
        KafkaTopicReasons.Forbidden,
        `the Kafka brokers of ${context.where} refused ${operation}: ${detail}; grant the profile's principal the ACLs it needs (Describe, DescribeConfigs, Create, Alter, AlterConfigs, Delete on the topic)`,
        { cause: error },
      );
    case 'other':
      return new Error(`Kafka ${operation} at ${context.where} failed: ${detail}`, {
        cause: error,
      });
    default:
      return new KafkaError(kind, operation, `Kafka ${operation} at ${context.where}: ${detail}`, {
        cause: error,
      });
  }
}
