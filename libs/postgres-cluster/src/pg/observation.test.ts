import { describe, expect, it } from 'vitest';
import { observationFromRows, type TextRow } from './observation.js';

const observedAt = '2026-01-02T03:04:05.000Z';

/** The facts row a primary on timeline 1 sends. */
const primaryFacts: TextRow = {
  system_identifier: '7714618587154883085',
  postmaster_start_time: '2026-01-02T04:00:00.123456+01:00',
  server_version: '170012',
  in_recovery: 'false',
  current_lsn: '0/3000148',
  walfile: '000000010000000000000003',
  receive_lsn: null,
  replay_lsn: null,
  replay_paused: null,
  checkpoint_timeline: '1',
  primary_conninfo: '',
  synchronous_standby_names: 'ANY 1 (s1, s2)',
  pending_restart: '[]',
};

const standbyFacts: TextRow = {
  ...primaryFacts,
  in_recovery: 'true',
  current_lsn: null,
  walfile: null,
  receive_lsn: '0/3000148',
  replay_lsn: '0/3000060',
  replay_paused: 'false',
  checkpoint_timeline: '1',
  primary_conninfo: 'user=postgres passfile=/tmp/pgpass host=10.1.2.3 port=5432',
  synchronous_standby_names: '',
  pending_restart: '["max_connections","shared_buffers"]',
};

const streaming: TextRow = {
  status: 'streaming',
  sender_host: '10.1.2.3',
  sender_port: '5432',
  received_tli: '2',
  flushed_lsn: '0/3000148',
  latest_end_lsn: '0/3000148',
  last_msg_receipt_time: '2026-01-02T03:04:04.5+00:00',
};

describe('observationFromRows', () => {
  it('reads a primary: current LSN, timeline from its WAL file name, walsenders in order', () => {
    const o = observationFromRows(
      observedAt,
      { ...primaryFacts, walfile: '0000000A0000000000000003' },
      [
        {
          application_name: 's1',
          client_addr: '10.1.2.4',
          state: 'streaming',
          sent_lsn: '0/3000148',
          write_lsn: '0/3000148',
          flush_lsn: '0/3000148',
          replay_lsn: '0/3000060',
          sync_state: 'quorum',
          reply_time: '2026-01-02T03:04:05.25+00:00',
        },
        {
          application_name: 's2',
          client_addr: null,
          state: 'catchup',
          sent_lsn: null,
          write_lsn: null,
          flush_lsn: null,
          replay_lsn: null,
          sync_state: 'async',
          reply_time: null,
        },
      ],
      [],
    );
    expect(o).toEqual({
      reachable: true,
      observedAt,
      systemIdentifier: '7714618587154883085',
      postmasterStartTime: '2026-01-02T03:00:00.123Z',
      serverVersion: 170012,
      inRecovery: false,
      timeline: 10,
      currentLsn: 0x3000148n,
      replication: [
        {
          applicationName: 's1',
          clientAddr: '10.1.2.4',
          state: 'streaming',
          sentLsn: 0x3000148n,
          writeLsn: 0x3000148n,
          flushLsn: 0x3000148n,
          replayLsn: 0x3000060n,
          syncState: 'quorum',
          replyTime: '2026-01-02T03:04:05.250Z',
        },
        // absent, not undefined: nothing the server did not say
        { applicationName: 's2', state: 'catchup', syncState: 'async' },
      ],
      primaryConninfo: '',
      synchronousStandbyNames: 'ANY 1 (s1, s2)',
      pendingRestart: [],
    });
    expect(Object.keys(o.replication[1]!)).toEqual(['applicationName', 'state', 'syncState']);
    expect('receiveLsn' in o).toBe(false);
    expect('walReceiver' in o).toBe(false);
  });

  it('reads a streaming standby: receive/replay LSNs, the timeline its receiver streams', () => {
    const o = observationFromRows(observedAt, standbyFacts, [], [streaming]);
    expect(o).toMatchObject({
      inRecovery: true,
      timeline: 2,
      receiveLsn: 0x3000148n,
      replayLsn: 0x3000060n,
      replayPaused: false,
      walReceiver: {
        status: 'streaming',
        senderHost: '10.1.2.3',
        senderPort: 5432,
        receivedTli: 2,
        flushedLsn: 0x3000148n,
        latestEndLsn: 0x3000148n,
        lastMessageReceiptTime: '2026-01-02T03:04:04.500Z',
      },
      primaryConninfo: 'user=postgres passfile=/tmp/pgpass host=10.1.2.3 port=5432',
      pendingRestart: ['max_connections', 'shared_buffers'],
    });
    expect('currentLsn' in o).toBe(false);
  });

  it('takes the checkpoint timeline of a standby whose receiver is not streaming, or absent', () => {
    const facts = { ...standbyFacts, checkpoint_timeline: '3' };
    expect(
      observationFromRows(observedAt, facts, [], [{ ...streaming, status: 'waiting' }]).timeline,
    ).toBe(3);
    const none = observationFromRows(observedAt, { ...facts, receive_lsn: null }, [], []);
    expect(none.timeline).toBe(3);
    expect('receiveLsn' in none).toBe(false);
    expect('walReceiver' in none).toBe(false);
  });

  it('reports a paused replay', () => {
    const o = observationFromRows(observedAt, { ...standbyFacts, replay_paused: 'true' }, [], []);
    expect(o.replayPaused).toBe(true);
  });

  it.each([
    ['no in_recovery', { ...primaryFacts, in_recovery: null }],
    ['a primary without a WAL file', { ...primaryFacts, walfile: null }],
    ['a malformed WAL file name', { ...primaryFacts, walfile: '00000001' }],
    ['a malformed LSN', { ...primaryFacts, current_lsn: 'nope' }],
    ['a malformed version', { ...primaryFacts, server_version: '17.1' }],
    ['a malformed start time', { ...primaryFacts, postmaster_start_time: 'yesterday' }],
    ['a malformed pending_restart', { ...primaryFacts, pending_restart: '{a}' }],
    ['pending_restart not of names', { ...primaryFacts, pending_restart: '[1]' }],
  ])('throws on %s', (_, facts) => {
    expect(() => observationFromRows(observedAt, facts, [], [])).toThrow();
  });
});

