import { deletionActsAtProvider } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { namespaceRefusal, type NamespaceFacts } from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { resolveClaim } from '../claims.js';
import { topicNameOf } from '../topic-name.js';
import { KafkaTopicReasons } from '../reasons.js';

/** What the controller does with one KafkaTopic before anything happens at Kafka. */
export type KafkaTopicAdmission =
  /** Hand the object to the managed reconciler. */
  | { action: 'reconcile' }
  /** Stop with a TerminalError: nothing happens at Kafka. */
  | { action: 'stop'; reason: string; message: string }
  /** Being deleted, and deleting it must not (or need not) touch Kafka: just remove the finalizer. */
  | { action: 'release' };

/**
 * Decides, before any call to Kafka, what to do with `obj` (pure), given its profile (or none) and
 * every KafkaTopic that claims the same topic on the same profile (`claimants`, itself included or
 * not):
 * 1. another, older claimant holds the topic → `ResourceConflict`; while being deleted the object
 *    is released without touching the topic (it is the holder's). Only claimants the profile lets
 *    manage the topic (`tenancyRefusal`) count: one that may not is judged by step 2 instead, and
 *    never holds the topic against a rightful claimant;
 * 2. no profile → `ProviderProfileNotFound`; a profile for another provider → `WrongProvider`; a
 *    profile that does not allow the object's namespace → `ProfileNotAllowedInNamespace`; a
 *    topic outside `<namespace>.` under the profile's `topicNamePolicy: NamespacePrefix` (the
 *    default) → `TopicNameNotAllowed`; a deletion policy the profile's guardrails forbid → `DeletionPolicyNotAllowed`. While the
 *    object is being deleted these hold only when the deletion would act at Kafka (the finalizer
 *    stays, the message says how to proceed); otherwise it is released;
 * 3. otherwise → reconcile (the provider's `validate` then checks the topic name and the config).
 */
export function admitKafkaTopic(
  profile: ProviderProfile | undefined,
  obj: KafkaTopic,
  claimants: readonly KafkaTopic[] = [],
  namespaces: (name: string) => NamespaceFacts = (name) => ({ name }),
): KafkaTopicAdmission {
  const deleting = Boolean(obj.metadata.deletionTimestamp);
  const touches = !deleting || deletionActsAtProvider(obj);
  const profileName = obj.spec.providerProfileRef.name;
  const namespace = namespaces(obj.metadata.namespace ?? '');

  // Only claimants the profile lets manage the topic count: a namespace that may not name it can
  // neither hold it nor block its rightful owner by being older.
  const eligible = (o: KafkaTopic) =>
    profile?.spec.provider !== 'kafka' || !tenancyRefusal(profile, o, namespaces);
  const claim = resolveClaim(
    obj,
    claimants.filter((c) => c.metadata.uid === obj.metadata.uid || eligible(c)),
  );
  if (!claim.holds && eligible(obj)) {
    return deleting
      ? { action: 'release' }
      : { action: 'stop', reason: claim.reason, message: claim.message };
  }

  const held = (reason: string, message: string): KafkaTopicAdmission =>
    !touches
      ? { action: 'release' }
      : {
          action: 'stop',
          reason,
          message: deleting
            ? `${message}. The object is being deleted with deletionPolicy Delete, but nothing is deleted at Kafka and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)`
            : message,
        };
  if (!profile) {
    return held(
      KafkaTopicReasons.ProviderProfileNotFound,
      deleting
        ? `ProviderProfile ${profileName} not found`
        : `ProviderProfile ${profileName} not found: create it, or reference an existing kafka profile`,
    );
  }
  if (profile.spec.provider !== 'kafka') {
    return held(
      KafkaTopicReasons.WrongProvider,
      `ProviderProfile ${profileName} is for ${profile.spec.provider}; a KafkaTopic needs a kafka profile`,
    );
  }
  const tenancy = tenancyRefusal(profile, obj, () => namespace);
  if (tenancy) return held(tenancy.reason, tenancy.message);
  const policy = obj.spec.deletionPolicy ?? 'Retain';
  const allowed = profile.spec.guardrails?.allowedDeletionPolicies ?? ['Retain', 'Delete'];
  if (!allowed.includes(policy)) {
    return held(
      KafkaTopicReasons.DeletionPolicyNotAllowed,
      `spec.deletionPolicy ${policy} is not allowed by ProviderProfile ${profileName} (allowed: ${allowed.join(', ')})`,
    );
  }
  return { action: 'reconcile' };
}

/**
 * Why `profile` may not manage `obj`'s topic for its namespace (pure), or undefined: the profile
 * does not allow the namespace (`ProfileNotAllowedInNamespace`), or its `topicNamePolicy`
 * NamespacePrefix (the default) does not let the namespace name the topic — the name the object
 * would act on, its external-name annotation included (`TopicNameNotAllowed`).
 */
export function tenancyRefusal(
  profile: ProviderProfile,
  obj: KafkaTopic,
  namespaces: (name: string) => NamespaceFacts,
): { reason: string; message: string } | undefined {
  const namespace = namespaces(obj.metadata.namespace ?? '');
  const refusal = namespaceRefusal(profile, namespace);
  if (refusal) return refusal;
  const topicName = topicNameOf(obj);
  const prefix = `${namespace.name}.`;
  if ((profile.spec.kafka?.topicNamePolicy ?? 'NamespacePrefix') !== 'NamespacePrefix') return;
  if (topicName.startsWith(prefix)) return;
  return {
    reason: KafkaTopicReasons.TopicNameNotAllowed,
    message: `topic ${topicName} is not one namespace ${namespace.name} may manage through ProviderProfile ${profile.metadata.name ?? ''}: its topicNamePolicy NamespacePrefix allows only topics named ${prefix}<name>. Set spec.topicName to ${prefix}${obj.metadata.name ?? '<name>'}, or ask the platform team for a profile whose topicNamePolicy is Any`,
  };
}
