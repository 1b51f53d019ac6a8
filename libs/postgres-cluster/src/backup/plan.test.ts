import { type BackupRecord } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import { backupId, backupIdTime, backupJobName, segmentNumberOf, walSegmentOf } from './layout.js';
import {
  dueBackup,
  expiredWal,
  parseSchedule,
  planBackupJob,
  retention,
  type BackupJobFacts,
} from './plan.js';

const cron = (text: string) => {
  const parsed = parseSchedule(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};
const at = (iso: string) => new Date(iso);

const backup = (id: string, completedAt: string, startLsn = '0/2000028'): BackupRecord => ({
  id,
  startedAt: completedAt,
  completedAt,
  sizeBytes: 1,
  startLsn,
  stopLsn: startLsn,
  timeline: 1,
  systemIdentifier: '7714618587154883085',
  serverVersion: 170012,
});

describe('backup schedule', () => {
  it('is due at the newest scheduled time since the last backup, once however many were missed', () => {
    const daily = cron('0 3 * * *');
    expect(dueBackup(daily, at('2026-12-01T03:00:00Z'), at('2026-12-01T12:00:00Z'))).toEqual({
      next: at('2026-12-02T03:00:00Z'),
    });
    // Three days missed: one backup, for the newest due time.
    expect(dueBackup(daily, at('2026-12-01T03:00:00Z'), at('2026-12-04T04:00:00Z'))).toEqual({
      due: at('2026-12-04T03:00:00Z'),
      next: at('2026-12-05T03:00:00Z'),
    });
    // Exactly at the due time.
    expect(dueBackup(daily, at('2026-12-01T03:00:00Z'), at('2026-12-02T03:00:00Z')).due).toEqual(
      at('2026-12-02T03:00:00Z'),
    );
  });

  it('takes the newest of more missed runs than it looks through', () => {
    const everyMinute = cron('* * * * *');
    const { due, next } = dueBackup(
      everyMinute,
      at('2026-01-01T00:00:00Z'),
      at('2026-12-01T10:30:30Z'),
    );
    expect(due).toEqual(at('2026-12-01T10:30:00Z'));
    expect(next).toEqual(at('2026-12-01T10:31:00Z'));
  });

  it('refuses what is not a five-field cron expression, saying why', () => {
    expect(parseSchedule('0 3 * *')).toMatchObject({ error: expect.any(String) });
    expect(parseSchedule('61 * * * *')).toMatchObject({ error: expect.any(String) });
    expect(parseSchedule('*/15 * * * 1-5')).not.toHaveProperty('error');
  });
});

describe('retention', () => {
  const now = at('2026-12-10T12:00:00Z');
  const b1 = backup('20261201T030000Z', '2026-12-01T03:01:00Z', '0/1000028');
  const b2 = backup('20261205T030000Z', '2026-12-05T03:01:00Z', '0/5000028');
  const b3 = backup('20261208T030000Z', '2026-12-08T03:01:00Z', '0/9000028');
  const b4 = backup('20261210T030000Z', '2026-12-10T03:01:00Z', '0/D000028');

  it('keeps the window and the newest backup before it; the older ones expire', () => {
    expect(retention([b3, b1, b4, b2], 3, now)).toEqual({ keep: [b2, b3, b4], expire: [b1] });
    expect(retention([b1, b2, b3, b4], 30, now)).toEqual({ keep: [b1, b2, b3, b4], expire: [] });
  });

  it('never expires the newest backup, even when all are older than the window', () => {
    expect(retention([b1, b2], 1, now)).toEqual({ keep: [b2], expire: [b1] });
    expect(retention([], 1, now)).toEqual({ keep: [], expire: [] });
  });

  it('expires the WAL before the oldest backup kept, on any timeline, and never history files', () => {
    const files = [
      '000000010000000000000003.gz',
      '000000010000000000000004.gz',
      '000000010000000000000005.gz',
      '000000020000000000000004.partial.gz',
      '00000002.history.gz',
      '000000020000000000000006.gz',
    ];
    expect(expiredWal(files, [b2, b3])).toEqual([
      '000000010000000000000003.gz',
      '000000010000000000000004.gz',
      '000000020000000000000004.partial.gz',
    ]);
    expect(expiredWal(files, [])).toEqual([]);
  });
});

describe('backup names', () => {
  it('names a backup by its due time, and its Job within 63 characters, the same for the same time', () => {
    const due = at('2026-12-03T03:00:00.000Z');
    expect(backupId(due)).toBe('20261203T030000Z');
    expect(backupIdTime('20261203T030000Z')).toEqual(due);
    expect(() => backupIdTime('latest')).toThrow(/not a backup id/);
    const longest = 'a'.repeat(48);
    expect(backupJobName(longest, due).length).toBeLessThanOrEqual(63);
    expect(backupJobName(longest, at('2100-01-01T00:00:00Z')).length).toBeLessThanOrEqual(63);
    expect(backupJobName('keeps', due)).toBe(backupJobName('keeps', new Date(due)));
  });

  it('names WAL segments as PostgreSQL does, and reads their numbers back', () => {
    expect(walSegmentOf(1, 0x2000028n)).toBe('000000010000000000000002');
    expect(walSegmentOf(3, 0x1_2300_0000n)).toBe('000000030000000100000023');
    expect(segmentNumberOf('000000030000000100000023.gz')).toBe(0x123n);
    expect(segmentNumberOf('00000002.history.gz')).toBeUndefined();
  });
});

describe('planBackupJob', () => {
  const now = new Date('2026-12-07T03:10:30Z');
  const base: BackupJobFacts = {
    cluster: 'db',
    createdAt: new Date('2026-12-01T00:00:00Z'),
    systemIdentifier: '7',
    cron: parseSchedule('0 3 * * *') as Exclude<
      ReturnType<typeof parseSchedule>,
      { error: string }
    >,
    jobs: [],
    requests: [],
    anyBackup: false,
    primaryReady: true,
    now,
  };
  const job = (due: string, extra: Partial<BackupJobFacts['jobs'][number]> = {}) => ({
    name: backupJobName('db', new Date(due)),
    finished: true,
    backupId: backupId(new Date(due)),
    ...extra,
  });
  const cases: {
    name: string;
    facts: Partial<BackupJobFacts>;
    create?: { due: string; reason: string; requestedBy?: string };
    requeueAfterMs?: number;
  }[] = [
    {
      name: 'the first backup of a system as soon as the primary serves',
      facts: {},
      create: { due: '2026-12-07T03:10:30.000Z', reason: 'Initial' },
      requeueAfterMs: 5000,
    },
    {
      name: 'nothing while the primary does not serve',
      facts: { primaryReady: false },
    },
    {
      name: 'one Job at a time: none while one runs',
      facts: { jobs: [job('2026-12-07T03:00:00Z', { finished: false })] },
      requeueAfterMs: 5000,
    },
    {
      name: 'a due run is taken once, at its due time',
      facts: { jobs: [job('2026-12-06T03:00:00Z')], anyBackup: true },
      create: { due: '2026-12-07T03:00:00.000Z', reason: 'Scheduled' },
      requeueAfterMs: 5000,
    },
    {
      name: 'several missed runs: only the newest',
      facts: { jobs: [job('2026-12-02T03:00:00Z')], anyBackup: true },
      create: { due: '2026-12-07T03:00:00.000Z', reason: 'Scheduled' },
      requeueAfterMs: 5000,
    },
    {
      name: 'nothing due: look again at the next due time',
      facts: { jobs: [job('2026-12-07T03:00:00Z')], anyBackup: true },
      requeueAfterMs: Date.parse('2026-12-08T03:00:00Z') - now.getTime(),
    },
    {
      name: 'lastScheduleTime counts as a run even when its Job is gone',
      facts: { lastScheduleTime: '2026-12-07T03:00:00.000Z', anyBackup: true },
      requeueAfterMs: Date.parse('2026-12-08T03:00:00Z') - now.getTime(),
    },
    {
      name: 'a PostgresBackup goes before the schedule',
      facts: {
        jobs: [job('2026-12-06T03:00:00Z')],
        anyBackup: true,
        requests: [{ name: 'now', due: new Date('2026-12-07T03:05:00Z') }],
      },
      create: { due: '2026-12-07T03:05:00.000Z', reason: 'PostgresBackup now', requestedBy: 'now' },
      requeueAfterMs: 5000,
    },
    {
      name: 'a PostgresBackup whose Job exists is not started again',
      facts: {
        jobs: [job('2026-12-07T03:00:00Z'), job('2026-12-07T03:05:00Z')],
        anyBackup: true,
        requests: [{ name: 'now', due: new Date('2026-12-07T03:05:00Z') }],
      },
      requeueAfterMs: Date.parse('2026-12-08T03:00:00Z') - now.getTime(),
    },
    {
      name: 'a PostgresBackup waits for a serving primary too',
      facts: { primaryReady: false, requests: [{ name: 'now', due: now }] },
    },
    {
      name: "another system's Jobs do not count (a major upgrade's first backup is due at once)",
      facts: { jobs: [job('2026-12-07T03:00:00Z', { systemIdentifier: '6' })], anyBackup: false },
      create: { due: '2026-12-07T03:10:30.000Z', reason: 'Initial' },
      requeueAfterMs: 5000,
    },
    {
      name: 'Jobs without the system label count as this system’s',
      facts: { jobs: [job('2026-12-07T03:00:00Z')], anyBackup: false },
      requeueAfterMs: Date.parse('2026-12-08T03:00:00Z') - now.getTime(),
    },
    {
      name: 'a schedule that is not cron starts nothing (the condition says why)',
      facts: { cron: { error: 'bad' }, anyBackup: true },
    },
    {
      name: 'never caught up from creation: the newest due time since the cluster was made',
      facts: { anyBackup: true },
      create: { due: '2026-12-07T03:00:00.000Z', reason: 'Scheduled' },
      requeueAfterMs: 5000,
    },
  ];
  it.each(cases)('$name', ({ facts, create, requeueAfterMs }) => {
    const plan = planBackupJob({ ...base, ...facts });
    expect(
      plan.create
        ? {
            due: plan.create.due.toISOString(),
            reason: plan.create.reason,
            ...(plan.create.requestedBy ? { requestedBy: plan.create.requestedBy } : {}),
          }
        : undefined,
    ).toEqual(create);
    expect(plan.requeueAfterMs).toBe(requeueAfterMs);
  });
});
