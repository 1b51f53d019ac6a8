import { sameConfigValue } from './topic-configs.js';

/** What `planConfig` compares. */
export interface ConfigPlanInput {
  /** `spec.config`: the keys Steward manages and their values. */
  desired: Readonly<Record<string, string>>;
  /**
   * `status.config`: the keys Steward managed as of its last status write, with the values it saw
   * on the topic. A key here but no longer in `desired` was removed from the spec.
   */
  managed: Readonly<Record<string, string>>;
  /**
   * The topic's dynamic overrides now (DescribeConfigs entries whose source is the topic's own
   * config); `null` for a value the broker hides (sensitive).
   */
  overrides: Readonly<Record<string, string | null>>;
}

/** What to change in a topic's config, and what to leave alone. */
export interface ConfigPlan {
  /** Keys to set, with the spec's value: new or changed in the spec, or changed/removed outside. */
  set: Record<string, string>;
  /** The keys of `set` that Steward managed already and someone changed or removed outside. */
  drifted: string[];
  /** Keys removed from the spec that Steward managed and the topic still overrides: reset to the cluster default. */
  reset: string[];
  /** Overrides Steward never managed: left as they are (sent back unchanged by `alter`). */
  untouched: string[];
  /**
   * Every override the topic must have afterwards — AlterConfigs (the only config call kafkajs
   * 2.2.4 has) replaces a topic's overrides as a whole: its current overrides without `reset`,
   * with `set` applied.
   */
  alter: Record<string, string>;
  /** Untouched overrides whose value the broker hides: AlterConfigs cannot send them back. */
  hidden: string[];
  /** Whether anything changes (`set` or `reset` non-empty). */
  changed: boolean;
}

/**
 * Plans a topic's config (pure): managed keys (those of `spec.config`) converge to the spec —
 * drift made outside included —; keys removed from the spec that Steward set are reset; keys
 * Steward never managed are left alone. Values compare as the broker parses them, so `TRUE` and
 * `true` are the same.
 */
export function planConfig(input: ConfigPlanInput): ConfigPlan {
  const { desired, managed, overrides } = input;
  const set: Record<string, string> = {};
  const drifted: string[] = [];
  for (const key of Object.keys(desired).sort()) {
    const want = desired[key]!;
    const have = overrides[key];
    if (have !== undefined && have !== null && sameConfigValue(key, have, want)) continue;
    set[key] = want;
    const seen = managed[key];
    if (
      seen !== undefined &&
      (have === undefined || have === null || !sameConfigValue(key, have, seen))
    )
      drifted.push(key);
  }
  const reset = Object.keys(managed)
    .filter((key) => !(key in desired) && key in overrides)
    .sort();
  const untouched = Object.keys(overrides)
    .filter((key) => !(key in desired) && !(key in managed))
    .sort();
  const alter: Record<string, string> = {};
  const hidden: string[] = [];
  for (const key of untouched) {
    const value = overrides[key];
    if (value === null || value === undefined) hidden.push(key);
    else alter[key] = value;
  }
  for (const key of Object.keys(desired).sort()) {
    const have = overrides[key];
    alter[key] = key in set || have === null || have === undefined ? desired[key]! : have;
  }
  return {
    set,
    drifted,
    reset,
    untouched,
    alter,
    hidden,
    changed: Object.keys(set).length > 0 || reset.length > 0,
  };
}

/**
 * `status.config` once the plan is applied: each key of the spec with its value on the topic (as
 * the broker spells it when it already matches, else the spec's), and `null` for keys that were
 * managed and no longer are — a merge patch removes them from status.
 */
export function configStatus(input: ConfigPlanInput): Record<string, string | null> {
  const { desired, managed, overrides } = input;
  const status: Record<string, string | null> = {};
  for (const key of Object.keys(desired).sort()) {
    const have = overrides[key];
    status[key] =
      have !== undefined && have !== null && sameConfigValue(key, have, desired[key]!)
        ? have
        : desired[key]!;
  }
  for (const key of Object.keys(managed)) if (!(key in desired)) status[key] = null;
  return status;
}
