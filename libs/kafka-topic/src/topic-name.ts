import { TerminalError } from '@steward/controller';
import { ExternalAnnotations } from '@steward/external';
import { type KafkaTopic, TOPIC_NAME_MAX_LENGTH } from '@steward/kafka-topic-api';
import { KafkaTopicReasons } from './reasons.js';

const LEGAL = /^[a-zA-Z0-9._-]+$/;

/**
 * Why Kafka would refuse `name` as a topic name (`org.apache.kafka.common.internals.Topic.validate`),
 * or undefined when it is legal: 1..249 characters of letters, digits, `.`, `_` and `-`, and
 * not `.` or `..`.
 */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name === '.' || name === '..') return `'${name}' is reserved`;
  if (name.length > TOPIC_NAME_MAX_LENGTH)
    return `it is ${name.length} characters long; Kafka allows at most ${TOPIC_NAME_MAX_LENGTH}`;
  if (!LEGAL.test(name))
    return "Kafka allows only ASCII letters, digits, '.', '_' and '-' in topic names";
  return undefined;
}

/**
 * The topic an object names, without judging it: the external name recorded on the object (once
 * recorded it never changes), else `spec.topicName`, else `metadata.name`.
 */
export function topicNameOf(obj: KafkaTopic): string {
  return (
    obj.metadata.annotations?.[ExternalAnnotations.externalName] ??
    obj.spec.topicName ??
    obj.metadata.name ??
    ''
  );
}

/**
 * The topic name of an object, as `topicNameOf`, or `TerminalError('InvalidTopicName')` naming the
 * field and the problem when Kafka would refuse it (admission catches these; this is for objects
 * admitted by an older CRD, or names Kafka's own rules change).
 */
export function resolveTopicName(obj: KafkaTopic): string {
  const name = topicNameOf(obj);
  const problem = topicNameProblem(name);
  if (problem) {
    const field = obj.metadata.annotations?.[ExternalAnnotations.externalName]
      ? `the ${ExternalAnnotations.externalName} annotation`
      : obj.spec.topicName !== undefined
        ? 'spec.topicName'
        : 'metadata.name (the default of spec.topicName)';
    throw new TerminalError(
      KafkaTopicReasons.InvalidTopicName,
      `topic name "${name}" from ${field} is not a legal Kafka topic name: ${problem}`,
    );
  }
  return name;
}
