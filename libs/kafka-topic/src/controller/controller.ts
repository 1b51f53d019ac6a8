import {
  controllerFor,
  type Controller,
  type EventRecorder,
  type Manager,
  type MapFunc,
  type Predicate,
} from '@steward/controller';
import { externalChanges, managedReconciler, type Admission } from '@steward/external';
import { objectKey, type Selection } from '@steward/informer';
import { KafkaTopic } from '@steward/kafka-topic-api';
import {
  namespaceDirectory,
  profileAllowsAdoption,
  profileChangesForUsers,
} from '@steward/provider-profile';
import { ProviderProfile } from '@steward/provider-profile-api';
import { type ExternalMetrics } from '@steward/telemetry';
import { claimKey } from '../claims.js';
import { KafkaAdminCache } from '../kafka/admin-cache.js';
import { type KafkaClientOptions } from '../kafka/connection.js';
import { kafkaTopicProvider } from '../provider.js';
import { admitKafkaTopic } from './admission.js';

type Topic = KafkaTopic;
type Profile = ProviderProfile;
const Kind = KafkaTopic.resourceType;
const Profiles = ProviderProfile.resourceType;

/** The finalizer the controller keeps on every KafkaTopic it manages. */
export const KafkaTopicFinalizer = 'kafka.steward.dev/external';
/** Secondary index of the KafkaTopic cache: `spec.providerProfileRef.name`. */
export const ByProviderProfile = 'kafka.steward.dev/provider-profile';
/** Secondary index of the KafkaTopic cache: the claimed topic, `<profile>/<topic>` (`claimKey`). */
export const ByTopicClaim = 'kafka.steward.dev/topic-claim';

export interface KafkaTopicControllerOptions {
  /**
   * Which KafkaTopics to follow (e.g. one namespace). Default: all. Claims are resolved among the
   * objects followed: two controllers watching different namespaces do not see each other's.
   */
  selection?: Selection;
  /** Default `kafka.steward.dev/external`. */
  finalizer?: string;
  /** Re-observe converged topics this often (drift correction). Default 60 s. */
  pollIntervalMs?: number;
  /** Re-observe while a topic is being changed or is unavailable. Default 5 s. */
  busyPollIntervalMs?: number;
  maxConcurrentReconciles?: number;
  /** Normal and Warning Events of the managed reconciler. */
  events?: EventRecorder;
  /** `steward_external_requests_total{provider="kafka",operation,result}` of every admin call. */
  externalMetrics?: ExternalMetrics;
  /**
   * The admin clients, one per profile, kept across reconciles. Default: a cache of the
   * controller's own, closed when the controller stops; one passed in is the caller's to close.
   */
  admins?: KafkaAdminCache;
  /** Timeouts and retries of the default cache's clients (default: kafkajs logs to the manager's logger, at debug). */
  kafkaClientOptions?: KafkaClientOptions;
}

/** A claimant appearing or going away is what can change who holds a topic. */
const claimChanges: Predicate = { update: () => false };

/**
 * The KafkaTopic controller: for each object, the referenced (cluster-scoped) ProviderProfile from
 * the shared cache, then the admission rules — the topic claim (an older KafkaTopic naming the same
 * topic on the same profile holds it: `ResourceConflict`), the profile (`ProviderProfileNotFound`,
 * `WrongProvider`, the deletion-policy guardrail) — then `managedReconciler` with
 * `kafkaTopicProvider`, whose `validate` checks the topic name and the config (`InvalidConfig`)
 * before any call. Status carries `topicName`,
 * `partitions`, `replicationFactor` and the managed `config` as observed. When no broker of the
 * profile answers, `Ready=False` with `BrokersUnreachable` (retried with backoff).
 *
 * Watches: the KafkaTopics (spec changes, deletion, annotations others set); the profiles (a spec
 * change or a `Ready` change reconciles every topic referencing it, by a secondary index); and the
 * KafkaTopics again for claims (one appearing or going away reconciles the others claiming that
 * topic, so the next in line takes over when the holder is deleted).
 *
 * Admin clients are cached per profile (`KafkaAdminCache`); the default cache is the manager's
 * (`manager.add`), closed at the end of each term of leadership and at shutdown.
 *
 * RBAC: `kafka.steward.dev` `kafkatopics` get/list/watch/patch and `kafkatopics/status` patch;
 * `steward.dev` `providerprofiles` get/list/watch; `get` on the Secrets kafka profiles name
 * (`spec.kafka.tls.secretRef`, `spec.kafka.sasl.secretRef`); `events.k8s.io` `events`
 * create/patch for the Event recorder.
 */
