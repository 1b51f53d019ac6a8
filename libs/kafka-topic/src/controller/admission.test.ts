import { ExternalAnnotations as A } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { admitKafkaTopic } from './admission.js';

const kafkaProfile = (guardrails?: ProviderProfile['spec']['guardrails']): ProviderProfile =>
  ({
    metadata: { name: 'events' },
    spec: {
      provider: 'kafka',
      namespaces: ['shop'],
      kafka: { bootstrapServers: ['k:9092'], topicNamePolicy: 'Any' },
      ...(guardrails ? { guardrails } : {}),
    },
  }) as ProviderProfile;
const awsProfile = { metadata: { name: 'events' }, spec: { provider: 'aws' } } as ProviderProfile;

const created = {
  [A.externalName]: 'orders',
  [A.createPending]: '2026-01-01T00:00:00.000Z',
  [A.createSucceeded]: '2026-01-01T00:00:01.000Z',
};
const topic = (
  over: {
    spec?: Partial<KafkaTopic['spec']>;
    deleting?: boolean;
    annotations?: Record<string, string>;
    created?: string;
    uid?: string;
    name?: string;
  } = {},
): KafkaTopic => ({
  apiVersion: 'kafka.steward.dev/v1alpha1',
  kind: 'KafkaTopic',
  metadata: {
    name: over.name ?? 'orders',
    namespace: 'shop',
    uid: over.uid ?? 'u1',
    creationTimestamp: over.created ?? '2026-01-02T00:00:00Z',
    ...(over.deleting ? { deletionTimestamp: '2026-02-01T00:00:00Z' } : {}),
    ...(over.annotations ? { annotations: over.annotations } : {}),
  },
  spec: { providerProfileRef: { name: 'events' }, partitions: 3, ...over.spec },
});

