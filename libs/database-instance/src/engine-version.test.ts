import { describe, expect, it } from 'vitest';
import { checkVersionUnchanged, majorVersion, versionChanged } from './engine-version.js';

describe('majorVersion', () => {
  it.each([
    ['postgres', '16', '16'],
    ['postgres', '16.4', '16'],
    ['postgres', 'POSTGRES_16', '16'],
    ['postgres', '9.6.24', '9.6'],
    ['postgres', 'POSTGRES_9_6', '9.6'],
    ['mysql', '8.0.35', '8.0'],
    ['mysql', 'MYSQL_8_0_35', '8.0'],
    ['mysql', 'MYSQL_8_4', '8.4'],
    ['mysql', '8', undefined],
    ['postgres', 'latest', undefined],
  ] as const)('%s %s → %s', (engine, version, major) => {
    expect(majorVersion(engine, version)).toBe(major);
  });
});

describe('checkVersionUnchanged', () => {
  it('lets minor versions differ: they are the provider’s', () => {
    expect(() => checkVersionUnchanged('aws', 'postgres', '16', '16.6')).not.toThrow();
    expect(() => checkVersionUnchanged('aws', 'postgres', '16.4', '16.6')).not.toThrow();
    expect(() => checkVersionUnchanged('gcp', 'mysql', '8.0.35', 'MYSQL_8_0_36')).not.toThrow();
    expect(() => checkVersionUnchanged('gcp', 'postgres', '16', undefined)).not.toThrow();
  });

  it('refuses a major change as NotSupported, naming field, versions and provider', () => {
    expect(() => checkVersionUnchanged('aws', 'postgres', '17', '16.4')).toThrow(
      expect.objectContaining({
        reason: 'NotSupported',
        message: expect.stringMatching(
          /^spec\.version 17 asks for postgres 17 but the instance runs 16 \(16\.4\): the aws provider does not change/,
        ),
      }),
    );
    expect(versionChanged('mysql', '8.4', 'MYSQL_8_0')).toBe(true);
    expect(versionChanged('mysql', '8.0', 'MYSQL_8_0_31')).toBe(false);
  });
});
