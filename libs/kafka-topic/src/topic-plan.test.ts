import { type KafkaTopic } from '@steward/kafka-topic-api';
import { describe, expect, it } from 'vitest';
import { desiredTopic, planTopic, replicationFactorOf, type ObservedTopic } from './topic-plan.js';

const observed = (over: Partial<ObservedTopic> = {}): ObservedTopic => ({
  name: 'orders',
  partitions: 3,
  replicaCounts: [1, 1, 1],
  leaderless: 0,
  overrides: {},
  ...over,
});

describe('planTopic', () => {
  it('is up to date when partitions, replication and config match', () => {
    const plan = planTopic(
      { partitions: 3, replicationFactor: 1, config: { 'retention.ms': '1000' }, managed: {} },
      observed({ overrides: { 'retention.ms': '1000' } }),
    );
    expect(plan).toMatchObject({ upToDate: true, notSupported: [] });
    expect(plan.partitions).toBeUndefined();
  });

  it('grows the partitions', () => {
    const plan = planTopic({ partitions: 6, config: {}, managed: {} }, observed());
    expect(plan).toMatchObject({ partitions: 6, upToDate: false, notSupported: [] });
  });

  it('reports fewer partitions as NotSupported (Kafka cannot remove partitions)', () => {
    const plan = planTopic({ partitions: 2, config: {}, managed: {} }, observed());
    expect(plan.upToDate).toBe(false);
    expect(plan.notSupported).toEqual([
      'topic orders has 3 partitions and spec.partitions is 2: Kafka cannot remove partitions from a topic; set spec.partitions to 3 or more',
    ]);
  });

  it('reports another replication factor as NotSupported, never ignores it', () => {
    const plan = planTopic(
      { partitions: 3, replicationFactor: 3, config: {}, managed: {} },
      observed(),
    );
    expect(plan.upToDate).toBe(false);
    expect(plan.notSupported[0]).toBe(
      "spec.replicationFactor is 3 but topic orders has 1 replica per partition: the Kafka admin API cannot change a topic's replication factor (that takes a partition reassignment, e.g. kafka-reassign-partitions.sh); set spec.replicationFactor to 1, or remove it",
    );
  });

  it('leaves the replication factor alone when the spec does not set one', () => {
    expect(
      planTopic({ partitions: 3, config: {}, managed: {} }, observed({ replicaCounts: [3, 3, 2] }))
        .upToDate,
    ).toBe(true);
  });

  it('plans config changes', () => {
    const plan = planTopic(
      { partitions: 3, config: { 'retention.ms': '2000' }, managed: { 'retention.ms': '1000' } },
      observed({ overrides: { 'retention.ms': '1000' } }),
    );
    expect(plan.upToDate).toBe(false);
    expect(plan.config.set).toEqual({ 'retention.ms': '2000' });
  });
});

describe('desiredTopic and replicationFactorOf', () => {
  it('takes the managed keys from status.config', () => {
    const obj = {
      metadata: { name: 'orders' },
      spec: { providerProfileRef: { name: 'p' }, partitions: 3, config: { a: '1' } },
      status: { config: { a: '1', b: '2' } },
    } as unknown as KafkaTopic;
    expect(desiredTopic(obj)).toEqual({
      partitions: 3,
      config: { a: '1' },
      managed: { a: '1', b: '2' },
    });
  });

  it('is the fewest replicas of any partition', () => {
    expect(replicationFactorOf(observed({ replicaCounts: [3, 2, 3] }))).toBe(2);
    expect(replicationFactorOf(observed({ replicaCounts: [] }))).toBe(0);
  });
});