describe('admitKafkaTopic', () => {
  describe('topicNamePolicy NamespacePrefix (the default)', () => {
    const prefixed = (): ProviderProfile => {
      const p = kafkaProfile();
      delete p.spec.kafka!.topicNamePolicy;
      return p;
    };
    it('reconciles a topic named after the namespace', () => {
      expect(admitKafkaTopic(prefixed(), topic({ spec: { topicName: 'shop.orders' } }))).toEqual({
        action: 'reconcile',
      });
    });
    it('refuses any other topic with TopicNameNotAllowed, naming the prefix', () => {
      expect(admitKafkaTopic(prefixed(), topic())).toMatchObject({
        action: 'stop',
        reason: 'TopicNameNotAllowed',
        message: expect.stringContaining('allows only topics named shop.<name>'),
      });
      // a prefix is a whole namespace segment: shopping.* is not shop's
      expect(
        admitKafkaTopic(prefixed(), topic({ spec: { topicName: 'shopping.x' } })),
      ).toMatchObject({
        reason: 'TopicNameNotAllowed',
      });
    });
    it('judges the name a forged external-name annotation gives, not only spec.topicName', () => {
      const forged = topic({
        spec: { topicName: 'shop.orders' },
        annotations: { [A.externalName]: 'billing.invoices' },
      });
      expect(admitKafkaTopic(prefixed(), forged)).toMatchObject({ reason: 'TopicNameNotAllowed' });
    });
    it('holds a Delete deletion of a topic outside the prefix; lets a Retain one go', () => {
      expect(
        admitKafkaTopic(
          prefixed(),
          topic({ spec: { deletionPolicy: 'Delete' }, deleting: true, annotations: created }),
        ),
      ).toMatchObject({ action: 'stop', reason: 'TopicNameNotAllowed' });
      expect(
        admitKafkaTopic(
          prefixed(),
          topic({ spec: { deletionPolicy: 'Retain' }, deleting: true, annotations: created }),
        ),
      ).toEqual({ action: 'release' });
    });
  });
  it('stops ProfileNotAllowedInNamespace for a namespace the profile does not allow', () => {
    const profile = kafkaProfile();
    profile.spec.namespaces = ['billing'];
    expect(admitKafkaTopic(profile, topic())).toMatchObject({
      action: 'stop',
      reason: 'ProfileNotAllowedInNamespace',
      message: expect.stringContaining('may not be used from namespace shop'),
    });
  });
  it('reconciles a valid object on a kafka profile', () => {
    expect(admitKafkaTopic(kafkaProfile(), topic())).toEqual({ action: 'reconcile' });
  });

  it.each<[string, ProviderProfile | undefined, KafkaTopic, string, string]>([
    [
      'no profile',
      undefined,
      topic(),
      'ProviderProfileNotFound',
      'ProviderProfile events not found: create it, or reference an existing kafka profile',
    ],
    [
      'an aws profile',
      awsProfile,
      topic(),
      'WrongProvider',
      'ProviderProfile events is for aws; a KafkaTopic needs a kafka profile',
    ],
    [
      'a forbidden deletion policy',
      kafkaProfile({ allowedDeletionPolicies: ['Retain'] }),
      topic({ spec: { deletionPolicy: 'Delete' } }),
      'DeletionPolicyNotAllowed',
      'spec.deletionPolicy Delete is not allowed by ProviderProfile events (allowed: Retain)',
    ],
  ])('stops with %s', (_case, profile, obj, reason, message) => {
    const admission = admitKafkaTopic(profile, obj);
    expect(admission).toMatchObject({ action: 'stop', reason });
    expect(admission.action === 'stop' && admission.message).toContain(message);
  });

  it('stops the newer of two claimants with ResourceConflict, before looking at anything else', () => {
    const older = topic({ name: 'first', uid: 'u0', created: '2026-01-01T00:00:00Z' });
    const newer = topic({ spec: { config: { bogus: '1' } } });
    expect(admitKafkaTopic(undefined, newer, [older, newer])).toMatchObject({
      action: 'stop',
      reason: 'ResourceConflict',
    });
    expect(admitKafkaTopic(kafkaProfile(), older, [older, newer])).toEqual({ action: 'reconcile' });
  });

  it('does not let an older claimant from a namespace that may not name the topic block its rightful owner', () => {
    const profile = kafkaProfile();
    delete profile.spec.kafka!.topicNamePolicy;
    profile.spec.namespaces = ['shop', 'billing'];
    const intruder = {
      ...topic({
        name: 'squatter',
        uid: 'u0',
        created: '2026-01-01T00:00:00Z',
        spec: { topicName: 'shop.orders' },
      }),
    };
    intruder.metadata.namespace = 'billing';
    const owner = topic({ spec: { topicName: 'shop.orders' } });
    expect(admitKafkaTopic(profile, owner, [intruder, owner])).toEqual({ action: 'reconcile' });
    expect(admitKafkaTopic(profile, intruder, [intruder, owner])).toMatchObject({
      action: 'stop',
      reason: 'TopicNameNotAllowed',
    });
  });

  it('releases a newer claimant being deleted without touching the holder’s topic, even with Delete and adopt', () => {
    const older = topic({ name: 'first', uid: 'u0', created: '2026-01-01T00:00:00Z' });
    const newer = topic({
      deleting: true,
      spec: { deletionPolicy: 'Delete', adopt: true },
      annotations: created,
    });
    expect(admitKafkaTopic(kafkaProfile(), newer, [older, newer])).toEqual({ action: 'release' });
  });

  it('lets a deletion that does not touch Kafka go without a profile, a kafka profile or allowed policy', () => {
    const retained = topic({ deleting: true, annotations: created });
    expect(admitKafkaTopic(undefined, retained)).toEqual({ action: 'release' });
    expect(admitKafkaTopic(awsProfile, retained)).toEqual({ action: 'release' });
    const neverCreated = topic({ deleting: true, spec: { deletionPolicy: 'Delete' } });
    expect(admitKafkaTopic(undefined, neverCreated)).toEqual({ action: 'release' });
  });

  it('holds a Delete deletion without a profile, saying the finalizer stays', () => {
    const admission = admitKafkaTopic(
      undefined,
      topic({ deleting: true, spec: { deletionPolicy: 'Delete' }, annotations: created }),
    );
    expect(admission).toMatchObject({ action: 'stop', reason: 'ProviderProfileNotFound' });
    expect(admission.action === 'stop' && admission.message).toContain('the finalizer stays');
  });

  it('does not judge the config of an object being deleted', () => {
    const obj = topic({
      deleting: true,
      spec: { deletionPolicy: 'Delete', config: { bogus: 'x' } },
      annotations: created,
    });
    expect(admitKafkaTopic(kafkaProfile(), obj)).toEqual({ action: 'reconcile' });
  });
});