describe('the WAL archiver of a primary', () => {
  const facts = (archiver: string | null) => ({
    system_identifier: '7714618587154883085',
    postmaster_start_time: '2026-01-02 03:00:00.123+00',
    server_version: '170012',
    in_recovery: 'false',
    current_lsn: '0/3000148',
    walfile: '000000010000000000000003',
    checkpoint_timeline: '1',
    primary_conninfo: '',
    synchronous_standby_names: '',
    pending_restart: '[]',
    archiver,
  });
  it('reads the counts, the times, the failed segment and the segments waiting', () => {
    const o = observationFromRows(
      '2026-01-02T03:04:05.000Z',
      facts(
        '{"archived" : 12, "failed" : 3, "lastArchivedAt" : "2026-01-02T03:00:01.5+00:00", "lastFailedAt" : "2026-01-02T03:04:00+00:00", "lastFailedWal" : "00000001000000000000000D", "ready" : 4}',
      ),
      [],
      [],
    );
    expect(o.archiver).toEqual({
      archivedCount: 12,
      failedCount: 3,
      lastArchivedAt: '2026-01-02T03:00:01.500Z',
      lastFailedAt: '2026-01-02T03:04:00.000Z',
      lastFailedWal: '00000001000000000000000D',
      readySegments: 4,
    });
  });
  it('a server that never archived: counts of 0, no times', () => {
    const o = observationFromRows(
      '2026-01-02T03:04:05.000Z',
      facts(
        '{"archived" : 0, "failed" : 0, "lastArchivedAt" : null, "lastFailedAt" : null, "lastFailedWal" : null, "ready" : 0}',
      ),
      [],
      [],
    );
    expect(o.archiver).toEqual({ archivedCount: 0, failedCount: 0, readySegments: 0 });
  });
  it('a standby has none', () => {
    expect('archiver' in observationFromRows('2026-01-02T03:04:05.000Z', facts(null), [], [])).toBe(
      false,
    );
  });
});

describe('the timeline of a standby that does not stream', () => {
  const standby = (checkpoint: string, received: string | null) =>
    observationFromRows(
      '2026-01-02T03:04:05.000Z',
      {
        system_identifier: '7714618587154883085',
        postmaster_start_time: '2026-01-02 03:00:00.123+00',
        server_version: '170012',
        in_recovery: 'true',
        receive_lsn: '0/5000000',
        replay_lsn: '0/5000000',
        replay_paused: 'false',
        checkpoint_timeline: checkpoint,
        received_timeline: received,
        primary_conninfo: '',
        synchronous_standby_names: '',
        pending_restart: '[]',
      },
      [],
      [],
    ).timeline;
  it('is the newest timeline of the WAL it holds: its restartpoint may predate the promotion it followed', () => {
    expect(standby('1', '00000002')).toBe(2);
  });
  it('is its restartpoint’s when its WAL is older (or none is listed)', () => {
    expect(standby('3', '00000002')).toBe(3);
    expect(standby('1', null)).toBe(1);
  });
});
