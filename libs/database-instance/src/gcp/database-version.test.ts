import { describe, expect, it } from 'vitest';
import { type Engine } from '@steward/database-instance-api';
import { cloudSqlDatabaseVersion, enginePort } from './database-version.js';

describe('cloudSqlDatabaseVersion', () => {
  it.each<[Engine, string, string | undefined]>([
    ['postgres', '16', 'POSTGRES_16'],
    ['postgres', '16.4', 'POSTGRES_16'],
    ['postgres', '15.7.1', 'POSTGRES_15'],
    ['postgres', '9.6', 'POSTGRES_9_6'],
    ['postgres', '10', 'POSTGRES_10'],
    ['postgres', '9', undefined],
    ['postgres', '9.5', undefined],
    ['postgres', '8', undefined],
    ['postgres', '99', undefined],
    ['mysql', '8.0', 'MYSQL_8_0'],
    ['mysql', '8.4', 'MYSQL_8_4'],
    ['mysql', '5.7', 'MYSQL_5_7'],
    ['mysql', '8.0.35', 'MYSQL_8_0_35'],
    ['mysql', '8', undefined],
    ['mysql', '5.5', undefined],
    ['mysql', '8.0.29', undefined],
    ['mysql', '8.0.99', undefined],
    ['mysql', '16', undefined],
    ['postgres', '16.x', undefined],
  ])('%s %s → %s', (engine, version, expected) => {
    expect(cloudSqlDatabaseVersion(engine, version)).toBe(expected);
  });

  it('knows each engine’s port', () => {
    expect(enginePort('postgres')).toBe(5432);
    expect(enginePort('mysql')).toBe(3306);
  });
});
