import { Priorities } from '@steward/controller';
import { describe, expect, it } from 'vitest';
import { nextLook, scalingEvent } from './status-cycle.js';

describe('scalingEvent', () => {
  it.each([
    [undefined, 'Scaling', undefined],
    ['Ready', 'Ready', undefined],
    ['Ready', 'Scaling', 'Scaling'],
    ['Scaling', 'Ready', 'Scaled'],
    ['Scaling', 'Degraded', 'Scaled'],
    ['Ready', 'Degraded', undefined],
  ])('%s → %s: %s', (before, after, reason) => {
    expect(scalingEvent(before, after, '3 desired, 2 ready')?.reason).toBe(reason);
  });
});

describe('nextLook', () => {
  const poll = { pollMs: 5000, busyMs: 1000 };
  it.each([
    ['settled: the poll', 'Ready', undefined, true, [], 5000, false],
    ['busy: the busy poll', 'Scaling', undefined, false, [], 1000, false],
    ["the plan's own time replaces the poll", 'Ready', 10_000, true, [], 10_000, false],
    ['another phase may ask for sooner', 'Ready', undefined, true, [2000, undefined], 2000, false],
    ['but not for later', 'Ready', undefined, true, [60_000], 5000, false],
    ['a failover goes ahead of bulk work', 'FailingOver', 200, false, [], 200, true],
    ['so does a switchover', 'SwitchingOver', undefined, false, [], 1000, true],
  ] as const)('%s', (_n, phase, planned, settled, sooner, after, urgent) => {
    const r = nextLook(phase, planned, settled, [...sooner], poll);
    expect(r.requeueAfter).toBe(after);
    expect(r.priority === Priorities.high).toBe(urgent);
  });
});
