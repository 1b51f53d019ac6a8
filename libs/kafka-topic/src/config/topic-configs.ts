/**
 * Kafka 4.1's topic-level configs (`org.apache.kafka.storage.internals.log.LogConfig`, the
 * "Topic-Level Configs" of the documentation) with their types and the ranges their validators
 * accept — the 33 keys a 4.1 broker reports for a topic. A value is parsed as Kafka's `ConfigDef`
 * parses it (trimmed; booleans in any case; integers with an optional sign) and checked against
 * the same bounds, so what passes here is what the broker accepts, key by key. Constraints across
 * keys (`min.compaction.lag.ms` ≤ `max.compaction.lag.ms`) are in `validateTopicConfig`; what
 * only the cluster knows (tiered storage enabled, a create policy) stays the broker's to refuse.
 */

const INT_MAX = 2n ** 31n - 1n;
const INT_MIN = -(2n ** 31n);
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

/** How Kafka types and validates one topic config. */
export type TopicConfigType =
  | { type: 'boolean' }
  | {
      type: 'int' | 'long';
      min?: bigint;
      max?: bigint;
      /** Values allowed outside [min, max] (e.g. -1 for "the codec's default level"). */
      also?: readonly bigint[];
    }
  | { type: 'double'; min: number; max: number }
  /** One of `values`, case-sensitive (`ValidString.in`). */
  | { type: 'enum'; values: readonly string[] }
  /** A comma-separated list of `values` (`ValidList.in`); empty allowed. */
  | { type: 'list'; values: readonly string[] }
  /** `*`, empty, or `partition:broker` pairs separated by commas (`ThrottledReplicaListValidator`). */
  | { type: 'throttled-replicas' };

const long = (min?: bigint, max?: bigint): TopicConfigType => ({
  type: 'long',
  ...(min !== undefined ? { min } : {}),
  ...(max !== undefined ? { max } : {}),
});
const int = (min?: bigint, max?: bigint, also?: readonly bigint[]): TopicConfigType => ({
  type: 'int',
  ...(min !== undefined ? { min } : {}),
  ...(max !== undefined ? { max } : {}),
  ...(also ? { also } : {}),
});
const bool: TopicConfigType = { type: 'boolean' };

/** Every topic-level config of Kafka 4.1, by key. */
export const TopicConfigs: Readonly<Record<string, TopicConfigType>> = {
  'cleanup.policy': { type: 'list', values: ['compact', 'delete'] },
  'compression.gzip.level': int(1n, 9n, [-1n]),
  'compression.lz4.level': int(1n, 17n),
  'compression.type': {
    type: 'enum',
    values: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
  },
  'compression.zstd.level': int(-131072n, 22n),
  'delete.retention.ms': long(0n),
  'file.delete.delay.ms': long(0n),
  'flush.messages': long(1n),
  'flush.ms': long(0n),
  'follower.replication.throttled.replicas': { type: 'throttled-replicas' },
  'index.interval.bytes': int(0n),
  'leader.replication.throttled.replicas': { type: 'throttled-replicas' },
  'local.retention.bytes': long(-2n),
  'local.retention.ms': long(-2n),
  'max.compaction.lag.ms': long(1n),
  'max.message.bytes': int(0n),
  'message.timestamp.after.max.ms': long(0n),
  'message.timestamp.before.max.ms': long(0n),
  'message.timestamp.type': { type: 'enum', values: ['CreateTime', 'LogAppendTime'] },
  'min.cleanable.dirty.ratio': { type: 'double', min: 0, max: 1 },
  'min.compaction.lag.ms': long(0n),
  'min.insync.replicas': int(1n),
  preallocate: bool,
  'remote.log.copy.disable': bool,
  'remote.log.delete.on.disable': bool,
  'remote.storage.enable': bool,
  'retention.bytes': long(),
  'retention.ms': long(-1n),
  'segment.bytes': int(1048576n),
  'segment.index.bytes': int(4n),
  'segment.jitter.ms': long(0n),
  'segment.ms': long(1n),
  'unclean.leader.election.enable': bool,
};

/** Topic configs Kafka 4.0 removed (KIP-724 and friends): a 4.x broker refuses them. */
export const RemovedTopicConfigs: Readonly<Record<string, string>> = {
  'message.format.version':
    'it was removed in Kafka 4.0 (every topic uses the v2 message format); remove it',
  'message.downconversion.enable': 'it was removed in Kafka 4.0; remove it',
  'message.timestamp.difference.max.ms':
    'it was removed in Kafka 4.0; use message.timestamp.before.max.ms and message.timestamp.after.max.ms',
};

