import { ExternalAnnotations, ledgerState } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { KafkaTopicReasons } from './reasons.js';
import { topicNameOf, topicNameProblem } from './topic-name.js';

/**
 * The key of the topic an object claims: `<profile>/<topic>`, or undefined when its topic name is
 * not legal (it claims nothing). Profile names are DNS subdomains and topic names have no `/`,
 * so the key is unambiguous.
 */
export function claimKey(obj: KafkaTopic): string | undefined {
  const profile = obj.spec?.providerProfileRef?.name;
  const topic = topicNameOf(obj);
  if (!profile || topicNameProblem(topic)) return undefined;
  return `${profile}/${topic}`;
}

/**
 * Which of two claimants keeps the topic: the older `creationTimestamp`; at equal timestamps (they
 * have one-second resolution) the one whose create ledger shows it created the topic, then the
 * smaller uid. Negative when `a` wins.
 */
export function compareClaims(a: KafkaTopic, b: KafkaTopic): number {
  const at = a.metadata.creationTimestamp ?? '';
  const bt = b.metadata.creationTimestamp ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  const created = (o: KafkaTopic) =>
    Boolean(o.metadata.annotations?.[ExternalAnnotations.externalName]) &&
    ledgerState(o.metadata.annotations) !== 'none';
  if (created(a) !== created(b)) return created(a) ? -1 : 1;
  const au = a.metadata.uid ?? '';
  const bu = b.metadata.uid ?? '';
  return au === bu ? 0 : au < bu ? -1 : 1;
}

/** Whether an object may manage its topic, given every KafkaTopic that claims the same one. */
export type ClaimResolution =
  | { holds: true }
  | { holds: false; holder: KafkaTopic; reason: 'ResourceConflict'; message: string };

/**
 * Resolves a claim (pure): among `claimants` (objects with the same `claimKey`, `obj` itself may
 * be among them; objects being deleted count — until they are gone they may still act on the
 * topic), the first by `compareClaims` holds the topic; every other gets `ResourceConflict` with a
 * message naming the holder.
 */
export function resolveClaim(obj: KafkaTopic, claimants: readonly KafkaTopic[]): ClaimResolution {
  const others = claimants.filter((c) => c.metadata.uid !== obj.metadata.uid);
  const older = others.filter((c) => compareClaims(c, obj) < 0).sort(compareClaims);
  const holder = older[0];
  if (!holder) return { holds: true };
  const holderName = `${holder.metadata.namespace}/${holder.metadata.name}`;
  return {
    holds: false,
    holder,
    reason: KafkaTopicReasons.ResourceConflict,
    message: `topic ${topicNameOf(obj)} on ProviderProfile ${obj.spec.providerProfileRef.name} is already managed by KafkaTopic ${holderName} (created ${holder.metadata.creationTimestamp ?? 'earlier'}), which is older; a topic is managed by one KafkaTopic. Delete this KafkaTopic, or delete ${holderName} and this one takes over`,
  };
}
