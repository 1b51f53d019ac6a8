import { closeAfterEach, freePort, startFakeTcpServer } from '@steward/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFailure, redisAdmin, RedisAdminError, type RedisAdminOptions } from './admin.js';

const password = 's3cret-password';
const opened = closeAfterEach(afterEach);
/** An admin closed after the test. */
const adminWith = (options: RedisAdminOptions) => opened.own(redisAdmin(options));
/** A listener that accepts connections and never answers: what a SIGSTOPped server looks like. */
const silentServer = async () => opened.own(await startFakeTcpServer());

describe('redisAdmin against sockets that are no Redis', () => {
  it('observes a closed port as unreachable (ECONNREFUSED)', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const port = await freePort();
    const observation = await admin.observe({ host: '127.0.0.1', port, password });
    expect(observation).toEqual({
      reachable: false,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('observes a listener that never answers as unreachable (no reply), without hanging', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const silent = await silentServer();
    const endpoint = { host: '127.0.0.1', port: silent.port, password };
    const first = await admin.observe(endpoint);
    expect(first).toEqual({ reachable: false, error: expect.stringMatching(/no reply within/) });
    // the next observation tries a fresh connection, and fails the same way
    const second = await admin.observe(endpoint);
    expect(second).toEqual({ reachable: false, error: expect.stringMatching(/no reply within/) });
    expect(silent.sockets.length).toBe(2);
    // ... and the dropped connections are really closed
    await silent.closedByClient(0);
  });

  it('throws a RedisAdminError naming the node (never the password) when promote cannot reach it', async () => {
    const admin = adminWith({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    const port = await freePort();
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
    const admin = adminWith({ connectTimeoutMs: 5_000, commandTimeoutMs: 5_000 });
    const silent = await silentServer();
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
    const admin = adminWith({ connectTimeoutMs: 300, commandTimeoutMs: 5_000 });
    const silent = await silentServer();
    const pending = admin.observe({ host: '127.0.0.1', port: silent.port, password });
    await silent.accepted(1);
    await admin.close();
    expect(await pending).toMatchObject({ reachable: false });
    await silent.closedByClient(0);
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
