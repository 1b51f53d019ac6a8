import { isTerminalError } from '@steward/controller';
import { ExternalAnnotations } from '@steward/external';
import { type KafkaTopic } from '@steward/kafka-topic-api';
import { describe, expect, it } from 'vitest';
import { resolveTopicName, topicNameOf, topicNameProblem } from './topic-name.js';

const topic = (
  name: string,
  topicName?: string,
  annotations?: Record<string, string>,
): KafkaTopic => ({
  apiVersion: 'kafka.steward.dev/v1alpha1',
  kind: 'KafkaTopic',
  metadata: { name, namespace: 'shop', ...(annotations ? { annotations } : {}) },
  spec: {
    providerProfileRef: { name: 'events' },
    partitions: 1,
    ...(topicName !== undefined ? { topicName } : {}),
  },
});

describe('topicNameProblem', () => {
  it.each(['orders', 'Orders_v2.EU-west', 'a', 'a'.repeat(249), '...', '_', '-', '0'])(
    'accepts %s',
    (name) => expect(topicNameProblem(name)).toBeUndefined(),
  );

  it.each([
    ['', 'it is empty'],
    ['.', "'.' is reserved"],
    ['..', "'..' is reserved"],
    ['a'.repeat(250), 'it is 250 characters long; Kafka allows at most 249'],
    ['orders/v1', "Kafka allows only ASCII letters, digits, '.', '_' and '-' in topic names"],
    ['my topic', 'Kafka allows only'],
    ['ördrë', 'Kafka allows only'],
    ['a:b', 'Kafka allows only'],
  ])('refuses %j: %s', (name, problem) => {
    expect(topicNameProblem(name)).toContain(problem);
  });
});

describe('topicNameOf and resolveTopicName', () => {
  it('defaults to metadata.name', () => {
    expect(resolveTopicName(topic('orders'))).toBe('orders');
  });

  it('takes spec.topicName over metadata.name', () => {
    expect(resolveTopicName(topic('orders', 'Orders.v2'))).toBe('Orders.v2');
  });

  it('takes the recorded external name over both: once recorded it never changes', () => {
    const obj = topic('orders', 'orders-v2', { [ExternalAnnotations.externalName]: 'orders-v1' });
    expect(topicNameOf(obj)).toBe('orders-v1');
    expect(resolveTopicName(obj)).toBe('orders-v1');
  });

  it('reports an illegal name as InvalidTopicName, naming the field it came from', () => {
    const fromName = (() => {
      try {
        resolveTopicName(topic('x'.repeat(250)));
      } catch (error) {
        return error;
      }
    })();
    expect(isTerminalError(fromName) && fromName.reason).toBe('InvalidTopicName');
    expect((fromName as Error).message).toContain('metadata.name (the default of spec.topicName)');
    expect(() => resolveTopicName(topic('orders', 'a/b'))).toThrow(
      'topic name "a/b" from spec.topicName is not a legal Kafka topic name',
    );
  });
});
