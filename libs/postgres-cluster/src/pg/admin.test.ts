import { closeAfterEach, freePort, startFakeTcpServer } from '@steward/testing';
import { type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFailure, pgAdmin, PgAdminError, type PgAdminOptions } from './admin.js';

type Behaviour = 'silent' | 'hang-up' | 'wrong-password' | 'stops-after-startup';

/**
 * A TCP listener that is no PostgreSQL: `silent` accepts and never answers (a SIGSTOPped server),
 * `hang-up` closes every connection at once, `wrong-password` answers the startup message with
 * the FATAL 28P01 ErrorResponse PostgreSQL sends for a wrong password, `stops-after-startup`
 * lets the client in (AuthenticationOk, ReadyForQuery) and then answers nothing.
 */
async function fakeServer(behaviour: Behaviour) {
  const started = new Set<Socket>();
  const server = await startFakeTcpServer((socket) => {
    if (behaviour === 'hang-up') {
      socket.destroy();
      return;
    }
    socket.on('data', () => {
      if (behaviour === 'wrong-password') {
        socket.end(
          errorResponse('FATAL', '28P01', 'password authentication failed for user "postgres"'),
        );
      } else if (behaviour === 'stops-after-startup' && !started.has(socket)) {
        started.add(socket);
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]));
      }
    });
  });
  return opened.own(server);
}

/** A protocol-3 ErrorResponse message. */
function errorResponse(severity: string, code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...(
      [
        ['S', severity],
        ['V', severity],
        ['C', code],
        ['M', message],
      ] as const
    ).map(([type, value]) => Buffer.from(`${type}${value}\0`)),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

const password = 's3cret-password';
const endpoint = (port: number) => ({ host: '127.0.0.1', port, user: 'postgres', password });
const opened = closeAfterEach(afterEach);
/** An admin closed after the test. */
const adminWith = (options: PgAdminOptions) => opened.own(pgAdmin(options));

describe('pgAdmin against sockets that are no PostgreSQL', () => {
  it('observes a closed port as unreachable (ECONNREFUSED), timed before it tried', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, queryTimeoutMs: 300 });
    const port = await freePort();
    const before = new Date().toISOString();
    const observation = await admin.observe(endpoint(port));
    expect(observation).toEqual({
      reachable: false,
      observedAt: expect.any(String),
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(observation.observedAt >= before).toBe(true);
  });

  it('observes a listener that never answers as a connect timeout, and tries afresh next time', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, queryTimeoutMs: 300 });
    const silent = await fakeServer('silent');
    const first = await admin.observe(endpoint(silent.port));
    expect(first).toMatchObject({ reachable: false, error: 'connect timed out after 300 ms' });
    const second = await admin.observe(endpoint(silent.port));
    expect(second).toMatchObject({ reachable: false, error: 'connect timed out after 300 ms' });
    expect(silent.sockets.length).toBe(2);
    // the connection given up on is really closed
    await silent.closedByClient(0);
  });

  it('observes a server that lets us in and then answers nothing as no reply, on a new connection next time', async () => {
    const admin = adminWith({ connectTimeoutMs: 1000, queryTimeoutMs: 300 });
    const server = await fakeServer('stops-after-startup');
    const first = await admin.observe(endpoint(server.port));
    expect(first).toMatchObject({
      reachable: false,
      error: 'no reply within 300 ms (server stopped or overloaded)',
    });
    const second = await admin.observe(endpoint(server.port));
    expect(second).toMatchObject({ reachable: false, error: first.reachable ? '' : first.error });
    // the wedged connection was dropped, not reused
    expect(server.sockets.length).toBe(2);
    await server.closedByClient(0);
  });

  it('observes a server that hangs up as unreachable', async () => {
    const admin = adminWith({ connectTimeoutMs: 1000, queryTimeoutMs: 1000 });
    const server = await fakeServer('hang-up');
    const observation = await admin.observe(endpoint(server.port));
    expect(observation).toMatchObject({
      reachable: false,
      error: expect.stringMatching(/closed before the server answered|ECONNRESET/),
    });
  });

  it('reports a wrong password as an authentication failure with its SQLSTATE, never the password', async () => {
    const admin = adminWith({ connectTimeoutMs: 1000, queryTimeoutMs: 1000 });
    const server = await fakeServer('wrong-password');
    const observation = await admin.observe(endpoint(server.port));
    expect(observation).toMatchObject({
      reachable: false,
      error:
        'authentication failed: password authentication failed for user "postgres" (SQLSTATE 28P01)',
    });
    const error = await admin.promote(endpoint(server.port)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PgAdminError);
    expect(error).toMatchObject({ kind: 'auth', code: '28P01' });
    expect((error as Error).message).toMatch(
      /^promote on 127\.0\.0\.1:\d+ failed: authentication failed/,
    );
    expect((error as Error).message).not.toContain(password);
  });

  it('throws a PgAdminError naming the server when alterSystem or bootstrap cannot reach it', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, queryTimeoutMs: 300 });
    const port = await freePort();
    await expect(admin.alterSystem(endpoint(port), { work_mem: '4MB' })).rejects.toThrow(
      new RegExp(`^alterSystem on 127\\.0\\.0\\.1:${port} failed: connect ECONNREFUSED`),
    );
    const error = await admin
      .bootstrap(endpoint(port), { database: 'app', owner: 'app', ownerPassword: 'pw' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PgAdminError);
    expect(error).toMatchObject({ kind: 'unreachable' });
    expect((error as PgAdminError).code).toBeUndefined();
  });

  it('refuses invalid input with a TypeError before connecting anywhere', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, queryTimeoutMs: 300 });
    const silent = await fakeServer('silent');
    const target = endpoint(silent.port);
    await expect(admin.alterSystem(target, { 'work-mem': '4MB' })).rejects.toThrow(TypeError);
    await expect(admin.alterSystem(target, { work_mem: '4MB\n' })).rejects.toThrow(TypeError);
    await expect(admin.alterSystem(target, {})).resolves.toEqual([]);
    for (const spec of [
      { database: 'App', owner: 'app', ownerPassword: 'pw' },
      { database: 'app', owner: 'a"b', ownerPassword: 'pw' },
      { database: 'app', owner: 'app', ownerPassword: '' },
      { database: 'app', owner: 'app', ownerPassword: 'pässword' },
    ]) {
      await expect(admin.bootstrap(target, spec)).rejects.toThrow(TypeError);
    }
    await expect(admin.promote(target, { waitSeconds: 0 })).rejects.toThrow(TypeError);
    await expect(admin.promote(target, { waitSeconds: 1.5 })).rejects.toThrow(TypeError);
    expect(silent.sockets.length).toBe(0);
  });

  it('ends an aborted observation at once', async () => {
    const admin = adminWith({ connectTimeoutMs: 5000, queryTimeoutMs: 5000 });
    const silent = await fakeServer('silent');
    const controller = new AbortController();
    const pending = admin.observe(endpoint(silent.port), { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ reachable: false, error: 'observation aborted' });
    expect(await admin.observe(endpoint(silent.port), { signal: controller.signal })).toMatchObject(
      { reachable: false, error: 'observation aborted' },
    );
  });

  it('closes every connection on close(), and reports later calls as closed', async () => {
    const admin = adminWith({ connectTimeoutMs: 5000, queryTimeoutMs: 5000 });
    const silent = await fakeServer('silent');
    const pending = admin.observe(endpoint(silent.port));
    await silent.accepted(1);
    const closing = Date.now();
    await admin.close();
    expect(await pending).toMatchObject({ reachable: false });
    // at once, not after the 5 s connect timeout
    expect(Date.now() - closing).toBeLessThan(2500);
    await silent.closedByClient(0);
    expect(await admin.observe(endpoint(silent.port))).toMatchObject({
      reachable: false,
      error: 'the PostgreSQL admin is closed',
    });
    await expect(admin.promote(endpoint(silent.port))).rejects.toMatchObject({ kind: 'closed' });
  });
});

