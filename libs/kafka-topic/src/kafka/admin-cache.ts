import { type KubeClient } from '@steward/kube';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type ExternalMetrics } from '@steward/telemetry';
import kafkajs, { type Admin, type Kafka, type KafkaConfig } from 'kafkajs';
import {
  kafkaClientConfig,
  kafkaConnectionFromProfile,
  readKafkaSecrets,
  type KafkaClientOptions,
  type KafkaConnection,
} from './connection.js';
import { kafkaCall, type KafkaCallContext } from './errors.js';
import { topicAdmin, type TopicAdmin, type TopicBatching } from './topic-admin.js';

export interface KafkaAdminCacheOptions {
  /** Reads the profiles' TLS and SASL Secrets. */
  client: KubeClient;
  /** Timeouts, kafkajs retries, where kafkajs logs go. */
  clientOptions?: KafkaClientOptions;
  /**
   * Counts `Connect` and every admin request in `steward_external_requests_total{provider="kafka"}`
   * (a batched request counts once, whatever number of topics it carries).
   */
  metrics?: ExternalMetrics;
  /** Makes the kafkajs client of a configuration (tests wrap it). Default `new Kafka(config)`. */
  kafkaFor?(config: KafkaConfig): Kafka;
  /**
   * How long a cached client is lent without reading the profile's Secrets again (a GET each):
   * a rotated Secret is picked up within this time, a refused one at once (the client is dropped
   * on the failure). Default 30 s; 0 reads them on every `acquire`.
   */
  secretsMaxAgeMs?: number;
  /** Milliseconds now (tests). Default `Date.now`. */
  now?(): number;
  /**
   * How each client's topic calls are gathered into requests (see `topicAdmin`): by default, the
   * calls of one kind made within 10 ms of the first share one request (up to 100 topics).
   * `false` sends every call alone, at once.
   */
  batching?: TopicBatching | false;
}

/** What a cache has sent, by Kafka API (`Connect`, `Metadata`, `CreateTopics`, …). */
export interface KafkaAdminCounts {
  /** Requests sent (a batched request counts once, whatever number of topics it carries). */
  requests: Record<string, number>;
  /** Calls made by reconciles through `KafkaAdminLease.topics`, one per topic. */
  calls: Record<string, number>;
}

/** A connected admin client lent to one reconcile (or one check). */
export interface KafkaAdminLease {
  readonly admin: Admin;
  /** The topic calls, on `admin`, batched with those of every other borrower of this client. */
  readonly topics: TopicAdmin;
  /** For `kafkaCall`: where the brokers are, which Secrets hold the credentials, the metrics. */
  readonly context: KafkaCallContext;
  /** Gives it back. Called once, at the end of the reconcile; the client stays connected. */
  release(): void;
  /**
   * The brokers are unreachable or refused the credentials: the client is dropped (disconnected
   * once every borrower released it) and the next `acquire` connects afresh. Idempotent.
   */
  discard(): void;
}

interface Entry {
  /** The profile's uid and `spec.kafka`. */
  profileKey: string;
  /** `profileKey` and the Secrets' resourceVersions. */
  fingerprint: string;
  secretsReadAt: number;
  admin: Admin;
  topics: TopicAdmin;
  context: KafkaCallContext;
  connected: Promise<void>;
  users: number;
  retired: boolean;
  disconnected: boolean;
}

/**
 * One connected kafkajs admin per ProviderProfile, shared by every reconcile that uses the profile,
 * instead of a connection per reconcile. The cached client is reused while the profile's uid and
 * `spec.kafka` and its Secrets' resourceVersions are unchanged: a profile change is seen at once,
 * the Secrets are read again (a GET each) once the client is `secretsMaxAgeMs` old — so a rotated
 * password or CA is picked up within that time without a GET per reconcile. Any change retires
 * the old client (disconnected once its borrowers are done) and connects a new one. A client
 * whose connection failed or whose credentials were refused is retired at once, so the next
 * reconcile reads the Secrets and connects afresh.
 *
 * Each client's topic calls are batched (`KafkaAdminLease.topics`, see `topicAdmin`): the calls
 * that concurrent reconciles make on one profile share requests. `counts()` says how many requests
 * went out and how many calls they carried, by Kafka API.
 *
 * The owner calls `close()` on shutdown (`kafkaTopicController` does when its controller stops);
 * a closed cache can be used again and connects anew.
 */
export class KafkaAdminCache {
  private readonly entries = new Map<string, Entry>();
  private readonly kafkaFor: (config: KafkaConfig) => Kafka;
  private readonly now: () => number;
  private readonly secretsMaxAgeMs: number;
  private readonly requests = new Map<string, number>();
  private readonly calls = new Map<string, number>();