export function kafkaTopicController(
  manager: Manager,
  options: KafkaTopicControllerOptions = {},
): Controller {
  const client = manager.client;
  const selection = options.selection ?? {};
  const topics = manager.informers.informerFor<Topic>(Kind, selection);
  const profiles = manager.informers.informerFor<Profile>(Profiles);
  const namespaces = namespaceDirectory(manager);
  const namespaceWatch = namespaces.watchFor(topics);
  for (const [name, index] of Object.entries({
    [ByProviderProfile]: (obj: Topic) => [obj.spec.providerProfileRef.name],
    [ByTopicClaim]: (obj: Topic) => {
      const key = claimKey(obj);
      return key ? [key] : [];
    },
  })) {
    try {
      topics.store.addIndexers({ [name]: index });
    } catch {
      // Already indexed: another controller in this manager added the same index.
    }
  }
  const finalizer = options.finalizer ?? KafkaTopicFinalizer;
  const ownCache = !options.admins;
  const admins =
    options.admins ??
    new KafkaAdminCache({
      client,
      clientOptions: {
        logger: manager.logger.child({ component: 'kafkajs' }),
        ...options.kafkaClientOptions,
      },
      ...(options.externalMetrics ? { metrics: options.externalMetrics } : {}),
    });

  const profileOf = (obj: Topic): Profile | undefined =>
    profiles.store.get(obj.spec.providerProfileRef.name);
  const claimantsOf = (obj: Topic): Topic[] => {
    const key = claimKey(obj);
    return key ? topics.store.byIndex(ByTopicClaim, key) : [];
  };

  const provider = kafkaTopicProvider({ admins });
  const admit = (obj: Topic): Admission<Topic, Profile> => {
    const profile = profileOf(obj);
    const namespace = obj.metadata.namespace ?? '';
    const admission = admitKafkaTopic(profile, obj, claimantsOf(obj), (name) =>
      namespaces.facts(name),
    );
    return admission.action === 'reconcile'
      ? {
          action: 'manage',
          provider,
          context: profile!,
          adoptionAllowed: profileAllowsAdoption(profile!, namespace),
        }
      : admission;
  };

  const byProfile: MapFunc = (profile) =>
    topics.store.byIndex(ByProviderProfile, profile.metadata.name ?? '').map(objectKey);
  const claimPeers: MapFunc = (obj) => {
    const topic = obj as Topic;
    return claimantsOf(topic)
      .filter((other) => other.metadata.uid !== topic.metadata.uid)
      .map(objectKey);
  };

  // The default cache is the manager's to close: at the end of each term of leadership (a new
  // term connects afresh) and at shutdown.
  if (ownCache) manager.add({ name: 'kafka-admin-cache', stop: () => admins.close() });
  return controllerFor(manager, Kind, { selection, predicates: [externalChanges] })
    .named('kafkatopic')
    .watches(Kind, claimPeers, { selection, predicates: [claimChanges] })
    .watches(Profiles, byProfile, { predicates: [profileChangesForUsers] })
    .watches(namespaceWatch.resourceType, namespaceWatch.map, {
      predicates: namespaceWatch.predicates,
    })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .completeObjects(
      managedReconciler<Topic, Profile>({
        client,
        resourceType: Kind,
        finalizer,
        admit,
        pollIntervalMs: options.pollIntervalMs,
        busyPollIntervalMs: options.busyPollIntervalMs,
        events: options.events,
      }),
    );
}
