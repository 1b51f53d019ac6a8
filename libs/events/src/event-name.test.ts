import { describe, expect, it } from 'vitest';
import { eventName } from './event-name.js';

const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe('eventName', () => {
  it('is the regarding name, a dot and 16 random hex digits', () => {
    expect(eventName('pg-main')).toMatch(/^pg-main\.[0-9a-f]{16}$/);
    expect(eventName('pg-main')).not.toBe(eventName('pg-main'));
  });

  it.each([
    ['a very long name', 'n'.repeat(253)],
    ['a name a subdomain cannot hold', 'system:controller:Foo_Bar'],
    ['a name ending in separators', 'abc-.'],
    ['an empty name', ''],
  ])('is a valid DNS subdomain of at most 253 characters for %s', (_case, name) => {
    const result = eventName(name);
    expect(result.length).toBeLessThanOrEqual(253);
    expect(result).toMatch(subdomain);
  });
});
