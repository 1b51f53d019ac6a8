import { isTerminalError, type TerminalError } from '@steward/controller';
import { describe, expect, it } from 'vitest';
import {
  canonicalConfigValue,
  configProblems,
  sameConfigValue,
  TopicConfigs,
  validateTopicConfig,
} from './index.js';

/** The topic configs a Kafka 4.1.2 broker lists in DescribeConfigs for a new topic. */
const Kafka41TopicConfigs = [
  'cleanup.policy',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.type',
  'compression.zstd.level',
  'delete.retention.ms',
  'file.delete.delay.ms',
  'flush.messages',
  'flush.ms',
  'follower.replication.throttled.replicas',
  'index.interval.bytes',
  'leader.replication.throttled.replicas',
  'local.retention.bytes',
  'local.retention.ms',
  'max.compaction.lag.ms',
  'max.message.bytes',
  'message.timestamp.after.max.ms',
  'message.timestamp.before.max.ms',
  'message.timestamp.type',
  'min.cleanable.dirty.ratio',
  'min.compaction.lag.ms',
  'min.insync.replicas',
  'preallocate',
  'remote.log.copy.disable',
  'remote.log.delete.on.disable',
  'remote.storage.enable',
  'retention.bytes',
  'retention.ms',
  'segment.bytes',
  'segment.index.bytes',
  'segment.jitter.ms',
  'segment.ms',
  'unclean.leader.election.enable',
];

function invalid(config: Record<string, string>): TerminalError {
  try {
    validateTopicConfig(config);
  } catch (error) {
    if (isTerminalError(error)) return error;
    throw error;
  }
  throw new Error('expected InvalidConfig');
}

describe('TopicConfigs', () => {
  it('knows exactly the topic configs of Kafka 4.1', () => {
    expect(Object.keys(TopicConfigs).sort()).toEqual(Kafka41TopicConfigs);
  });
});

