import { describe, expect, it } from 'vitest';
import { type PgSetting } from '../pg/index.js';
import { renderPostgresqlConf } from '../children/config.js';
import { appliedParameters, parameterRefusal, parameterRefusals } from './parameters.js';

/** Rows as PostgreSQL 17's pg_settings has them. */
const settings: PgSetting[] = [
  { name: 'work_mem', vartype: 'integer', minVal: '64', maxVal: '2147483647', unit: 'kB' },
  { name: 'shared_buffers', vartype: 'integer', minVal: '16', maxVal: '1073741823', unit: '8kB' },
  { name: 'statement_timeout', vartype: 'integer', minVal: '0', maxVal: '2147483647', unit: 'ms' },
  { name: 'max_connections', vartype: 'integer', minVal: '1', maxVal: '262143' },
  { name: 'random_page_cost', vartype: 'real', minVal: '0', maxVal: '1.79769e+308' },
  { name: 'log_connections', vartype: 'bool' },
  { name: 'wal_compression', vartype: 'enum', enumvals: ['pglz', 'lz4', 'zstd', 'on', 'off'] },
  { name: 'application_name', vartype: 'string' },
];
const byName = (n: string) => settings.find((s) => s.name === n);

describe('parameterRefusal (PostgreSQL’s own parameter list)', () => {
  it.each([
    ['work_mem', '64MB'],
    ['work_mem', '4096'],
    ['work_mem', '1GB'],
    ['shared_buffers', '128MB'],
    ['shared_buffers', '16384'],
    ['statement_timeout', '30s'],
    ['statement_timeout', '2min'],
    ['statement_timeout', '0'],
    ['max_connections', '200'],
    ['random_page_cost', '1.1'],
    ['log_connections', 'on'],
    ['log_connections', 'TRUE'],
    ['log_connections', 'of'],
    ['log_connections', '1'],
    ['wal_compression', 'LZ4'],
    ['application_name', 'anything at all'],
    ['pg_stat_statements.max', '10000'],
  ])('accepts %s = %s', (name, value) => {
    expect(parameterRefusal(name, value, byName(name))).toBeUndefined();
  });
  it.each([
    [
      'work_mem',
      'lots',
      'work_mem takes a whole number with an optional unit (B, kB, MB, GB, TB) in 64..2147483647 kB, not "lots"',
    ],
    ['work_mem', '32kB', 'work_mem "32kB" is outside 64..2147483647 kB'],
    [
      'work_mem',
      '10s',
      'work_mem takes a whole number with an optional unit (B, kB, MB, GB, TB) in 64..2147483647 kB, not "10s"',
    ],
    ['shared_buffers', '100kB', 'shared_buffers "100kB" is outside 16..1073741823 8kB'],
    ['max_connections', '10MB', 'max_connections takes a whole number in 1..262143, not "10MB"'],
    ['max_connections', '0', 'max_connections "0" is outside 1..262143'],
    ['log_connections', 'o', 'log_connections takes on or off, not "o"'],
    ['log_connections', 'maybe', 'log_connections takes on or off, not "maybe"'],
    [
      'wal_compression',
      'gzip',
      'wal_compression takes one of pglz, lz4, zstd, on, off, not "gzip"',
    ],
    ['not_a_setting', '1', 'PostgreSQL has no parameter not_a_setting'],
  ])('refuses %s = %s', (name, value, why) => {
    expect(parameterRefusal(name, value, byName(name))).toBe(why);
  });
  it('checks every parameter, sorted by name', () => {
    expect(
      parameterRefusals({ work_mem: 'lots', log_connections: 'on', zz_unknown: 'x' }, settings),
    ).toEqual([
      'work_mem takes a whole number with an optional unit (B, kB, MB, GB, TB) in 64..2147483647 kB, not "lots"',
      'PostgreSQL has no parameter zz_unknown',
    ]);
  });
});

describe('appliedParameters', () => {
  it('reads back what was rendered: rendered again as spec.parameters, the same file', () => {
    const cluster = {
      apiVersion: 'postgres.steward.dev/v1alpha1',
      kind: 'PostgresCluster',
      metadata: { name: 'db', namespace: 'shop' },
      spec: { version: '17', parameters: { work_mem: '64MB', application_name: "it's \\ odd" } },
    } as never;
    const conf = renderPostgresqlConf({ cluster } as never);
    const applied = appliedParameters(conf);
    expect(applied).toMatchObject({ work_mem: '64MB', application_name: "it's \\ odd" });
    const again = renderPostgresqlConf({
      cluster: { ...(cluster as object), spec: { version: '17', parameters: applied } },
    } as never);
    expect(again).toBe(conf);
  });
  it('an unknown file says nothing', () => {
    expect(appliedParameters('listen_addresses = *')).toEqual({});
  });
});
