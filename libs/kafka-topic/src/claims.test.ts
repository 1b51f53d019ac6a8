import { ExternalAnnotations as A } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { describe, expect, it } from 'vitest';
import { claimKey, compareClaims, resolveClaim } from './claims.js';

const topic = (
  namespace: string,
  name: string,
  created: string,
  uid: string,
  extra: { topicName?: string; profile?: string; annotations?: Record<string, string> } = {},
): KafkaTopic => ({
  apiVersion: 'kafka.steward.dev/v1alpha1',
  kind: 'KafkaTopic',
  metadata: {
    name,
    namespace,
    uid,
    creationTimestamp: created,
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
  },
  spec: {
    providerProfileRef: { name: extra.profile ?? 'events' },
    partitions: 1,
    ...(extra.topicName ? { topicName: extra.topicName } : {}),
  },
});

describe('claimKey', () => {
  it('is profile and topic name', () => {
    expect(claimKey(topic('a', 'orders', 't', 'u'))).toBe('events/orders');
    expect(claimKey(topic('a', 'x', 't', 'u', { topicName: 'orders', profile: 'other' }))).toBe(
      'other/orders',
    );
  });

  it('is undefined for an illegal topic name: such an object claims nothing', () => {
    expect(claimKey(topic('a', 'x', 't', 'u', { topicName: 'a/b' }))).toBeUndefined();
  });
});

describe('resolveClaim', () => {
  const older = topic('team-a', 'orders', '2026-01-01T00:00:00Z', 'uid-b');
  const newer = topic('team-b', 'orders-copy', '2026-01-02T00:00:00Z', 'uid-a', {
    topicName: 'orders',
  });

  it('lets the older object keep the topic', () => {
    expect(resolveClaim(older, [older, newer])).toEqual({ holds: true });
  });

  it('gives the newer one ResourceConflict naming the older', () => {
    const claim = resolveClaim(newer, [older, newer]);
    expect(claim.holds).toBe(false);
    if (claim.holds) return;
    expect(claim.holder).toBe(older);
    expect(claim.reason).toBe('ResourceConflict');
    expect(claim.message).toContain(
      'topic orders on ProviderProfile events is already managed by KafkaTopic team-a/orders (created 2026-01-01T00:00:00Z), which is older',
    );
  });

  it('holds alone', () => {
    expect(resolveClaim(newer, [newer])).toEqual({ holds: true });
    expect(resolveClaim(newer, [])).toEqual({ holds: true });
  });

  it('breaks a tie of creation time by the create ledger, then by uid', () => {
    const t = '2026-01-01T00:00:00Z';
    const plain = topic('a', 'x', t, 'uid-1');
    const creator = topic('b', 'y', t, 'uid-2', {
      annotations: {
        [A.externalName]: 'x',
        [A.createPending]: '2026-01-01T00:00:00.100Z',
        [A.createSucceeded]: '2026-01-01T00:00:00.200Z',
      },
    });
    expect(compareClaims(creator, plain)).toBeLessThan(0);
    expect(resolveClaim(plain, [plain, creator]).holds).toBe(false);
    const other = topic('c', 'z', t, 'uid-3');
    expect(compareClaims(plain, other)).toBeLessThan(0);
    expect(resolveClaim(other, [plain, other]).holds).toBe(false);
  });

  it('picks the oldest of several as the holder', () => {
    const oldest = topic('z', 'first', '2025-06-01T00:00:00Z', 'uid-z');
    const claim = resolveClaim(newer, [older, newer, oldest]);
    expect(!claim.holds && claim.holder).toBe(oldest);
  });
});
