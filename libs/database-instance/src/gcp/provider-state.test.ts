import { describe, expect, it } from 'vitest';
import { cloudSqlProviderState } from './provider-state.js';

describe('cloudSqlProviderState', () => {
  it.each<[string, string, string | undefined, string]>([
    ['PENDING_CREATE', 'ALWAYS', 'CREATE', 'creating'],
    ['PENDING_CREATE', 'ALWAYS', undefined, 'creating'],
    ['RUNNABLE', 'ALWAYS', undefined, 'available'],
    ['RUNNABLE', 'ALWAYS', 'CREATE', 'creating'],
    ['RUNNABLE', 'ALWAYS', 'UPDATE', 'modifying'],
    ['RUNNABLE', 'ALWAYS', 'BACKUP_VOLUME', 'backing-up'],
    ['RUNNABLE', 'ALWAYS', 'DELETE', 'deleting'],
    ['RUNNABLE', 'NEVER', undefined, 'stopped'],
    ['SUSPENDED', 'ALWAYS', undefined, 'stopped'],
    ['MAINTENANCE', 'ALWAYS', undefined, 'maintenance'],
    ['ONLINE_MAINTENANCE', 'ALWAYS', undefined, 'maintenance'],
    ['REPAIRING', 'ALWAYS', undefined, 'modifying'],
    ['PENDING_DELETE', 'ALWAYS', 'DELETE', 'deleting'],
    ['FAILED', 'ALWAYS', undefined, 'failed'],
    ['SQL_INSTANCE_STATE_UNSPECIFIED', 'ALWAYS', undefined, 'unknown'],
    ['SOMETHING_NEW', 'ALWAYS', undefined, 'unknown'],
  ])('%s (activation %s, operation %s) → %s', (state, activation, op, expected) => {
    expect(cloudSqlProviderState(state, activation, op)).toBe(expected);
  });
});