/** A parsed value, or why it does not parse. */
export type Parsed =
  | { ok: true; value: boolean | bigint | number | string | readonly string[] }
  | { ok: false; expected: string };

const INTEGER = /^[+-]?\d+$/;
// Java's Double.parseDouble, minus hexadecimal, NaN and Infinity (no bound accepts them sensibly).
const DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/;
const THROTTLED_PAIR = /^\d+:\d+$/;

function range(t: { min?: bigint; max?: bigint }, typeMin: bigint, typeMax: bigint): string {
  const min = t.min ?? typeMin;
  const max = t.max ?? typeMax;
  if (min === typeMin && max === typeMax) return 'any';
  if (max === typeMax) return `at least ${min}`;
  if (min === typeMin) return `at most ${max}`;
  return `from ${min} to ${max}`;
}

/** What a value of `t` must look like, for messages: `an integer (int) from 1 to 9, or -1`. */
export function describeType(t: TopicConfigType): string {
  switch (t.type) {
    case 'boolean':
      return 'true or false';
    case 'int':
    case 'long': {
      const [lo, hi] = t.type === 'int' ? [INT_MIN, INT_MAX] : [LONG_MIN, LONG_MAX];
      const r = range(t, lo, hi);
      const also = t.also?.length ? `, or ${t.also.join(' or ')}` : '';
      return `an integer (${t.type})${r === 'any' ? '' : ` ${r}`}${also}`;
    }
    case 'double':
      return `a number from ${t.min} to ${t.max}`;
    case 'enum':
      return `one of ${t.values.join(', ')}`;
    case 'list':
      return `a comma-separated list of ${t.values.join(', ')}`;
    case 'throttled-replicas':
      return "'*' or a comma-separated list of partition:broker pairs such as 0:101,1:102";
  }
}

/** Parses and checks `raw` as Kafka's `ConfigDef` would for a config of type `t`. */
export function parseConfigValue(t: TopicConfigType, raw: string): Parsed {
  const text = raw.trim();
  const fail: Parsed = { ok: false, expected: describeType(t) };
  switch (t.type) {
    case 'boolean': {
      const lower = text.toLowerCase();
      return lower === 'true' || lower === 'false' ? { ok: true, value: lower === 'true' } : fail;
    }
    case 'int':
    case 'long': {
      if (!INTEGER.test(text)) return fail;
      const n = BigInt(text);
      const [lo, hi] = t.type === 'int' ? [INT_MIN, INT_MAX] : [LONG_MIN, LONG_MAX];
      if (n < lo || n > hi) return fail;
      if (t.also?.includes(n)) return { ok: true, value: n };
      if ((t.min !== undefined && n < t.min) || (t.max !== undefined && n > t.max)) return fail;
      return { ok: true, value: n };
    }
    case 'double': {
      if (!DOUBLE.test(text)) return fail;
      const n = Number(text.replace(/[dDfF]$/, ''));
      if (!Number.isFinite(n) || n < t.min || n > t.max) return fail;
      return { ok: true, value: n };
    }
    case 'enum':
      return t.values.includes(text) ? { ok: true, value: text } : fail;
    case 'list': {
      const items = text === '' ? [] : text.split(/\s*,\s*/);
      return items.every((i) => t.values.includes(i)) ? { ok: true, value: items } : fail;
    }
    case 'throttled-replicas': {
      if (text === '*' || text === '') return { ok: true, value: text };
      const items = text.split(/\s*,\s*/);
      return items.every((i) => THROTTLED_PAIR.test(i)) ? { ok: true, value: items } : fail;
    }
  }
}

/**
 * The value as a broker reports it back after parsing (`ConfigDef.convertToString`): `TRUE` →
 * `true`, ` +1000 ` → `1000`, `compact, delete` → `compact,delete`, `1` (a double) → `1.0`. Values
 * that do not parse, and unknown keys, are returned as they are.
 */
export function canonicalConfigValue(key: string, raw: string): string {
  const t = TopicConfigs[key];
  if (!t) return raw;
  const parsed = parseConfigValue(t, raw);
  if (!parsed.ok) return raw;
  const v = parsed.value;
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'number') return javaDoubleString(v);
  if (Array.isArray(v)) return v.join(',');
  return v as string;
}

/** Whether two values of `key` mean the same to Kafka (`retention.ms` ` 1000` and `+1000`). */
export function sameConfigValue(key: string, a: string, b: string): boolean {
  return canonicalConfigValue(key, a) === canonicalConfigValue(key, b);
}

/** `Double.toString` for the plain decimals config values use: `1` → `1.0`, `0.5` → `0.5`. */
function javaDoubleString(n: number): string {
  const s = String(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}
