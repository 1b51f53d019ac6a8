import { describe, expect, it } from 'vitest';
import { walArchivingOf } from './wal-archiving.js';

describe('walArchivingOf', () => {
  const base = { archivedCount: 0, failedCount: 0, readySegments: 0 };
  it.each([
    ['never archived, never failed', base, false],
    [
      'archiving, no failure',
      { ...base, archivedCount: 9, lastArchivedAt: '2026-12-07T01:00:00.000Z' },
      false,
    ],
    [
      'failing since the last success',
      {
        ...base,
        archivedCount: 9,
        failedCount: 4,
        lastArchivedAt: '2026-12-07T01:00:00.000Z',
        lastFailedAt: '2026-12-07T01:05:00.000Z',
        lastFailedWal: '00000001000000000000000A',
        readySegments: 3,
      },
      true,
    ],
    [
      'failed once, then archived again',
      {
        ...base,
        archivedCount: 10,
        failedCount: 1,
        lastFailedAt: '2026-12-07T01:05:00.000Z',
        lastArchivedAt: '2026-12-07T01:06:00.000Z',
      },
      false,
    ],
    [
      'failing and never archived',
      { ...base, failedCount: 2, lastFailedAt: '2026-12-07T01:05:00.000Z', readySegments: 1 },
      true,
    ],
  ])('%s', (_name, archiver, failing) => {
    const out = walArchivingOf(archiver);
    expect(out.status.failing).toBe(failing);
    expect(out.problem?.reason).toBe(failing ? 'WalArchivingFailing' : undefined);
    expect(out.status.readySegments).toBe(archiver.readySegments);
  });
  it('names the segment, the times, what waits and where to look', () => {
    expect(
      walArchivingOf({
        archivedCount: 9,
        failedCount: 4,
        lastArchivedAt: '2026-12-07T01:00:00.000Z',
        lastFailedAt: '2026-12-07T01:05:00.000Z',
        lastFailedWal: '00000001000000000000000A',
        readySegments: 3,
      }).problem?.message,
    ).toBe(
      'WAL archiving fails (segment 00000001000000000000000A at 2026-12-07T01:05:00.000Z; the last success at 2026-12-07T01:00:00.000Z; 3 segment(s) waiting): the primary keeps them on its volume until they are archived — check the backup destination and its credentials Secret (kubectl logs of the primary name the error)',
    );
  });
});
