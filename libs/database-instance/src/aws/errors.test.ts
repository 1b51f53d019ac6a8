import { TerminalError } from '@steward/controller';
import { describe, expect, it } from 'vitest';
import { RdsError, rdsCall, rdsErrorKind } from './errors.js';

const awsError = (name: string, message = 'boom') => Object.assign(new Error(message), { name });

describe('rdsCall maps RDS errors by name', () => {
  it.each([
    ['DBInstanceNotFoundFault', 'not-found'],
    ['DBInstanceNotFound', 'not-found'],
    ['DBInstanceAlreadyExistsFault', 'already-exists'],
    ['InvalidParameterValue', 'invalid-parameter'],
    ['InvalidParameterCombination', 'invalid-parameter'],
    ['StorageQuotaExceeded', 'quota'],
    ['AccessDenied', 'forbidden'],
    ['Throttling', 'retryable'],
    ['InvalidDBInstanceState', 'retryable'],
    ['InternalFailure', 'retryable'],
    ['ECONNRESET', 'retryable'],
  ])('%s → %s', (name, kind) => {
    expect(rdsErrorKind(awsError(name))).toBe(kind);
  });

  it('turns an invalid parameter into a TerminalError with AWS’s message', async () => {
    const error = await rdsCall('CreateDBInstance', () =>
      Promise.reject(awsError('InvalidParameterValue', 'engine nosuchdb not supported')),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).toMatchObject({ reason: 'InvalidParameter' });
    expect((error as Error).message).toContain('engine nosuchdb not supported');
  });

  it('hands not-found to the caller as an RdsError', async () => {
    const error = await rdsCall('DescribeDBInstances', () =>
      Promise.reject(awsError('DBInstanceNotFoundFault')),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RdsError);
    expect(error).toMatchObject({ kind: 'not-found' });
  });

  it('rethrows throttling as a plain (retried) error naming the call and the code', async () => {
    const throttled = awsError('Throttling', 'Rate exceeded');
    const error = await rdsCall('DescribeDBInstances', () => Promise.reject(throttled)).catch(
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(TerminalError);
    expect((error as Error).message).toBe('RDS DescribeDBInstances: Rate exceeded (Throttling)');
    expect((error as Error).cause).toBe(throttled);
  });

  it('never lets a secret through in a message', async () => {
    const error = await rdsCall(
      'CreateDBInstance',
      () => Promise.reject(awsError('InvalidParameterValue', 'bad password hunter22')),
      ['hunter22'],
    ).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain('hunter22');
    const retried = await rdsCall(
      'CreateDBInstance',
      () => Promise.reject(awsError('Throttling', 'echo hunter22')),
      ['hunter22'],
    ).catch((e: unknown) => e);
    expect((retried as Error).message).not.toContain('hunter22');
    expect((retried as Error).cause).toBeUndefined();
  });
});