  constructor(private readonly options: KafkaAdminCacheOptions) {
    this.kafkaFor = options.kafkaFor ?? ((config) => new kafkajs.Kafka(config));
    this.now = options.now ?? Date.now;
    this.secretsMaxAgeMs = options.secretsMaxAgeMs ?? 30_000;
  }

  /** Profiles with a cached client. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A connected admin for `profile` (a kafka profile; anything else is `InvalidProviderProfile`).
   * Throws what reading the Secrets throws (`CredentialsNotFound`, API errors) and what `Connect`
   * maps to (unreachable → retryable; SASL/TLS refused → `CredentialsInvalid`).
   */
  async acquire(profile: ProviderProfile, signal?: AbortSignal): Promise<KafkaAdminLease> {
    const name = profile.metadata.name ?? '';
    const profileKey = profileKeyOf(profile);
    let entry = this.entries.get(name);
    if (
      !entry ||
      entry.profileKey !== profileKey ||
      this.now() - entry.secretsReadAt >= this.secretsMaxAgeMs
    ) {
      const secrets = await readKafkaSecrets(this.options.client, profile, signal);
      const connection = kafkaConnectionFromProfile(profile, secrets);
      const fingerprint = JSON.stringify([
        profileKey,
        secrets.tls?.resourceVersion,
        secrets.sasl?.resourceVersion,
      ]);
      entry = this.entries.get(name); // another reconcile may have got here first
      if (entry && entry.fingerprint !== fingerprint) {
        this.retire(name, entry);
        entry = undefined;
      }
      if (entry) {
        entry.secretsReadAt = this.now();
      } else {
        entry = this.open(name, connection, profileKey, fingerprint);
        this.entries.set(name, entry);
      }
    }
    const held = entry;
    held.users++;
    try {
      await held.connected;
    } catch (error) {
      held.users--;
      this.retire(name, held);
      throw error;
    }
    let released = false;
    return {
      admin: held.admin,
      topics: held.topics,
      context: held.context,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        settle(held);
      },
      discard: () => this.retire(name, held),
    };
  }

  /** Requests and calls so far, over every client this cache has made. */
  counts(): KafkaAdminCounts {
    return {
      requests: Object.fromEntries(this.requests),
      calls: Object.fromEntries(this.calls),
    };
  }

  /** Disconnects every cached client. Idempotent; the cache may be used again afterwards. */
  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map((entry) => {
        entry.retired = true;
        return disconnect(entry);
      }),
    );
  }

  private open(
    name: string,
    connection: KafkaConnection,
    profileKey: string,
    fingerprint: string,
  ): Entry {
    const kafka = this.kafkaFor(kafkaClientConfig(connection, this.options.clientOptions));
    const retries = this.options.clientOptions?.retries ?? 2;
    const admin = kafka.admin({ retry: { retries, initialRetryTime: 200, maxRetryTime: 2_000 } });
    const metrics = this.options.metrics;
    const context: KafkaCallContext = {
      where: connection.where,
      metrics: {
        request: (provider, operation, result) => {
          count(this.requests, operation);
          metrics?.request(provider, operation, result);
        },
      },
      ...(connection.saslSecret ? { saslSecret: connection.saslSecret } : {}),
      ...(connection.tlsSecret ? { tlsSecret: connection.tlsSecret } : {}),
    };
    const entry: Entry = {
      profileKey,
      fingerprint,
      secretsReadAt: this.now(),
      admin,
      topics: topicAdmin(admin, context, {
        ...(this.options.batching !== undefined ? { batching: this.options.batching } : {}),
        onCall: (operation) => count(this.calls, operation),
      }),
      context,
      connected: Promise.resolve(),
      users: 0,
      retired: false,
      disconnected: false,
    };
    context.onUnusable = () => this.retire(name, entry);
    entry.connected = kafkaCall('Connect', context, () => admin.connect());
    entry.connected.catch(() => undefined); // awaited by every acquirer; this only marks it handled
    return entry;
  }

  private retire(name: string, entry: Entry): void {
    if (this.entries.get(name) === entry) this.entries.delete(name);
    entry.retired = true;
    settle(entry);
  }
}

/** Disconnects a retired client once nobody borrows it. */
function settle(entry: Entry): void {
  if (entry.retired && entry.users === 0) void disconnect(entry);
}

/** Disconnects once; later calls resolve at once. */
async function disconnect(entry: Entry): Promise<void> {
  if (entry.disconnected) return;
  entry.disconnected = true;
  await entry.admin.disconnect().catch(() => undefined);
}

function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** What of the profile decides whether a cached client still fits it. */
function profileKeyOf(profile: ProviderProfile): string {
  return JSON.stringify([profile.metadata.uid, profile.spec.kafka]);
}
