import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFailure, redisAdmin, RedisAdminError, type RedisAdmin } from './admin.js';

/** A TCP listener that accepts connections and never answers: what a SIGSTOPped server looks like. */
async function silentServer(): Promise<{ port: number; sockets: Socket[]; server: Server }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    // read (and drop) what arrives, so the end of the stream is seen
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { port: address.port, sockets, server };
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await new Promise((resolve) => server.close(resolve));
  return address.port;
}

const password = 's3cret-password';
let admin: RedisAdmin | undefined;
const servers: { server: Server; sockets: Socket[] }[] = [];

afterEach(async () => {
  await admin?.close();
  admin = undefined;
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('redisAdmin against sockets that are no Redis', () => {
  it('observes a closed port as unreachable (ECONNREFUSED)', async () => {
    admin = redisAdmin({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const port = await closedPort();
    const observation = await admin.observe({ host: '127.0.0.1', port, password });
    expect(observation).toEqual({
      reachable: false,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('observes a listener that never answers as unreachable (no reply), without hanging', async () => {
    admin = redisAdmin({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const silent = await silentServer();
    servers.push(silent);
    const endpoint = { host: '127.0.0.1', port: silent.port, password };
    const first = await admin.observe(endpoint);
    expect(first).toEqual({ reachable: false, error: expect.stringMatching(/no reply within/) });
    // the next observation tries a fresh connection, and fails the same way
    const second = await admin.observe(endpoint);
    expect(second).toEqual({ reachable: false, error: expect.stringMatching(/no reply within/) });
    expect(silent.sockets.length).toBe(2);
    // ... and the dropped connections are really closed
    for (const socket of silent.sockets.slice(0, 1)) {
      await new Promise<void>((resolve) =>
        socket.readableEnded || socket.destroyed ? resolve() : socket.once('close', resolve),
      );
    }
  });

  it('throws a RedisAdminError naming the node (never the password) when promote cannot reach it', async () => {
    admin = redisAdmin({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const port = await closedPort();
    const error = await admin.promote({ host: '127.0.0.1', port, password }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisAdminError);
    expect((error as RedisAdminError).kind).toBe('unreachable');
    expect((error as Error).message).toContain(`REPLICAOF NO ONE on 127.0.0.1:${port} failed`);
    expect((error as Error).message).not.toContain(password);
  });

  it('ends an aborted observation at once', async () => {
    admin = redisAdmin({ connectTimeoutMs: 5_000, commandTimeoutMs: 5_000 });
    const silent = await silentServer();
    servers.push(silent);
    const controller = new AbortController();
    const pending = admin.observe(
      { host: '127.0.0.1', port: silent.port, password },
      { signal: controller.signal },
    );
    controller.abort();
    expect(await pending).toEqual({ reachable: false, error: 'observation aborted' });
    expect(
      await admin.observe(
        { host: '127.0.0.1', port: silent.port, password },
        { signal: controller.signal },
      ),
    ).toEqual({ reachable: false, error: 'observation aborted' });
  });

  it('closes every connection on close(), and reports later observations as closed', async () => {
    admin = redisAdmin({ connectTimeoutMs: 300, commandTimeoutMs: 5_000 });
    const silent = await silentServer();
    servers.push(silent);
    const pending = admin.observe({ host: '127.0.0.1', port: silent.port, password });
    await new Promise<void>((resolve) => {
      const poll = () => (silent.sockets.length ? resolve() : setTimeout(poll, 10));
      poll();
    });
    await admin.close();
    expect(await pending).toMatchObject({ reachable: false });
    await new Promise<void>((resolve) =>
      silent.sockets[0]!.destroyed || silent.sockets[0]!.readableEnded
        ? resolve()
        : silent.sockets[0]!.once('end', resolve),
    );
    expect(await admin.observe({ host: '127.0.0.1', port: silent.port, password })).toEqual({
      reachable: false,
      error: 'the Redis admin is closed',
    });
  });
});

describe('describeFailure', () => {
  const timeouts = { connectTimeoutMs: 1000, commandTimeoutMs: 2000 };
  const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

  it.each([
    [replyError('WRONGPASS invalid username-password pair or user is disabled.'), 'auth'],
    [replyError('NOAUTH Authentication required.'), 'auth'],
    [replyError('ERR invalid password'), 'auth'],
    [Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }), 'timeout'],
    [new Error('Command timed out'), 'timeout'],
    [
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:6379'), { code: 'ECONNREFUSED' }),
      'unreachable',
    ],
    [
      Object.assign(new Error('connect EHOSTUNREACH 10.0.0.1:6379'), { code: 'EHOSTUNREACH' }),
      'unreachable',
    ],
    [new Error('Connection is closed.'), 'unreachable'],
    [replyError('ERR unknown command'), 'command'],
  ] as const)('classifies %s as %s', (error, kind) => {
    const failure = describeFailure(error, password, timeouts);
    expect(failure.kind).toBe(kind);
    if (kind === 'auth') expect(failure.reason).toMatch(/^authentication failed: /);
  });

  it('names the timeouts it waited for', () => {
    expect(
      describeFailure(
        Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }),
        '',
        timeouts,
      ).reason,
    ).toBe('connect timed out after 1000 ms');
    expect(describeFailure(new Error('Command timed out'), '', timeouts).reason).toBe(
      'no reply within 2000 ms (node stopped or overloaded)',
    );
  });

  it('scrubs the password out of any message', () => {
    const failure = describeFailure(
      new Error(`ERR something about ${password} here`),
      password,
      timeouts,
    );
    expect(failure.reason).toBe('ERR something about *** here');
  });
});