describe('validateTopicConfig', () => {
  it.each<[string, string]>([
    ['cleanup.policy', 'compact'],
    ['cleanup.policy', 'compact,delete'],
    ['cleanup.policy', ' delete , compact '],
    ['cleanup.policy', ''],
    ['retention.ms', '604800000'],
    ['retention.ms', '-1'],
    ['retention.ms', ' +1000 '],
    ['retention.bytes', '-1'],
    ['retention.bytes', '1073741824'],
    ['segment.bytes', '1048576'],
    ['segment.bytes', '2147483647'],
    ['min.insync.replicas', '2'],
    ['max.message.bytes', '0'],
    ['compression.type', 'zstd'],
    ['compression.gzip.level', '-1'],
    ['compression.gzip.level', '9'],
    ['compression.zstd.level', '-131072'],
    ['min.cleanable.dirty.ratio', '0.5'],
    ['min.cleanable.dirty.ratio', '1'],
    ['min.cleanable.dirty.ratio', '1e-1'],
    ['unclean.leader.election.enable', 'TRUE'],
    ['preallocate', 'false'],
    ['message.timestamp.type', 'LogAppendTime'],
    ['flush.messages', '9223372036854775807'],
    ['local.retention.ms', '-2'],
    ['leader.replication.throttled.replicas', '*'],
    ['follower.replication.throttled.replicas', '0:101, 1:102'],
    ['follower.replication.throttled.replicas', ''],
  ])('accepts %s=%j', (key, value) => {
    expect(configProblems({ [key]: value })).toEqual([]);
    expect(() => validateTopicConfig({ [key]: value })).not.toThrow();
  });

  it.each<[string, string, string]>([
    ['retention.ms', 'abc', 'an integer (long) at least -1'],
    ['retention.ms', '-2', 'an integer (long) at least -1'],
    ['retention.ms', '1.5', 'an integer (long)'],
    ['retention.ms', '7d', 'an integer (long)'],
    ['retention.bytes', '9223372036854775808', 'an integer (long)'],
    ['segment.bytes', '1000', 'an integer (int) at least 1048576'],
    ['segment.bytes', '2147483648', 'an integer (int) at least 1048576'],
    ['min.insync.replicas', '0', 'an integer (int) at least 1'],
    ['max.message.bytes', '-1', 'an integer (int) at least 0'],
    ['compression.gzip.level', '0', 'an integer (int) from 1 to 9, or -1'],
    ['compression.lz4.level', '18', 'an integer (int) from 1 to 17'],
    ['compression.type', 'ZSTD', 'one of uncompressed, zstd, lz4, snappy, gzip, producer'],
    ['compression.type', 'brotli', 'one of uncompressed, zstd'],
    ['cleanup.policy', 'compact,forever', 'a comma-separated list of compact, delete'],
    ['min.cleanable.dirty.ratio', '1.5', 'a number from 0 to 1'],
    ['min.cleanable.dirty.ratio', 'NaN', 'a number from 0 to 1'],
    ['unclean.leader.election.enable', 'yes', 'true or false'],
    ['message.timestamp.type', 'createtime', 'one of CreateTime, LogAppendTime'],
    ['leader.replication.throttled.replicas', '0-101', "'*' or a comma-separated list"],
    ['segment.ms', '0', 'an integer (long) at least 1'],
  ])('refuses %s=%j, naming the key, the value and what is expected', (key, value, expected) => {
    const error = invalid({ [key]: value });
    expect(error.reason).toBe('InvalidConfig');
    expect(error.message).toContain(`spec.config.${key}: "${value}" is not valid; expected`);
    expect(error.message).toContain(expected);
  });

  it.each<[string, string]>([
    ['retention.msx', 'did you mean retention.ms?'],
    ['rentention.ms', 'did you mean retention.ms?'],
    ['min.insync.replica', 'did you mean min.insync.replicas?'],
    [
      'log.retention.ms',
      'log.retention.ms is a broker setting; the topic-level config is retention.ms',
    ],
    ['log.cleanup.policy', 'the topic-level config is cleanup.policy'],
  ])('refuses the unknown key %s with a hint: %s', (key, hint) => {
    const error = invalid({ [key]: '1000' });
    expect(error.message).toContain(
      `spec.config.${key} ("1000"): ${key} is not a topic-level config of Kafka 4.1`,
    );
    expect(error.message).toContain(hint);
  });

  it('refuses an unknown key with no close match without a hint', () => {
    expect(invalid({ 'acme.tier': 'gold' }).message).toBe(
      'spec.config is not valid for Kafka 4.1: spec.config.acme.tier ("gold"): acme.tier is not a topic-level config of Kafka 4.1',
    );
  });

  it.each([
    'message.format.version',
    'message.downconversion.enable',
    'message.timestamp.difference.max.ms',
  ])('refuses %s, which Kafka 4.0 removed', (key) => {
    expect(invalid({ [key]: '3.0' }).message).toContain('removed in Kafka 4.0');
  });

  it('refuses min.compaction.lag.ms above max.compaction.lag.ms', () => {
    expect(
      invalid({ 'min.compaction.lag.ms': '1000', 'max.compaction.lag.ms': '10' }).message,
    ).toContain(
      'spec.config.min.compaction.lag.ms ("1000") is greater than spec.config.max.compaction.lag.ms ("10")',
    );
  });

  it('lists every problem at once, in key order', () => {
    const error = invalid({ 'segment.bytes': '1', 'cleanup.policy': 'never', 'retention.ms': '1' });
    expect(error.message).toBe(
      'spec.config is not valid for Kafka 4.1: spec.config.cleanup.policy: "never" is not valid; expected a comma-separated list of compact, delete; spec.config.segment.bytes: "1" is not valid; expected an integer (int) at least 1048576',
    );
  });

  it('accepts no config at all', () => {
    expect(() => validateTopicConfig(undefined)).not.toThrow();
    expect(() => validateTopicConfig({})).not.toThrow();
  });
});

describe('canonicalConfigValue and sameConfigValue', () => {
  // What a Kafka 4.1 broker reported back after a create with these values.
  it.each<[string, string, string]>([
    ['preallocate', 'TRUE', 'true'],
    ['retention.ms', ' +1000 ', '1000'],
    ['cleanup.policy', 'compact, delete', 'compact,delete'],
    ['min.cleanable.dirty.ratio', '1', '1.0'],
    ['min.cleanable.dirty.ratio', '0.50', '0.5'],
    ['compression.type', ' zstd ', 'zstd'],
  ])('%s %j is %j as the broker spells it', (key, given, reported) => {
    expect(canonicalConfigValue(key, given)).toBe(reported);
    expect(sameConfigValue(key, given, reported)).toBe(true);
  });

  it('tells different values apart, and list order matters as it does to Kafka', () => {
    expect(sameConfigValue('retention.ms', '1000', '1001')).toBe(false);
    expect(sameConfigValue('cleanup.policy', 'compact,delete', 'delete,compact')).toBe(false);
  });

  it('compares unknown keys and unparsable values as text', () => {
    expect(sameConfigValue('acme.tier', 'gold', 'gold')).toBe(true);
    expect(canonicalConfigValue('retention.ms', 'abc')).toBe('abc');
  });
});
