import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configStatus, planConfig, type ConfigPlanInput } from './plan-config.js';
import { sameConfigValue } from './topic-configs.js';

describe('planConfig', () => {
  it('sets new keys and leaves the overrides Steward never managed as they are', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '1000' },
      managed: {},
      overrides: { 'segment.ms': '60000' },
    });
    expect(plan).toMatchObject({
      set: { 'retention.ms': '1000' },
      drifted: [],
      reset: [],
      untouched: ['segment.ms'],
      alter: { 'segment.ms': '60000', 'retention.ms': '1000' },
      changed: true,
    });
  });

  it('changes only the key whose value changed in the spec', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '2000', 'cleanup.policy': 'compact' },
      managed: { 'retention.ms': '1000', 'cleanup.policy': 'compact' },
      overrides: { 'retention.ms': '1000', 'cleanup.policy': 'compact', 'x.outside': 'y' },
    });
    expect(plan.set).toEqual({ 'retention.ms': '2000' });
    expect(plan.drifted).toEqual([]);
    expect(plan.alter).toEqual({
      'x.outside': 'y',
      'retention.ms': '2000',
      'cleanup.policy': 'compact',
    });
  });

  it('corrects drift on managed keys: a value changed or removed outside', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '1000', 'segment.ms': '60000' },
      managed: { 'retention.ms': '1000', 'segment.ms': '60000' },
      overrides: { 'retention.ms': '5' },
    });
    expect(plan.set).toEqual({ 'retention.ms': '1000', 'segment.ms': '60000' });
    expect(plan.drifted).toEqual(['retention.ms', 'segment.ms']);
  });

  it('resets a managed key removed from the spec, and only that one', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '1000' },
      managed: { 'retention.ms': '1000', 'segment.ms': '60000' },
      overrides: { 'retention.ms': '1000', 'segment.ms': '60000', 'x.outside': 'y' },
    });
    expect(plan.reset).toEqual(['segment.ms']);
    expect(plan.set).toEqual({});
    expect(plan.alter).toEqual({ 'x.outside': 'y', 'retention.ms': '1000' });
    expect(plan.changed).toBe(true);
  });

  it('does nothing when every managed key matches, however the broker spells it', () => {
    const plan = planConfig({
      desired: { preallocate: 'TRUE', 'cleanup.policy': 'compact, delete' },
      managed: { preallocate: 'true', 'cleanup.policy': 'compact,delete' },
      overrides: { preallocate: 'true', 'cleanup.policy': 'compact,delete', 'x.outside': 'y' },
    });
    expect(plan.changed).toBe(false);
    expect(plan.set).toEqual({});
  });

  it('takes over an override that already has the spec’s value without changing anything', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '1000' },
      managed: {},
      overrides: { 'retention.ms': '1000' },
    });
    expect(plan.changed).toBe(false);
  });

  it('reports untouched overrides whose values are hidden: they cannot be sent back', () => {
    const plan = planConfig({
      desired: { 'retention.ms': '1000' },
      managed: {},
      overrides: { 'x.secret': null },
    });
    expect(plan.hidden).toEqual(['x.secret']);
    expect(plan.alter).toEqual({ 'retention.ms': '1000' });
  });
});

describe('configStatus', () => {
  it('records the managed keys with the broker’s spelling, and removes keys no longer managed', () => {
    expect(
      configStatus({
        desired: { preallocate: 'TRUE', 'retention.ms': '2000' },
        managed: { preallocate: 'true', 'segment.ms': '60000' },
        overrides: { preallocate: 'true', 'retention.ms': '1000', 'segment.ms': '60000' },
      }),
    ).toEqual({ preallocate: 'true', 'retention.ms': '2000', 'segment.ms': null });
  });
});

// Keys from a small alphabet so that desired, managed and overrides overlap often.
const key = fc.constantFrom('retention.ms', 'segment.ms', 'x.a', 'x.b', 'x.c', 'x.d');
const value = fc.constantFrom('1', '2', '3');
const configMap = fc.dictionary(key, value, { maxKeys: 6 });

const input: fc.Arbitrary<ConfigPlanInput> = fc.record({
  desired: configMap,
  managed: configMap,
  overrides: configMap,
});

describe('planConfig (properties)', () => {
  it('after AlterConfigs with `alter`, the topic has every desired value and nothing is left to do', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = planConfig(i);
        const after = plan.alter;
        for (const [k, v] of Object.entries(i.desired))
          expect(sameConfigValue(k, after[k]!, v)).toBe(true);
        const status = configStatus(i);
        const managedAfter = Object.fromEntries(
          Object.entries(status).filter((e): e is [string, string] => e[1] !== null),
        );
        expect(
          planConfig({ desired: i.desired, managed: managedAfter, overrides: after }).changed,
        ).toBe(false);
      }),
    );
  });

  it('never touches a key Steward does not manage: it keeps its value', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = planConfig(i);
        for (const k of Object.keys(i.overrides)) {
          if (!(k in i.desired) && !(k in i.managed)) expect(plan.alter[k]).toBe(i.overrides[k]);
        }
      }),
    );
  });

  it('removes exactly the managed keys that left the spec', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = planConfig(i);
        for (const k of Object.keys(i.managed)) {
          if (!(k in i.desired)) expect(k in plan.alter).toBe(false);
        }
        expect(plan.changed).toBe(Object.keys(plan.set).length > 0 || plan.reset.length > 0);
      }),
    );
  });
});
