import { describe, expect, it } from 'vitest';
import { failures, summarize, tierOf } from './summarize-tests.js';

describe('tierOf', () => {
  it.each([
    ['/w/libs/workqueue/src/queue.test.ts', 'unit'],
    ['/w/libs/testing/tests/control-plane.int.test.ts', 'integration'],
    ['/w/e2e/kafka-topic/tests/lifecycle.test.ts', 'e2e'],
  ] as const)('%s is %s', (file, tier) => {
    expect(tierOf(file)).toBe(tier);
  });
});

describe('summarize', () => {
  it('counts tests per tier and in total', () => {
    const summary = summarize([
      {
        testResults: [
          {
            name: 'a/queue.test.ts',
            assertionResults: [{ status: 'passed' }, { status: 'skipped' }],
          },
          {
            name: 'a/x.int.test.ts',
            assertionResults: [{ status: 'passed' }, { status: 'failed' }],
          },
        ],
      },
      { testResults: [{ name: 'e2e/y/z.test.ts', assertionResults: [{ status: 'pending' }] }] },
    ]);
    expect(summary.unit).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(summary.integration).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(summary.e2e).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(summary.total).toEqual({ passed: 2, failed: 1, skipped: 2 });
  });

  it('counts a file that failed before any test ran as a failure', () => {
    const summary = summarize([
      {
        testResults: [
          { name: 'a/b.int.test.ts', status: 'failed', assertionResults: [{ status: 'skipped' }] },
        ],
      },
    ]);
    expect(summary.integration.failed).toBe(1);
  });
});

describe('failures', () => {
  it('names each failed test with its error, and a file that failed before its tests', () => {
    const lines = failures(
      [
        {
          testResults: [
            {
              name: '/w/libs/a/tests/x.int.test.ts',
              status: 'failed',
              assertionResults: [
                { status: 'passed', fullName: 'x works' },
                {
                  status: 'failed',
                  fullName: 'x fails',
                  failureMessages: ['\nAssertionError: expected 1 to be 2\n    at file.ts:3'],
                },
              ],
            },
            {
              name: '/w/libs/b/tests/y.int.test.ts',
              status: 'failed',
              message: 'Hook timed out in 60000ms',
              assertionResults: [{ status: 'skipped', fullName: 'y' }],
            },
          ],
        },
      ],
      '/w/',
    );
    expect(lines).toEqual([
      'libs/a/tests/x.int.test.ts > x fails: AssertionError: expected 1 to be 2',
      'libs/b/tests/y.int.test.ts: Hook timed out in 60000ms',
    ]);
  });
});