describe('describeFailure', () => {
  const timeouts = { connectTimeoutMs: 1000, queryTimeoutMs: 2000 };
  const dbError = (severity: string, code: string, message: string) =>
    Object.assign(new pg.DatabaseError(message, 0, 'error'), { severity, code });
  const sysError = (message: string, code: string) => Object.assign(new Error(message), { code });

  it.each([
    [
      dbError('FATAL', '28P01', 'password authentication failed for user "x"'),
      'auth',
      /^authentication failed: .* \(SQLSTATE 28P01\)$/,
    ],
    [dbError('FATAL', '28000', 'no pg_hba.conf entry for host'), 'auth', /^authentication failed/],
    [
      dbError('ERROR', '57014', 'canceling statement due to statement timeout'),
      'timeout',
      /statement timeout \(SQLSTATE 57014\)/,
    ],
    [dbError('FATAL', '57P03', 'the database system is starting up'), 'unreachable', /starting up/],
    [
      dbError('FATAL', '57P01', 'terminating connection due to administrator command'),
      'unreachable',
      /57P01/,
    ],
    [dbError('ERROR', '42704', 'unrecognized configuration parameter "x"'), 'server', /42704/],
    [new Error('timeout expired'), 'timeout', /^connect timed out after 1000 ms$/],
    [new Error('Connection terminated due to connection timeout'), 'timeout', /^connect timed out/],
    [new Error('Query read timeout'), 'timeout', /^no reply within 2000 ms/],
    [sysError('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED'), 'unreachable', /ECONNREFUSED/],
    [sysError('connect EHOSTUNREACH 10.0.0.1:5432', 'EHOSTUNREACH'), 'unreachable', /EHOSTUNREACH/],
    [
      new Error('Connection terminated unexpectedly'),
      'unreachable',
      /closed before the server answered/,
    ],
    [new Error('something else'), 'server', /something else/],
  ] as const)('classifies %s as %s', (error, kind, reason) => {
    const failure = describeFailure(error, [password], timeouts);
    expect(failure.kind).toBe(kind);
    expect(failure.reason).toMatch(reason);
  });

  it('carries the SQLSTATE of a server error, and only then', () => {
    expect(describeFailure(dbError('ERROR', '42704', 'x'), [], timeouts).code).toBe('42704');
    expect('code' in describeFailure(new Error('timeout expired'), [], timeouts)).toBe(false);
  });

  it('scrubs every secret from the reason, even one a message would contain', () => {
    const failure = describeFailure(
      new Error(`weird ${password} and other-secret`),
      [password, 'other-secret', ''],
      timeouts,
    );
    expect(failure.reason).toBe('weird *** and ***');
  });
});
